import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, fireEvent, screen, within } from "@testing-library/react";
import { AskResponse, TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { added, appended, ask, AskKind, say, SayKind, snapshot, stateChanged } from "../test/fixtures";
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

// The user's own send, answer or approval brings the end into view and follows the stream
// again, even when they had scrolled up; switching tasks keeps each task's own place
// (util/scrollMemory.ts).
describe("the chat follows the user's own actions", () => {
  const resized = (scroller: HTMLElement) => act(() => observers.filter((o) => o.target === scroller).forEach((o) => o.cb()));

  it("a message sent while scrolled up brings the end into view, and what the task does next is followed", async () => {
    const { scroller, push, user, fake } = await setup();
    fake.on(TaskService.method.sendMessage, () => ({}));
    scrollTo(scroller, 900);
    await screen.findByRole("button", { name: "Jump to latest" });
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "tests{Enter}");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ text: "tests" }]);
    expect(scroller.scrollTop).toBe(2000);
    expect(screen.queryByRole("button", { name: "Jump to latest" })).toBeNull();
    // The task goes on: its new rows are followed.
    await push(added(say(2, SayKind.USER_FEEDBACK, { text: "tests" })), added(say(3, SayKind.TEXT, { text: "on it" })));
    geometry(scroller, 2600, 400);
    resized(scroller);
    expect(scroller.scrollTop).toBe(2600);
  });

  it("Approve pressed while scrolled up brings the end into view", async () => {
    const { scroller, push, user, fake } = await setup();
    fake.on(TaskService.method.answerAsk, () => ({}));
    scrollTo(scroller, 900);
    await push(
      added(ask(2, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.READ_FILE, path: "src/a.ts" } } })),
      stateChanged({ status: TaskStatus.WAITING, openAskIndex: 2 }),
    );
    // Scrolled up and nothing done: the question does not pull the list down.
    expect(scroller.scrollTop).toBe(900);
    await user.click(screen.getByRole("button", { name: "Approve" }));
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ response: AskResponse.APPROVE, messageIndex: 2 }]);
    expect(scroller.scrollTop).toBe(2000);
    expect(screen.queryByRole("button", { name: "Jump to latest" })).toBeNull();
  });

  it("an option chosen while scrolled up brings the end into view", async () => {
    const { scroller, push, user, fake } = await setup();
    fake.on(TaskService.method.answerAsk, () => ({}));
    await push(
      added(ask(2, AskKind.FOLLOWUP, { payload: { case: "followup", value: { question: "Which DB?", options: ["Postgres", "SQLite"] } } })),
      stateChanged({ status: TaskStatus.WAITING, openAskIndex: 2 }),
    );
    scrollTo(scroller, 900);
    await user.click(within(screen.getByRole("group", { name: "Answer options" })).getByRole("button", { name: "SQLite" }));
    expect(scroller.scrollTop).toBe(2000);
    expect(screen.queryByRole("button", { name: "Jump to latest" })).toBeNull();
  });

  it("scrolled up and nothing done: streamed text, new rows and a smaller viewport leave the list where it is", async () => {
    const { scroller, push } = await setup();
    scrollTo(scroller, 900);
    await push(appended(1, " and more"), added(say(2, SayKind.TEXT, { text: "next" })), stateChanged({ status: TaskStatus.RUNNING }));
    geometry(scroller, 2600, 300);
    resized(scroller);
    expect(scroller.scrollTop).toBe(900);
    expect(screen.getByRole("button", { name: "Jump to latest" })).toBeTruthy();
  });
});
