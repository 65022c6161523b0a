// E2E step: the skills list in Settings. It puts two skills in the window's workspace — a
// good one in .cairn/skills/ and one in .claude/skills/ whose SKILL.md has no frontmatter —
// opens Settings, waits for the Skills section to list both (the broken one with its reason),
// switches the good one off, and checks that the toggle is still off after the view is opened
// again (it was stored by the daemon, not only in the view).
// Screenshots: NN-skills-settings.png, NN-skills-toggled.png.
//
// How e2e/run.mjs calls it (last in window B's sequence, after browserStep):
//
//   import { skillsStep } from "./steps/skills.mjs";
//   …
//   await skillsStep({ page, view, workspace, screenshot, poll, log, fail });
//
// Every wait is on a state, never a fixed sleep.

import * as fs from "node:fs";
import * as path from "node:path";

const skills = {
  ".cairn/skills/release/SKILL.md":
    "---\nname: release\ndescription: Cut a release - update the changelog, tag it and draft the notes.\n---\nUpdate CHANGELOG.md first.\n",
  ".cairn/skills/release/scripts/tag.sh": "#!/bin/sh\necho tag\n",
  ".claude/skills/broken/SKILL.md": "This file forgot its frontmatter.\n",
};

/** openSettings shows Settings and returns the Skills group once it lists the release skill. */
async function openSettings(view, poll) {
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  await poll("the settings to load", () => settings.getByRole("button", { name: "Save" }).isEnabled(), 15_000);
  const group = settings.getByRole("group", { name: "Skills" });
  const release = group.getByRole("checkbox", { name: /release/ });
  await release.waitFor({ timeout: 15_000 });
  await group.scrollIntoViewIfNeeded();
  return { group, release };
}

/** leaveSettings goes back through History, so nothing in the settings draft is saved. */
async function leaveSettings(view) {
  await view.getByRole("button", { name: "History", exact: true }).click();
  await view.getByRole("region", { name: "History" }).getByRole("button", { name: "Done" }).click();
}

export async function skillsStep({ page, view, workspace, screenshot, poll, log, fail }) {
  for (const [rel, content] of Object.entries(skills)) {
    const p = path.join(workspace, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }

  // 1. Both skills are listed; the broken one says why it is not offered.
  let { group, release } = await openSettings(view, poll);
  await group.getByText("Cut a release - update the changelog, tag it and draft the notes.").waitFor();
  const problem = group.getByRole("status");
  await problem.waitFor();
  const why = await problem.textContent();
  if (!why?.includes("no frontmatter")) fail(`the broken skill's problem reads ${JSON.stringify(why)}`);
  if (!(await release.isChecked())) fail("a new skill should be on");
  await screenshot(page, "skills-settings");

  // 2. Switch it off; the daemon keeps the toggle.
  await release.click();
  await poll("the release skill to be off", async () => !(await release.isChecked()), 10_000);
  await leaveSettings(view);
  ({ group, release } = await openSettings(view, poll));
  if (await release.isChecked()) fail("the skill toggle did not survive reopening Settings");
  await screenshot(page, "skills-toggled");
  await leaveSettings(view);
  log("skills step passed: listed with problems, toggled and stored");
}
