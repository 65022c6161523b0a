// The task strip (README, "Several tasks at once"): a second task starts while the first runs,
// in a worktree; the strip switches between them without losing either stream; a hidden
// task's deltas render nothing; a question in the background raises the badge and a notice.

import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, within } from "@testing-library/react";
import { AskResponse, TaskService, TaskStatus, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { FakeStream } from "../rpc/fake";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { added, appended, ask, AskKind, say, SayKind, snapshot, stateChanged, updated } from "../test/fixtures";
import { flushAsync, renderApp } from "../test/renderApp";

async function twoTasks() {
  const app = await renderApp({ taskId: "t1" });
  await app.push(snapshot([say(0, SayKind.TASK, { text: "first task" }), say(1, SayKind.TEXT, { text: "working on it", partial: true })], { taskId: "t1", title: "First" }));
  const first = app.fake.lastStream(UiService.method.subscribe) as FakeStream;
  await app.user.click(screen.getByRole("button", { name: "New Task" }));
  act(() => void app.ctrl.send("second task"));
  await flushAsync();
  const second = app.fake.lastStream(UiService.method.subscribe) as FakeStream;
  const send = async (s: FakeStream, ...evs: Parameters<FakeStream["push"]>[0][]) => {
    act(() => evs.forEach((e) => s.push(e)));
    await flushAsync();
  };
  await send(second, snapshot([say(0, SayKind.TASK, { text: "second task" })], { taskId: "t-new", title: "Second" }));
  return { ...app, first, second, send };
}

describe("task strip", () => {
  it("starts a second task beside the first, in a worktree, and lists both", async () => {
    const { fake, first } = await twoTasks();
    expect(fake.callsTo(TaskService.method.clearTask)).toHaveLength(0);
    expect(first.closed).toBe(false);
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([{ text: "second task", worktree: true, overrides: { model: "gpt-4o" } }]);
    const strip = screen.getByRole("list", { name: "Open tasks" });
    expect(within(strip).getByRole("button", { name: /^First Act · working/ })).toBeTruthy();
    expect(within(strip).getByRole("button", { name: /^Second Act · working/ })).toBeTruthy();
  });

  it("switches between tasks; the hidden one keeps streaming and shows its text when shown again", async () => {
    const { user, first, send } = await twoTasks();
    // t-new is on screen; t1 streams in the background.
    await send(first, appended(1, " and still going"));
    expect(screen.queryByText(/still going/)).toBeNull();
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    expect(screen.getByText(/working on it and still going/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: /^Second Act · working/ }));
    expect(screen.getByText("second task")).toBeTruthy();
  });

  it("a hidden task's deltas render nothing; its question sets the badge and a notice", async () => {
    const { ctrl, fake, first, send } = await twoTasks();
    const visible = ctrl.task;
    let renders = 0;
    const stop = visible.subscribeList(() => renders++);
    const hidden = ctrl.open.get("t1")!.store;
    for (let i = 0; i < 50; i++) await send(first, appended(1, "."));
    expect(hidden.messageAt(1)?.text).toBe("working on it" + ".".repeat(50));
    expect(renders).toBe(0);
    // Nothing on screen listens to the hidden task's rows: its deltas reach no component.
    expect(hidden.rowListenerCount()).toBe(0);
    stop();
    await send(first, added(ask(2, AskKind.COMMAND, { text: "npm test" })), stateChanged({ taskId: "t1", title: "First", status: TaskStatus.WAITING, openAskIndex: 2 }));
    expect(fake.badge.count).toBe(1);
    expect(fake.notices).toMatchObject([{ taskId: "t1", kind: "waiting", title: "First: waiting for you" }]);
    expect(screen.getByRole("button", { name: /^First Act · waiting for you/ })).toBeTruthy();
  });

  it("closing an entry closes that task only", async () => {
    const { fake, user, first, second } = await twoTasks();
    fake.on(TaskService.method.clearTask, () => ({}));
    await user.click(screen.getByRole("button", { name: "Close First" }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.clearTask)).toMatchObject([{ taskId: "t1" }]);
    expect(first.aborted).toBe(true);
    expect(second.aborted).toBe(false);
  });
});

/** scrollUp scrolls the list on screen up from its end (jsdom lays nothing out: the scroller's
 * geometry is given) and returns the scroller. */
async function scrollUp(): Promise<HTMLElement> {
  const scroller = screen.getByTestId("virtuoso-scroller");
  Object.defineProperty(scroller, "scrollHeight", { configurable: true, get: () => 2000 });
  Object.defineProperty(scroller, "clientHeight", { configurable: true, get: () => 400 });
  scroller.scrollTop = 1600;
  fireEvent.scroll(scroller);
  scroller.scrollTop = 900;
  fireEvent.scroll(scroller);
  await flushAsync();
  expect(screen.getByRole("button", { name: /Jump to latest/ })).toBeTruthy();
  return scroller;
}

/** delegateRow is the row of a delegate call: its subtask, as the daemon replaces it. */
function delegateRow(index: number, child: object) {
  return say(index, SayKind.SUBAGENTS, { text: JSON.stringify({ children: [{ requests: 1, ...child }] }), partial: true });
}

describe("subtasks in the strip", () => {
  it("a delegated subtask sits under its parent and follows its row; a click shows the parent's chat at that row", async () => {
    const { ctrl, user, first, send } = await twoTasks();
    // The first task, not on screen, delegates.
    await send(first, added(delegateRow(2, { prompt: "Write NOTES.md.\nShort ones.", mode: "docs", status: "running" })));
    const strip = screen.getByRole("list", { name: "Open tasks" });
    const names = () => within(strip).getAllByRole("button", { name: /·/ }).map((b) => b.textContent);
    expect(names()).toEqual(["First Act · working", "Write NOTES.md. docs · working", "Second Act · working"]);
    // Its status and cost move on as the row is replaced; the hidden task's deltas still change nothing.
    const version = ctrl.open.getVersion();
    for (let i = 0; i < 20; i++) await send(first, appended(1, "."));
    expect(ctrl.open.getVersion()).toBe(version);
    expect(ctrl.open.get("t1")!.store.rowListenerCount()).toBe(0);
    await send(first, updated(delegateRow(2, { prompt: "Write NOTES.md.", mode: "docs", status: "done", cost: 0.004 })));
    expect(within(strip).getByRole("button", { name: "Write NOTES.md. docs · done · $0.0040" })).toBeTruthy();
    await send(first, added(delegateRow(3, { prompt: "Review NOTES.md.", mode: "reviewer", status: "failed" })));
    expect(within(strip).getByRole("button", { name: "Review NOTES.md. reviewer · failed" })).toBeTruthy();

    // The click shows the first task's chat with the subtask's row brought into view.
    await user.click(within(strip).getByRole("button", { name: /^Write NOTES.md. docs/ }));
    await flushAsync();
    expect(ctrl.app.get().taskId).toBe("t1");
    const revealed = document.querySelector("[data-revealed]");
    expect(revealed?.querySelector(".row")?.getAttribute("data-index")).toBe("2");
    expect(screen.getByRole("button", { name: /Jump to latest/ })).toBeTruthy();
    // With the parent on screen, another subtask's click brings its row into view at once.
    await user.click(within(strip).getByRole("button", { name: /^Review NOTES.md. reviewer/ }));
    await flushAsync();
    expect(document.querySelector("[data-revealed] .row")?.getAttribute("data-index")).toBe("3");
  });

  it("a delegation waiting for approval is a subtask waiting for you, under its parent waiting too", async () => {
    const { first, send } = await twoTasks();
    const question = ask(2, AskKind.TOOL, { text: "Review NOTES.md.", payload: { case: "tool", value: { operation: ToolOperation.DELEGATE, path: "reviewer", content: "Review NOTES.md." } } });
    await send(first, added(question), stateChanged({ taskId: "t1", title: "First", status: TaskStatus.WAITING, openAskIndex: 2, modeSlug: "orchestrator" }));
    const strip = screen.getByRole("list", { name: "Open tasks" });
    // The parent's entry names its mode: the orchestrator.
    expect(within(strip).getByRole("button", { name: "First orchestrator · waiting for you" })).toBeTruthy();
    expect(within(strip).getByRole("button", { name: "Review NOTES.md. reviewer · waiting for you" })).toBeTruthy();
    // Approved, the subtask runs: its entry follows its delegate row.
    await send(first, stateChanged({ taskId: "t1", title: "First", status: TaskStatus.RUNNING, openAskIndex: -1 }), added(delegateRow(3, { prompt: "Review NOTES.md.", mode: "reviewer", status: "running" })));
    expect(within(strip).queryByRole("button", { name: /waiting for you/ })).toBeNull();
    expect(within(strip).getByRole("button", { name: "Review NOTES.md. reviewer · working" })).toBeTruthy();
  });
});

describe("task strip and scrolling", () => {
  it("a task's list scrolled up is found where it was after another task was shown", async () => {
    const { user } = await twoTasks();
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    // At the end, then the user scrolls up: the list stops following the end.
    await scrollUp();
    await user.click(screen.getByRole("button", { name: /^Second Act · working/ }));
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    await flushAsync();
    // Still scrolled up: not taken to the end.
    expect(screen.getByRole("button", { name: /Jump to latest/ })).toBeTruthy();
  });
});

describe("task strip, scrolling and the user's own actions", () => {
  it("a message sent in a task scrolled up shows its end, and it is at its end when shown again", async () => {
    const { user, fake } = await twoTasks();
    fake.on(TaskService.method.sendMessage, () => ({}));
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    const scroller = await scrollUp();
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "go{Enter}");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ taskId: "t1", text: "go" }]);
    expect(scroller.scrollTop).toBe(2000);
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();
    await user.click(screen.getByRole("button", { name: /^Second Act · working/ }));
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    await flushAsync();
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();
  });

  it("each task keeps its own place: a send in one does not move the other", async () => {
    const { user, fake } = await twoTasks();
    fake.on(TaskService.method.sendMessage, () => ({}));
    // The second task (on screen) is scrolled up, then the first is shown, scrolled up and answered.
    await scrollUp();
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    await scrollUp();
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "go on{Enter}");
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();
    await user.click(screen.getByRole("button", { name: /^Second Act · working/ }));
    await flushAsync();
    expect(screen.getByRole("button", { name: /Jump to latest/ })).toBeTruthy();
  });

  it("a hidden task answered from the Board is at its end when shown again", async () => {
    const { user, fake, ctrl, first, send } = await twoTasks();
    fake.on(TaskService.method.answerAsk, () => ({}));
    await user.click(screen.getByRole("button", { name: /^First Act · working/ }));
    await scrollUp();
    await user.click(screen.getByRole("button", { name: /^Second Act · working/ }));
    await send(first, added(ask(2, AskKind.COMMAND, { text: "npm test" })), stateChanged({ taskId: "t1", title: "First", status: TaskStatus.WAITING, openAskIndex: 2 }));
    // The Board's Approve on the first task's question.
    await act(() => ctrl.answerTask("t1", 2, AskResponse.APPROVE));
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ taskId: "t1", messageIndex: 2, response: AskResponse.APPROVE }]);
    await user.click(screen.getByRole("button", { name: /^First Act · waiting for you/ }));
    await flushAsync();
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();
  });
});

/** manyTasks opens tasks named by titles in one window, the last one on screen, each in the
 * status given; it returns their streams by title. */
async function manyTasks(tasks: [title: string, status: TaskStatus, ask?: AskKind][]) {
  const app = await renderApp({ taskId: "t0" });
  const streams = new Map<string, FakeStream>();
  let n = 0;
  app.fake.on(TaskService.method.newTask, () => ({ taskId: `t${++n}` }));
  for (const [i, [title, status, kind]] of tasks.entries()) {
    if (i > 0) {
      await app.user.click(screen.getByRole("button", { name: "New Task" }));
      act(() => void app.ctrl.send(title));
      await flushAsync();
    }
    const s = app.fake.lastStream(UiService.method.subscribe) as FakeStream;
    const id = `t${i}`;
    const msgs = [say(0, SayKind.TASK, { text: title }), ...(kind ? [ask(1, kind)] : [])];
    act(() => s.push(snapshot(msgs, { taskId: id, title, status, openAskIndex: kind ? 1 : -1 })));
    await flushAsync();
    streams.set(title, s);
  }
  return { ...app, streams };
}

const strip = () => screen.getByRole("list", { name: "Open tasks" });
const entryNames = (list: HTMLElement) =>
  within(list)
    .queryAllByRole("button", { name: / · / })
    .filter((b) => b.closest("ul") === list)
    .map((b) => b.getAttribute("title"));

describe("the strip in a long day", () => {
  const day: [string, TaskStatus, AskKind?][] = [
    ["Done one", TaskStatus.COMPLETED],
    ["Failed one", TaskStatus.FAILED],
    ["Asks you", TaskStatus.WAITING, AskKind.COMMAND],
    ["Cancelled one", TaskStatus.CANCELLED],
    ["Result shown", TaskStatus.WAITING, AskKind.COMPLETION_RESULT],
    ["Works", TaskStatus.RUNNING],
  ];

  it("folds finished tasks not on screen behind one entry that opens on a click; working and waiting ones never fold", async () => {
    const { user } = await manyTasks(day);
    // "Works" is on screen; "Asks you" waits: both listed. The four ended ones are folded.
    expect(entryNames(strip())).toEqual(["Asks you", "Works"]);
    const fold = within(strip()).getByRole("button", { name: "4 finished" });
    expect(fold.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("list", { name: "Finished tasks" })).toBeNull();
    await user.click(fold);
    expect(fold.getAttribute("aria-expanded")).toBe("true");
    expect(entryNames(screen.getByRole("list", { name: "Finished tasks" }))).toEqual(["Done one", "Failed one", "Cancelled one", "Result shown"]);
    // A finished task shown is not folded; the one left is.
    await user.click(screen.getByRole("button", { name: /^Done one Act · done/ }));
    expect(entryNames(strip())).toEqual(["Done one", "Asks you", "Works"]);
    expect(within(strip()).getByRole("button", { name: "3 finished" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: /^Works Act · working/ }));
    expect(entryNames(strip())).toEqual(["Asks you", "Works"]);
    expect(within(strip()).getByRole("button", { name: "4 finished" })).toBeTruthy();
  });

  it("a task that ends while hidden folds; one that is answered and works again comes back", async () => {
    const { user, streams } = await manyTasks(day);
    act(() => streams.get("Asks you")!.push(stateChanged({ taskId: "t2", title: "Asks you", status: TaskStatus.COMPLETED })));
    await flushAsync();
    expect(entryNames(strip())).toEqual(["Works"]);
    expect(within(strip()).getByRole("button", { name: "5 finished" })).toBeTruthy();
    act(() => streams.get("Done one")!.push(stateChanged({ taskId: "t0", title: "Done one", status: TaskStatus.RUNNING })));
    await flushAsync();
    expect(entryNames(strip())).toEqual(["Done one", "Works"]);
    await user.click(within(strip()).getByRole("button", { name: "4 finished" }));
    expect(entryNames(screen.getByRole("list", { name: "Finished tasks" }))).toEqual(["Failed one", "Asks you", "Cancelled one", "Result shown"]);
  });

  it("a finished parent with a subtask still working is not folded", async () => {
    const { fake } = await manyTasks(day);
    act(() => fake.lastStream(TaskService.method.watchTasks).push({ tasks: [{ taskId: "t5", parentId: "t0" }] } as never));
    await flushAsync();
    expect(entryNames(strip())).toEqual(["Done one", "Works", "Asks you"]);
    expect(within(strip()).getByRole("button", { name: "3 finished" })).toBeTruthy();
  });

  it("the ✕ of a finished task takes it off the strip only: the daemon keeps it (history, Board)", async () => {
    const { user, fake, streams } = await manyTasks(day);
    await user.click(within(strip()).getByRole("button", { name: "4 finished" }));
    const finishedList = screen.getByRole("list", { name: "Finished tasks" });
    await user.click(within(finishedList).getByRole("button", { name: "Remove Failed one from the strip" }));
    await flushAsync();
    expect(entryNames(screen.getByRole("list", { name: "Finished tasks" }))).toEqual(["Done one", "Cancelled one", "Result shown"]);
    expect(within(strip()).getByRole("button", { name: "3 finished" })).toBeTruthy();
    // Its stream ends; the daemon is not asked to close or delete it.
    expect(streams.get("Failed one")!.aborted).toBe(true);
    expect(fake.callsTo(TaskService.method.clearTask)).toHaveLength(0);
    expect(fake.callsTo(TaskService.method.deleteTasks)).toHaveLength(0);
    expect(fake.persisted.openTasks).not.toContain("t1");
    // A live task's ✕ still closes it in the daemon.
    expect(within(strip()).getByRole("button", { name: "Close Works" })).toBeTruthy();
    expect(within(strip()).queryByRole("button", { name: /Remove Works/ })).toBeNull();
  });

  it("the ✕ of the finished task on screen takes it off the strip and shows the new-task state", async () => {
    const { user, fake } = await manyTasks([
      ["Works", TaskStatus.RUNNING],
      ["Done here", TaskStatus.COMPLETED],
    ]);
    await user.click(within(strip()).getByRole("button", { name: "Remove Done here from the strip" }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.clearTask)).toHaveLength(0);
    expect(await screen.findByText("What can I do for you?")).toBeTruthy();
    expect(entryNames(strip())).toEqual(["Works"]);
  });
});
