import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, fireEvent, screen } from "@testing-library/react";
import { added, say, SayKind, snapshot } from "../test/fixtures";
import { renderApp } from "../test/renderApp";

// A ResizeObserver whose callbacks the test fires, standing in for the viewport shrinking.
const observers: { cb: () => void; target: Element }[] = [];
class CapturingRO {
  constructor(private cb: () => void) {}
  observe(target: Element) {
    observers.push({ cb: this.cb, target });
  }
  unobserve() {}
  disconnect() {}
}
const g = globalThis as unknown as { ResizeObserver: unknown };
let saved: unknown;
beforeEach(() => {
  saved = g.ResizeObserver;
  g.ResizeObserver = CapturingRO;
  observers.length = 0;
});
afterEach(() => {
  g.ResizeObserver = saved;
});

/** geometry fakes the scroller's layout, which jsdom does not compute. */
function geometry(el: HTMLElement, scrollHeight: number, clientHeight: number) {
  Object.defineProperty(el, "scrollHeight", { configurable: true, get: () => scrollHeight });
  Object.defineProperty(el, "clientHeight", { configurable: true, get: () => clientHeight });
}

function scrollTo(el: HTMLElement, top: number) {
  el.scrollTop = top;
  fireEvent.scroll(el);
}

async function setup() {
  const app = await renderApp({ taskId: "t1" });
  await app.push(snapshot([say(0, SayKind.TASK, { text: "t" }), say(1, SayKind.TEXT, { text: "working" })]));
  const scroller = screen.getByTestId("virtuoso-scroller");
  geometry(scroller, 2000, 400);
  scrollTo(scroller, 1600);
  return { ...app, scroller };
}

describe("the chat follows the work", () => {
  it("offers no jump button while at the bottom", async () => {
    await setup();
    expect(screen.queryByRole("button", { name: "Jump to latest" })).toBeNull();
  });

  it("keeps the end in view when the viewport shrinks while following", async () => {
    const { scroller } = await setup();
    geometry(scroller, 2000, 300);
    act(() => observers.filter((o) => o.target === scroller).forEach((o) => o.cb()));
    expect(scroller.scrollTop).toBe(2000);
  });

  it("stays put once the user scrolled up, and Jump to latest returns to the end", async () => {
    const { scroller, push } = await setup();
    scrollTo(scroller, 900);
    const jump = await screen.findByRole("button", { name: "Jump to latest" });
    await push(added(say(2, SayKind.TEXT, { text: "more" })));
    geometry(scroller, 2400, 300);
    act(() => observers.filter((o) => o.target === scroller).forEach((o) => o.cb()));
    expect(scroller.scrollTop).toBe(900);
    fireEvent.click(jump);
    expect(scroller.scrollTop).toBe(2400);
    expect(screen.queryByRole("button", { name: "Jump to latest" })).toBeNull();
  });
});
