import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { AskResponse, TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { ask, AskKind, say, SayKind, snapshot, stateChanged } from "../test/fixtures";
import { renderApp } from "../test/renderApp";
import type { Message } from "@cairn/proto/gen/cairn/v1/message_pb";

interface Case {
  name: string;
  message: Message;
  primary?: string;
  secondary?: string;
  /** What the secondary does: "reject" answers, "newTask" clears the task. */
  secondaryAction?: "reject" | "newTask";
  primaryAction?: "approve" | "newTask" | "newTaskWithContext";
}

const edit = { case: "tool" as const, value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "src/a.ts", diff: "-a\n+b" } };
const read = { case: "tool" as const, value: { operation: ToolOperation.READ_FILE, path: "src/a.ts" } };

const cases: Case[] = [
  { name: "tool read", message: ask(1, AskKind.TOOL, { payload: read }), primary: "Approve", secondary: "Reject", secondaryAction: "reject" },
  { name: "tool edit", message: ask(1, AskKind.TOOL, { payload: edit }), primary: "Save", secondary: "Reject", secondaryAction: "reject" },
  {
    name: "new file",
    message: ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.NEW_FILE_CREATED, path: "n.ts", content: "x" } } }),
    primary: "Save",
    secondary: "Reject",
    secondaryAction: "reject",
  },
  { name: "command", message: ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "npm test" } } }), primary: "Run Command", secondary: "Reject", secondaryAction: "reject" },
  { name: "command_output", message: ask(1, AskKind.COMMAND_OUTPUT), primary: "Proceed While Running" },
  { name: "api_req_failed", message: ask(1, AskKind.API_REQ_FAILED, { text: "500" }), primary: "Retry", secondary: "Start New Task", secondaryAction: "newTask" },
  { name: "resume_task", message: ask(1, AskKind.RESUME_TASK), primary: "Resume Task", secondary: "Start New Task", secondaryAction: "newTask" },
  { name: "resume_completed_task", message: ask(1, AskKind.RESUME_COMPLETED_TASK), primary: "Resume Task", secondary: "Start New Task", secondaryAction: "newTask" },
  { name: "mistake_limit_reached", message: ask(1, AskKind.MISTAKE_LIMIT_REACHED, { text: "stuck" }), primary: "Proceed Anyways", secondary: "Start New Task", secondaryAction: "newTask" },
  { name: "auto_approval_max_req_reached", message: ask(1, AskKind.AUTO_APPROVAL_MAX_REQ_REACHED), primary: "Proceed", secondary: "Start New Task", secondaryAction: "newTask" },
  { name: "new_task", message: ask(1, AskKind.NEW_TASK, { payload: { case: "newTask", value: { context: "ctx" } } }), primary: "Start New Task with Context", primaryAction: "newTaskWithContext" },
  { name: "condense", message: ask(1, AskKind.CONDENSE, { text: "summary" }), primary: "Condense" },
  { name: "use_mcp_server", message: ask(1, AskKind.USE_MCP_SERVER, { payload: { case: "mcp", value: { serverName: "fs", toolName: "read" } } }), primary: "Approve", secondary: "Reject", secondaryAction: "reject" },
  { name: "browser_action_launch", message: ask(1, AskKind.BROWSER_ACTION_LAUNCH, { payload: { case: "browser", value: { url: "http://x" } } }), primary: "Approve", secondary: "Reject", secondaryAction: "reject" },
  { name: "completion_result", message: ask(1, AskKind.COMPLETION_RESULT), primary: "Start New Task", primaryAction: "newTask" },
  { name: "task_limit_reached", message: ask(1, AskKind.TASK_LIMIT_REACHED, { text: "limit" }), primary: "Continue", secondary: "Stop Task", secondaryAction: "reject" },
  { name: "repeated_tool_call", message: ask(1, AskKind.REPEATED_TOOL_CALL, { text: "again" }), primary: "Continue", secondary: "Stop Task", secondaryAction: "reject" },
  { name: "report_bug", message: ask(1, AskKind.REPORT_BUG, { text: "## Bug" }), primary: "Report Bug", secondary: "Reject", secondaryAction: "reject" },
];

async function openAsk(m: Message) {
  const r = await renderApp({ taskId: "t1" });
  await r.push(snapshot([say(0, SayKind.TASK, { text: "do it" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
  return r;
}

describe("ask buttons", () => {
  for (const c of cases) {
    it(`${c.name}: shows ${[c.primary, c.secondary].filter(Boolean).join(" / ")} and sends the right answer`, async () => {
      const { fake, user } = await openAsk(c.message);
      const bar = document.querySelector(".ask-bar") as HTMLElement;
      const buttons = within(bar).getAllByRole("button").map((b) => b.textContent);
      expect(buttons).toEqual([c.primary, c.secondary].filter(Boolean));

      await user.click(within(bar).getByRole("button", { name: c.primary }));
      if (c.primaryAction === "newTask") {
        expect(fake.callsTo(TaskService.method.clearTask)).toMatchObject([{ taskId: "t1" }]);
        expect(fake.callsTo(TaskService.method.answerAsk)).toHaveLength(0);
      } else if (c.primaryAction === "newTaskWithContext") {
        await waitFor(() => expect(fake.callsTo(TaskService.method.newTask)).toHaveLength(1));
        expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ taskId: "t1", response: AskResponse.APPROVE, messageIndex: 1 }]);
        expect(fake.callsTo(TaskService.method.clearTask)).toMatchObject([{ taskId: "t1" }]);
        expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([{ text: "ctx" }]);
      } else {
        expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([
          { taskId: "t1", response: AskResponse.APPROVE, text: "", messageIndex: 1 },
        ]);
      }
    });

    if (c.secondary) {
      it(`${c.name}: ${c.secondary} ${c.secondaryAction === "newTask" ? "clears the task" : "rejects"}`, async () => {
        const { fake, user } = await openAsk(c.message);
        const bar = document.querySelector(".ask-bar") as HTMLElement;
        await user.click(within(bar).getByRole("button", { name: c.secondary }));
        if (c.secondaryAction === "newTask") {
          expect(fake.callsTo(TaskService.method.clearTask)).toMatchObject([{ taskId: "t1" }]);
          expect(fake.callsTo(TaskService.method.answerAsk)).toHaveLength(0);
          // Back to the new-task state.
          expect(await screen.findByText("What can I do for you?")).toBeTruthy();
        } else {
          expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ response: AskResponse.REJECT, messageIndex: 1 }]);
        }
      });
    }
  }

  it("typed text and images go along as feedback with Approve", async () => {
    const { fake, user } = await openAsk(ask(1, AskKind.TOOL, { payload: edit }));
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "but keep the comment");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([
      { response: AskResponse.APPROVE, text: "but keep the comment", messageIndex: 1 },
    ]);
    expect((screen.getByRole("textbox", { name: "Message Cairn" }) as HTMLTextAreaElement).value).toBe("");
  });

  it("typed text goes along with Reject", async () => {
    const { fake, user } = await openAsk(ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "rm -rf build" } } }));
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "use make clean");
    await user.click(screen.getByRole("button", { name: "Reject" }));
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ response: AskResponse.REJECT, text: "use make clean" }]);
  });

  it("followup: option buttons answer with the option; a typed answer is sent as a message", async () => {
    const { fake, user } = await openAsk(
      ask(1, AskKind.FOLLOWUP, { payload: { case: "followup", value: { question: "Which DB?", options: ["Postgres", "SQLite"] } } }),
    );
    expect(screen.getByText("Which DB?")).toBeTruthy();
    const group = screen.getByRole("group", { name: "Answer options" });
    await user.click(within(group).getByRole("button", { name: "SQLite" }));
    expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ response: AskResponse.MESSAGE, text: "SQLite", messageIndex: 1 }]);
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "MySQL{Enter}");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ taskId: "t1", text: "MySQL" }]);
  });

  it("plan_mode_respond: typed answer via Send", async () => {
    const { fake, user } = await openAsk(ask(1, AskKind.PLAN_MODE_RESPOND, { payload: { case: "followup", value: { question: "Plan: 1. do x" } } }));
    expect(document.querySelector(".ask-bar")).toBeNull();
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "looks good");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ taskId: "t1", text: "looks good" }]);
  });

  it("completion_result: typed feedback continues the task", async () => {
    const { fake, user } = await openAsk(ask(1, AskKind.COMPLETION_RESULT));
    await user.type(screen.getByRole("textbox", { name: "Message Cairn" }), "also add tests{Enter}");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ text: "also add tests" }]);
  });

  it("shows Cancel while the task runs and sends CancelTask; hides it when waiting", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "go" }), say(1, SayKind.TEXT, { text: "work", partial: true })], { status: TaskStatus.RUNNING }));
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(fake.callsTo(TaskService.method.cancelTask)).toMatchObject([{ taskId: "t1" }]);
    await push(stateChanged({ status: TaskStatus.CANCELLED }));
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
  });
});

describe("approval why", () => {
  it("shows the decision and its rules under Why?, as cairn why prints them", async () => {
    const lines = ['ask — on the deny list ("git push --force", commandDenyList): always asked, even with --yolo'];
    const m = ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "git push --force" } }, why: { lines, locked: true } });
    const { user } = await openAsk(m);
    const why = document.querySelector(".ask-why") as HTMLDetailsElement;
    expect(why).not.toBeNull();
    expect(why.open).toBe(false);
    await user.click(within(why).getByText("Why?"));
    expect(why.open).toBe(true);
    expect(why.querySelector("pre")?.textContent).toBe(`${lines[0]}\nA managed policy rule decided: no "always" answer applies.`);
  });

  it("has no Why? when the daemon gave no reason", async () => {
    await openAsk(ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "npm test" } } }));
    expect(document.querySelector(".ask-why")).toBeNull();
  });
});
