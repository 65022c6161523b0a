// Guard rails in code-server (docs/architecture.md, "Guard rails"): with edits auto-approved, an edit of
// .vscode/settings.json waits for approval and its row says why the file is protected; a task
// stopped at its cost limit shows requests and cost against the limit in its header.
//
// run.mjs calls it once the first task and the chat UI screenshots are done (after the dark
// chatUiShots, before log("PASS")), with the helpers and objects it already has:
//
//   import { guardrails } from "./steps/guardrails.mjs";
//   await guardrails({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail });
//
// It replaces the fake model's script (POST /_script), so it must come after every check of the
// first task's requests. Every wait is on a state, never a fixed sleep.

import * as fs from "node:fs";
import * as path from "node:path";

/** The fake model's turns: a protected edit, then two auto-approved reads that cost $0.03 each. */
const script = {
  models: ["fake-model"],
  turns: [
    {
      text: "I will turn on format-on-save for this workspace.\n\n<replace_in_file>\n<path>.vscode/settings.json</path>\n<diff>\n------- SEARCH\n{}\n=======\n{\"editor.formatOnSave\": true}\n+++++++ REPLACE\n</diff>\n</replace_in_file>",
      chunk_size: 16,
      delay: "20ms",
      usage: { prompt_tokens: 1000, completion_tokens: 60, cost: 0.01 },
    },
    {
      text: "Understood, I will leave the editor settings alone and look at the notes instead.\n\n<read_file>\n<path>notes.txt</path>\n</read_file>",
      usage: { prompt_tokens: 1200, completion_tokens: 40, cost: 0.03 },
      expect: { last_user_contains: ["denied"] },
    },
    {
      text: "Let me list the workspace.\n\n<list_files>\n<path>.</path>\n</list_files>",
      usage: { prompt_tokens: 1400, completion_tokens: 30, cost: 0.03 },
    },
    // Never reached: the cost limit stops the task before this request.
    { text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>" },
  ],
};

export async function guardrails({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail }) {
  const settingsFile = path.join(workspace, ".vscode", "settings.json");
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, "{}\n");
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the guard-rails script: ${res.status} ${await res.text()}`);
  const before = (await (await fetch(`${fakeRoot}/_requests`)).json()).length;

  // Auto-approve edits of project files.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await view.getByRole("button", { name: /^Auto-approve:/ }).click();
  const editBox = view.getByRole("checkbox", { name: "Edit project files" });
  if (!(await editBox.isChecked())) await editBox.check();
  await poll("edits to be auto-approved", () => editBox.isChecked());
  await view.getByRole("button", { name: /^Auto-approve:/ }).click();

  // The protected edit waits for approval, with its reason.
  await input.fill("Turn on format-on-save for this workspace.");
  await input.press("Enter");
  const note = view.getByRole("note", { name: "Why this file is protected" });
  await note.waitFor({ timeout: 30_000 });
  const reason = await note.textContent();
  if (!reason.includes("the editor runs tasks and applies settings from here")) fail(`the protected note says: ${reason}`);
  await view.getByRole("button", { name: "Save" }).first().waitFor({ timeout: 30_000 });
  if (fs.readFileSync(settingsFile, "utf8") !== "{}\n") fail(".vscode/settings.json changed before anyone approved it");
  log(`the edit of .vscode/settings.json waits for approval: "${reason.trim()}"`);
  await screenshot(page, "protected-edit");

  // While it waits, set a cost limit in the task header (the limits are in its expanded view),
  // then reject the edit.
  await view.getByRole("region", { name: "Task" }).locator("button.task-title").click();
  await view.getByRole("button", { name: "Set task limits" }).click();
  await view.getByRole("spinbutton", { name: "Max cost" }).fill("0.05");
  await view.getByRole("button", { name: "Save limits" }).click();
  await poll("the header to show the limit", async () => (await view.getByLabel("Cost limit", { exact: true }).textContent()).includes("/ $0.0500"));
  await view.getByRole("button", { name: "Reject" }).first().click();

  // Two reads later the task has cost $0.07 and stops before its next request.
  const stop = view.getByRole("button", { name: "Stop Task" });
  await stop.waitFor({ timeout: 30_000 });
  await view.getByText("Task limit reached").first().waitFor();
  const header = await view.getByLabel("Task limits", { exact: true }).textContent();
  if (!header.includes("3 requests") || !header.includes("$0.0700 / $0.0500")) fail(`the task header shows: ${header}`);
  const made = (await (await fetch(`${fakeRoot}/_requests`)).json()).length - before;
  if (made !== 3) fail(`${made} model requests in the limited task, want 3`);
  log(`the task stopped at its cost limit; header: "${header.trim()}"`);
  await screenshot(page, "cost-limit");
  await stop.click();
  await poll("the limit question to close", async () => (await stop.count()) === 0, 15_000);
  if (fs.readFileSync(settingsFile, "utf8") !== "{}\n") fail(".vscode/settings.json changed although the edit was rejected");
  const errors = await (await fetch(`${fakeRoot}/_errors`)).json();
  if (errors?.length) fail(`the fake model's expectations failed:\n${errors.join("\n")}`);
}
