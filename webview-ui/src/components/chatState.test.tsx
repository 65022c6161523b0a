// The chat knows its own state: a one-line collapsed header, one cost rule in every
// view, the real buttons named, the right input during every streaming moment, and "See new
// changes" only when there are new changes.

import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { act, screen, waitFor, within } from "@testing-library/react";
import { McpServerStatus, McpService, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation, ToolOutcome } from "@cairn/proto/gen/cairn/v1/message_pb";
import { HookStatus } from "@cairn/proto/gen/cairn/v1/hooks_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { added, ask, AskKind, say, SayKind, snapshot, stateChanged } from "../test/fixtures";
import { configuredSettings, flushAsync, renderApp } from "../test/renderApp";

const task = say(0, SayKind.TASK, { text: "Fix the bug" });

describe("collapsed task header", () => {
  it("is one line: the title and one cost figure, nothing else", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([task], { pricesKnown: true, cost: 0.01, tokensIn: 1200n, tokensOut: 300n, cacheReads: 50n, requests: 2, contextWindow: 1000n, contextTokens: 200n }),
    );
    const header = screen.getByRole("region", { name: "Task" });
    // Only the title row; tokens, limits and the context bar wait for the expanded view.
    expect(header.children).toHaveLength(1);
    expect(header.querySelector(".task-title-row")).toBe(header.children[0]);
    expect(within(header).getAllByText(/\$0\.0100/)).toHaveLength(1);
    expect(within(header).queryByText(/no cost limit/)).toBeNull();
    expect(within(header).queryByRole("progressbar")).toBeNull();
  });

  it("shows no cost figure while prices are unknown", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot([task], { pricesKnown: false, cost: 0, tokensIn: 1200n }));
    const header = screen.getByRole("region", { name: "Task" });
    expect(within(header).queryByText(/\$|price/)).toBeNull();
  });

  it("expanded: model, approval policy, tokens, cache, limits and the context bar", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([task], {
        pricesKnown: true, cost: 0.01, tokensIn: 1200n, tokensOut: 300n, cacheReads: 50n, cacheWrites: 10n,
        requests: 2, contextWindow: 1000n, contextTokens: 200n, model: "plan-model",
      }),
    );
    await user.click(screen.getByRole("button", { name: "Fix the bug" }));
    const header = screen.getByRole("region", { name: "Task" });
    expect(within(header).getByLabelText("Task settings").textContent).toContain("plan-model");
    expect(within(header).getByLabelText("Task settings").textContent).toContain("Auto-approve");
    expect(within(header).getByLabelText("Tokens in").textContent).toBe("1.2k");
    expect(within(header).getByTitle("Cache writes / reads")).toBeTruthy();
    expect(within(header).getByLabelText("Requests").textContent).toBe("2 requests");
    expect(within(header).getByRole("progressbar", { name: "Context window" })).toBeTruthy();
  });
});

describe("one cost truth", () => {
  it("Recent tasks shows price unknown for an unpriced task, as History does", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
    fake.on(StateService.method.listModels, () => ({ models: [] }));
    fake.on(TaskService.method.listTasks, () => ({
      tasks: [{ taskId: "a", title: "Local task", tokensIn: 5000n, tokensOut: 100n, cost: 0, pricesKnown: false, updatedUnixMs: 1_700_000_000_000n }],
    }));
    await renderApp({ fake });
    const recent = await screen.findByRole("button", { name: /Local task/ });
    expect(recent.textContent).toContain("price unknown");
    expect(recent.textContent).not.toContain("$0.0000");
  });

  it("Recent tasks and History say a task on the editor's models is included, not price unknown", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
    fake.on(StateService.method.listModels, () => ({ models: [] }));
    fake.on(TaskService.method.listTasks, () => ({
      tasks: [{ taskId: "a", title: "Editor task", tokensIn: 5000n, tokensOut: 100n, cost: 0, pricesKnown: false, included: true, updatedUnixMs: 1_700_000_000_000n }],
    }));
    const { user } = await renderApp({ fake });
    const recent = await screen.findByRole("button", { name: /Editor task/ });
    expect(recent.textContent).toContain("included with the editor's models");
    expect(recent.textContent).not.toContain("price unknown");
    await user.click(screen.getByRole("button", { name: "History" }));
    const history = screen.getByRole("region", { name: "History" });
    expect(await within(history).findByText(/included with the editor's models/)).toBeTruthy();
    expect(within(history).queryByText(/price unknown/)).toBeNull();
  });

  it("a subagents row shows no $0.0000 for children whose cost is not known", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const children = [{ prompt: "Read db.go", status: "done", requests: 2, cost: 0 }];
    await push(snapshot([task, say(1, SayKind.SUBAGENTS, { text: JSON.stringify({ children }) })], { pricesKnown: false, tokensIn: 10n }));
    const list = screen.getByRole("list", { name: "Subagents" });
    expect(list.closest(".subagents-row")?.textContent).not.toContain("$0.0000");
    expect(within(list).getByText(/2 requests/)).toBeTruthy();
  });

  it("Set task limits is a themed button, not text", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([task], { pricesKnown: true }));
    await user.click(screen.getByRole("button", { name: "Fix the bug" }));
    const b = screen.getByRole("button", { name: "Set task limits" });
    expect(b.className).not.toContain("link-button");
    expect(b.className).toMatch(/\b(small-button|button)\b/);
  });
});


describe("right words at the right moment", () => {
  it("the feedback box names the buttons that send it", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const cmd = ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "make", requiresApproval: true } } });
    await push(snapshot([task, cmd], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("button", { name: "Run Command" })).toBeTruthy();
    expect(screen.getByPlaceholderText("Type feedback (sent with Run Command or Reject)…")).toBeTruthy();
    const edit = ask(2, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.go", diff: "@@" } } });
    await push(snapshot([task, cmd, edit], { status: TaskStatus.WAITING, openAskIndex: 2 }));
    expect(screen.getByPlaceholderText("Type feedback (sent with Save or Reject)…")).toBeTruthy();
  });

  it("after a command's withdrawn ask, the next request streams with Cancel and the queue", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const out = ask(1, AskKind.COMMAND_OUTPUT, { payload: { case: "command", value: { command: "make" } } });
    await push(snapshot([task, out], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("button", { name: "Proceed While Running" })).toBeTruthy();
    // The command ended: the daemon withdraws the ask and the next request streams.
    await push(stateChanged({ status: TaskStatus.WAITING, openAskIndex: -1 }), added(say(2, SayKind.API_REQ_STARTED, { partial: true })));
    expect(screen.getByRole("button", { name: "Cancel" })).toBeTruthy();
    expect(screen.getByPlaceholderText(/^Queue a message/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Proceed While Running" })).toBeNull();
  });

  it("a resolved resume question leaves no question behind", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const resume = ask(1, AskKind.RESUME_TASK);
    await push(snapshot([task, resume], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByText("Task was interrupted. Resume it?")).toBeTruthy();
    await push(snapshot([task, resume, say(2, SayKind.USER_FEEDBACK, { text: "go on" })], { status: TaskStatus.RUNNING, openAskIndex: -1 }));
    expect(screen.queryByText(/Resume it\?/)).toBeNull();
    expect(screen.getByText("Task was interrupted, then resumed.")).toBeTruthy();
  });

  it("no internal words: a restored point, subagent tools, the daemon's status", async () => {
    const { fake, push } = await renderApp({ taskId: "t1" });
    const children = [
      { prompt: "Write a.go", status: "running", requests: 1, cost: 0.001, lastTool: "write_to_file a.go" },
      { prompt: "Read db.go", status: "done", requests: 2, cost: 0.002, lastTool: "attempt_completion" },
    ];
    await push(
      snapshot([task, say(1, SayKind.DELETED_API_REQS), say(2, SayKind.SUBAGENTS, { text: JSON.stringify({ children }) })]),
    );
    const chat = screen.getByRole("main", { name: "Chat" });
    expect(chat.textContent).not.toMatch(/API requests|write_to_file|attempt_completion/);
    expect(within(chat).getByText(/Wrote a\.go/)).toBeTruthy();
    expect(within(chat).getByText(/Finished/)).toBeTruthy();
    act(() => fake.emitHost({ type: "host", event: "daemon", status: "restarting" }));
    const banner = await screen.findByRole("status");
    expect(banner.textContent).not.toMatch(/daemon/i);
    expect(banner.textContent).toMatch(/starting again/);
  });
});

describe("See new changes only after changes", () => {
  const cp = (i: number, hash: string) => say(i, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash } } });
  const done = (i: number, changes?: boolean) =>
    say(i, SayKind.COMPLETION_RESULT, { payload: { case: "completion", value: { result: `done ${i}`, changes } } });
  const feedback = (i: number) => say(i, SayKind.USER_FEEDBACK, { text: "more" });
  const mcp = (i: number, toolName: string, uri = "") =>
    say(i, SayKind.MCP_SERVER_REQUEST_STARTED, { payload: { case: "mcp", value: { serverName: "everything", toolName, uri } } });
  const cases: Array<{ name: string; msgs: ReturnType<typeof say>[]; offered: boolean }> = [
    { name: "an edit made a checkpoint", msgs: [task, cp(1, "h1"), cp(2, "h2"), done(3)], offered: true },
    { name: "a blocked command or read-only subagents left no checkpoint", msgs: [task, cp(1, "h1"), say(2, SayKind.ERROR, { text: "blocked" }), done(3)], offered: false },
    { name: "the second completion changed nothing", msgs: [task, cp(1, "h1"), cp(2, "h2"), done(3), feedback(4), done(5)], offered: false },
    { name: "after a resume the same state was checkpointed again", msgs: [task, cp(1, "h1"), cp(2, "h2"), done(3), feedback(4), cp(5, "h2"), done(6)], offered: false },
    { name: "an MCP tool call may have changed files", msgs: [task, cp(1, "h1"), mcp(2, "write_file"), done(3)], offered: true },
    { name: "an MCP resource read changed nothing", msgs: [task, cp(1, "h1"), mcp(2, "", "file:///a"), done(3)], offered: false },
    // The daemon's word on the row decides (core/task changes.go): it checkpoints before the completion.
    { name: "the daemon says the MCP echo changed nothing", msgs: [task, cp(1, "h1"), mcp(2, "echo"), done(3, false)], offered: false },
    { name: "the daemon says an MCP call changed a file", msgs: [task, cp(1, "h1"), mcp(2, "write_file"), cp(3, "h2"), done(4, true)], offered: true },
    { name: "the daemon says a file changed though a second checkpoint row is missing", msgs: [task, cp(1, "h1"), done(2, true)], offered: true },
  ];
  for (const c of cases) {
    it(`${c.offered ? "offers" : "does not offer"} it when ${c.name}`, async () => {
      const { push } = await renderApp({ taskId: "t1" });
      await push(snapshot(c.msgs, { status: TaskStatus.COMPLETED }));
      const last = c.msgs[c.msgs.length - 1]!;
      const row = document.querySelector(`[data-index="${last.index}"]`) as HTMLElement;
      expect(within(row).queryByRole("button", { name: /See new changes/ }) !== null).toBe(c.offered);
    });
  }

  it("appears once a checkpoint shows the work changed something", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    // A completion row whose checkpoint arrives in a later snapshot (the list grew before it).
    await push(snapshot([task, cp(1, "h1"), done(2)], { status: TaskStatus.COMPLETED }));
    let row = document.querySelector('[data-index="2"]') as HTMLElement;
    expect(within(row).queryByRole("button", { name: /See new changes/ })).toBeNull();
    await push(snapshot([task, cp(1, "h1"), cp(2, "h2"), done(3)], { status: TaskStatus.COMPLETED }));
    row = document.querySelector('[data-index="3"]') as HTMLElement;
    expect(within(row).getByRole("button", { name: /See new changes/ })).toBeTruthy();
  });
});

// The stylesheet as shipped (vitest does not load CSS into jsdom).
const css = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "styles.css"), "utf8");

/** cssRule is the body of the first rule whose selector is exactly sel ("" when there is none). */
function cssRule(sel: string): string {
  const i = css.indexOf(`${sel} {`);
  if (i < 0) return "";
  return css.slice(i, css.indexOf("}", i));
}

describe("nothing covers text; long text wraps", () => {
  it("Jump to latest sits in its own strip, not over the chat", () => {
    expect(cssRule(".jump-latest")).not.toMatch(/position:\s*absolute/);
    expect(cssRule(".jump-latest-bar")).toMatch(/flex: none/);
  });

  it("the auto-approve bar keeps its label on one line and wraps its list", async () => {
    await renderApp();
    const label = screen.getByText("Auto-approve:");
    expect(label.className).toContain("aa-label");
    expect(cssRule(".aa-label")).toContain("white-space: nowrap");
    expect(cssRule(".aa-summary")).not.toMatch(/nowrap|ellipsis/);
  });

  it("hook diffs and MCP server names wrap instead of being cut", () => {
    expect(cssRule(".hook-diff")).toContain("white-space: pre-wrap");
    expect(cssRule(".hook-row > .check")).toContain("flex-wrap: wrap");
    expect(cssRule(".mcp-name")).not.toMatch(/nowrap|ellipsis/);
  });

  it("settings say at length below a field what a placeholder would cut", async () => {
    const { user } = await renderApp();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const key = screen.getByLabelText("API key") as HTMLInputElement;
    expect(key.placeholder.length).toBeLessThanOrEqual(16);
    expect(screen.getByText("A key is stored; leave this empty to keep it.")).toBeTruthy();
    const tools = screen.getByRole("combobox", { name: "Tool calls" }) as HTMLSelectElement;
    for (const o of Array.from(tools.options)) expect(o.text.length, o.text).toBeLessThanOrEqual(26);
  });
});

describe("every button in the theme's button colours", () => {
  it("a .button is themed even without primary or secondary", () => {
    const rule = cssRule(".button");
    expect(rule).toMatch(/background: var\(--vscode-button-secondaryBackground\)/);
    expect(rule).toMatch(/color: var\(--vscode-button-secondaryForeground\)/);
  });

  it("Test connection and Trust this version say which of the theme's buttons they are", async () => {
    const app = await renderApp();
    const hook = {
      kind: "PreToolUse", name: ".clinerules/hooks/PreToolUse", path: "/work/proj/.clinerules/hooks/PreToolUse",
      status: HookStatus.CHANGED, enabled: true, executable: true, diff: "+echo hi\n", currentSha256: "abc",
    };
    app.fake.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
    app.fake.on(WorkspaceService.method.listHooks, () => ({ hooks: [hook], workspaceEnabled: true, globalEnabled: true, globalDir: "/g" }));
    await app.user.click(screen.getByRole("button", { name: "Settings" }));
    await flushAsync();
    const trust = screen.getByRole("button", { name: "Trust this version" });
    const test = screen.getByRole("button", { name: "Test connection" });
    for (const b of [trust, test]) expect(b.className).toMatch(/\bbutton (primary|secondary)\b/);
    // And no other .button in Settings goes without one.
    for (const b of Array.from(document.querySelectorAll("button.button"))) expect(b.className, b.textContent ?? "").toMatch(/\b(primary|secondary)\b/);
  });
});

describe("the diff in the chat is what was saved", () => {
  it("an edit saved with the user's changes is followed by what differs from the proposal", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const proposal = say(1, SayKind.TOOL, {
      payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.go", diff: "@@ -1 +1 @@\n-a\n+b\n", outcome: ToolOutcome.SAVED_WITH_CHANGES } },
    });
    const saved = say(2, SayKind.USER_FEEDBACK_DIFF, {
      payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.go", diff: "@@ -1 +1 @@\n-b\n+b, edited\n" } },
    });
    await push(snapshot([task, proposal, saved]));
    const row = document.querySelector('[data-index="2"]') as HTMLElement;
    expect(within(row).getByText("Saved with your changes to a.go: what differs from the proposal")).toBeTruthy();
    expect(row.textContent).toContain("+b, edited");
  });
});

describe("setup and settings agree", () => {
  const presets = [
    { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", needsKey: true },
    { id: "ollama", name: "Ollama", baseUrl: "http://localhost:11434/v1" },
    { id: "vscode-lm", name: "Editor language models" },
    { id: "openai-compatible", name: "OpenAI-compatible (other)", needsKey: true },
  ];
  const fakeWith = (settings: object, models: string[]) => {
    const f = new FakeClient();
    f.on(StateService.method.getState, () => ({ settings, presets }));
    f.on(StateService.method.listModels, () => ({ models }));
    f.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    f.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
    f.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
    return f;
  };
  /** formFields names the provider form's controls in the order they appear. */
  const formFields = (view: HTMLElement) => {
    const names = ["Provider", "API key", "Base URL", "Act mode model"];
    const els = names.map((n) => within(view).getByLabelText(n));
    for (let i = 1; i < els.length; i++) {
      expect(els[i - 1]!.compareDocumentPosition(els[i]!) & Node.DOCUMENT_POSITION_FOLLOWING, `${names[i - 1]} before ${names[i]}`).toBeTruthy();
    }
    return els;
  };

  it("the welcome view and Settings ask for provider, key, base URL and model in one order", async () => {
    const welcome = await renderApp({ fake: fakeWith({}, ["llama3"]) });
    formFields(screen.getByRole("region", { name: "Welcome" }));
    welcome.unmount();
    const { user } = await renderApp({ fake: fakeWith(configuredSettings, ["gpt-4o"]) });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    formFields(screen.getByRole("region", { name: "Settings" }));
  });

  it("both pickers offer the daemon's providers, one entry each, in its order", async () => {
    const options = (view: HTMLElement) => within(within(view).getByRole("combobox", { name: "Provider" })).getAllByRole("option").map((o) => o.textContent);
    const want = presets.map((p) => p.name);
    const welcome = await renderApp({ fake: fakeWith({}, []) });
    await waitFor(() => expect(options(screen.getByRole("region", { name: "Welcome" }))).toEqual(want));
    welcome.unmount();
    const { user } = await renderApp({ fake: fakeWith(configuredSettings, []) });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    await waitFor(() => expect(options(screen.getByRole("region", { name: "Settings" }))).toEqual(want));
  });

  it("the Act and Plan models are chosen from the fetched list; a typed name only through Other", async () => {
    const f = fakeWith(configuredSettings, ["gpt-4o", "gpt-4o-mini"]);
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    const act = within(view).getByRole("combobox", { name: "Act mode model" }) as HTMLSelectElement;
    await waitFor(() => expect(within(act).getAllByRole("option")).toHaveLength(3));
    expect(within(act).getAllByRole("option").map((o) => (o as HTMLOptionElement).value.startsWith("gpt-4o") || o.textContent)).toEqual([
      true,
      true,
      "Other (type a name)",
    ]);
    expect(act.value).toBe("gpt-4o");
    expect(within(view).queryByRole("textbox", { name: /Act mode model/ })).toBeNull();
    const plan = within(view).getByRole("combobox", { name: "Plan mode model (optional)" }) as HTMLSelectElement;
    expect(within(plan).getAllByRole("option").map((o) => o.textContent)[0]).toBe("Same as Act");
    await user.selectOptions(plan, "gpt-4o-mini");
    await user.selectOptions(act, "Other (type a name)");
    const typed = within(view).getByRole("textbox", { name: "Act mode model: name" });
    await user.clear(typed);
    await user.type(typed, "my-finetune");
    await user.click(within(view).getByRole("button", { name: "Save" }));
    expect(f.callsTo(StateService.method.updateSettings)[0]!.settings!.api).toMatchObject({ model: "my-finetune", planModel: "gpt-4o-mini" });
  });

  it("a stored model shows as chosen while the list loads, and as Other once the list lacks it", async () => {
    const f = fakeWith(configuredSettings, []);
    // Every list request (the chat's model picker asks too) waits until answer.
    const waiting: Array<(r: { models: string[] }) => void> = [];
    const answer = (models: string[]) => waiting.splice(0).forEach((resolve) => resolve({ models }));
    f.on(StateService.method.listModels, () => new Promise<{ models: string[] }>((resolve) => waiting.push(resolve)));
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    const select = within(view).getByRole("combobox", { name: "Act mode model" }) as HTMLSelectElement;
    await waitFor(() => expect(f.callsTo(StateService.method.listModels).some((r) => r.baseUrl === "http://127.0.0.1:9/v1")).toBe(true));
    expect(select.value).toBe("gpt-4o");
    expect(within(view).queryByRole("textbox", { name: "Act mode model: name" })).toBeNull();
    await act(async () => answer(["o3"]));
    expect(select.value).not.toBe("gpt-4o");
    expect((within(view).getByRole("textbox", { name: "Act mode model: name" }) as HTMLInputElement).value).toBe("gpt-4o");
  });

  it("an empty model list says so, in the welcome view too", async () => {
    const { user } = await renderApp({ fake: fakeWith({}, []) });
    const view = screen.getByRole("region", { name: "Welcome" });
    await user.click(within(view).getByRole("button", { name: "Fetch models" }));
    expect(await within(view).findByText(/The endpoint listed no models: choose "Other"/)).toBeTruthy();
    expect((within(view).getByRole("button", { name: "Let's go!" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("an MCP server's enable checkbox has a visible label", async () => {
    const app = await renderApp();
    await app.user.click(screen.getByRole("button", { name: "MCP Servers" }));
    app.fake.lastStream(McpService.method.watchMcpServers).push({
      servers: [{ name: "everything", status: McpServerStatus.CONNECTED, transport: "stdio", target: "x", timeoutSeconds: 60 }],
      settingsPath: "/data/mcp_settings.json",
    });
    await flushAsync();
    const box = screen.getByRole("checkbox", { name: "Enable everything" });
    expect(box.closest("label")?.textContent?.trim()).toBe("Enable");
  });
});
