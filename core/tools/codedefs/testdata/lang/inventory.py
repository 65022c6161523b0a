"""Inventory tracking for a small warehouse."""
from dataclasses import dataclass, field
from typing import Iterator


@dataclass
class Item:
    sku: str
    name: str
    quantity: int = 0


class Inventory:
    """Holds items by SKU."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        existing = self._items.get(item.sku)
        if existing:
            existing.quantity += item.quantity
        else:
            self._items[item.sku] = item

    @property
    def total(self) -> int:
        return sum(i.quantity for i in self._items.values())

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items.values())

    class Snapshot:
        def __init__(self, inventory: "Inventory") -> None:
            self.items = list(inventory)


def low_stock(inventory: Inventory, threshold: int = 5) -> list[Item]:
    return [i for i in inventory if i.quantity < threshold]


async def sync_remote(inventory: Inventory, client) -> int:
    sent = 0
    for item in inventory:
        await client.put(item.sku, item.quantity)
        sent += 1
    return sent


if __name__ == "__main__":
    inv = Inventory()
    inv.add(Item("A1", "bolt", 3))
    print(low_stock(inv))
