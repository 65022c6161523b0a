// The chat's keyboard, queued messages, edit and resend, new changes, the auto-approve editor,
// copy and export, as a user expects them.

import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { AskResponse, TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { CheckpointService } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { ToolOperation, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { ask, AskKind, say, SayKind, snapshot, stateChanged } from "../test/fixtures";
import { renderApp } from "../test/renderApp";
import { keyAction, type KeyContext } from "../util/chatKeys";
import { changesSpan, copyText } from "../util/rowActions";
import { parseList } from "./AutoApproveBar";

const read = { case: "tool" as const, value: { operation: ToolOperation.READ_FILE, path: "src/a.ts" } };
const cp = (i: number, hash: string) => say(i, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash } } });
const done = (i: number, result: string) => say(i, SayKind.COMPLETION_RESULT, { payload: { case: "completion", value: { result } } });

function key(k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean; defaultPrevented: boolean }> = {}) {
  return { key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, defaultPrevented: false, ...mods };
}

describe("keyAction", () => {
  const asking: KeyContext = { hasPrimary: true, hasSecondary: true, running: false, draft: false };
  const running: KeyContext = { hasPrimary: false, hasSecondary: false, running: true, draft: false };
  const cases: Array<[string, ReturnType<typeof key>, KeyContext, ReturnType<typeof keyAction>]> = [
    ["ctrl+enter approves", key("Enter", { ctrlKey: true }), asking, "primary"],
    ["cmd+enter approves", key("Enter", { metaKey: true }), asking, "primary"],
    ["ctrl+enter with a draft still approves (the text goes with it)", key("Enter", { ctrlKey: true }), { ...asking, draft: true }, "primary"],
    ["plain enter is the input's", key("Enter"), asking, undefined],
    ["ctrl+shift+enter is not approve", key("Enter", { ctrlKey: true, shiftKey: true }), asking, undefined],
    ["escape rejects", key("Escape"), asking, "secondary"],
    ["escape with a draft does nothing", key("Escape"), { ...asking, draft: true }, undefined],
    ["escape cancels a running task", key("Escape"), running, "cancel"],
    ["escape with a draft does not cancel", key("Escape"), { ...running, draft: true }, undefined],
    ["escape handled by a menu", key("Escape", { defaultPrevented: true }), asking, undefined],
    ["idle: nothing", key("Escape"), { hasPrimary: false, hasSecondary: false, running: false, draft: false }, undefined],
  ];
  for (const [name, e, c, want] of cases) it(name, () => expect(keyAction(e, c)).toBe(want));
});

describe("chat keyboard", () => {
  it("ctrl+enter approves, escape rejects, escape with typed text keeps it", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "go" }), ask(1, AskKind.TOOL, { payload: read })], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    const input = screen.getByRole("textbox", { name: "Message Cairn" });
    await user.type(input, "careful");
    await user.keyboard("{Escape}");
    expect(fake.callsTo(TaskService.method.answerAsk)).toHaveLength(0);
    expect((input as HTMLTextAreaElement).value).toBe("careful");
    await user.keyboard("{Control>}{Enter}{/Control}");
    await waitFor(() => expect(fake.callsTo(TaskService.method.answerAsk)).toMatchObject([{ response: AskResponse.APPROVE, text: "careful", messageIndex: 1 }]));
    await push(stateChanged({ status: TaskStatus.WAITING, openAskIndex: 1 }));
    await user.keyboard("{Escape}");
    await waitFor(() => expect(fake.callsTo(TaskService.method.answerAsk)[1]).toMatchObject({ response: AskResponse.REJECT, text: "" }));
  });

  it("escape cancels a running task", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "go" })], { status: TaskStatus.RUNNING }));
    await user.keyboard("{Escape}");
    await waitFor(() => expect(fake.callsTo(TaskService.method.cancelTask)).toMatchObject([{ taskId: "t1" }]));
  });

  it("the Focus Chat Input command focuses the input", async () => {
    const { fake } = await renderApp();
    const input = screen.getByRole("textbox", { name: "Message Cairn" });
    expect(document.activeElement).not.toBe(input);
    act(() => fake.emitHost({ type: "host", event: "focusInput" }));
    expect(document.activeElement).toBe(input);
  });
});

describe("queued messages", () => {
  it("a message typed while the task works is sent, shown queued, removable, and Interrupt cancels the step", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "go" })], { status: TaskStatus.RUNNING }));
    const input = screen.getByRole("textbox", { name: "Message Cairn" });
    expect(input.getAttribute("placeholder")).toMatch(/^Queue a message/);
    await user.type(input, "also add tests{Enter}");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ taskId: "t1", text: "also add tests" }]);
    await push(stateChanged({ status: TaskStatus.RUNNING, queued: [{ id: "q1", text: "also add tests" }, { id: "q2", text: "and docs" }] }));
    const list = screen.getByRole("region", { name: "Queued messages" });
    expect(within(list).getAllByText("Queued")).toHaveLength(2);
    await user.click(within(list).getByRole("button", { name: "Remove queued message: and docs" }));
    expect(fake.callsTo(TaskService.method.removeQueuedMessage)).toMatchObject([{ taskId: "t1", id: "q2" }]);
    await user.click(within(list).getByRole("button", { name: "Interrupt" }));
    expect(fake.callsTo(TaskService.method.cancelTask)).toMatchObject([{ taskId: "t1" }]);
    await push(stateChanged({ status: TaskStatus.RUNNING, queued: [] }));
    expect(screen.queryByRole("region", { name: "Queued messages" })).toBeNull();
  });
});

describe("edit and resend", () => {
  it("asks to confirm, then sends the edited text for that message", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot(
        [say(0, SayKind.TASK, { text: "go" }), cp(1, "aaaaaaa1"), say(2, SayKind.TEXT, { text: "ok" }), say(3, SayKind.USER_FEEDBACK, { text: "make b" }), say(4, SayKind.TEXT, { text: "done" })],
        { status: TaskStatus.COMPLETED },
      ),
    );
    const row = document.querySelector('[data-index="3"]') as HTMLElement;
    await user.click(within(row).getByRole("button", { name: "Edit and resend" }));
    const box = within(row).getByRole("textbox", { name: "Edited message" });
    await user.clear(box);
    await user.type(box, "make c");
    await user.click(within(row).getByRole("button", { name: "Resend" }));
    expect(fake.callsTo(TaskService.method.editMessage)).toHaveLength(0);
    const confirm = within(row).getByRole("alertdialog", { name: "Confirm edit and resend" });
    expect(confirm.textContent).toMatch(/restores the files and the conversation/);
    await user.click(within(confirm).getByRole("button", { name: "Restore and send" }));
    expect(fake.callsTo(TaskService.method.editMessage)).toMatchObject([{ taskId: "t1", messageIndex: 3, text: "make c" }]);
    await waitFor(() => expect(within(row).queryByRole("textbox", { name: "Edited message" })).toBeNull());
  });
});

describe("see new changes", () => {
  const msgs: Message[] = [
    say(0, SayKind.TASK, { text: "go" }),
    cp(1, "h1"),
    cp(2, "h2"),
    done(3, "first"),
    say(4, SayKind.USER_FEEDBACK, { text: "more" }),
    cp(5, "h5"),
    done(6, "second"),
  ];
  const cases: Array<[string, Message[], number, ReturnType<typeof changesSpan>]> = [
    ["first completion, later one exists: from the start to its last checkpoint", msgs, 3, { fromIndex: 1, toHash: "h2" }],
    ["latest completion: from the state at the previous one to the working tree", msgs, 6, { fromIndex: 2, toHash: "" }],
    ["no checkpoint at all", [say(0, SayKind.TASK), done(1, "x")], 1, undefined],
    ["only completion: from the first checkpoint", [say(0, SayKind.TASK), cp(1, "h1"), done(2, "x")], 2, { fromIndex: 1, toHash: "" }],
  ];
  for (const [name, m, pos, want] of cases) it(name, () => expect(changesSpan(m, pos)).toEqual(want));

  it("opens the span in the editor's multi-file diff", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    fake.on(CheckpointService.method.compareCheckpoint, () => ({ files: [{ path: "a.txt" }] }));
    await push(snapshot(msgs, { status: TaskStatus.COMPLETED }));
    const row = document.querySelector('[data-index="6"]') as HTMLElement;
    await user.click(within(row).getByRole("button", { name: /See new changes/ }));
    expect(fake.callsTo(CheckpointService.method.compareCheckpoint)).toMatchObject([{ taskId: "t1", messageIndex: 2, toHash: "", showInEditor: true }]);
  });
});

describe("copy and export", () => {
  it("every row with text has a copy button; a command keeps its own", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const withText = [
      say(0, SayKind.TASK, { text: "task" }),
      say(1, SayKind.TEXT, { text: "text" }),
      say(2, SayKind.REASONING, { text: "thinking" }),
      say(3, SayKind.ERROR, { text: "boom" }),
      say(4, SayKind.USER_FEEDBACK, { text: "feedback" }),
      done(5, "result"),
      ask(6, AskKind.FOLLOWUP, { payload: { case: "followup", value: { question: "which?" } } }),
      say(7, SayKind.INFO, { text: "info" }),
    ];
    const without = [say(8, SayKind.API_REQ_STARTED), cp(9, "h9")];
    await push(snapshot([...withText, ...without], { status: TaskStatus.COMPLETED }));
    for (const m of withText) {
      const row = document.querySelector(`[data-index="${m.index}"]`) as HTMLElement;
      expect(within(row).getAllByRole("button", { name: "Copy message" }), `row ${m.index}`).toHaveLength(1);
      expect(copyText(m)).not.toBe("");
    }
    for (const m of without) {
      const row = document.querySelector(`[data-index="${m.index}"]`) as HTMLElement;
      expect(within(row).queryByRole("button", { name: "Copy message" })).toBeNull();
    }
    expect(copyText(withText[6]!)).toBe("which?");
  });

  it("Export task sends the markdown to the extension's save dialog", async () => {
    const { fake, user, push } = await renderApp({ taskId: "t1" });
    fake.on(TaskService.method.exportTask, () => ({ markdown: "# Fix", fileName: "cairn-task-t1.md" }));
    await push(snapshot([say(0, SayKind.TASK, { text: "go" })], { status: TaskStatus.COMPLETED }));
    await user.click(screen.getByRole("button", { name: "Export task" }));
    await waitFor(() => expect(fake.saved).toEqual([{ fileName: "cairn-task-t1.md", content: "# Fix" }]));
  });
});

describe("auto-approve editor", () => {
  const cases: Array<[string, string, string[]]> = [
    ["lines", "npm test\ngo test", ["npm test", "go test"]],
    ["blank lines and spaces", "  npm test  \n\n", ["npm test"]],
    ["repeats", "a\na", ["a"]],
    ["empty", "", []],
  ];
  for (const [name, text, want] of cases) it(`parseList: ${name}`, () => expect(parseList(text)).toEqual(want));

  it("the bar edits the allow and deny lists and max requests", async () => {
    const { fake, user } = await renderApp();
    await user.click(screen.getByRole("button", { name: /^Auto-approve:/ }));
    const allow = screen.getByRole("textbox", { name: "Always allowed commands" });
    await user.type(allow, "npm test{Enter}go vet");
    expect(fake.callsTo(StateService.method.updateAutoApprove)).toHaveLength(0); // saved on leaving the field
    fireEvent.blur(allow);
    expect(fake.callsTo(StateService.method.updateAutoApprove).at(-1)?.autoApprove?.commandAllowList).toEqual(["npm test", "go vet"]);
    const deny = screen.getByRole("textbox", { name: "Never auto-approved commands" });
    await user.type(deny, "rm -rf");
    fireEvent.blur(deny);
    expect(fake.callsTo(StateService.method.updateAutoApprove).at(-1)?.autoApprove?.commandDenyList).toEqual(["rm -rf"]);
    const max = screen.getByRole("spinbutton", { name: "Max requests" });
    fireEvent.change(max, { target: { value: "7" } });
    expect(fake.callsTo(StateService.method.updateAutoApprove).at(-1)?.autoApprove?.maxRequests).toBe(7);
  });

  it("pages on the local network are a category of their own, apart from the browser", async () => {
    const { fake, user } = await renderApp();
    await user.click(screen.getByRole("button", { name: /^Auto-approve:/ }));
    const enable = screen.getByRole("checkbox", { name: "Enable auto-approve" });
    if (!(enable as HTMLInputElement).checked) await user.click(enable);
    const local = screen.getByRole("checkbox", { name: "Open pages on this machine or the local network" });
    const browser = screen.getByRole("checkbox", { name: "Use the browser" }) as HTMLInputElement;
    const browserBefore = browser.checked;
    expect((local as HTMLInputElement).checked).toBe(false); // off by default
    await user.click(local);
    const sent = fake.callsTo(StateService.method.updateAutoApprove).at(-1)?.autoApprove;
    expect(sent?.localNetwork).toBe(true);
    expect(sent?.browser).toBe(browserBefore);
  });

  it("settings shows the same editor", async () => {
    const { user } = await renderApp();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    expect(within(view).getByRole("textbox", { name: "Always allowed commands" })).toBeTruthy();
    expect(within(view).getByRole("textbox", { name: "Never auto-approved commands" })).toBeTruthy();
  });
});
