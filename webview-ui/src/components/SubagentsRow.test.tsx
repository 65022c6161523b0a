import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { added, say, SayKind, snapshot, updated } from "../test/fixtures";
import { renderApp } from "../test/renderApp";
import { parseSubagents } from "../util/subagents";

function row(children: object[], partial: boolean) {
  return say(1, SayKind.SUBAGENTS, { text: JSON.stringify({ children }), partial });
}

describe("the subagents row", () => {
  it("shows one nested entry per child and follows them while they run", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([say(0, SayKind.TASK, { text: "t" })]),
      added(
        row(
          [
            { prompt: "Read api.go", status: "running", requests: 1, cost: 0.001, lastTool: "read_file api.go" },
            { prompt: "Read db.go", status: "running", requests: 0, cost: 0 },
          ],
          true,
        ),
      ),
    );
    expect(screen.getByText("Subagents: 2 of 2 running")).toBeTruthy();
    const list = screen.getByRole("list", { name: "Subagents" });
    expect(within(list).getByLabelText("Subagent 1: running")).toBeTruthy();
    expect(within(list).getByText("Read api.go", { selector: ".subagent-tool" })).toBeTruthy();
    await push(
      updated(
        row(
          [
            { prompt: "Read api.go", status: "done", requests: 2, cost: 0.0035, lastTool: "attempt_completion" },
            { prompt: "Read db.go", status: "failed", requests: 1, cost: 0.001, error: "it was cancelled" },
          ],
          false,
        ),
      ),
    );
    expect(screen.getByText("Subagents: 2 finished")).toBeTruthy();
    expect(screen.getByLabelText("Subagent 1: done")).toBeTruthy();
    expect(screen.getByLabelText("Subagent 2: failed")).toBeTruthy();
    expect(screen.getByText("it was cancelled")).toBeTruthy();
    expect(screen.getByText("2 requests · $0.0035")).toBeTruthy();
    expect(screen.getByText("$0.0045")).toBeTruthy();
  });

  it("a row that is not JSON has no children", () => {
    expect(parseSubagents("{oops")).toEqual([]);
    expect(parseSubagents(`{"children": 3}`)).toEqual([]);
  });
});
