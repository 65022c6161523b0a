import { describe, expect, it } from "vitest";
import { act, screen, within } from "@testing-library/react";
import { RpcError } from "../rpc/errors";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { flushAsync, renderApp } from "../test/renderApp";

const one = {
  taskId: "1-a",
  title: "greet in English",
  branch: "cairn/greet-in-english-1-a",
  path: "/data/worktrees/1-a/proj",
  repo: "/work/proj",
  status: "completed",
  filesChanged: 2,
  linesAdded: 5,
  linesRemoved: 1,
  cost: 0.0123,
  costKnown: true,
};
const two = { ...one, taskId: "2-b", title: "greet in French", branch: "cairn/greet-in-french-2-b", path: "/data/worktrees/2-b/proj", status: "running", filesChanged: 1, linesAdded: 1, linesRemoved: 1, cost: 0, costKnown: false };
const three = { ...one, taskId: "3-c", title: "greet in Dutch", branch: "cairn/greet-in-dutch-3-c", path: "/data/worktrees/3-c/proj", cost: 0, included: true };

async function openBoard() {
  const app = await renderApp();
  let worktrees = [one, two, three];
  app.fake.on(WorkspaceService.method.listWorktrees, () => ({ worktrees }));
  app.fake.on(WorkspaceService.method.getWorktreeChanges, () => ({ files: [{ path: "greet.txt", status: "M" }] }));
  app.fake.on(WorkspaceService.method.mergeWorktree, () => ({ files: ["greet.txt", "README.md"] }));
  app.fake.on(WorkspaceService.method.discardWorktree, () => {
    worktrees = worktrees.filter((w) => w.taskId !== "1-a");
    return {};
  });
  app.fake.on(TaskService.method.resumeTask, () => ({}));
  await app.user.click(screen.getByRole("button", { name: "Board" }));
  await flushAsync();
  return app;
}

describe("Board view", () => {
  it("lists each worktree task with its status, branch, changes and cost", async () => {
    await openBoard();
    const a = screen.getByRole("listitem", { name: "greet in English" });
    expect(within(a).getByText("completed")).toBeTruthy();
    expect(within(a).getByText(/cairn\/greet-in-english-1-a/)).toBeTruthy();
    expect(within(a).getByText("+5")).toBeTruthy();
    expect(within(a).getByText("−1")).toBeTruthy();
    expect(within(a).getByText("$0.0123")).toBeTruthy();
    const b = screen.getByRole("listitem", { name: "greet in French" });
    expect(within(b).getByText("running")).toBeTruthy();
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
    const { fake, user } = await openBoard();
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
    expect(screen.queryByRole("listitem", { name: "greet in English" })).toBeNull();
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
