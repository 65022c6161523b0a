// Standalone harness: the real app on the FakeClient (window.__cairnFake), with scenes for the
// screenshots and helpers for the performance check. Query: ?theme=light|dark&scene=...

import { createRoot } from "react-dom/client";
import { create, fromJson, toJson } from "@bufbuild/protobuf";
import "@vscode/codicons/dist/codicon.css";
import "../src/styles.css";
import { App } from "../src/App";
import { Controller } from "../src/state/controller";
import { FakeClient } from "../src/rpc/fake";
import { TaskService, TaskStatus, UiService, SubscribeResponseSchema, type SubscribeResponse } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { ToolOperation, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { appended, ask, AskKind, say, SayKind, snapshot, stateChanged, added } from "../src/test/fixtures";
import { applyTheme } from "./themes";

const params = new URLSearchParams(location.search);
const theme = params.get("theme") === "dark" ? "dark" : "light";
const scene = params.get("scene") ?? "perf";
applyTheme(theme);

const settings = {
  api: { baseUrl: "https://api.openai.com/v1", apiKeySet: true, model: "gpt-4o" },
  autoApprove: { enabled: true, readFiles: true, safeCommands: true, maxRequests: 20 },
  outputLineLimit: 500,
  focusChainEnabled: true,
  focusChainInterval: 6,
  checkpointsEnabled: true,
  mistakeLimit: 3,
  autoCondensePercent: 75,
  preferredLanguage: "English",
};

// The extension posts the editor context once the webview says it is ready (extension
// webview/host.ts), not at page load: the controller subscribes to host events in start(), which
// App calls from an effect after the first render, and it opens the persisted task only once the
// context has named the window's editor. Emitting it right after render() loses it.
class HarnessClient extends FakeClient {
  override ready(): void {
    super.ready();
    setTimeout(() => this.emitHost({ type: "host", event: "context", workspaceRoots: ["/home/dev/cairn"], hostId: "host-1", clientId: "webview-1" }), 0);
  }
}

const fake = new HarnessClient();
fake.on(StateService.method.getState, () => ({ settings: scene === "welcome" ? { autoApprove: settings.autoApprove } : settings, version: "0.1.0" }));
fake.on(StateService.method.listModels, () => ({ models: ["gpt-4o", "gpt-4o-mini", "o3-mini"] }));
fake.on(StateService.method.updateSettings, (r) => ({ settings: r.settings }));
fake.on(TaskService.method.newTask, () => ({ taskId: "t-new" }));
fake.on(TaskService.method.listTasks, () => ({
  totalSizeBytes: 5_400_000n,
  tasks: [
    { taskId: "h1", title: "Add OAuth login with GitHub to the settings page and store the token in the keychain", tokensIn: 182_000n, tokensOut: 9_400n, cacheReads: 120_000n, cost: 0.4231, updatedUnixMs: BigInt(Date.UTC(2026, 10, 21, 15, 4)), sizeBytes: 2_100_000n, favorite: true, model: "gpt-4o" },
    { taskId: "h2", title: "Fix the flaky TestServerShutdown test", tokensIn: 45_000n, tokensOut: 2_100n, cost: 0.0712, updatedUnixMs: BigInt(Date.UTC(2026, 10, 20, 9, 30)), sizeBytes: 640_000n, model: "gpt-4o-mini" },
    { taskId: "h3", title: "Explain how the incremental parser handles partial tags", tokensIn: 12_000n, tokensOut: 1_800n, cost: 0.0154, updatedUnixMs: BigInt(Date.UTC(2026, 10, 18, 18, 2)), sizeBytes: 120_000n, model: "gpt-4o" },
    { taskId: "h4", title: "Migrate the build to Vite and fix the CSP for the webview", tokensIn: 310_000n, tokensOut: 22_000n, cost: 1.2088, updatedUnixMs: BigInt(Date.UTC(2026, 10, 14, 11, 45)), sizeBytes: 2_500_000n, model: "o3-mini" },
  ],
}));
fake.on(WorkspaceService.method.searchFiles, (r) => ({
  matches: [
    { path: "src/components/ChatInput.tsx", isDir: false },
    { path: "src/components", isDir: true },
    { path: "src/state/controller.ts", isDir: false },
    { path: "src/state/taskStore.ts", isDir: false },
    { path: "docs/design notes.md", isDir: false },
  ].filter((m) => m.path.includes(r.query.replace(/^\//, ""))),
}));
fake.on(WorkspaceService.method.listSlashCommands, () => ({
  commands: [
    { name: "newtask", description: "Start a new task with context" },
    { name: "smol", description: "Condense the conversation" },
    { name: "newrule", description: "Create a rule file" },
    { name: "deploy.md", description: "Workflow", workflow: true },
  ],
}));
fake.on(WorkspaceService.method.listRules, () => ({
  rules: [
    { id: "r1", name: ".clinerules/style.md", source: "workspace", enabled: true },
    { id: "r2", name: "release.md", source: "workspace", enabled: false, workflow: true },
    { id: "r3", name: "global-conventions.md", source: "global", enabled: true, global: true },
  ],
}));

if (["chat", "command", "perf", "stream", "subtasks"].includes(scene)) fake.persisted = { taskId: "t1" };

const ctrl = new Controller(fake);
createRoot(document.getElementById("root")!).render(<App ctrl={ctrl} />);

function push(ev: SubscribeResponse) {
  fake.lastStream(UiService.method.subscribe).push(ev);
}

const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
const afterPaint = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));

// ---- scenes -------------------------------------------------------------

const diff = `------- SEARCH
export function total(items: Item[]): number {
  return items.reduce((s, i) => s + i.price, 0);
}
=======
export function total(items: Item[], taxRate = 0): number {
  const net = items.reduce((s, i) => s + i.price * i.qty, 0);
  return Math.round(net * (1 + taxRate) * 100) / 100;
}
+++++++ REPLACE`;

function chatMessages(): Message[] {
  return [
    say(0, SayKind.TASK, { text: "Add tax support to total() in src/cart.ts and update the tests" }),
    say(1, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { done: true, cost: 0.0123, tokensIn: 8200n, tokensOut: 310n } } }),
    say(2, SayKind.TEXT, { text: "<thinking>The user wants a tax rate parameter.</thinking>I'll read `src/cart.ts` first to see how `total()` is used." }),
    say(3, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.READ_FILE, path: "src/cart.ts", content: "export function total(...)" } } }),
    say(4, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash: "9f2c1e7ab34d" } } }),
    say(5, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { done: true, cost: 0.0187 } } }),
    say(6, SayKind.TEXT, {
      text: "`total()` ignores quantities. I'll fix that and add an optional `taxRate`:\n\n```ts\ntotal(items, 0.2) // 20% VAT\n```",
    }),
    ask(7, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "src/cart.ts", diff } } }),
  ];
}

function commandMessages(): Message[] {
  return [
    say(0, SayKind.TASK, { text: "Run the test suite and fix what fails" }),
    say(1, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { done: true, cost: 0.0061 } } }),
    say(2, SayKind.TEXT, { text: "Running the tests to see what fails." }),
    say(3, SayKind.COMMAND, { payload: { case: "command", value: { command: "npm test -- --reporter=dot", requiresApproval: false } } }),
    say(4, SayKind.COMMAND_OUTPUT, {
      payload: {
        case: "commandOutput",
        value: {
          running: true,
          output:
            "> cart@1.0.0 test\n> vitest run --reporter=dot\n\n·····×····\n\n FAIL  src/cart.test.ts > total > applies tax\nAssertionError: expected 10 to be 12\n ❯ src/cart.test.ts:14:29\n\n Test Files  1 failed | 4 passed (5)\n      Tests  1 failed | 41 passed (42)\n",
        },
      },
    }),
    ask(5, AskKind.COMMAND_OUTPUT, {}),
  ];
}

/** subtaskMessages is an orchestrator's chat: one subtask done, the next one running. */
function subtaskMessages(): Message[] {
  const row = (index: number, child: object) => say(index, SayKind.SUBAGENTS, { text: JSON.stringify({ children: [child] }), partial: true });
  return [
    say(0, SayKind.TASK, { text: "Add tax support to total() and review it" }),
    say(1, SayKind.TEXT, { text: "I'll give the change to Code and the review to a reviewer." }),
    row(2, { prompt: "Add an optional taxRate to total() in src/cart.ts, with tests.", mode: "code", status: "done", requests: 6, cost: 0.0214 }),
    row(3, { prompt: "Review the taxRate change in src/cart.ts.", mode: "reviewer", status: "running", requests: 2, cost: 0.0041, lastTool: "read_file src/cart.ts" }),
  ];
}

const focusChain = "- [x] Read src/cart.ts\n- [x] Add taxRate parameter\n- [ ] Update tests\n- [ ] Run the suite";

async function setupScene() {
  await afterPaint();
  if (fake.persisted.taskId) await waitFor(() => fake.streams.length > 0, 10_000, "the persisted task was never opened");
  if (scene === "chat") {
    push(snapshot(chatMessages(), { status: TaskStatus.WAITING, openAskIndex: 7, title: "Add tax support to total() in src/cart.ts and update the tests", tokensIn: 26_400n, tokensOut: 1_250n, cacheReads: 8_000n, cacheWrites: 12_000n, cost: 0.031, contextTokens: 27_650n, contextWindow: 128_000n, focusChain, model: "gpt-4o" }));
  } else if (scene === "command") {
    push(snapshot(commandMessages(), { status: TaskStatus.WAITING, openAskIndex: 5, title: "Run the test suite and fix what fails", tokensIn: 9_800n, tokensOut: 240n, cost: 0.0061, contextTokens: 10_040n, contextWindow: 128_000n }));
  } else if (scene === "subtasks") {
    push(snapshot(subtaskMessages(), { title: "Add tax support to total() and review it", modeSlug: "orchestrator", cost: 0.0302, contextWindow: 128_000n }));
  } else if (scene === "history") {
    ctrl.app.set({ view: "history" });
  } else if (scene === "settings") {
    ctrl.app.set({ view: "settings" });
  }
  document.body.dataset.ready = "1";
}
// A failed setup shows up among the page errors that perf.mjs and screenshots.mjs print.
setupScene().catch((err: unknown) => console.error(`harness setup (scene ${scene}): ${String(err)}`));

// ---- performance helpers --------------------------------------------------

function bigTaskJson(n: number): unknown {
  const msgs: Message[] = [say(0, SayKind.TASK, { text: "A long task" })];
  for (let i = 1; i < n; i++) {
    const k = i % 6;
    if (k === 0) msgs.push(say(i, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { done: true, cost: 0.001 * (i % 7) } } }));
    else if (k === 1) msgs.push(say(i, SayKind.TEXT, { text: `Step ${i}: looking at **module ${i % 40}**.\n\n- item one\n- item two\n\n\`\`\`go\nfunc f${i}() int { return ${i} }\n\`\`\`` }));
    else if (k === 2) msgs.push(say(i, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.READ_FILE, path: `pkg/mod${i % 40}/file${i}.go`, content: "package x\n".repeat(20) } } }));
    else if (k === 3) msgs.push(say(i, SayKind.COMMAND, { payload: { case: "command", value: { command: `go test ./pkg/mod${i % 40}/...` } } }));
    else if (k === 4) msgs.push(say(i, SayKind.COMMAND_OUTPUT, { payload: { case: "commandOutput", value: { output: `ok  pkg/mod${i % 40} 0.${i % 10}s\n`.repeat(5), exitCode: 0 } } }));
    else msgs.push(say(i, SayKind.TEXT, { text: `Plain paragraph ${i} with some \`inline code\` and a [link](https://example.com/${i}).` }));
  }
  return toJson(SubscribeResponseSchema, snapshot(msgs, { status: TaskStatus.RUNNING, title: "A long task", contextTokens: 90_000n, contextWindow: 128_000n }));
}

async function waitFor(check: () => boolean, timeoutMs = 60_000, what = "condition") {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timeout after ${timeoutMs} ms: ${what}`);
    await nextFrame();
  }
}

const api = {
  fake,
  ctrl,
  /** loadTask decodes a snapshot of n messages from JSON (as it arrives from the extension) and
   * returns the ms until its last rows are on screen. */
  async loadTask(n: number): Promise<{ decodeMs: number; firstScreenMs: number; rowsInDom: number }> {
    const json = bigTaskJson(n);
    if (!ctrl.app.get().taskId) ctrl.openTask("t1");
    await afterPaint();
    const t0 = performance.now();
    const ev = fromJson(SubscribeResponseSchema, json as never);
    const decodeMs = performance.now() - t0;
    push(ev);
    await waitFor(() => !!document.querySelector(`[data-index="${n - 1}"]`));
    await afterPaint();
    return { decodeMs, firstScreenMs: performance.now() - t0, rowsInDom: document.querySelectorAll('[role="listitem"]').length };
  },
  /** scroll drives the list from bottom to top and back, collecting long tasks and frame times. */
  async scroll(steps: number, px: number): Promise<{ frames: number; longTasks: number; longTaskMs: number; maxLongTaskMs: number; p95FrameMs: number; maxFrameMs: number }> {
    const scroller = document.querySelector("[data-testid=virtuoso-scroller]") as HTMLElement;
    const long: number[] = [];
    const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e.duration)));
    obs.observe({ type: "longtask", buffered: false });
    const frames: number[] = [];
    let last = performance.now();
    for (let i = 0; i < steps; i++) {
      scroller.scrollTop += i < steps / 2 ? -px : px;
      await nextFrame();
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    await afterPaint();
    obs.disconnect();
    frames.sort((a, b) => a - b);
    return {
      frames: frames.length,
      longTasks: long.length,
      longTaskMs: Math.round(long.reduce((a, b) => a + b, 0)),
      maxLongTaskMs: Math.round(Math.max(0, ...long)),
      p95FrameMs: Math.round(frames[Math.floor(frames.length * 0.95)]! * 10) / 10,
      maxFrameMs: Math.round(frames[frames.length - 1]! * 10) / 10,
    };
  },
  /** startStreaming adds a partial text message to stream into. */
  async startStreaming(): Promise<number> {
    const idx = ctrl.task.count + ctrl.task.firstIndex;
    push(added(say(idx, SayKind.TEXT, { text: "", partial: true })));
    const scroller = document.querySelector("[data-testid=virtuoso-scroller]") as HTMLElement;
    // The streamed row must be on screen, or the check would measure nothing.
    await waitFor(() => {
      scroller.scrollTop = scroller.scrollHeight;
      return !!document.querySelector(`[data-index="${idx}"]`);
    });
    return idx;
  },
  /** appendChunks pushes count TextAppended deltas, batch per macrotask (like postMessage events). */
  async appendChunks(index: number, count: number, batch = 20): Promise<{ ms: number; textLength: number; renderedChars: number }> {
    const t0 = performance.now();
    const words = ["the ", "parser ", "keeps ", "state ", "between ", "chunks; ", "`Feed()` ", "never ", "rescans ", "input. "];
    for (let i = 0; i < count; i += batch) {
      for (let j = i; j < Math.min(count, i + batch); j++) {
        // A paragraph break every 60 chunks, a code block every 600.
        const w = j % 600 === 599 ? "\n\n```go\nfunc Feed(chunk string) []Block {\n\treturn nil\n}\n```\n\n" : j % 60 === 59 ? "\n\n" : words[j % words.length]!;
        push(appended(index, w));
      }
      await new Promise((r) => setTimeout(r, 0));
    }
    await afterPaint();
    const row = document.querySelector(`[data-index="${index}"]`);
    return { ms: performance.now() - t0, textLength: ctrl.task.messageAt(index)?.text.length ?? 0, renderedChars: row?.textContent?.length ?? 0 };
  },
  /** mermaid adds a message with a diagram and returns ms until the lazily loaded chunk drew it. */
  async mermaid(): Promise<number> {
    if (!ctrl.app.get().taskId) {
      ctrl.openTask("t1");
      await waitFor(() => fake.streams.some((s) => !s.closed));
      push(snapshot([say(0, SayKind.TASK, { text: "diagram" })]));
    }
    const idx = ctrl.task.count + ctrl.task.firstIndex;
    const t0 = performance.now();
    push(added(say(idx, SayKind.TEXT, { text: "The flow:\n\n```mermaid\ngraph TD\n  A[Webview] -->|postMessage| B[Extension]\n  B -->|gRPC| C[Daemon]\n```" })));
    const scroller = document.querySelector("[data-testid=virtuoso-scroller]") as HTMLElement;
    await waitFor(() => {
      scroller.scrollTop = scroller.scrollHeight;
      return !!document.querySelector(`[data-index="${idx}"] .mermaid svg`);
    });
    return performance.now() - t0;
  },
  async clear() {
    await ctrl.clearTask();
    await afterPaint();
  },
  finish(index: number) {
    const m = ctrl.task.messageAt(index);
    if (m) push(create(SubscribeResponseSchema, { event: { case: "messageUpdated", value: { message: { ...m, partial: false } } } }));
    push(stateChanged({ status: TaskStatus.COMPLETED }));
  },
};

(window as unknown as { __cairnFake: typeof api }).__cairnFake = api;
