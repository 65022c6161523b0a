export function formatTokens(n: number | bigint): string {
  const v = Number(n);
  if (v >= 1_000_000) return `${(v / 1_000_000).toFixed(1)}m`;
  if (v >= 10_000) return `${Math.round(v / 1000)}k`;
  if (v >= 1000) return `${(v / 1000).toFixed(1)}k`;
  return String(v);
}

export function formatCost(c: number): string {
  return `$${c.toFixed(4)}`;
}

export function formatBytes(n: number | bigint): string {
  const v = Number(n);
  if (v >= 1 << 20) return `${(v / (1 << 20)).toFixed(1)} MB`;
  if (v >= 1 << 10) return `${(v / (1 << 10)).toFixed(1)} kB`;
  return `${v} B`;
}

export function formatDate(ms: number | bigint): string {
  const d = new Date(Number(ms));
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** base64 encodes bytes (screenshots) for a data: URL. */
export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** formatModelPrices is a model's price per million tokens, or "price unknown": never a made-up $0. */
export function formatModelPrices(m: { pricesKnown: boolean; inputPrice: number; outputPrice: number; cacheReadPrice: number }): string {
  if (!m.pricesKnown) return "price unknown";
  if (m.inputPrice === 0 && m.outputPrice === 0) return "free";
  const cache = m.cacheReadPrice > 0 ? ` · cache $${m.cacheReadPrice}` : "";
  return `$${m.inputPrice} in · $${m.outputPrice} out${cache} /M`;
}

/** Priced is what the one cost rule needs to know about a task (or part of one). */
export interface Priced {
  cost: number;
  pricesKnown: boolean;
  tokensIn: bigint;
  tokensOut: bigint;
}

/** UNKNOWN_PRICE is what every view shows for a cost that is not known. */
export const UNKNOWN_PRICE = "price unknown";

/**
 * costKnown is the one rule for every cost the webview shows: a cost is known when the model's
 * prices are, when the provider reported one, or when nothing was used yet.
 */
export function costKnown(t: Priced): boolean {
  return t.pricesKnown || t.cost > 0 || t.tokensIn + t.tokensOut === 0n;
}

/**
 * costOrUnknown is a task's cost when it is known, otherwise "price unknown": "$0.0000" would
 * claim that work was free. The header, Recent tasks, History and the limits row all use it.
 */
export function costOrUnknown(t: Priced): string {
  return costKnown(t) ? formatCost(t.cost) : UNKNOWN_PRICE;
}
