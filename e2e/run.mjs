#!/usr/bin/env node
// End-to-end acceptance (testing.md layer 4): code-server (VS Code 1.100 in a browser) with
// dist/cairn.vsix installed, the fake model (server/cmd/fakellm playing e2e/script.json), and
// Chromium driven by playwright-core. It configures the provider in the welcome view, sends a
// task, watches the text stream, edits Cairn's proposal in VS Code's diff editor, saves it from
// the editor title, checks the file and the next model request, runs a command in the Cairn
// terminal, kills the daemon mid-task and resumes the task after the extension restarted it.
// Then a second window (another workspace) attaches to the same daemon; each window runs a
// task, the first window is closed while the second's task waits, the second completes, and
// once both are closed the daemon ends itself (a 3 s idle grace here; the default is 60 s).
//
//   node e2e/run.mjs            (after `npm run package -w extension`, which needs bin/cairn)
//   HEADFUL=1 / KEEP=1          keep the browser visible / keep the temp dirs
// Screenshots: test-results/e2e/NN-step.png, and the chat UI (chat, @ menu, history, settings) as
// NN-step-light.png / NN-step-dark.png after the task (the dark pass picks Default Dark Modern).
// Every wait is on a state, never a fixed sleep.

import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { browserStep } from "./steps/browser.mjs";
import { guardrails } from "./steps/guardrails.mjs";
import { mcpStep } from "./steps/mcp.mjs";
import { presetsStep } from "./steps/presets.mjs";
import { skillsStep } from "./steps/skills.mjs";
import { sandboxStep } from "./steps/sandbox.mjs";
import { hooksStep } from "./steps/hooks.mjs";
import { subagentsStep } from "./steps/subagents.mjs";
import { modesStep } from "./steps/modes.mjs";
import { chatuiStep, switchTheme } from "./steps/chatui.mjs";
import { p9Step } from "./steps/p9.mjs";
import { worktreesStep } from "./steps/worktrees.mjs";
import { parallelStep } from "./steps/parallel.mjs";
import { backgroundStep } from "./steps/background.mjs";
import { lmStep } from "./steps/lm.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const shots = path.join(repo, "test-results", "e2e");
const vsix = path.join(repo, "dist", "cairn.vsix");
const started = Date.now();
const children = [];
let step = 0;

const log = (...a) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a);

function fail(msg) {
  throw new Error(msg);
}

/** poll calls f until it returns a truthy value. */
async function poll(what, f, timeoutMs = 30_000, everyMs = 100) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) fail(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** start runs a process we own (killed by pid at the end) and collects its output. */
function start(name, cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
  const out = { stdout: "", stderr: "" };
  const logFile = fs.createWriteStream(path.join(shots, `${name}.log`));
  child.stdout.on("data", (d) => {
    out.stdout += d;
    logFile.write(d);
  });
  child.stderr.on("data", (d) => {
    out.stderr += d;
    logFile.write(d);
  });
  children.push({ name, child });
  return { child, out };
}

async function screenshot(page, name) {
  step++;
  const file = path.join(shots, `${String(step).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(repo, file)}`);
}

/** daemonPids finds `cairn serve` processes whose data dir is inside root (ours only). */
function daemonPids(root) {
  const pids = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (argv.includes("serve") && argv.some((a) => a.startsWith(root)) && path.basename(argv[0]) === "cairn") pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** extensionHosts lists the extension host processes under code-server (one per open window). */
function extensionHosts(rootPid) {
  const parent = new Map();
  const argv = new Map();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      argv.set(Number(d), fs.readFileSync(`/proc/${d}/cmdline`, "utf8"));
    } catch {
      /* gone */
    }
  }
  const under = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === rootPid) return true;
    return false;
  };
  return [...argv].filter(([pid, a]) => a.includes("extensionHost") && under(pid)).map(([pid]) => pid);
}

async function main() {
  fs.rmSync(shots, { recursive: true, force: true });
  fs.mkdirSync(shots, { recursive: true });
  if (!fs.existsSync(vsix)) fail(`${vsix} is missing: build it first (go build -o bin/cairn ./server/cmd/cairn && npm run build -w webview-ui && npm run package -w extension)`);

  // 1. code-server (installed once under .cache/code-server).
  // The shared scripts sit beside the checkout (or beside its parent, for a worktree under wt/).
  const installer = [path.join(repo, "..", "shared"), path.join(repo, "..", "..", "shared")]
    .map((d) => path.join(d, "scripts", "install-code-server.sh"))
    .find((f) => fs.existsSync(f));
  if (!installer) fail("scripts/install-code-server.sh not found in ../shared or ../../shared");
  log("installing code-server (once) …");
  const launcher = execFileSync("bash", [installer, path.join(repo, ".cache", "code-server")], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    .trim()
    .split("\n")
    .pop();

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-e2e-"));
  const workspace = path.join(tmp, "workspace");
  const workspaceB = path.join(tmp, "workspace-b");
  fs.mkdirSync(workspaceB, { recursive: true });
  fs.writeFileSync(path.join(workspaceB, "greeting.txt"), "hi\n");
  const userData = path.join(tmp, "user-data");
  const extDir = path.join(tmp, "extensions");
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  const notes = path.join(workspace, "notes.txt");
  fs.writeFileSync(notes, "line one\nline two\nline three\n");
  fs.writeFileSync(
    path.join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": false,
        "workbench.tips.enabled": false,
        "extensions.autoUpdate": false,
        "extensions.autoCheckUpdates": false,
        "update.mode": "none",
        "telemetry.telemetryLevel": "off",
        "git.enabled": false,
        "files.autoSave": "off",
        "terminal.integrated.shellIntegration.enabled": true,
        // The DOM renderer, so the test can read the terminal's text.
        "terminal.integrated.gpuAcceleration": "off",
        "editor.quickSuggestions": { other: false, comments: false, strings: false },
        "editor.wordBasedSuggestions": "off",
        "terminal.integrated.defaultProfile.linux": "bash",
        "cairn.rpcTrace": true,
        // A short idle grace so the test sees the shared daemon leave after the last window.
        "cairn.daemonArgs": ["--idle-exit", "3s"],
        // This machine starts shells slowly (a terminal can take 10 s to show its prompt).
        "cairn.terminalShellIntegrationTimeout": Number(process.env.SI_TIMEOUT ?? 30000),
      },
      null,
      2,
    ),
  );

  // 2. The fake model.
  const fakellmBin = path.join(tmp, "fakellm");
  execFileSync("go", ["build", "-o", fakellmBin, "./server/cmd/fakellm"], { cwd: repo, stdio: "inherit" });
  const fake = start("fakellm", fakellmBin, ["--script", path.join(repo, "e2e", "script.json")]);
  const { base_url: baseUrl } = await poll("fakellm's base_url line", () => {
    const line = fake.out.stdout.split("\n").find((l) => l.startsWith("{"));
    return line && JSON.parse(line);
  });
  const fakeRoot = baseUrl.replace(/\/v1\/?$/, "");
  const requests = async () => (await fetch(`${fakeRoot}/_requests`)).json();
  log(`fakellm at ${baseUrl}`);

  // 3. code-server with our extension.
  const port = await freePort();
  const csArgs = ["--auth", "none", "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--user-data-dir", userData, "--extensions-dir", extDir];
  execFileSync(launcher, [...csArgs, "--install-extension", vsix], { stdio: "inherit" });
  // The scripted chat model of the vscode-lm step (e2e/lm-provider, plain JS), packed as is; its
  // proposed API is enabled on the command line, and it reports to lmLog.
  const lmVsix = path.join(tmp, "lm-provider.vsix");
  execFileSync(path.join(repo, "node_modules", ".bin", "vsce"), ["package", "--skip-license", "--no-dependencies", "-o", lmVsix], { cwd: path.join(repo, "e2e", "lm-provider"), stdio: "inherit" });
  execFileSync(launcher, [...csArgs, "--install-extension", lmVsix], { stdio: "inherit" });
  const lmLog = path.join(tmp, "lm-provider.log");
  const cs = start("code-server", launcher, [...csArgs, "--enable-proposed-api", "cairn-e2e.lm-provider", "--bind-addr", `127.0.0.1:${port}`, workspace], {
    env: { ...process.env, SHELL: "/bin/bash", CAIRN_E2E_LM_LOG: lmLog },
  });
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
  await poll("code-server to listen", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000, 200);
  log(`code-server at ${url}`);

  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: !process.env.HEADFUL,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  // The page a failure screenshot is taken of (window B once A is closed).
  let shown = page;
  // The second window, once open: a failure screenshots it too.
  let otherPage = null;
  page.on("pageerror", (e) => log("page error:", e.message));
  try {
    await page.goto(url);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    await page.locator(".activitybar").waitFor();
    await screenshot(page, "workbench");

    // 4. The Cairn view (activity bar), inside two nested iframes.
    const cairnIcon = page.locator('.activitybar .action-item a[aria-label^="Cairn"]').first();
    await cairnIcon.waitFor({ timeout: 60_000 });
    await cairnIcon.click();
    const view = page.frameLocator('iframe.webview[src*="cairnhq.cairn"]').frameLocator("#active-frame");
    const welcome = view.getByRole("region", { name: "Welcome" });
    await welcome.waitFor({ timeout: 60_000 });
    await screenshot(page, "welcome-view");

    // 5. Configure the fake model in the welcome view: the provider form Settings uses too,
    // the model chosen from the list the endpoint gives.
    await welcome.getByRole("combobox", { name: "Provider" }).waitFor();
    await welcome.getByLabel("Base URL").fill(baseUrl);
    await welcome.getByLabel("API key").fill("sk-e2e-secret");
    await welcome.getByRole("button", { name: "Fetch models" }).click();
    const actModel = welcome.getByRole("combobox", { name: "Act mode model" });
    await poll("the fake model to be listed and chosen", async () => (await actModel.inputValue()) === "fake-model", 30_000);
    await screenshot(page, "welcome-form-light");
    await switchTheme(page, /Default Dark Modern/, true);
    await view.locator("body.vscode-dark").waitFor({ timeout: 30_000 });
    await screenshot(page, "welcome-form-dark");
    await switchTheme(page, /Default Light Modern/, false);
    await view.locator("body.vscode-light").waitFor({ timeout: 30_000 });
    await welcome.getByRole("button", { name: "Let's go!" }).click();
    const input = view.getByRole("textbox", { name: "Message Cairn" });
    await input.waitFor({ timeout: 30_000 });
    await screenshot(page, "configured");

    // 6. A task: the model's text streams into the chat.
    await input.fill("Make the second line of notes.txt clearer, then check the file.");
    await input.press("Enter");
    await view.getByText("I will update the notes file").first().waitFor({ timeout: 30_000 });
    await screenshot(page, "streaming");

    // 7. The edit opens in VS Code's diff editor and fills in as it streams.
    const diffTab = page.locator('.tab[aria-label*="notes.txt: Original ↔ Cairn"]').first();
    await diffTab.waitFor({ timeout: 30_000 });
    const modified = page.locator(".monaco-diff-editor .editor.modified");
    await modified.getByText("rewritten by Cairn").first().waitFor({ timeout: 30_000 });
    // The tool waits for approval once the proposal is complete.
    await view.getByRole("button", { name: "Save" }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, "diff-open");

    // 8. The user edits the proposal, then presses "Cairn: Save" in the editor title.
    await modified.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("user-typed-line");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Enter");
    await modified.getByText("user-typed-line").first().waitFor();
    await screenshot(page, "user-edit");
    await page.locator('.editor-actions [aria-label="Cairn: Save"]').first().click();
    const onDisk = await poll("the saved file", () => {
      const t = fs.readFileSync(notes, "utf8");
      return t.includes("user-typed-line") && t.includes("line 2, rewritten by Cairn") && t;
    });
    log(`notes.txt after save:\n${onDisk}`);
    await poll("the diff editor to close", async () => (await diffTab.count()) === 0, 15_000);
    const second = await poll("the model's next request", async () => (await requests())[1]);
    const lastUser = second.messages.filter((m) => m.role === "user").at(-1)?.text ?? "";
    if (!lastUser.includes("user-typed-line")) fail(`the model was not told about the user's edit; last user message:\n${lastUser}`);
    log("the next model request reports the user's edit");
    await screenshot(page, "saved");

    // 9. A command runs in the Cairn terminal; its output reaches the model.
    const runButton = view.getByRole("button", { name: /Run Command|Approve/ }).first();
    const third = await poll(
      "the command (approve it if asked) and the model's request with its output",
      async () => {
        if (await runButton.isVisible().catch(() => false)) await runButton.click().catch(() => undefined);
        return (await requests())[2];
      },
      60_000,
      250,
    );
    const thirdUser = third.messages.filter((m) => m.role === "user").at(-1)?.text ?? "";
    if (!thirdUser.includes("cairn-e2e-marker") || !thirdUser.includes("line 2, rewritten by Cairn")) fail(`the command output did not reach the model:\n${thirdUser}`);
    log("the command's output reached the model");
    // It ran in the terminal (shell integration), not in the background fallback.
    await page.locator(".xterm-rows").getByText("cairn-e2e-marker").first().waitFor({ timeout: 10_000 });
    if (await page.locator(".xterm-rows").getByText("shell integration is not available").count()) fail("the command ran in the background fallback");
    await screenshot(page, "terminal");

    // 10. Kill the daemon mid-task (turn 3 streams a few words, then hangs): the extension
    // restarts it.
    await view.getByText("The command printed the marker").first().waitFor({ timeout: 30_000 });
    const pids = daemonPids(userData);
    if (pids.length !== 1) fail(`expected one daemon for this run, found ${JSON.stringify(pids)}`);
    log(`killing the daemon (pid ${pids[0]}) mid-stream`);
    process.kill(pids[0], "SIGKILL");
    await screenshot(page, "daemon-killed");
    const newPid = await poll("the extension to restart the daemon", () => daemonPids(userData).find((p) => p !== pids[0]), 30_000);
    log(`daemon restarted as pid ${newPid}`);

    // 11. Resume the task from the UI.
    const resume = view.getByRole("button", { name: /Resume/ }).first();
    await resume.waitFor({ timeout: 30_000 });
    await screenshot(page, "resume-offered");
    await resume.click();
    await view.getByText("Done: notes.txt is updated").first().waitFor({ timeout: 30_000 });
    await screenshot(page, "completed");
    const errors = await (await fetch(`${fakeRoot}/_errors`)).json();
    if (errors?.length) fail(`the fake model's expectations failed:\n${errors.join("\n")}`);
    log(`the task passed (${(await requests()).length} model requests)`);

    // 12. Screenshots of the chat UI in real VS Code, light theme first, then dark.
    await chatUiShots(page, view, input, "light");
    // Dark: "Preferences: Color Theme" from the command palette (VS Code did not pick up an edit of
    // the user settings file on this machine); the workbench and the webview switch live.
    await page.locator(".monaco-workbench .part.editor .view-lines").first().click();
    await page.keyboard.press("F1");
    const quickInput = page.locator(".quick-input-widget");
    await quickInput.locator("input").first().waitFor();
    await page.keyboard.type("Preferences: Color Theme");
    // Click it: the highlighted entry can be "Preferences: Browse Color Themes in Marketplace".
    await quickInput.getByRole("option", { name: /^Preferences: Color Theme/ }).first().click();
    const darkModern = quickInput.getByRole("option", { name: /Default Dark Modern/ }).first();
    await darkModern.waitFor();
    await darkModern.click();
    await page.locator(".monaco-workbench.vs-dark").waitFor({ timeout: 30_000 });
    await quickInput.waitFor({ state: "hidden" });
    await view.locator("body.vscode-dark").waitFor({ timeout: 30_000 });
    await chatUiShots(page, view, input, "dark");

    // 13. A second window on another workspace attaches to the same daemon.
    const [sharedPid] = await poll("one daemon", () => {
      const p = daemonPids(userData);
      return p.length === 1 && p;
    });
    const pageB = await context.newPage();
    otherPage = pageB;
    pageB.on("pageerror", (e) => log("page B error:", e.message));
    await pageB.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspaceB)}`);
    await pageB.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    const cairnIconB = pageB.locator('.activitybar .action-item a[aria-label^="Cairn"]').first();
    await cairnIconB.waitFor({ timeout: 60_000 });
    await cairnIconB.click();
    const viewB = pageB.frameLocator('iframe.webview[src*="cairnhq.cairn"]').frameLocator("#active-frame");
    // The daemon's settings are shared: no welcome view in the second window.
    const inputB = viewB.getByRole("textbox", { name: "Message Cairn" });
    await inputB.waitFor({ timeout: 60_000 });
    const pidsB = daemonPids(userData);
    if (pidsB.length !== 1 || pidsB[0] !== sharedPid) fail(`the second window should use daemon ${sharedPid}, found ${JSON.stringify(pidsB)}`);
    log(`window B attached to daemon pid ${sharedPid}`);

    // A task in each window: B's asks a question and waits; A's completes.
    await inputB.fill("Please greet from window B in greeting.txt.");
    await inputB.press("Enter");
    await viewB.getByText("Which greeting should window B use?").first().waitFor({ timeout: 30_000 });
    await screenshot(pageB, "window-b-question");
    await page.bringToFront();
    await view.getByRole("button", { name: "New Task", exact: true }).click();
    await input.fill("Now a task in window A, please.");
    await input.press("Enter");
    await view.getByText("Done in window A.").first().waitFor({ timeout: 30_000 });
    await screenshot(page, "window-a-done");

    // 13b. PLAN mode never touches the disk or the editor: the model streams a write_to_file of
    // a new file in new folders; no diff tab opens, nothing is created, and the chat shows the
    // call as refused.
    await view.getByRole("button", { name: "New Task", exact: true }).click();
    await view.getByRole("radio", { name: "Plan" }).click();
    await input.fill("Please plan the greeting file, do not write it yet.");
    await input.press("Enter");
    const planTab = page.locator('.tab[aria-label*="plan-new.txt"]');
    let planTabSeen = false;
    await poll(
      "the plan answer (watching for a diff tab meanwhile)",
      async () => {
        if ((await planTab.count()) > 0) planTabSeen = true;
        return view.getByText("Here is my plan").first().isVisible();
      },
      30_000,
      50,
    );
    if (planTabSeen || (await planTab.count()) > 0) fail("PLAN mode opened a diff tab for the refused write");
    if (fs.existsSync(path.join(workspace, "plan"))) fail("PLAN mode created plan/ on disk");
    await view.getByText("Refused in PLAN mode: write_to_file plan/drafts/plan-new.txt").first().waitFor({ timeout: 10_000 });
    await screenshot(page, "plan-refused");
    log("PLAN mode: no diff tab, nothing on disk, a refused row");

    // 14. Close window A (its extension host ends, and with it A's connection to the daemon); B
    // keeps the daemon and finishes its task.
    const hosts = extensionHosts(cs.child.pid);
    if (hosts.length !== 2) fail(`expected two extension hosts (two windows), found ${JSON.stringify(hosts)}`);
    await page.close({ runBeforeUnload: true });
    await poll("window A's extension host to exit", () => extensionHosts(cs.child.pid).length === 1, 60_000, 250);
    shown = pageB;
    log("window A closed");
    await pageB.bringToFront();
    const answer = viewB.getByRole("textbox", { name: "Message Cairn" });
    await answer.fill("Say hello from B.");
    await answer.press("Enter");
    await viewB.getByText("Done in window B: the greeting is hello.").first().waitFor({ timeout: 30_000 });
    await screenshot(pageB, "window-b-done");
    // 14b. Guard rails, in window B (the step replaces the fake model's script, so it comes after
    // every check of the earlier requests).
    const inputB2 = viewB.getByRole("textbox", { name: "Message Cairn" });
    await guardrails({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, poll, log, fail });
    // 14c. MCP and 14d. the browser, each with its own fake-model script.
    await mcpStep({ page: pageB, view: viewB, input: inputB2, repo, userData, fakeRoot, requests, poll, screenshot, log, fail, daemonPids });
    await browserStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, requests, screenshot, poll, log, fail });
    await presetsStep({ page: pageB, view: viewB, fakeRoot, screenshot, poll, log, fail });
    await skillsStep({ page: pageB, view: viewB, workspace: workspaceB, screenshot, poll, log, fail });
    await sandboxStep({ page: pageB, view: viewB, screenshot, poll, log, fail });
    await hooksStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, log, fail });
    await subagentsStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, requests, screenshot, poll, log, fail });
    await modesStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, requests, screenshot, poll, log, fail });
    await chatuiStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, poll, log, fail });
    await p9Step({ page: pageB, view: viewB, input: inputB2, fakeRoot, screenshot, poll, log, fail });
    await worktreesStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, poll, log, fail });
    await parallelStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, poll, log, fail });
    await backgroundStep({ page: pageB, view: viewB, input: inputB2, fakeRoot, requests, screenshot, poll, log, fail });
    await lmStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, lmLog, screenshot, poll, log, fail });
    const pidsAfter = daemonPids(userData);
    if (pidsAfter.length !== 1 || pidsAfter[0] !== sharedPid) fail(`closing window A changed the daemon: ${JSON.stringify(pidsAfter)}, was ${sharedPid}`);
    const errorsB = await (await fetch(`${fakeRoot}/_errors`)).json();
    if (errorsB?.length) fail(`the fake model's expectations failed:\n${errorsB.join("\n")}`);
    log(`both windows' tasks passed on daemon ${sharedPid} (${(await requests()).length} model requests)`);
    // P5 as the editor lives it: from spawning the daemon to finding it through its handshake file.
    const ready = spawnToReady(userData);
    if (ready === undefined) fail("no window's log says how soon the daemon it spawned was ready");
    log(`the window that spawned the daemon found it ready ${ready} ms after spawning it`);

    // 15. Close window B too: with no window left the daemon ends itself after its idle grace.
    const closedAt = Date.now();
    await pageB.close({ runBeforeUnload: true });
    await poll("the daemon to exit after the last window closed", () => daemonPids(userData).length === 0, 120_000, 250);
    log(`the daemon exited ${((Date.now() - closedAt) / 1000).toFixed(1)} s after the last window closed`);
    if (fs.existsSync(path.join(userData, "User", "globalStorage", "cairnhq.cairn", "daemon.json"))) fail("the daemon left its handshake file behind");
    log("PASS");
  } catch (e) {
    await screenshot(shown, "failure").catch(() => undefined);
    if (otherPage && otherPage !== shown) await screenshot(otherPage, "failure-second-window").catch(() => undefined);
    const extLog = findExtensionLog(userData);
    if (extLog) log(`extension log (${extLog}):\n${fs.readFileSync(extLog, "utf8").split("\n").slice(-40).join("\n")}`);
    throw e;
  } finally {
    await browser.close().catch(() => undefined);
    for (const pid of daemonPids(userData)) process.kill(pid, "SIGTERM");
    if (process.env.KEEP) log(`kept ${tmp}`);
    else {
      // A process that outlives the run (a model provider still writing its log) must not hide
      // the run's own result behind a failed removal.
      try {
        fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
      } catch (e) {
        log(`could not remove ${tmp}: ${e.message}`);
      }
    }
  }
}

/**
 * chatUiShots screenshots the finished task's chat (diff and command rows in view), the @ menu,
 * the history and the settings, and returns to the chat.
 */
async function chatUiShots(page, view, input, theme) {
  const chat = view.getByRole("main", { name: "Chat" });
  await chat.waitFor();
  const diffToggle = chat.getByRole("button", { name: "Diff", exact: true }).first();
  if ((await diffToggle.getAttribute("aria-expanded")) !== "true") await diffToggle.click();
  const diff = chat.locator("pre.diff").first();
  await diff.getByText("line 2, rewritten by Cairn").waitFor();
  await diff.scrollIntoViewIfNeeded();
  await chat.getByText("echo cairn-e2e-marker && cat notes.txt").first().waitFor();
  await screenshot(page, `chat-${theme}`);

  // The @ menu lists workspace files from the daemon's index.
  await input.click();
  await input.pressSequentially("@note");
  const menu = view.getByRole("listbox", { name: "Add context" });
  await menu.getByRole("option", { name: /notes\.txt/ }).first().waitFor({ timeout: 15_000 });
  await screenshot(page, `mention-menu-${theme}`);
  await input.press("Escape");
  await input.fill("");
  await menu.waitFor({ state: "hidden" });

  // History lists the finished task.
  await view.getByRole("button", { name: "History", exact: true }).click();
  const history = view.getByRole("region", { name: "History" });
  await history.getByRole("button", { name: /^Open task: Make the second line of notes\.txt/ }).first().waitFor({ timeout: 15_000 });
  await screenshot(page, `history-${theme}`);
  await history.getByRole("button", { name: "Done" }).click();
  await chat.waitFor();

  // Settings, once they are loaded (Save is enabled then); leave through History so nothing is saved.
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  await poll("the settings to load", () => settings.getByRole("button", { name: "Save" }).isEnabled(), 15_000);
  await screenshot(page, `settings-${theme}`);
  await view.getByRole("button", { name: "History", exact: true }).click();
  await view.getByRole("region", { name: "History" }).getByRole("button", { name: "Done" }).click();
  await chat.waitFor();
}

function findExtensionLog(userData) {
  return extensionLogs(userData).pop();
}

/** extensionLogs lists the extension's output logs of every window, oldest first. */
function extensionLogs(userData) {
  const logs = path.join(userData, "logs");
  if (!fs.existsSync(logs)) return [];
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Cairn\.log$/.test(e.name) || /cairnhq\.cairn/.test(p) && e.name.endsWith(".log")) found.push(p);
    }
  };
  walk(logs);
  return found.sort();
}

/**
 * spawnToReady is how long the window that spawned the daemon waited from the spawn until it
 * found the daemon ready (the supervisor's log line), or undefined when no log says so.
 */
function spawnToReady(userData) {
  for (const f of extensionLogs(userData)) {
    const m = /daemon \S+ ready \(pid \d+\) at \S+, (\d+) ms after it was spawned/.exec(fs.readFileSync(f, "utf8"));
    if (m) return Number(m[1]);
  }
  return undefined;
}

function cleanup() {
  for (const { child } of children.reverse()) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
}

main().then(
  () => {
    cleanup();
    process.exit(0);
  },
  (e) => {
    console.error(`[e2e] FAIL: ${e.stack ?? e}`);
    cleanup();
    process.exit(1);
  },
);
