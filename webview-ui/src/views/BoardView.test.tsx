import { describe, expect, it } from "vitest";
import { act, screen, within } from "@testing-library/react";
import { RpcError } from "../rpc/errors";
import { AskResponse, TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { AskKind, ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { say, SayKind, snapshot } from "../test/fixtures";
import { flushAsync, renderApp } from "../test/renderApp";

const wt = (taskId: string, title: string, extra: object = {}) => ({
  taskId,
  title,
  branch: `cairn/${title.toLowerCase().replaceAll(" ", "-")}-${taskId}`,
  path: `/data/worktrees/${taskId}/proj`,
  repo: "/work/proj",
  status: "completed",
  filesChanged: 2,
  linesAdded: 5,
  linesRemoved: 1,
  ...extra,
});
const one = { taskId: "1-a", title: "greet in English", status: TaskStatus.COMPLETED, cost: 0.0123, costKnown: true, workspaceRoot: "/data/worktrees/1-a/proj", worktree: wt("1-a", "greet in English") };
const two = { taskId: "2-b", title: "greet in French", status: TaskStatus.RUNNING, cost: 0, costKnown: false, live: true, workspaceRoot: "/data/worktrees/2-b/proj", worktree: wt("2-b", "greet in French", { status: "running", filesChanged: 1, linesAdded: 1 }) };
const three = { taskId: "3-c", title: "greet in Dutch", status: TaskStatus.COMPLETED, cost: 0, included: true, workspaceRoot: "/data/worktrees/3-c/proj", worktree: wt("3-c", "greet in Dutch") };

type Board = { tasks: object[] };

async function openBoard() {
  const app = await renderApp();
  app.fake.on(WorkspaceService.method.getWorktreeChanges, () => ({ files: [{ path: "greet.txt", status: "M" }] }));
  app.fake.on(WorkspaceService.method.mergeWorktree, () => ({ files: ["greet.txt", "README.md"] }));
  app.fake.on(WorkspaceService.method.discardWorktree, () => ({}));
  app.fake.on(TaskService.method.resumeTask, () => ({}));
  app.fake.on(TaskService.method.answerAsk, () => ({}));
  /** board sends the next board on the stream, as the daemon does after a change. */
  const board = async (b: Board) => {
    act(() => app.fake.lastStream(TaskService.method.watchTasks).push(b as never));
    await flushAsync();
  };
  await board({ tasks: [one, two, three] });
  await app.user.click(screen.getByRole("button", { name: "Board" }));
  await flushAsync();
  return { ...app, board };
}

describe("Board view", () => {
  it("lists each worktree task with its status, branch, changes and cost", async () => {
    await openBoard();
    const a = screen.getByRole("listitem", { name: "greet in English" });
    expect(within(a).getByText("done")).toBeTruthy();
    expect(within(a).getByText(/cairn\/greet-in-english-1-a/)).toBeTruthy();
    expect(within(a).getByText("+5")).toBeTruthy();
    expect(within(a).getByText("−1")).toBeTruthy();
    expect(within(a).getByText("$0.0123")).toBeTruthy();
    const b = screen.getByRole("listitem", { name: "greet in French" });
    expect(within(b).getByText("working")).toBeTruthy();
    // One cost truth: an unknown price is never shown as $0.0000; the editor's models are included.
    expect(within(b).getByText("price unknown")).toBeTruthy();
    expect(within(b).queryByText("$0.0000")).toBeNull();
    expect(within(screen.getByRole("listitem", { name: "greet in Dutch" })).getByText("included with the editor's models")).toBeTruthy();
    // A running task cannot be discarded.
    expect((within(b).getByRole("button", { name: "Discard" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("reviews in the editor, merges, opens the folder and opens the task", async () => {
    const { fake, user } = await openBoard();
    const a = screen.getByRole("listitem", { name: "greet in English" });
    await user.click(within(a).getByRole("button", { name: "Review" }));
    expect(fake.callsTo(WorkspaceService.method.getWorktreeChanges)).toMatchObject([{ taskId: "1-a", showInEditor: true, hostId: "host-1" }]);
    await user.click(within(a).getByRole("button", { name: "Merge" }));
    await flushAsync();
    expect(fake.callsTo(WorkspaceService.method.mergeWorktree)).toMatchObject([{ taskId: "1-a" }]);
    expect(screen.getByRole("status").textContent).toContain("Merged 2 files as uncommitted changes: greet.txt, README.md");
    await user.click(within(a).getByRole("button", { name: "Open folder" }));
    expect(fake.openedFolders).toEqual(["/data/worktrees/1-a/proj"]);
    await user.click(within(a).getByRole("button", { name: /greet in English/ }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.resumeTask)).toMatchObject([{ taskId: "1-a", hostId: "host-1" }]);
    expect(screen.queryByRole("region", { name: "Board" })).toBeNull();
  });

  it("asks before discarding, and a conflict's message names the file", async () => {
    const { fake, user, board } = await openBoard();
    fake.on(WorkspaceService.method.mergeWorktree, () => {
      throw new RpcError("failed_precondition", "merge conflict in greet.txt; nothing was changed");
    });
    const a = screen.getByRole("listitem", { name: "greet in English" });
    await user.click(within(a).getByRole("button", { name: "Merge" }));
    await flushAsync();
    expect(screen.getByRole("status").textContent).toContain("merge conflict in greet.txt");
    await user.click(within(a).getByRole("button", { name: "Discard" }));
    expect(fake.callsTo(WorkspaceService.method.discardWorktree)).toHaveLength(0);
    const confirm = within(a).getByRole("group", { name: "Confirm discard" });
    await user.click(within(confirm).getByRole("button", { name: "Discard" }));
    await flushAsync();
    expect(fake.callsTo(WorkspaceService.method.discardWorktree)).toMatchObject([{ taskId: "1-a" }]);
    // The daemon sends the board without it.
    await board({ tasks: [two, three] });
    expect(screen.queryByRole("listitem", { name: "greet in English" })).toBeNull();
  });

  it("updates as the stream sends boards: a question answered in place, no polling", async () => {
    const { fake, user, board } = await openBoard();
    const question = { index: 7, kind: { case: "ask", value: AskKind.COMMAND }, payload: { case: "command", value: { command: "npm test" } } };
    await board({ tasks: [one, { ...two, status: TaskStatus.WAITING, ask: question }, three] });
    const b = screen.getByRole("listitem", { name: "greet in French" });
    expect(within(b).getByText("waiting for you")).toBeTruthy();
    const q = within(b).getByRole("group", { name: "Question of greet in French" });
    expect(within(q).getByText("Run npm test")).toBeTruthy();
    await user.click(within(q).getByRole("button", { name: "Approve" }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ taskId: "2-b", messageIndex: 7, response: AskResponse.APPROVE }]);
    // The answer changes the task's state; the daemon sends the next board.
    await board({ tasks: [one, { ...two, status: TaskStatus.COMPLETED }, three] });
    expect(within(screen.getByRole("listitem", { name: "greet in French" })).getByText("done")).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Question of greet in French" })).toBeNull();
    // Everything came on one stream: nothing was listed again on a timer.
    expect(fake.streams.filter((s) => s.method.name === "WatchTasks")).toHaveLength(1);
    expect(fake.callsTo(WorkspaceService.method.listWorktrees)).toHaveLength(0);
  });

  it("the filter shows every workspace's tasks; subtasks sit under their parent", async () => {
    const { fake, user, board } = await openBoard();
    expect(fake.lastStream(TaskService.method.watchTasks).request).toMatchObject({ workspaceRoot: "/work/proj", all: false });
    await user.click(screen.getByRole("checkbox", { name: "All workspaces" }));
    await flushAsync();
    expect(fake.lastStream(TaskService.method.watchTasks).request).toMatchObject({ workspaceRoot: "/work/proj", all: true });
    const child = { taskId: "4-d", title: "write the French tests", status: TaskStatus.RUNNING, parentId: "2-b", live: true, workspaceRoot: "/elsewhere" };
    await board({ tasks: [child, one, two, three] });
    const names = screen.getAllByRole("listitem").map((li) => li.getAttribute("aria-label"));
    expect(names).toEqual(["greet in English", "greet in French", "write the French tests", "greet in Dutch"]);
  });

  it("a delegated subtask sits under its parent, moves on with each board, answers the parent's question and opens the parent at its row", async () => {
    const { fake, user, board } = await openBoard();
    const question = {
      index: 4,
      kind: { case: "ask", value: AskKind.TOOL },
      payload: { case: "tool", value: { operation: ToolOperation.DELEGATE, path: "docs", content: "Write NOTES.md." } },
    };
    const sub = { taskId: "2-b/subtask-4", parentId: "2-b", subtask: true, row: 4, title: "Write NOTES.md.", modeSlug: "docs", live: true, costKnown: true };
    // The parent asks to start it: the entry waits, with the parent's question.
    await board({ tasks: [one, { ...two, status: TaskStatus.WAITING }, { ...sub, status: TaskStatus.WAITING, ask: question }, three] });
    expect(screen.getAllByRole("listitem").map((li) => li.getAttribute("aria-label"))).toEqual(["greet in English", "greet in French", "Write NOTES.md.", "greet in Dutch"]);
    expect(within(screen.getByRole("listitem", { name: "greet in French" })).getByText("waiting for you")).toBeTruthy();
    const s = () => screen.getByRole("listitem", { name: "Write NOTES.md." });
    expect(within(s()).getByText("docs")).toBeTruthy();
    expect(within(s()).getByText("waiting for you")).toBeTruthy();
    const q = within(s()).getByRole("group", { name: "Question of Write NOTES.md." });
    expect(within(q).getByText("Start this subtask in docs")).toBeTruthy();
    await user.click(within(q).getByRole("button", { name: "Approve" }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ taskId: "2-b", messageIndex: 4, response: AskResponse.APPROVE }]);
    // Started, it follows its row in the parent's chat.
    const running = { ...sub, taskId: "2-b/subtask-5", row: 5, status: TaskStatus.RUNNING };
    await board({ tasks: [one, two, running, three] });
    expect(within(s()).getByText("working")).toBeTruthy();
    expect(within(s()).queryByRole("group")).toBeNull();
    await board({ tasks: [one, two, { ...running, status: TaskStatus.FAILED, cost: 0.004 }, three] });
    expect(within(s()).getByText("failed")).toBeTruthy();
    expect(within(s()).getByText("$0.0040")).toBeTruthy();
    // A click opens the parent, its chat at the subtask's row.
    await user.click(within(s()).getByRole("button", { name: "Write NOTES.md." }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.resumeTask)).toMatchObject([{ taskId: "2-b" }]);
    act(() => fake.lastStream(UiService.method.subscribe).push(snapshot([0, 1, 2, 3, 4, 5].map((i) => say(i, i === 5 ? SayKind.SUBAGENTS : SayKind.TEXT, { text: `row ${i}` })), { taskId: "2-b" })));
    await flushAsync();
    expect(document.querySelector("[data-revealed] .row")?.getAttribute("data-index")).toBe("5");
  });

  it("starts the next task in a worktree when the toggle is on", async () => {
    const { fake, user, ctrl } = await renderApp();
    const toggle = screen.getByRole("button", { name: "Worktree" });
    await user.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    act(() => void ctrl.send("task in a worktree"));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([{ text: "task in a worktree", worktree: true }]);
    expect(ctrl.app.get().worktree).toBe(false);
  });

  it("the command palette's New Task in a Worktree turns the toggle on", async () => {
    const { fake } = await renderApp();
    act(() => fake.emitHost({ type: "host", event: "navigate", view: "newWorktreeTask" }));
    await flushAsync();
    expect(screen.getByRole("button", { name: "Worktree" }).getAttribute("aria-pressed")).toBe("true");
  });
});
