import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { added, say, SayKind, snapshot, updated } from "../test/fixtures";
import { renderApp } from "../test/renderApp";

function delegateRow(index: number, child: object, partial: boolean) {
  return say(index, SayKind.SUBAGENTS, { text: JSON.stringify({ children: [child] }), partial });
}

describe("the subtask tree", () => {
  it("lists an orchestrated task's subtasks with mode, status and cost, and opens one", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "write and review" })], { title: "write and review" }));
    expect(screen.queryByRole("navigation", { name: "Subtasks" })).toBeNull();
    await push(added(delegateRow(1, { prompt: "Write NOTES.md.", mode: "docs", status: "running", requests: 1, cost: 0.002 }, true)));
    const tree = screen.getByRole("tree", { name: "Subtask tree" });
    expect(within(tree).getByLabelText("Subtask 1 in docs: running")).toBeTruthy();
    // A row replaced in place (no row added) moves its entry on.
    await push(updated(delegateRow(1, { prompt: "Write NOTES.md.", mode: "docs", status: "running", requests: 3, cost: 0.002 }, true)));
    expect(within(tree).getByLabelText("Subtask 1 in docs: running").textContent).toContain("3 requests");
    await push(
      updated(
        delegateRow(
          1,
          {
            prompt: "Write NOTES.md.",
            mode: "docs",
            status: "done",
            requests: 2,
            cost: 0.004,
            transcript: [
              { type: "say", kind: "task", text: "Write NOTES.md." },
              { type: "say", kind: "completion_result", text: "Wrote NOTES.md." },
            ],
          },
          false,
        ),
      ),
      added(delegateRow(2, { prompt: "Review NOTES.md.", mode: "reviewer", status: "failed", requests: 1, cost: 0, error: "limit" }, false)),
    );
    const nav = screen.getByRole("navigation", { name: "Subtasks" });
    expect(nav.textContent).toContain("2 subtasks");
    const first = within(tree).getByLabelText("Subtask 1 in docs: done");
    expect(first.textContent).toContain("2 requests");
    expect(first.textContent).toContain("$0.0040");
    expect(within(tree).getByLabelText("Subtask 2 in reviewer: failed")).toBeTruthy();
    await user.click(within(first).getByRole("button"));
    expect(within(first).getByText("Wrote NOTES.md.")).toBeTruthy();
    expect(within(first).getByText("Result")).toBeTruthy();
    // The subtask's own row in the chat opens it too.
    expect(screen.getByText("Subtask in docs: done")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Open subtask" }));
    expect(screen.getAllByText("Wrote NOTES.md.").length).toBe(2);
  });
});
