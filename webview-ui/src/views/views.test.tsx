import { CheckpointService, RestoreKind } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { describe, expect, it } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { TaskService, TaskSort, TaskStatus, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { clone, create } from "@bufbuild/protobuf";
import { ApiConfigSchema, McpService, SettingsSchema, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { FakeClient } from "../rpc/fake";
import { added, appended, ask, AskKind, say, SayKind, snapshot, stateChanged, updated } from "../test/fixtures";
import { configuredSettings, flushAsync, renderApp } from "../test/renderApp";

const tasks = [
  { taskId: "a", title: "Add login page", tokensIn: 1200n, tokensOut: 300n, cost: 0.0123, favorite: false, updatedUnixMs: 1_700_000_000_000n, sizeBytes: 2048n },
  { taskId: "b", title: "Fix flaky test", tokensIn: 50n, tokensOut: 10n, cost: 0.5, favorite: true, updatedUnixMs: 1_700_000_100_000n, sizeBytes: 10n },
];

function historyFake(): FakeClient {
  const fake = new FakeClient();
  fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
  fake.on(StateService.method.listModels, () => ({ models: [] }));
  fake.on(TaskService.method.listTasks, (req) => ({
    tasks: tasks.filter((t) => (!req.favoritesOnly || t.favorite) && t.title.toLowerCase().includes(req.search.toLowerCase())),
    totalSizeBytes: 2058n,
  }));
  fake.on(TaskService.method.exportTask, (req) => ({ markdown: `# task ${req.taskId}`, fileName: `${req.taskId}.md` }));
  return fake;
}

describe("chat list", () => {
  it("renders a snapshot as a list, streams deltas into the last row and finalizes it", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(
      snapshot(
        [
          say(0, SayKind.TASK, { text: "Explain the code" }),
          say(1, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { done: true, cost: 0.0042 } } }),
          say(2, SayKind.TEXT, { text: "Here is", partial: true }),
        ],
        { tokensIn: 15000n, tokensOut: 420n, cost: 0.0042, contextTokens: 30000n, contextWindow: 128000n },
      ),
    );
    const list = screen.getByRole("list", { name: "Messages" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(3);
    expect(within(list).getByText("Explain the code")).toBeTruthy();
    expect(within(list).getByText("$0.0042")).toBeTruthy();
    await push(appended(2, " the **answer**"));
    expect(within(list).getByText("answer").tagName).toBe("STRONG");
    await push(updated(say(2, SayKind.TEXT, { text: "Done.\n\n```ts\nconst a = 1\n```" })));
    expect(within(list).getByText("Done.")).toBeTruthy();
    expect(within(list).getByRole("button", { name: "Copy code" })).toBeTruthy();
    await push(added(say(3, SayKind.COMPLETION_RESULT, { payload: { case: "completion", value: { result: "All good" } } })));
    expect(within(list).getAllByRole("listitem")).toHaveLength(4);
    expect(within(list).getByText("Task Completed")).toBeTruthy();
    // Header numbers, in the expanded header.
    await user.click(screen.getByRole("button", { name: "Fix the bug" }));
    expect(screen.getByLabelText("Tokens in").textContent).toContain("15k");
    expect(screen.getByRole("progressbar", { name: "Context window" }).getAttribute("aria-valuenow")).toBe("23");
  });

  it("renders tool, command, error-retry, checkpoint, MCP and thinking rows", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([
        say(0, SayKind.TASK, { text: "t" }),
        say(1, SayKind.TEXT, { text: "<thinking>secret plan</thinking>Visible answer" }),
        say(2, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.READ_FILE, path: "src/main.go", content: "package main" } } }),
        say(3, SayKind.COMMAND, { payload: { case: "command", value: { command: "go test ./..." } } }),
        say(4, SayKind.COMMAND_OUTPUT, { payload: { case: "commandOutput", value: { output: "ok  pkg 0.1s", running: false, exitCode: 0 } } }),
        say(5, SayKind.ERROR_RETRY, { payload: { case: "retry", value: { attempt: 2, maxAttempts: 3, delaySeconds: 4, error: "502" } } }),
        say(6, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash: "abcdef123456" } } }),
        say(7, SayKind.MCP_SERVER_RESPONSE, { payload: { case: "mcp", value: { response: "{\"ok\":true}" } } }),
        say(8, SayKind.USER_FEEDBACK, { text: "please also lint" }),
      ]),
    );
    expect(screen.getByText("Visible answer")).toBeTruthy();
    expect(screen.queryByText("secret plan")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Thinking" }));
    expect(screen.getByText("secret plan")).toBeTruthy();
    expect(screen.getByText("Cairn read this file")).toBeTruthy();
    expect(screen.getByText("src/main.go")).toBeTruthy();
    expect(screen.getByText("go test ./...")).toBeTruthy();
    expect(screen.getByLabelText("Command output").textContent).toBe("ok  pkg 0.1s");
    expect(screen.getByText("Exited with code 0")).toBeTruthy();
    expect(screen.getByText("Retrying (attempt 2/3) in 4s")).toBeTruthy();
    expect(screen.getByText("Checkpoint abcdef1")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Compare" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Restore" })).toBeTruthy();
    expect(screen.getByText("{\"ok\":true}")).toBeTruthy();
    expect(screen.getByText("please also lint")).toBeTruthy();
  });

  it("checkpoint rows compare in the editor and restore files, task or both", async () => {
    const { push, user, fake } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([
        say(0, SayKind.TASK, { text: "t" }),
        say(1, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash: "abcdef123456" } } }),
      ]),
    );
    await user.click(screen.getByRole("button", { name: "Compare" }));
    expect(fake.callsTo(CheckpointService.method.compareCheckpoint).at(-1)).toMatchObject({ taskId: "t1", messageIndex: 1, showInEditor: true });
    await user.click(screen.getByRole("button", { name: "Restore" }));
    await user.click(within(screen.getByRole("group", { name: "Restore checkpoint" })).getByRole("button", { name: "Task" }));
    expect(fake.callsTo(CheckpointService.method.restoreCheckpoint).at(-1)).toMatchObject({ taskId: "t1", messageIndex: 1, kind: RestoreKind.TASK });
    expect(screen.queryByRole("group", { name: "Restore checkpoint" })).toBeNull();
  });

  it("a withdrawn 'still running' ask leaves no stale Running row", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([
        say(0, SayKind.TASK, { text: "t" }),
        ask(1, AskKind.COMMAND_OUTPUT, { payload: { case: "commandOutput", value: { running: true } } }),
        say(2, SayKind.COMMAND_OUTPUT, { text: "done\n", payload: { case: "commandOutput", value: { output: "done\n", exitCode: 0 } } }),
      ]),
    );
    expect(screen.queryByText("Running")).toBeNull();
    expect(screen.queryByText("The command is still running.")).toBeNull();
    expect(screen.getByText("Exited with code 0")).toBeTruthy();
  });

  it("an edit approval shows the diff open and the Save button", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot(
        [
          say(0, SayKind.TASK, { text: "t" }),
          ask(1, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "a.ts", diff: "-old\n+new" } } }),
        ],
        { status: TaskStatus.WAITING, openAskIndex: 1 },
      ),
    );
    expect(screen.getByText("Cairn wants to edit this file")).toBeTruthy();
    const diff = screen.getByLabelText("Diff");
    expect(diff.querySelector(".diff-add")?.textContent).toBe("+new");
    expect(diff.querySelector(".diff-del")?.textContent).toBe("-old");
    expect(screen.getByRole("button", { name: "Save" })).toBeTruthy();
  });

  it("re-subscribes to the task after the daemon restarts", async () => {
    const { fake } = await renderApp({ taskId: "t1" });
    const first = fake.lastStream(UiService.method.subscribe);
    act(() => fake.emitHost({ type: "host", event: "daemon", status: "restarting" }));
    expect(screen.getByRole("status").textContent).toContain("starting again");
    act(() => fake.emitHost({ type: "host", event: "daemon", status: "ready" }));
    await flushAsync();
    const second = fake.lastStream(UiService.method.subscribe);
    expect(second).not.toBe(first);
    expect(first.aborted).toBe(true);
    expect(second.request).toMatchObject({ taskId: "t1" });
  });

  it("focus chain: progress count, checking an item sends UpdateFocusChain", async () => {
    const { fake, push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" })], { focusChain: "- [x] read code\n- [ ] write fix\n- [ ] run tests" }));
    expect(screen.getByRole("button", { name: "To-do 1/3" })).toBeTruthy();
    await user.click(screen.getByRole("checkbox", { name: "write fix" }));
    expect(fake.callsTo(TaskService.method.updateFocusChain)).toMatchObject([
      { taskId: "t1", markdown: "- [x] read code\n- [x] write fix\n- [ ] run tests" },
    ]);
    await push(stateChanged({ focusChain: "- [x] read code\n- [x] write fix\n- [ ] run tests" }));
    expect(screen.getByRole("button", { name: "To-do 2/3" })).toBeTruthy();
  });

  it("new task button shows the new-task state and leaves the task running", async () => {
    const { fake, push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "old task" })]));
    await user.click(screen.getByRole("button", { name: "New Task" }));
    // Several tasks at once (README): the task goes on; the strip keeps it.
    expect(fake.callsTo(TaskService.method.clearTask)).toHaveLength(0);
    expect(fake.lastStream(UiService.method.subscribe).closed).toBe(false);
    expect(screen.queryByRole("list", { name: "Messages" })).toBeNull();
    expect(screen.getByText("What can I do for you?")).toBeTruthy();
    expect(screen.getByRole("list", { name: "Open tasks" })).toBeTruthy();
  });
});

describe("history", () => {
  it("lists, searches, filters favourites, sorts", async () => {
    const fake = historyFake();
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "History" }));
    const view = screen.getByRole("region", { name: "History" });
    await waitFor(() => expect(within(view).getAllByRole("listitem")).toHaveLength(2));
    await user.type(within(view).getByRole("searchbox", { name: "Search history" }), "login");
    await waitFor(() => expect(within(view).getAllByRole("listitem")).toHaveLength(1));
    expect(fake.callsTo(TaskService.method.listTasks).at(-1)).toMatchObject({ search: "login" });
    await user.clear(within(view).getByRole("searchbox", { name: "Search history" }));
    await user.click(within(view).getByRole("checkbox", { name: "Favorites only" }));
    await waitFor(() => expect(within(view).getByText("Fix flaky test")).toBeTruthy());
    expect(within(view).queryByText("Add login page")).toBeNull();
    await user.selectOptions(within(view).getByRole("combobox", { name: "Sort" }), "Most expensive");
    expect(fake.callsTo(TaskService.method.listTasks).at(-1)).toMatchObject({ sort: TaskSort.MOST_EXPENSIVE, favoritesOnly: true });
  });

  it("favourite, export, delete and resume", async () => {
    const fake = historyFake();
    fake.persisted = {};
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "History" }));
    const view = screen.getByRole("region", { name: "History" });
    await waitFor(() => expect(within(view).getAllByRole("listitem")).toHaveLength(2));
    const first = within(view).getAllByRole("listitem")[0]!;
    await user.click(within(first).getByRole("button", { name: "Favorite" }));
    expect(fake.callsTo(TaskService.method.setFavorite)).toMatchObject([{ taskId: "a", favorite: true }]);
    expect(within(first).getByRole("button", { name: "Unfavorite" })).toBeTruthy();
    await user.click(within(first).getByRole("button", { name: "Export" }));
    expect(fake.callsTo(TaskService.method.exportTask)).toMatchObject([{ taskId: "a" }]);
    // The markdown goes to the extension's save dialog.
    await waitFor(() => expect(fake.saved).toEqual([{ fileName: "a.md", content: "# task a" }]));
    await user.click(within(first).getByRole("button", { name: "Delete" }));
    expect(fake.callsTo(TaskService.method.deleteTasks)).toMatchObject([{ taskIds: ["a"], all: false }]);
    await user.click(within(view).getByRole("button", { name: "Open task: Fix flaky test" }));
    await flushAsync();
    expect(fake.callsTo(TaskService.method.resumeTask)).toMatchObject([{ taskId: "b", hostId: "host-1" }]);
    expect(fake.lastStream(UiService.method.subscribe).request).toMatchObject({ taskId: "b" });
    expect(screen.queryByRole("region", { name: "History" })).toBeNull();
  });
});

describe("welcome", () => {
  it("shows on first run, fetches models from the typed endpoint and saves the API config", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: { autoApprove: { enabled: true, maxRequests: 20 } } }));
    fake.on(StateService.method.listModels, (req) => ({ models: req.baseUrl === "http://localhost:11434/v1" ? ["llama3", "qwen2.5-coder"] : [] }));
    fake.on(StateService.method.updateSettings, (req) => {
      const settings = clone(SettingsSchema, req.settings!);
      settings.api = create(ApiConfigSchema, { baseUrl: req.settings!.api!.baseUrl, model: req.settings!.api!.model, apiKeySet: true });
      return { settings };
    });
    fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    const { user } = await renderApp({ fake });
    const view = screen.getByRole("region", { name: "Welcome" });
    const url = within(view).getByRole("textbox", { name: "Base URL" });
    await user.clear(url);
    await user.type(url, "http://localhost:11434/v1");
    await user.type(within(view).getByLabelText("API key"), "sk-local");
    await user.click(within(view).getByRole("button", { name: "Fetch models" }));
    expect(fake.callsTo(StateService.method.listModels)).toMatchObject([{ baseUrl: "http://localhost:11434/v1", apiKey: "sk-local" }]);
    await waitFor(() => expect((within(view).getByRole("combobox", { name: "Act mode model" }) as HTMLSelectElement).value).toBe("llama3"));
    await user.click(within(view).getByRole("button", { name: "Let's go!" }));
    const req = fake.callsTo(StateService.method.updateSettings)[0]!;
    expect(req.settings?.api).toMatchObject({ baseUrl: "http://localhost:11434/v1", apiKey: "sk-local", model: "llama3" });
    expect(req.settings?.autoApprove).toMatchObject({ enabled: true, maxRequests: 20 });
    await waitFor(() => expect(screen.queryByRole("region", { name: "Welcome" })).toBeNull());
    expect(screen.getByRole("textbox", { name: "Message Cairn" })).toBeTruthy();
  });
});

describe("settings and MCP", () => {
  it("edits and saves settings, toggles rules at once", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
    fake.on(StateService.method.listModels, () => ({ models: [] }));
    fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    fake.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
    fake.on(WorkspaceService.method.listRules, () => ({
      rules: [{ id: "r1", name: ".clinerules/style.md", source: "workspace", enabled: true }],
    }));
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await user.click(await within(view).findByRole("checkbox", { name: /style\.md/ }));
    expect(fake.callsTo(WorkspaceService.method.toggleRule)).toMatchObject([{ id: "r1", enabled: false }]);
    await user.type(within(view).getByRole("textbox", { name: "Preferred language" }), "German");
    await user.click(within(view).getByRole("checkbox", { name: "Checkpoints" }));
    const limit = within(view).getByRole("spinbutton", { name: "Terminal output limit (lines)" });
    await user.clear(limit);
    await user.type(limit, "1000");
    const wait = within(view).getByRole("spinbutton", { name: "Move a command to the background after (seconds, 0: never)" });
    await user.clear(wait);
    await user.type(wait, "0");
    await user.click(within(view).getByRole("checkbox", { name: "Execute all commands" }));
    await user.click(within(view).getByRole("button", { name: "Save" }));
    const s = fake.callsTo(StateService.method.updateSettings)[0]!.settings!;
    expect(s.preferredLanguage).toBe("German");
    expect(s.checkpointsEnabled).toBe(false);
    expect(s.outputLineLimit).toBe(1000);
    expect(s.commandWaitSeconds).toBe(0);
    expect(s.autoApprove?.allCommands).toBe(true);
    expect(s.api?.model).toBe("gpt-4o");
  });

  it("names the browser found, or says why the browser is off", async () => {
    for (const [browser, want] of [
      [{ found: "/usr/bin/chromium" }, "Browser: /usr/bin/chromium"],
      [{ offReason: "No Chromium or Chrome was found on this machine." }, "Browser off: No Chromium or Chrome was found on this machine."],
    ] as const) {
      const fake = new FakeClient();
      fake.on(StateService.method.getState, () => ({ settings: configuredSettings, browser }));
      fake.on(StateService.method.listModels, () => ({ models: [] }));
      fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
      fake.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
      const { user, unmount } = await renderApp({ fake });
      await user.click(screen.getByRole("button", { name: "Settings" }));
      const view = screen.getByRole("region", { name: "Settings" });
      await flushAsync();
      expect(within(view).getByRole("note", { name: "Browser status" }).textContent).toBe(want);
      unmount();
    }
  });

  it("edits the browser settings and tests the connection", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
    fake.on(StateService.method.listModels, () => ({ models: [] }));
    fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    fake.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
    fake.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
    fake.on(StateService.method.testBrowserConnection, (req) =>
      req.remoteUrl === "http://localhost:9222" ? { ok: false, error: "connection refused" } : { ok: true },
    );
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await user.click(within(view).getByRole("checkbox", { name: /Browser tool/ }));
    await user.selectOptions(within(view).getByRole("combobox", { name: "Viewport" }), "1280x800");
    await user.click(within(view).getByRole("button", { name: "Test connection" }));
    expect(await within(view).findByText("Connected")).toBeTruthy();
    await user.type(within(view).getByRole("textbox", { name: /Remote browser/ }), "http://localhost:9222");
    await user.click(within(view).getByRole("button", { name: "Test connection" }));
    expect(await within(view).findByText("Failed: connection refused")).toBeTruthy();
    expect(fake.callsTo(StateService.method.testBrowserConnection)).toMatchObject([{ remoteUrl: "" }, { remoteUrl: "http://localhost:9222" }]);
    await user.click(within(view).getByRole("button", { name: "Save" }));
    const s = fake.callsTo(StateService.method.updateSettings)[0]!.settings!;
    expect(s.browserEnabled).toBe(true);
    expect(s.browserViewport).toBe("1280x800");
    expect(s.browserRemoteUrl).toBe("http://localhost:9222");
  });

  it("MCP view shows the empty state", async () => {
    const { user, fake } = await renderApp();
    await user.click(screen.getByRole("button", { name: "MCP Servers" }));
    fake.lastStream(McpService.method.watchMcpServers).push({ settingsPath: "/data/mcp_settings.json" });
    await flushAsync();
    expect(screen.getByText("No MCP servers configured")).toBeTruthy();
  });

  it("navigate events from the editor switch views", async () => {
    const { fake } = await renderApp();
    act(() => fake.emitHost({ type: "host", event: "navigate", view: "history" }));
    expect(screen.getByRole("region", { name: "History" })).toBeTruthy();
    act(() => fake.emitHost({ type: "host", event: "navigate", view: "settings" }));
    expect(screen.getByRole("region", { name: "Settings" })).toBeTruthy();
  });
});
