// changedRange finds the smallest replacement turning a into b, so streaming updates of a diff
// view touch only the lines being written (cheap edits, no flicker, undo stays sensible).

export interface TextChange {
  /** Offsets into a. */
  start: number;
  end: number;
  text: string;
}

export function changedRange(a: string, b: string): TextChange | undefined {
  if (a === b) return undefined;
  const max = Math.min(a.length, b.length);
  let p = 0;
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  // Never split a surrogate pair or a CRLF.
  while (p > 0 && (isLowSurrogate(a.charCodeAt(p)) || (a[p - 1] === "\r" && a[p] === "\n"))) p--;
  while (s > 0 && (isLowSurrogate(a.charCodeAt(a.length - s)) || (a[a.length - s - 1] === "\r" && a[a.length - s] === "\n"))) s--;
  return { start: p, end: a.length - s, text: b.slice(p, b.length - s) };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
