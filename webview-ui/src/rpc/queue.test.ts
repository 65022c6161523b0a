// AsyncQueue keeps no item it has handed out: a stream's first item is a whole task's snapshot,
// and a queue lives as long as its stream (or longer, where an ended stream is held on to).

import { describe, expect, it } from "vitest";
import { AsyncQueue } from "./queue";

/** held lists what the queue still references (its buffer is private). */
const held = <T,>(q: AsyncQueue<T>): unknown[] => (q as unknown as { items: unknown[] }).items.filter((x) => x !== undefined);

describe("AsyncQueue", () => {
  it("hands items out in order and lets go of each one it handed out", async () => {
    const q = new AsyncQueue<{ n: number }>();
    const items = [{ n: 1 }, { n: 2 }, { n: 3 }];
    items.forEach((x) => q.push(x));
    const it = q[Symbol.asyncIterator]();
    expect((await it.next()).value).toBe(items[0]);
    expect(held(q)).toEqual([items[1], items[2]]);
    expect((await it.next()).value).toBe(items[1]);
    expect((await it.next()).value).toBe(items[2]);
    expect(held(q)).toEqual([]);
    q.end();
    expect((await it.next()).done).toBe(true);
    expect(held(q)).toEqual([]);
  });

  it("keeps none of a long stream's consumed items", async () => {
    const q = new AsyncQueue<number[]>();
    const it = q[Symbol.asyncIterator]();
    for (let i = 0; i < 3000; i++) q.push([i]);
    for (let i = 0; i < 2999; i++) expect((await it.next()).value).toEqual([i]);
    expect(held(q)).toEqual([[2999]]);
  });
});
