// The parallel step of the E2E (README, "Several tasks at once", "The Board", "Fork from any
// message", "Commit messages"), in window B after the worktrees step (its folder is a git
// repository). Three tasks start one after another and run at the same time: the first in
// the folder, the next two in worktrees of their own (another task runs there). The first
// waits for approval of its edits, answered from the Board; the chat switches between the
// other two while they stream; all three finish. A fork from the first edit's checkpoint has
// notes.txt as that edit left it. Generate Commit Message in the Source Control view fills the
// commit box from the staged diff.
//
//   import { parallelStep } from "./steps/parallel.mjs";
//   await parallelStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail });

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const words = (n, w) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");

function git(dir, ...args) {
  return execFileSync("git", ["-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid", ...args], { cwd: dir, encoding: "utf8" }).trim();
}

/** setEditAutoApprove sets "Edit project files" in the auto-approve bar and returns what it was. */
async function setEditAutoApprove(view, poll, on) {
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  const bar = view.getByRole("button", { name: /^Auto-approve:/ });
  await bar.click();
  const box = view.getByRole("checkbox", { name: "Edit project files" });
  const was = await box.isChecked();
  if (was !== on) await (on ? box.check() : box.uncheck());
  await poll(`edits ${on ? "" : "not "}to be auto-approved`, async () => (await box.isChecked()) === on);
  await bar.click();
  return was;
}

export async function parallelStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail }) {
  // A clean folder to start from: what the worktrees step merged is committed.
  git(workspace, "add", "-A");
  git(workspace, "commit", "-q", "-m", "before the parallel tasks", "--allow-empty");
  const script = {
    turns: [],
    routes: [
      {
        first_user_contains: "[par-a]",
        turns: [
          { text: "First version.\n<write_to_file>\n<path>notes.txt</path>\n<content>\nfirst version\n</content>\n</write_to_file>" },
          { text: "Second version.\n<write_to_file>\n<path>notes.txt</path>\n<content>\nsecond version\n</content>\n</write_to_file>" },
          { text: "<attempt_completion>\n<result>Notes written twice.</result>\n</attempt_completion>" },
        ],
      },
      ...["b", "c"].map((k) => ({
        first_user_contains: `[par-${k}]`,
        turns: [
          { text: `Streaming ${k}: ${words(220, k)}`, chunk_size: 8, delay: "40ms" },
          { text: `<attempt_completion>\n<result>Task ${k} finished.</result>\n</attempt_completion>` },
        ],
      })),
      { first_user_contains: "commit-marker", turns: [{ text: "Add the parallel notes\n\nWrite notes for the parallel tasks." }] },
    ],
  };
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the parallel script: ${res.status}`);

  // The first task's edits must wait for approval: the guard-rails step auto-approved edits, so
  // that is turned off here and set back at the end.
  const editsWere = await setEditAutoApprove(view, poll, false);

  // Three tasks, one after another, without waiting for the others.
  for (const k of ["a", "b", "c"]) {
    await view.getByRole("button", { name: "New Task", exact: true }).click();
    await input.fill(`[par-${k}] Work in parallel.`);
    await input.press("Enter");
    await view.getByText(`[par-${k}] Work in parallel.`).first().waitFor({ timeout: 20_000 });
  }
  const strip = view.getByRole("list", { name: "Open tasks" });
  const entry = (k) => strip.getByRole("button", { name: new RegExp(`^\\[par-${k}\\]`) });
  for (const k of ["a", "b", "c"]) await entry(k).waitFor({ timeout: 20_000 });
  // A finished task not on screen folds behind the strip's "N finished" entry: open it first.
  const fold = strip.getByRole("button", { name: /^\d+ finished$/ });
  const show = async (k) => {
    if ((await fold.count()) > 0 && (await fold.getAttribute("aria-expanded")) !== "true") await fold.click();
    await entry(k).click();
  };
  await screenshot(page, "parallel-strip");
  log("three tasks run at once in one window");

  // Switch between b and c while they stream: each shows its own growing text.
  for (const k of ["b", "c", "b"]) {
    await show(k);
    await view.getByText(new RegExp(`Streaming ${k}: ${k}0`)).first().waitFor({ timeout: 20_000 });
  }
  await screenshot(page, "parallel-switch-streaming");
  log("switching between the streaming tasks shows each one's stream");

  // The first task waits for approval of its edits: answered from the Board, twice.
  await view.getByRole("button", { name: "Board" }).click();
  const board = view.getByRole("list", { name: "Tasks", exact: true });
  const a = board.getByRole("listitem", { name: /^\[par-a\]/ });
  for (let i = 0; i < 2; i++) {
    const q = a.getByRole("group", { name: /^Question of/ });
    await q.waitFor({ timeout: 30_000 });
    if (i === 0) await screenshot(page, "parallel-board-question");
    await q.getByRole("button", { name: "Approve" }).click();
    await poll("the board to take the answer", async () => !(await q.isVisible().catch(() => false)) || i === 1, 10_000);
  }
  for (const k of ["a", "b", "c"]) {
    await poll(`[par-${k}] done on the board`, async () => (await board.getByRole("listitem", { name: new RegExp(`^\\[par-${k}\\]`) }).getByText("done").count()) > 0, 90_000, 250);
  }
  // b and c started while a ran: each in a worktree of its own. a is in the folder, unless a
  // task of an earlier step was still running there (then it has a worktree too).
  const worktrees = git(workspace, "worktree", "list");
  if (!/par-b/.test(worktrees) || !/par-c/.test(worktrees)) fail(`the second and third task are not in worktrees:\n${worktrees}`);
  const aLine = worktrees.split("\n").find((l) => l.includes("par-a"));
  const aDir = aLine ? aLine.split(/\s+/)[0] : workspace;
  if (fs.readFileSync(path.join(aDir, "notes.txt"), "utf8") !== "second version\n") fail("the first task's notes.txt is not its second version");
  await screenshot(page, "parallel-board-done");
  log("the question was answered from the Board; all three finished (two in worktrees)");
  await view.getByRole("button", { name: "Done" }).click();

  // Fork the first task from the checkpoint of its first edit (finished: behind the fold).
  await show("a");
  const fork = view.getByRole("button", { name: "Fork", exact: true });
  await poll("two checkpoint rows with Fork", async () => (await fork.count()) >= 2, 20_000);
  await fork.nth(1).click();
  await view.getByRole("button", { name: /^Fork of \[par-a\]/ }).first().waitFor({ timeout: 30_000 });
  let forkDir;
  await poll("the fork's worktree", async () => {
    const line = git(workspace, "worktree", "list").split("\n").find((l) => l.includes("cairn/fork-"));
    forkDir = line?.split(/\s+/)[0];
    return forkDir;
  }, 20_000);
  const forked = fs.readFileSync(path.join(forkDir, "notes.txt"), "utf8");
  if (forked !== "first version\n") fail(`the fork's notes.txt is ${JSON.stringify(forked)}, want the first version`);
  if (fs.readFileSync(path.join(aDir, "notes.txt"), "utf8") !== "second version\n") fail("the fork changed the original's notes.txt");
  await screenshot(page, "parallel-fork");
  log("the fork has notes.txt as the first edit left it; the original is unchanged");
  if (editsWere) await setEditAutoApprove(view, poll, true);

  // Generate Commit Message from the Source Control view.
  fs.writeFileSync(path.join(workspace, "notes.txt"), "commit-marker\n");
  git(workspace, "add", "notes.txt");
  // The E2E's user settings turn Git off; this workspace turns it on for this part.
  const settingsFile = path.join(workspace, ".vscode", "settings.json");
  const settingsBefore = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, "utf8") : undefined;
  let settings = {};
  try {
    settings = JSON.parse(settingsBefore ?? "{}");
  } catch {
    settings = {};
  }
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, "git.enabled": true }, null, 2) + "\n");
  await page.keyboard.press("Control+Shift+G");
  const scm = page.locator(".scm-view, #workbench\\.view\\.scm");
  await scm.first().waitFor({ timeout: 20_000 });
  const button = page.getByRole("button", { name: "Generate Commit Message" }).first();
  await button.waitFor({ timeout: 60_000 });
  await button.click();
  await poll(
    "the commit box filled",
    // The editor draws spaces as no-break spaces.
    async () => (await scm.allInnerTexts().catch(() => [])).join("\n").replace(/\u00a0/g, " ").includes("Add the parallel notes"),
    30_000,
    250,
  );
  await screenshot(page, "parallel-commit-message");
  log("Generate Commit Message filled the commit box from the staged diff");
  // Back to the Cairn view for the steps that follow; the staged marker and Git are undone.
  git(workspace, "reset", "-q", "notes.txt");
  if (settingsBefore === undefined) fs.rmSync(settingsFile);
  else fs.writeFileSync(settingsFile, settingsBefore);
  // The view's badge (a task waits: the fork) lies over the icon's middle; a click there is
  // the icon's too.
  await page.locator('.activitybar .action-item a[aria-label^="Cairn"]').first().click({ force: true });
  await view.getByRole("textbox", { name: "Message Cairn" }).waitFor({ timeout: 30_000 });
}
