// An editor driving `cairn acp` through the official ACP TypeScript SDK (@agentclientprotocol/sdk)
// the way Zed does: it offers a real terminal (terminal/create runs the command, terminal/output
// reads it back) and opens a session on two roots. server/cli/acp_sdk_test.go runs it against a
// scripted model (README "Use Cairn in Zed, JetBrains, Neovim"). It checks that a command's tool
// call embeds the client's terminal, that a file of the second root is located by its absolute
// path, that "always" on `npm test` is scoped to `npm test` (`npm publish` is asked), and that
// a bare interpreter (`python3 -c …`) is offered no "always" and is asked each time. Each
// check that fails throws; the process then exits non-zero with the reason.
//
// Environment: CAIRN_ACP_CMD (JSON array: the command that starts `cairn acp` with its flags),
// CAIRN_ACP_WORKSPACE (the primary root), CAIRN_ACP_SECOND_ROOT (the additional directory).

import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const cmd = JSON.parse(process.env.CAIRN_ACP_CMD);
const ws = process.env.CAIRN_ACP_WORKSPACE;
const back = process.env.CAIRN_ACP_SECOND_ROOT;

function check(ok, what) {
  if (!ok) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

// The editor's terminals: each runs its command for real and keeps its output.
const terminals = new Map();
const created = [];
const released = [];

function createTerminal(params) {
  const id = "term-" + (created.length + 1);
  created.push([params.command, ...(params.args ?? [])].join(" "));
  const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? ws, stdio: ["ignore", "pipe", "pipe"] });
  const t = { output: "", exit: null };
  t.exited = new Promise((resolve) => {
    proc.on("close", (code, signal) => {
      t.exit = { exitCode: code, signal: signal ?? null };
      resolve(t.exit);
    });
    proc.on("error", (err) => {
      t.output += String(err);
      t.exit = { exitCode: 127, signal: null };
      resolve(t.exit);
    });
  });
  proc.stdout.on("data", (d) => (t.output += d));
  proc.stderr.on("data", (d) => (t.output += d));
  t.proc = proc;
  terminals.set(id, t);
  return { terminalId: id };
}

function terminal(id) {
  const t = terminals.get(id);
  if (!t) throw new Error("no terminal " + id);
  return t;
}

// The permission requests, and how the user answers: "always" when it is offered, except for
// `npm publish`, which is rejected.
const asked = [];

const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
const updates = [];
const app = client({ name: "e2e-zed" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    asked.push(params);
    const title = params.toolCall.title ?? "";
    let kind = "allow_once";
    if (title.includes("npm publish")) kind = "reject_once";
    else if (params.options.some((o) => o.kind === "allow_always")) kind = "allow_always";
    const o = params.options.find((x) => x.kind === kind);
    return { outcome: { outcome: "selected", optionId: o.optionId } };
  })
  .onRequest(methods.client.terminal.create, ({ params }) => createTerminal(params))
  .onRequest(methods.client.terminal.output, ({ params }) => {
    const t = terminal(params.terminalId);
    return { output: t.output, truncated: false, exitStatus: t.exit };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminal(params.terminalId).exited)
  .onRequest(methods.client.terminal.kill, ({ params }) => {
    terminal(params.terminalId).proc.kill("SIGKILL");
    return {};
  })
  .onRequest(methods.client.terminal.release, ({ params }) => {
    const t = terminal(params.terminalId);
    if (t.exit === null) t.proc.kill("SIGKILL");
    released.push(params.terminalId);
    return {};
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  });
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

await app.connectWith(stream, async (ctx) => {
  const caps = { fs: { readTextFile: false, writeTextFile: false }, terminal: true };
  await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: caps });
  const s = await ctx.request(methods.agent.session.new, { cwd: ws, additionalDirectories: [back], mcpServers: [] });
  const sessionId = s.sessionId;
  const r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "test and publish" }] });
  check(r.stopReason === "end_turn", "the turn ended with end_turn (got " + r.stopReason + ")");

  // A file of the second root is located at its absolute path.
  const read = updates.find((u) => u.sessionUpdate === "tool_call" && u.kind === "read");
  const want = join(back, "api", "server.py");
  check(read?.locations?.[0]?.path === want, "the second root's file is located at " + want + ": " + JSON.stringify(read?.locations));

  // Each command's tool call embeds the terminal it runs in.
  const calls = updates.filter((u) => u.sessionUpdate === "tool_call" && u.kind === "execute");
  check(calls.length === 5, "five commands showed as execute tool calls (got " + calls.length + ")");
  const embedded = new Map();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call_update") continue;
    for (const c of u.content ?? []) {
      if (c.type === "terminal") embedded.set(u.toolCallId, c.terminalId);
    }
  }
  const npmTest = calls.find((c) => c.title.includes("npm test"));
  const term = embedded.get(npmTest.toolCallId);
  check(term !== undefined && terminals.has(term), "`npm test` shows the terminal it runs in: " + term);
  check(terminal(term).output.includes("tests-pass"), "the embedded terminal ran the tests");
  check(released.includes(term), "the terminal was released after the command ended");
  console.log("terminal/create lines: " + JSON.stringify(created));

  // "Always" names its scope; `npm test` is allowed always, `npm publish` is asked.
  const titles = asked.map((a) => a.toolCall.title);
  console.log("permission requests: " + JSON.stringify(asked.map((a) => [a.toolCall.title, a.options.map((o) => o.name)])));
  const first = asked.find((a) => a.toolCall.title.includes("npm test"));
  const always = first?.options.find((o) => o.kind === "allow_always");
  check(always?.name.includes("`npm test`"), "the always option names its scope: " + always?.name);
  check(titles.filter((t) => t.includes("npm test")).length === 1, "the second `npm test` was not asked again");
  check(titles.some((t) => t.includes("npm publish")), "`npm publish` was asked: always on `npm test` does not cover it");

  // Commands run through the sandbox's launcher (docs/sandbox.md) when it is available; what the
  // user reads names their command, never the launcher line.
  const launcher = created.some((c) => c.includes("__cairn-sandbox"));
  const texts = [...calls.map((c) => c.title), ...asked.flatMap((a) => [a.toolCall.title, ...a.options.map((o) => o.name)])];
  check(texts.every((t) => !t.includes("__cairn-sandbox") && !t.includes("--policy")),
    "titles and permission options name the user's command (launcher used: " + launcher + ")");

  // A bare interpreter is offered no always, and is asked each time.
  const py = asked.filter((a) => a.toolCall.title.includes("python3 -c"));
  check(py.length === 2, "both `python3 -c` lines were asked (got " + py.length + ")");
  check(py.every((a) => !a.options.some((o) => o.kind === "allow_always")), "no always is offered for `python3 -c`");
});
child.stdin.end();
const code = await exited;
check(code === 0, "cairn acp exited cleanly (code " + code + ")");
console.log("acp zed e2e: all checks passed");
