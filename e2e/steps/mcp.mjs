// E2E step: MCP in real VS Code (code-server). It configures the everything MCP server (from
// the root package.json's devDependencies) in the running daemon's mcp_settings.json — the
// daemon's watcher applies it without a restart — opens the MCP view and waits for the server
// to show as connected with its tools, then plays two tasks through the fake model:
//   1. the model calls the echo tool: the call is ASKED (server, tool and arguments shown);
//   2. the user ticks "Auto-approve echo" in the MCP view (with MCP auto-approval on), and the
//      same call in the next task runs WITHOUT an ask.
// Neither completion offers "See new changes": an echo changes no file.
// Screenshots: NN-mcp-view.png, NN-mcp-ask.png, NN-mcp-auto-approve.png, NN-mcp-auto-approved.png.
//
// How e2e/run.mjs calls it (after step 11, once the first task has completed; the step
// replaces the fake model's script through POST /_script, so it must come after every step
// that uses e2e/script.json):
//
//   import { mcpStep } from "./steps/mcp.mjs";
//   …
//   await mcpStep({ page, view, input, repo, userData, fakeRoot, requests, poll, screenshot, log, fail, daemonPids });
//
// Every wait is on a state, never a fixed sleep.

import * as fs from "node:fs";
import * as path from "node:path";

/** The script the fake model plays for this step: two tasks, each one echo call. */
function mcpScript() {
  const call = (msg) =>
    `I will ask the everything server.\n<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>echo</tool_name>\n<arguments>{"message": "${msg}"}</arguments>\n</use_mcp_tool>`;
  const done = (text) => `<attempt_completion>\n<result>${text}</result>\n</attempt_completion>`;
  return {
    turns: [
      { text: call("asked first"), expect: { contains: ["MCP SERVERS", "## everything"] } },
      { text: done("MCP echo answered."), expect: { last_user_contains: ["Echo: asked first"] } },
      { text: call("auto-approved"), expect: { contains: ["## everything"] } },
      { text: done("MCP echo answered again."), expect: { last_user_contains: ["Echo: auto-approved"] } },
    ],
  };
}

/**
 * noNewChanges fails when the completion row with text offers "See new changes": an echo
 * changes no file. The row is whole once its text shows, offer included.
 */
async function noNewChanges(view, text, fail) {
  const row = view.locator(".completion-row", { hasText: text }).last();
  await row.waitFor();
  if (await row.getByRole("button", { name: /See new changes/ }).count()) fail(`the completion "${text}" offers new changes after an MCP echo`);
}

/** dataDirOf returns the --data-dir of the running daemon. */
function dataDirOf(pid) {
  const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  const i = argv.indexOf("--data-dir");
  if (i >= 0 && argv[i + 1]) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith("--data-dir="));
  return eq ? eq.slice("--data-dir=".length) : undefined;
}

export async function mcpStep({ page, view, input, repo, userData, fakeRoot, requests, poll, screenshot, log, fail, daemonPids }) {
  const everything = path.join(repo, "node_modules", ".bin", "mcp-server-everything");
  if (!fs.existsSync(everything)) fail(`${everything} is missing: run npm ci in the repository root`);

  // 1. Configure the server in the running daemon's data dir.
  // A starter that lost the race to a running daemon exits at once (ErrDaemonRunning), but it
  // may still be in /proc for a moment: wait for one daemon, and fail if two stay.
  let pids = [];
  try {
    await poll("one daemon", () => (pids = daemonPids(userData)).length === 1, 10_000, 100);
  } catch {
    fail(`expected one daemon, found ${JSON.stringify(pids)}`);
  }
  const dataDir = dataDirOf(pids[0]);
  if (!dataDir) fail(`cannot find the data dir of daemon ${pids[0]}`);
  const settingsFile = path.join(dataDir, "mcp_settings.json");
  const tmpFile = `${settingsFile}.e2e-tmp`;
  fs.writeFileSync(tmpFile, JSON.stringify({ mcpServers: { everything: { command: everything, args: ["stdio"] } } }, null, 2));
  fs.renameSync(tmpFile, settingsFile);
  log(`wrote ${settingsFile}`);

  // 2. The MCP view shows the server connected, with its tools.
  await view.getByRole("button", { name: "MCP Servers" }).click();
  const card = view.getByRole("listitem", { name: "everything" });
  await card.getByRole("img", { name: "connected" }).waitFor({ timeout: 60_000 });
  await card.getByText("Echoes back the input string").waitFor({ timeout: 10_000 });
  const autoEcho = card.getByRole("checkbox", { name: "Auto-approve echo" });
  if (await autoEcho.isChecked()) fail("echo is auto-approved before the user ticked it");
  await screenshot(page, "mcp-view");
  log("the MCP view shows everything connected with its tools");

  // 3. MCP auto-approval on (the category); echo itself is not on the server's list yet.
  const before = (await requests()).length;
  const post = await fetch(`${fakeRoot}/_script`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(mcpScript()) });
  if (!post.ok) fail(`POST /_script: ${post.status}`);
  await view.getByRole("button", { name: "Done", exact: true }).first().click();
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.waitFor();
  await view.getByRole("button", { name: /^Auto-approve:/ }).click();
  const mcpBox = view.getByRole("checkbox", { name: "Use MCP servers" });
  if (!(await mcpBox.isChecked())) await mcpBox.click();
  await poll("MCP auto-approval to be on", () => mcpBox.isChecked(), 10_000);
  await view.getByRole("button", { name: /^Auto-approve:/ }).click();

  // 4. First call: asked, with server, tool and arguments.
  await input.fill("Echo something through the everything MCP server.");
  await input.press("Enter");
  const approve = view.getByRole("button", { name: "Approve", exact: true }).first();
  await approve.waitFor({ timeout: 30_000 });
  await view.getByText("asked first").first().waitFor({ timeout: 10_000 });
  await screenshot(page, "mcp-ask");
  await approve.click();
  await view.getByText("MCP echo answered.").first().waitFor({ timeout: 30_000 });
  await noNewChanges(view, "MCP echo answered.", fail);
  log("the first echo call was asked and answered; the completion offers no new changes");

  // 5. Tick "Auto-approve echo" in the MCP view; the next call runs without an ask.
  await view.getByRole("button", { name: "MCP Servers" }).click();
  await autoEcho.click();
  await poll("the auto-approve box to stay ticked (the server's state came back)", () => autoEcho.isChecked(), 10_000);
  const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
  if (!settings.mcpServers.everything.autoApprove?.includes("echo")) fail(`echo is not on the autoApprove list: ${JSON.stringify(settings)}`);
  await screenshot(page, "mcp-auto-approve");
  await view.getByRole("button", { name: "Done", exact: true }).first().click();
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.waitFor();
  await input.fill("Echo again through the everything MCP server.");
  await input.press("Enter");
  await view.getByText("MCP echo answered again.").first().waitFor({ timeout: 30_000 });
  if (await view.getByRole("button", { name: "Approve", exact: true }).count()) fail("the auto-approved echo call was asked");
  await noNewChanges(view, "MCP echo answered again.", fail);
  await screenshot(page, "mcp-auto-approved");

  const errors = await (await fetch(`${fakeRoot}/_errors`)).json();
  if (errors?.length) fail(`the fake model's expectations failed in the MCP step:\n${errors.join("\n")}`);
  log(`MCP step passed (${(await requests()).length - before} model requests)`);
}
