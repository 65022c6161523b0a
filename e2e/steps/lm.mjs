// The editor's own language models (README, "Providers"): a small test extension
// (e2e/lm-provider, plain JS) contributes a scripted chat model through VS Code 1.100's
// chatProvider proposal; Cairn's settings choose the `vscode-lm` provider and that model; a task
// streams through the editor, writes a file and completes; a second task is cancelled while the
// model streams, and what the model sends after the cancel never reaches the task.
//
// VS Code 1.100 does not carry a requester's cancellation to a third-party provider once its
// response has started: the provider's token is live only while the workbench's start call is
// pending, and that call returns as soon as the provider begins. Cairn fires its request's
// CancellationTokenSource and stops reading (extension/test/languageModels.test.ts checks that
// against the API's shape); here the provider keeps talking, and the check is that none of it
// reaches the chat.
//
// run.mjs installs the provider, starts code-server with --enable-proposed-api for it and
// CAIRN_E2E_LM_LOG naming the file it reports to, and calls this at the end of window B:
//
//   import { lmStep } from "./steps/lm.mjs";
//   await lmStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, lmLog, screenshot, poll, log, fail });
//
// It leaves the editor's model chosen (only the daemon's exit is checked after it). Every wait
// is on a state, never a fixed sleep.

import * as fs from "node:fs";
import * as path from "node:path";

function entries(lmLog) {
  if (!fs.existsSync(lmLog)) return [];
  return fs
    .readFileSync(lmLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** chooseEditorModel opens Settings, chooses the editor's models and the model labelled label. */
async function chooseEditorModel(view, poll, label) {
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  await poll("the settings to load", () => settings.getByRole("button", { name: "Save" }).isEnabled(), 15_000);
  await settings.getByRole("combobox", { name: "Provider" }).selectOption("vscode-lm");
  const act = settings.getByRole("combobox", { name: "Act mode model" });
  await poll(`the editor's model "${label}" to be listed`, async () => (await act.locator("option", { hasText: label }).count()) > 0, 30_000);
  const option = await act.locator("option", { hasText: label }).first().textContent();
  await act.selectOption({ label: option });
  return { settings, option };
}

export async function lmStep({ page, view, input, workspace, lmLog, screenshot, poll, log, fail }) {
  await poll("the test model to register", () => entries(lmLog).some((e) => e.event === "registered"), 60_000, 250);

  // Settings: the provider list offers the editor's models; no base URL or key for them.
  const { settings, option } = await chooseEditorModel(view, poll, "cairn-e2e · scripted");
  if (await settings.getByLabel("Base URL").count()) fail("the settings ask for a base URL for the editor's models");
  if (await settings.getByLabel("API key").count()) fail("the settings ask for a key for the editor's models");
  if (!option.includes("32k context") || !option.includes("included with the editor's models")) fail(`the model says: ${option}`);
  await screenshot(page, "lm-settings");
  await settings.getByRole("button", { name: "Save", exact: true }).click();
  await settings.waitFor({ state: "hidden", timeout: 15_000 });
  log(`settings: the editor's model listed as "${option.trim()}"`);

  // A task: the model's text streams, its native write_to_file is approved, the file is written,
  // and the completion comes from the model's attempt_completion.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.waitFor();
  await input.fill("Write the greeting with the editor's model.");
  await input.press("Enter");
  await view.getByText("Writing the greeting with the editor's model.").first().waitFor({ timeout: 60_000 });
  // The diff view creates the new file empty at once; the content lands when the edit is saved.
  const file = path.join(workspace, "lm-hello.txt");
  const want = "hello from the editor's model\n";
  const content = () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
  await poll(`lm-hello.txt to hold ${JSON.stringify(want)} (approving the edit when asked)`, async () => {
    if (content() === want) return true;
    const save = view.getByRole("button", { name: "Save", exact: true });
    if (await save.count()) await save.first().click().catch(() => undefined);
    return false;
  }, 60_000, 250);
  await view.getByText("Wrote lm-hello.txt through the editor's language model.").first().waitFor({ timeout: 60_000 });
  const reqs = entries(lmLog).filter((e) => e.event === "request");
  if (reqs.length < 2) fail(`the model got ${reqs.length} requests, want 2`);
  const [first, second] = reqs;
  if (!first.firstIsUser || !first.systemMarked) fail(`the system prompt did not lead the first user message: ${JSON.stringify(first)}`);
  if (!first.tools.includes("write_to_file") || !first.tools.includes("attempt_completion")) fail(`tools offered: ${first.tools}`);
  if (second.toolResults < 1) fail(`the second request carried no tool result: ${JSON.stringify(second)}`);
  await view.getByRole("region", { name: "Task" }).locator("button.task-title").click();
  const header = await view.getByRole("region", { name: "Task" }).textContent();
  if (!header.includes("cairn-e2e · scripted")) fail(`the header does not name the model by vendor and family: ${header}`);
  if (!header.includes("included with the editor's models")) fail(`the header shows a cost: ${header}`);
  if (header.includes("price unknown")) fail(`the header says "price unknown": ${header}`);
  await screenshot(page, "lm-task-done");
  log(`a task on the editor's model wrote lm-hello.txt and completed (${reqs.length} requests); header: ${header.replace(/\s+/g, " ").trim().slice(0, 160)}`);

  // A cancel while the model streams stops the model's request.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.waitFor();
  await input.fill("LM-SLOW: count slowly, please.");
  await input.press("Enter");
  await view.getByText(/slow chunk 3\./).first().waitFor({ timeout: 60_000 });
  await screenshot(page, "lm-streaming");
  const lastChunk = () => Math.max(-1, ...entries(lmLog).filter((e) => e.event === "chunk").map((e) => e.i));
  await view.getByRole("button", { name: "Cancel", exact: true }).first().click();
  await view.getByRole("button", { name: /Resume/ }).first().waitFor({ timeout: 30_000 });
  const atCancel = lastChunk();
  await poll("the model to send three more chunks", () => lastChunk() >= atCancel + 3, 30_000, 200);
  const chat = await view.locator("body").textContent();
  for (let i = atCancel + 1; i <= lastChunk(); i++) {
    if (chat.includes(`slow chunk ${i}.`)) fail(`chunk ${i}, sent after the task was cancelled at chunk ${atCancel}, reached the chat`);
  }
  await screenshot(page, "lm-cancelled");
  log(`cancelled at chunk ${atCancel}; chunks ${atCancel + 1}..${lastChunk()} the model sent afterwards never reached the chat`);

  await view.getByRole("button", { name: "New Task", exact: true }).click();
}
