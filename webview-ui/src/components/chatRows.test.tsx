// Row details that read wrong in a real editor: stale badges, still spinners, options shown
// twice, a wrapping checkpoint row, a collapsed pending diff, model names broken at hyphens and
// "$0.0000" for an unknown price.

import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation, ToolOutcome, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { FakeClient } from "../rpc/fake";
import { added, ask, AskKind, say, SayKind, snapshot, stateChanged, updated } from "../test/fixtures";
import { configuredSettings, renderApp } from "../test/renderApp";
import { answerAfter } from "./MessageRow";

const task = say(0, SayKind.TASK, { text: "t" });
// The stylesheet as shipped (vitest does not load CSS into jsdom).
const css = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "styles.css"), "utf8");

/** cssRule is the body of the first rule whose selector is exactly sel. */
function cssRule(sel: string): string {
  const i = css.indexOf(`${sel} {`);
  if (i < 0) return "";
  return css.slice(i, css.indexOf("}", i));
}

describe("command rows", () => {
  const payload = { case: "command" as const, value: { command: "rm -rf build", requiresApproval: true } };
  const command = (i: number, kind: "ask" | "say") => (kind === "ask" ? ask(i, AskKind.COMMAND, { payload }) : say(i, SayKind.COMMAND, { payload }));
  const cases: { name: string; messages: Message[]; openAskIndex: number; badge: boolean }[] = [
    { name: "an open command ask shows the badge", messages: [task, command(1, "ask")], openAskIndex: 1, badge: true },
    { name: "an approved command ask that ran hides it", messages: [task, command(1, "ask"), say(2, SayKind.COMMAND_OUTPUT, { text: "ok" })], openAskIndex: -1, badge: false },
    { name: "a command said after it ran hides it", messages: [task, command(1, "say")], openAskIndex: -1, badge: false },
  ];
  for (const c of cases) {
    it(`requires approval: ${c.name}`, async () => {
      const { push } = await renderApp({ taskId: "t1" });
      await push(snapshot(c.messages, { status: c.openAskIndex >= 0 ? TaskStatus.WAITING : TaskStatus.RUNNING, openAskIndex: c.openAskIndex }));
      expect(screen.getByText("rm -rf build")).toBeTruthy();
      expect(screen.queryByText("requires approval") !== null).toBe(c.badge);
    });
  }

  it("the still-running row's spinner turns", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task, ask(1, AskKind.COMMAND_OUTPUT, { payload: { case: "commandOutput", value: { running: true } } })], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    const row = screen.getByText("The command is still running.").closest(".row-header")!;
    expect(row.querySelector(".codicon-loading")?.classList.contains("codicon-modifier-spin")).toBe(true);
    expect(cssRule(".status-dot.running")).toContain("animation:");
  });

  const background = say(1, SayKind.COMMAND_OUTPUT, { text: "Serving HTTP", payload: { case: "commandOutput", value: { output: "Serving HTTP", running: true, id: 3 } } });
  const endNote = (id: number) =>
    say(2, SayKind.INFO, { text: `Stopped command ${id} as the task completed`, payload: { case: "commandOutput", value: { id, exitCode: 143 } } });

  it("a background command's row has a Stop button that stops it through the daemon", async () => {
    const { push, user, fake } = await renderApp({ taskId: "t1" });
    fake.on(TaskService.method.stopCommand, () => ({ exitCode: 143 }));
    await push(snapshot([task, background], { status: TaskStatus.RUNNING }));
    expect(screen.getByText("Running in the background (command 3)")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: /Stop/ }));
    expect(fake.callsTo(TaskService.method.stopCommand).map((r) => [r.taskId, r.commandId])).toEqual([["t1", 3]]);
  });

  const endCases = [
    { name: "a note about this command ends the row", note: endNote(3), running: false },
    { name: "a note about another command leaves it running", note: endNote(4), running: true },
  ];
  for (const c of endCases) {
    it(`background row: ${c.name}`, async () => {
      const { push } = await renderApp({ taskId: "t1" });
      await push(snapshot([task, background, c.note], { status: TaskStatus.RUNNING }));
      expect(screen.queryByRole("button", { name: /Stop/ }) !== null).toBe(c.running);
      expect(screen.queryByText("Exited with code 143") !== null).toBe(!c.running);
    });
  }
});

describe("followup questions", () => {
  const question = ask(1, AskKind.FOLLOWUP, { payload: { case: "followup", value: { question: "Which DB?", options: ["Postgres", "SQLite"] } } });

  it("while open, the options show once: as buttons", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task, question], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getAllByText("SQLite")).toHaveLength(1);
    expect(within(screen.getByRole("group", { name: "Answer options" })).getByRole("button", { name: "SQLite" })).toBeTruthy();
    expect(screen.queryByRole("list", { name: "Options" })).toBeNull();
  });

  it("after the answer, the chosen option is marked", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task, question], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    await push(added(say(2, SayKind.USER_FEEDBACK, { text: "SQLite" })), stateChanged({ status: TaskStatus.RUNNING, openAskIndex: -1 }));
    const options = screen.getByRole("list", { name: "Options" });
    const chosen = within(options).getAllByRole("listitem").filter((li) => li.getAttribute("aria-current") === "true");
    expect(chosen.map((li) => li.textContent)).toEqual(["SQLiteyour answer"]);
    expect(screen.queryByRole("group", { name: "Answer options" })).toBeNull();
  });

  const reply = (text: string) => say(2, SayKind.USER_FEEDBACK, { text });
  const answerCases: { name: string; messages: Message[]; want: string }[] = [
    { name: "the next reply names an option", messages: [task, question, reply(" Postgres ")], want: "Postgres" },
    { name: "the next reply is free text", messages: [task, question, reply("neither")], want: "" },
    { name: "no reply yet", messages: [task, question], want: "" },
    { name: "another question came first", messages: [task, question, ask(2, AskKind.FOLLOWUP, { text: "?" }), say(3, SayKind.USER_FEEDBACK, { text: "SQLite" })], want: "" },
    {
      name: "the payload records the choice",
      messages: [task, ask(1, AskKind.FOLLOWUP, { payload: { case: "followup", value: { question: "q", options: ["a", "b"], selected: "b" } } })],
      want: "b",
    },
  ];
  for (const c of answerCases) {
    it(`answerAfter: ${c.name}`, () => {
      expect(answerAfter(c.messages, 1)).toBe(c.want);
    });
  }
});

describe("checkpoint row", () => {
  it("the Restore toggle is drawn unlike its choices, which open below the row", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([task, say(1, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash: "abcdef123456" } } })]));
    const toggle = screen.getByRole("button", { name: "Restore" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    await user.click(toggle);
    const group = screen.getByRole("group", { name: "Restore checkpoint" });
    const files = within(group).getByRole("button", { name: "Files" });
    expect(toggle.className).not.toBe(files.className);
    expect(toggle.querySelector(".codicon-chevron-up")).toBeTruthy();
    expect(group.parentElement).not.toBe(toggle.parentElement);
  });

  it("its first line does not wrap at a narrow sidebar", () => {
    expect(cssRule(".checkpoint-head")).toContain("flex-wrap: nowrap");
    expect(cssRule(".checkpoint-head > .checkpoint-label")).toContain("text-overflow: ellipsis");
  });
});

describe("pending edit", () => {
  it("the Diff starts open even when the ask opens after the row arrived", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task]));
    await push(added(ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.ts", diff: "-old\n+new" } } })));
    await push(stateChanged({ status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("button", { name: "Diff" }).getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByLabelText("Diff").querySelector(".diff-add")?.textContent).toBe("+new");
  });
});

describe("an edit's outcome", () => {
  const edited = ToolOperation.EDITED_EXISTING_FILE;
  const created = ToolOperation.NEW_FILE_CREATED;
  const cases = [
    { name: "saved", op: edited, outcome: ToolOutcome.SAVED, title: "Cairn edited this file", icon: "check" },
    { name: "saved with changes", op: edited, outcome: ToolOutcome.SAVED_WITH_CHANGES, title: "Cairn edited this file, saved with your changes", icon: "check" },
    { name: "rejected", op: edited, outcome: ToolOutcome.REJECTED, title: "You rejected this edit", icon: "close" },
    { name: "failed", op: edited, outcome: ToolOutcome.FAILED, title: "Saving this edit failed; the file is unchanged", icon: "error" },
    { name: "new file saved", op: created, outcome: ToolOutcome.SAVED, title: "Cairn created this file", icon: "check" },
    { name: "new file rejected", op: created, outcome: ToolOutcome.REJECTED, title: "You rejected this new file", icon: "close" },
    { name: "new file failed", op: created, outcome: ToolOutcome.FAILED, title: "Creating this file failed; nothing was written", icon: "error" },
    { name: "not recorded (an older task)", op: edited, outcome: ToolOutcome.UNSPECIFIED, title: "Cairn edited this file", icon: "edit" },
  ];
  it.each(cases)("$name: the row reads $title", async ({ op, outcome, title, icon }) => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task, ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: op, path: "a.ts", diff: "-a\n+b", outcome } } })]));
    const header = screen.getByText(title).closest(".row-header");
    expect(header?.querySelector(`.codicon-${icon}`)).toBeTruthy();
  });

  it("the pending ask turns into its outcome when the daemon records it", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const row = (outcome: ToolOutcome) =>
      ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: edited, path: "a.ts", diff: "-a\n+b", outcome } } });
    await push(snapshot([task, row(ToolOutcome.UNSPECIFIED)], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByText("Cairn wants to edit this file")).toBeTruthy();
    await push(stateChanged({ status: TaskStatus.RUNNING }), updated(row(ToolOutcome.REJECTED)));
    expect(screen.queryByText("Cairn wants to edit this file")).toBeNull();
    expect(screen.getByText("You rejected this edit").closest(".row-header")?.className).toContain("muted");
  });
});

describe("history", () => {
  it("keeps a model name whole instead of breaking it at a hyphen", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
    fake.on(StateService.method.listModels, () => ({ models: [] }));
    fake.on(TaskService.method.listTasks, () => ({
      tasks: [{ taskId: "a", title: "Add login", tokensIn: 10n, tokensOut: 5n, cost: 0.01, updatedUnixMs: 1_700_000_000_000n, sizeBytes: 10n, model: "claude-3-5-sonnet" }],
      totalSizeBytes: 10n,
    }));
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "History" }));
    const model = await screen.findByText("claude-3-5-sonnet");
    expect(model.className).toBe("history-model");
    expect(cssRule(".history-model")).toContain("white-space: nowrap");
  });
});

describe("task cost", () => {
  const cases = [
    { name: "unknown prices, tokens used, nothing reported", state: { pricesKnown: false, cost: 0, tokensIn: 1200n }, want: "price unknown" },
    { name: "known prices", state: { pricesKnown: true, cost: 0, tokensIn: 1200n }, want: "$0.0000" },
    { name: "unknown prices but a reported cost", state: { pricesKnown: false, cost: 0.0123, tokensIn: 1200n }, want: "$0.0123" },
    { name: "nothing used yet", state: { pricesKnown: false, cost: 0, tokensIn: 0n }, want: "$0.0000" },
  ];
  for (const c of cases) {
    it(`header: ${c.name}`, async () => {
      const { push, user } = await renderApp({ taskId: "t1" });
      await push(snapshot([task], c.state));
      // Collapsed: one cost figure when it is known, none when it is not.
      if (c.want === "price unknown") expect(screen.queryByLabelText("Cost")).toBeNull();
      else expect(screen.getByLabelText("Cost").textContent).toBe(c.want);
      // Expanded, the limits line says the same, never "$0.0000" for an unknown price.
      await user.click(screen.getByRole("button", { name: "Fix the bug" }));
      expect(screen.getByLabelText("Cost limit").textContent).toBe(`${c.want} (no cost limit)`);
    });
  }
});
