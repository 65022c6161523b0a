// Shopping cart helpers used by the checkout page.
import { formatPrice } from './money.js';

const TAX_RATE = 0.2;

export class Cart {
  constructor(items = []) {
    this.items = items;
  }

  add(item, quantity = 1) {
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += quantity;
    } else {
      this.items.push({ ...item, quantity });
    }
  }

  get subtotal() {
    return this.items.reduce((sum, i) => sum + i.price * i.quantity, 0);
  }

  onChange = (listener) => {
    this.listener = listener;
  };
}

export function totalWithTax(cart) {
  return cart.subtotal * (1 + TAX_RATE);
}

function* lineItems(cart) {
  for (const item of cart.items) {
    yield `${item.name} x${item.quantity}`;
  }
}

export const describe = (cart) => {
  return [...lineItems(cart)].join('\n') + '\n' + formatPrice(totalWithTax(cart));
};

var legacyTotal = function (cart) {
  return cart.subtotal;
};
