import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import { TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { ask, AskKind, say, SayKind, snapshot, stateChanged } from "../test/fixtures";
import { renderApp } from "../test/renderApp";

describe("guard rails", () => {
  const cases = [
    {
      name: "edit of a protected file",
      m: ask(1, AskKind.TOOL, {
        payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: ".vscode/settings.json", diff: "@@\n-{}\n+{x}", protectedReason: "the editor runs tasks and applies settings from here" } },
      }),
      reason: "Protected file: the editor runs tasks and applies settings from here",
    },
    {
      name: "command writing a protected file",
      m: ask(1, AskKind.COMMAND, {
        payload: { case: "command", value: { command: "git config core.hooksPath x", protectedReason: ".git/config: git runs its hooks and reads its config from here" } },
      }),
      reason: "Protected file: .git/config: git runs its hooks and reads its config from here",
    },
  ];
  for (const c of cases) {
    it(`the approval row of an ${c.name} says why it is protected`, async () => {
      const { push } = await renderApp({ taskId: "t1" });
      await push(snapshot([say(0, SayKind.TASK, { text: "t" }), c.m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
      expect(screen.getByRole("note", { name: "Why this file is protected" }).textContent).toContain(c.reason);
    });
  }

  it("a command writing outside the workspace says so", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const m = ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "echo x >> ~/.bashrc", outsideWrite: "/home/me/.bashrc" } } });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("note", { name: "Why this command is asked" }).textContent).toContain("Writes outside the workspace: /home/me/.bashrc");
    expect(screen.getByText("outside workspace")).toBeTruthy();
  });

  it("a command reading outside the workspace says so while it asks", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const m = ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "cat ~/.ssh/id_rsa", outsideRead: "/home/me/.ssh/id_rsa" } } });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("note", { name: "Why this command is asked" }).textContent).toContain("Reads outside the workspace: /home/me/.ssh/id_rsa");
  });

  it("an ordinary edit shows no protected note", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const m = ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.go", diff: "@@" } } });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.queryByRole("note", { name: "Why this file is protected" })).toBeNull();
  });

  it("the header shows requests and cost against the limits, and raising them sends SetTaskLimits", async () => {
    const { fake, push, user } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([say(0, SayKind.TASK, { text: "t" }), ask(1, AskKind.TASK_LIMIT_REACHED, { text: "This task has cost $0.0800, at or over its limit of $0.08." })], {
        status: TaskStatus.WAITING,
        openAskIndex: 1,
        requests: 2,
        cost: 0.08,
        limits: { maxRequests: 0, maxCost: 0.08 },
        pricesKnown: true,
      }),
    );
    const row = screen.getByLabelText("Task limits");
    expect(row.className).toContain("at-limit");
    expect(screen.getByLabelText("Requests").textContent).toBe("2 requests");
    expect(screen.getByLabelText("Cost limit").textContent).toBe("$0.0800 / $0.0800");
    await user.click(screen.getByRole("button", { name: "Set task limits" }));
    const cost = screen.getByRole("spinbutton", { name: "Max cost" });
    await user.clear(cost);
    await user.type(cost, "0.5");
    await user.click(screen.getByRole("button", { name: "Save limits" }));
    expect(fake.callsTo(TaskService.method.setTaskLimits)).toMatchObject([{ taskId: "t1", limits: { maxRequests: 0, maxCost: 0.5 } }]);
    await push(stateChanged({ limits: { maxRequests: 0, maxCost: 0.5 }, requests: 2, cost: 0.08, pricesKnown: true }));
    expect(screen.getByLabelText("Task limits").className).not.toContain("at-limit");
  });

  it("a cost limit without prices says what counts, without a chip contradicting the cost", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" })], { requests: 1, cost: 0.07, tokensIn: 10n, limits: { maxRequests: 5, maxCost: 0.05 }, pricesKnown: false }));
    expect(screen.getByLabelText("Requests").textContent).toBe("1 / 5 requests");
    const cost = screen.getByLabelText("Cost limit");
    expect(cost.textContent).toBe("$0.0700 / $0.0500");
    expect(cost.getAttribute("title")).toMatch(/only costs the provider reports count/);
    expect(screen.queryByText("prices unknown")).toBeNull();
    // Opened by the limit, the header stays open once the user raised it.
    await user.click(screen.getByRole("button", { name: "Set task limits" }));
    await push(stateChanged({ requests: 1, cost: 0.07, tokensIn: 10n, limits: { maxRequests: 5, maxCost: 1 }, pricesKnown: false }));
    expect(screen.getByLabelText("Task limits")).toBeTruthy();
  });

});
