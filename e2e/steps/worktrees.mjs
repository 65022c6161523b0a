// The worktrees step of the E2E (README, "Tasks in worktrees"): window B's folder becomes a git
// repository; two tasks start with the Worktree toggle on, each writing greeting.txt its own way
// in a worktree of its own under the data dir, while the folder itself stays as it was. The
// Board lists both (status, branch, files changed, cost); Review opens one task's changes in
// VS Code's multi-file diff; Merge lands the first task's change in the folder as an
// uncommitted change, and the second, now conflicting on the same file, is refused and
// changes nothing.
//
// e2e/run.mjs calls it at the end of window B's sequence:
//
//   import { worktreesStep } from "./steps/worktrees.mjs";
//   await worktreesStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail });
//
// The arguments are those of the other steps (see steps/browser.mjs).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const tasks = [
  { marker: "[wt-one]", text: "[wt-one] Greet in English.", greeting: "hello from the first worktree\n", extra: "english.md", done: "English greeting written." },
  { marker: "[wt-two]", text: "[wt-two] Greet in French.", greeting: "bonjour depuis le second\n", extra: "french.md", done: "French greeting written." },
];

function git(workspace, ...args) {
  return execFileSync("git", ["-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid", ...args], { cwd: workspace, encoding: "utf8" }).trim();
}

export async function worktreesStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail }) {
  fs.writeFileSync(path.join(workspace, "greeting.txt"), "hi\n");
  git(workspace, "init", "-q");
  git(workspace, "add", "-A");
  git(workspace, "commit", "-q", "-m", "before the worktree tasks");
  const head = git(workspace, "rev-parse", "HEAD");

  const script = {
    turns: [],
    routes: tasks.map((t) => ({
      first_user_contains: t.marker,
      turns: [
        { text: `Writing it.\n<write_to_file>\n<path>greeting.txt</path>\n<content>\n${t.greeting}</content>\n</write_to_file>`, chunk_size: 24, delay: "20ms" },
        { text: `<write_to_file>\n<path>${t.extra}</path>\n<content>\n# ${t.marker}\n</content>\n</write_to_file>` },
        { text: `<attempt_completion>\n<result>${t.done}</result>\n</attempt_completion>` },
      ],
    })),
  };
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the worktrees script: ${res.status}`);

  for (const [i, t] of tasks.entries()) {
    await view.getByRole("button", { name: "New Task", exact: true }).click();
    const toggle = view.getByRole("button", { name: "Worktree", exact: true });
    await toggle.click();
    await poll("the worktree toggle on", async () => (await toggle.getAttribute("aria-pressed")) === "true", 10_000);
    await input.fill(t.text);
    if (i === 0) await screenshot(page, "worktree-toggle");
    await input.press("Enter");
    // Each write asks unless edits are auto-approved here: approve it from the chat.
    await poll(
      `the ${t.marker} task's completion`,
      async () => {
        if (await view.getByText(t.done).first().isVisible().catch(() => false)) return true;
        const save = view.getByRole("button", { name: "Save", exact: true }).first();
        if (await save.isVisible().catch(() => false)) await save.click().catch(() => undefined);
        return false;
      },
      60_000,
      200,
    );
    log(`worktree task ${t.marker} completed`);
  }
  // The folder itself is untouched: the same commit, nothing changed.
  if (git(workspace, "rev-parse", "HEAD") !== head) fail("a worktree task moved the folder's HEAD");
  if (git(workspace, "status", "--porcelain") !== "") fail(`a worktree task changed the folder: ${git(workspace, "status", "--porcelain")}`);
  if (fs.readFileSync(path.join(workspace, "greeting.txt"), "utf8") !== "hi\n") fail("greeting.txt changed in the folder");

  // The board.
  await view.getByRole("button", { name: "Board" }).click();
  const board = view.getByRole("list", { name: "Tasks", exact: true });
  const items = tasks.map((t) => board.getByRole("listitem", { name: t.text }));
  for (const item of items) await item.waitFor({ timeout: 15_000 });
  for (const item of items) {
    await item.getByText(/2 files/).first().waitFor({ timeout: 15_000 });
    await item.getByText(/cairn\/wt-/).first().waitFor();
  }
  await screenshot(page, "worktrees-board");
  log("the board lists both worktree tasks");

  // Review: one multi-file diff of the first task's changes against its base.
  await items[0].getByRole("button", { name: "Review" }).click();
  await poll("the review's multi-file diff tab", async () => (await page.locator(".tab", { hasText: /Changes of cairn\/wt-one/ }).count()) > 0, 30_000);
  await screenshot(page, "worktrees-review");
  log("Review opened the first task's changes in one multi-file diff");

  // Merge the first: an uncommitted change in the folder.
  await items[0].getByRole("button", { name: "Merge" }).click();
  await view.getByText(/Merged 2 files as uncommitted changes/).first().waitFor({ timeout: 15_000 });
  if (fs.readFileSync(path.join(workspace, "greeting.txt"), "utf8") !== tasks[0].greeting) fail("Merge did not land greeting.txt");
  if (!fs.existsSync(path.join(workspace, tasks[0].extra))) fail(`Merge did not land ${tasks[0].extra}`);
  if (git(workspace, "rev-parse", "HEAD") !== head) fail("an uncommitted merge moved HEAD");
  await screenshot(page, "worktrees-merged");
  log("Merge landed the first task's changes as uncommitted changes");

  // The second now conflicts on greeting.txt: refused, named, nothing changed.
  const before = git(workspace, "status", "--porcelain");
  await items[1].getByRole("button", { name: "Merge" }).click();
  await view.getByText(/merge conflict in greeting\.txt/).first().waitFor({ timeout: 15_000 });
  if (git(workspace, "status", "--porcelain") !== before || fs.readFileSync(path.join(workspace, "greeting.txt"), "utf8") !== tasks[0].greeting) {
    fail("a conflicting merge changed the folder");
  }
  await screenshot(page, "worktrees-conflict");
  log("the conflicting merge was refused, naming greeting.txt");
  await view.getByRole("button", { name: "Done" }).click();
}
