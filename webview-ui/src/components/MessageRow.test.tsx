import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen } from "@testing-library/react";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { AskResponse, TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { added, appended, say, SayKind, snapshot, updated } from "../test/fixtures";
import { renderApp } from "../test/renderApp";

// Only the interval clock is faked: the countdown is computed from Date.now, and the tests'
// own flushing uses real timeouts.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"], now: new Date("2026-03-01T10:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

function retryRow(index: number, at: number, delaySeconds: number) {
  return say(index, SayKind.ERROR_RETRY, {
    time: timestampFromMs(at),
    payload: { case: "retry", value: { attempt: 2, maxAttempts: 3, delaySeconds, error: "503 Service Unavailable" } },
  });
}

describe("the wait before a retry", () => {
  it("counts down from the row's time, with no ticks from the daemon", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" })]), added(retryRow(1, Date.now(), 8)));
    expect(screen.getByText("Retrying in 8s (attempt 2/3)")).toBeTruthy();
    expect(screen.getByText("503 Service Unavailable")).toBeTruthy();
    act(() => vi.advanceTimersByTime(3000));
    expect(screen.getByText("Retrying in 5s (attempt 2/3)")).toBeTruthy();
    act(() => vi.advanceTimersByTime(5000));
    expect(screen.getByText("Retried after 8s (attempt 2/3)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Retry now" })).toBeNull();
  });

  it("Retry now approves that row, ending the wait", async () => {
    const { push, fake } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" })]), added(retryRow(1, Date.now() - 2000, 16)));
    expect(screen.getByText("Retrying in 14s (attempt 2/3)")).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Retry now" }));
    });
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ taskId: "t1", response: AskResponse.APPROVE, messageIndex: 1 }]);
    expect(screen.getByText("Retrying now (attempt 2/3)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Retry now" })).toBeNull();
  });

  it("a wait that ended long ago shows no countdown and no button", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), retryRow(1, Date.now() - 3_600_000, 4)]));
    expect(screen.getByText("Retried after 4s (attempt 2/3)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Retry now" })).toBeNull();
  });
});

describe("the model's reasoning", () => {
  it("streams into a folded Thinking row that opens on demand", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([say(0, SayKind.TASK, { text: "t" })]),
      added(say(1, SayKind.REASONING, { text: "Weighing the options", partial: true })),
      appended(1, " carefully"),
    );
    const toggle = screen.getByRole("button", { name: "Thinking…" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByText(/Weighing the options/)).toBeNull();
    await push(updated(say(1, SayKind.REASONING, { text: "Weighing the options carefully", partial: false })));
    const done = screen.getByRole("button", { name: "Thinking" });
    expect(done.getAttribute("aria-expanded")).toBe("false");
    await act(async () => {
      fireEvent.click(done);
    });
    expect(screen.getByText("Weighing the options carefully")).toBeTruthy();
  });
});

describe("the done-when check under a completion", () => {
  const completion = (index: number, passed: boolean, exitCode: number, output: string) =>
    say(index, SayKind.COMPLETION_RESULT, {
      text: "Fixed it.",
      payload: { case: "completion", value: { result: "Fixed it.", check: { command: "go test ./...", exitCode, passed, output } } },
    });

  it("a refused completion says not done yet and shows the check's output", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), completion(1, false, 1, "--- FAIL: TestAdd")]));
    expect(screen.getByText("Not done yet")).toBeTruthy();
    expect(screen.queryByText("Task Completed")).toBeNull();
    const check = screen.getByRole("group", { name: "Done when check" });
    expect(check.textContent).toContain("go test ./... exited 1");
    expect(check.textContent).toContain("--- FAIL: TestAdd");
  });

  it("an accepted completion says the check passed", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), completion(1, true, 0, "ok")]));
    expect(screen.getByText("Task Completed")).toBeTruthy();
    expect(screen.getByText("passed", { exact: false }).textContent).toContain("go test ./... passed");
  });
});
