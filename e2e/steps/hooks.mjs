// E2E step: hooks in code-server (docs/architecture.md, "Hooks"). A PreToolUse hook that blocks `rm`
// commands is put in the workspace's .clinerules/hooks/. The settings view's hooks section
// asks before enabling hooks for the workspace, lists the hook as not trusted with its content,
// trusts it; after the file changes on disk it shows the hook as changed with its diff and a
// trust button. A task whose model tries `rm -rf build` then shows the hook's blocked row, the
// folder stays, and the model reads the hook's message.
// Screenshots: NN-hooks-prompt.png, NN-hooks-changed.png, NN-hooks-blocked.png.
//
// How e2e/run.mjs calls it (at the end of the window-B sequence, after browserStep; it
// replaces the fake model's script through POST /_script):
//
//   import { hooksStep } from "./steps/hooks.mjs";
//   …
//   await hooksStep({ page: pageB, view: viewB, input: inputB2, workspace: workspaceB, fakeRoot, screenshot, log, fail });
//
// Every wait is on a state, never a fixed sleep.

import * as fs from "node:fs";
import * as path from "node:path";

const hookScript = `#!/bin/sh
# Refuses shell commands that remove files.
input=$(cat)
case "$input" in
  *'"toolName":"execute_command"'*'"command":"rm '*)
    echo '{"cancel": true, "errorMessage": "This project does not allow rm; move files to ./trash instead."}'
    exit 0;;
esac
echo '{"cancel": false}'
`;

const script = {
  models: ["fake-model"],
  turns: [
    { text: "I will clean the build folder.\n\n<execute_command>\n<command>rm -rf build</command>\n<requires_approval>false</requires_approval>\n</execute_command>" },
    {
      text: "The project's hook does not allow rm, so I left the folder in place.\n\n<attempt_completion>\n<result>build was kept: the hook forbids rm.</result>\n</attempt_completion>",
      expect: { last_user_contains: ["This project does not allow rm"] },
    },
  ],
};

/** openHooks opens the settings view and returns its hooks section, scrolled into view. */
async function openHooks(view) {
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  const section = settings.getByRole("group", { name: "Hooks", exact: true });
  await section.waitFor({ timeout: 30_000 });
  return { settings, section };
}

/** closeSettings leaves the settings view (saving what it loaded, unchanged). */
async function closeSettings(settings, input) {
  await settings.getByRole("button", { name: "Save", exact: true }).click();
  await input.waitFor({ timeout: 30_000 });
}

export async function hooksStep({ page, view, input, workspace, fakeRoot, screenshot, log, fail }) {
  const dir = path.join(workspace, ".clinerules", "hooks");
  fs.mkdirSync(dir, { recursive: true });
  const hook = path.join(dir, "PreToolUse");
  fs.writeFileSync(hook, hookScript, { mode: 0o755 });
  fs.mkdirSync(path.join(workspace, "build"), { recursive: true });
  fs.writeFileSync(path.join(workspace, "build", "keep.txt"), "keep\n");

  // 1. The hooks section asks before hooks run in this workspace; the hook is not trusted yet.
  let { settings, section } = await openHooks(view);
  const prompt = section.getByRole("group", { name: "Hooks in this workspace" });
  await prompt.waitFor({ timeout: 30_000 });
  await section.getByText("not trusted yet").waitFor();
  await section.scrollIntoViewIfNeeded();
  await screenshot(page, "hooks-prompt");
  await prompt.getByRole("button", { name: "Enable hooks for this workspace" }).click();
  await section.getByRole("checkbox", { name: "Run hooks from this workspace" }).waitFor();
  await section.getByRole("button", { name: "Trust this version" }).click();
  await section.getByText("trusted", { exact: true }).waitFor({ timeout: 30_000 });
  log("hooks enabled for the workspace and the PreToolUse hook trusted");
  await closeSettings(settings, input);

  // 2. The file changes on disk: the section shows it as changed, with its diff, until trusted.
  fs.appendFileSync(hook, "# reviewed by the release team\n");
  ({ settings, section } = await openHooks(view));
  await section.getByText("changed since trusted").waitFor({ timeout: 30_000 });
  await section.getByText("+# reviewed by the release team").waitFor();
  await section.scrollIntoViewIfNeeded();
  await screenshot(page, "hooks-changed");
  await section.getByRole("button", { name: "Trust this version" }).click();
  await section.getByText("trusted", { exact: true }).waitFor({ timeout: 30_000 });
  log("a changed hook showed its diff and was trusted again");
  await closeSettings(settings, input);

  // 3. A task: the model tries rm -rf build; the hook blocks it before any approval.
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the hooks script: ${res.status}`);
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Clean the build folder.");
  await input.press("Enter");
  await view.getByText(/A PreToolUse hook blocked execute_command/).first().waitFor({ timeout: 30_000 });
  await view.getByText("build was kept: the hook forbids rm.").first().waitFor({ timeout: 30_000 });
  await screenshot(page, "hooks-blocked");
  if (!fs.existsSync(path.join(workspace, "build", "keep.txt"))) fail("the hook did not stop rm -rf build");
  log("the PreToolUse hook blocked rm -rf build; the folder is still there");
}
