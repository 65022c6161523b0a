// Accessibility of the five views under axe-core: no serious or critical violation, and every
// button has an accessible name. jsdom has no layout, so colour contrast is checked in the
// code-server E2E (e2e/steps/chatui.mjs), which runs axe in the real webview.

import { describe, expect, it } from "vitest";
import axe from "axe-core";
import { screen } from "@testing-library/react";
import { McpServerStatus, McpService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import { ask, AskKind, say, SayKind, snapshot } from "../test/fixtures";
import { flushAsync, renderApp } from "../test/renderApp";

/** serious runs axe on the document and lists the serious and critical violations by rule. */
async function serious(): Promise<string[]> {
  const r = await axe.run(document.body, { rules: { "color-contrast": { enabled: false } }, resultTypes: ["violations"] });
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.html.slice(0, 80)).join(" | ")}`);
}

/** unnamed lists the visible buttons with no accessible name. */
function unnamed(): string[] {
  return [...document.querySelectorAll("button")]
    .filter((b) => !b.closest("[hidden]"))
    .filter((b) => !(b.getAttribute("aria-label") || b.textContent?.trim() || b.getAttribute("title") || b.getAttribute("aria-labelledby")))
    .map((b) => b.outerHTML.slice(0, 80));
}

const rows = [
  say(0, SayKind.TASK, { text: "Fix the flaky test" }),
  say(1, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash: "abc1234def" } } }),
  say(2, SayKind.API_REQ_STARTED, { payload: { case: "apiRequest", value: { tokensIn: 10n, tokensOut: 5n, cost: 0.01, done: true } } }),
  say(3, SayKind.TEXT, { text: "Looking at `a.ts`." }),
  say(4, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.READ_FILE, path: "src/a.ts" } } }),
  say(5, SayKind.COMMAND, { payload: { case: "command", value: { command: "npm test" } } }),
  say(6, SayKind.USER_FEEDBACK, { text: "also the docs" }),
  say(7, SayKind.COMPLETION_RESULT, { payload: { case: "completion", value: { result: "Fixed." } } }),
  ask(8, AskKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "src/a.ts", diff: "-a\n+b" } } }),
];

// axe walks the whole document: seconds in jsdom on a busy machine.
describe("accessibility (axe-core)", { timeout: 60_000 }, () => {
  it("chat: no serious or critical violations, every button named", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot(rows, { status: TaskStatus.WAITING, openAskIndex: 8, queued: [{ id: "q1", text: "and the changelog" }] }));
    expect(screen.getByRole("region", { name: "Queued messages" })).toBeTruthy();
    expect(await serious()).toEqual([]);
    expect(unnamed()).toEqual([]);
  });

  it("history: no serious or critical violations, every button named", async () => {
    const fake = (await import("../rpc/fake")).FakeClient;
    const f = new fake();
    f.on(TaskService.method.listTasks, () => ({
      tasks: [{ taskId: "a", title: "Fix flaky test", model: "gpt-4o-mini-2024", cost: 0.12, createdUnixMs: 1n, updatedUnixMs: 2n }],
    }));
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "History" }));
    await flushAsync();
    expect(await serious()).toEqual([]);
    expect(unnamed()).toEqual([]);
  });

  it("settings: no serious or critical violations, every button named", async () => {
    const { user } = await renderApp();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    expect(await serious()).toEqual([]);
    expect(unnamed()).toEqual([]);
  });

  it("MCP: no serious or critical violations, every button named", async () => {
    const { user, fake } = await renderApp();
    await user.click(screen.getByRole("button", { name: "MCP Servers" }));
    fake.lastStream(McpService.method.watchMcpServers).push({
      servers: [
        {
          name: "everything",
          status: McpServerStatus.CONNECTED,
          transport: "stdio",
          target: "mcp-server-everything",
          timeoutSeconds: 60,
          tools: [{ name: "echo", description: "Echoes", inputSchema: "{}", autoApprove: false }],
          prompts: [{ name: "simple-prompt", description: "A prompt" }],
        },
        { name: "broken", status: McpServerStatus.DISCONNECTED, transport: "stdio", target: "node x.js", timeoutSeconds: 60, error: "exited" },
      ],
      settingsPath: "/data/mcp_settings.json",
    });
    await flushAsync();
    expect(await serious()).toEqual([]);
    expect(unnamed()).toEqual([]);
  });

  it("board: no serious or critical violations, every button named", async () => {
    const { user, fake } = await renderApp();
    const wt = (taskId: string, title: string, status: string, extra: object = {}) => ({ taskId, title, branch: `cairn/${title}-${taskId}`, path: `/d/${taskId}/p`, status, ...extra });
    fake.lastStream(TaskService.method.watchTasks).push({
      tasks: [
        { taskId: "1-a", title: "greet", status: TaskStatus.WAITING, cost: 0.01, costKnown: true, live: true, worktree: wt("1-a", "greet", "waiting", { filesChanged: 1, linesAdded: 2, linesRemoved: 1 }), ask: { index: 3, kind: { case: "ask", value: AskKind.TOOL }, payload: { case: "tool", value: { path: "greet.txt" } } } },
        { taskId: "2-b", title: "gone", status: TaskStatus.IDLE, worktree: wt("2-b", "gone", "missing", { merged: "2026-11-27T02:00:00Z" }) },
      ],
    } as never);
    await user.click(screen.getByRole("button", { name: "Board" }));
    await flushAsync();
    expect(screen.getByRole("listitem", { name: "greet" })).toBeTruthy();
    expect(await serious()).toEqual([]);
    expect(unnamed()).toEqual([]);
  });
});
