// The modes step of the E2E (docs/modes.md): the workspace gets two modes of its own
// (.cairn/modes/docs.md and reviewer.md); the chat's mode picker lists them beside Plan and Act;
// a task in the Orchestrator mode delegates one subtask to each, the subtask tree above the
// chat shows both with their mode, status and requests, and one of them opens to its chat.
//
// e2e/run.mjs calls it in window B's sequence, after the subagents step:
//
//   import { modesStep } from "./steps/modes.mjs";
//   await modesStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail });
//
// The arguments are those of the other steps (see steps/browser.mjs).

import fs from "node:fs";
import path from "node:path";

const modes = {
  "docs.md": "---\nname: Docs Writer\ndescription: Writing the project's documentation.\ngroups: [read, edit]\nfileRegex: \\.md$\n---\nWrite short sentences.\n",
  "reviewer.md": "---\nname: Reviewer\ndescription: Reviewing changes without touching them.\ngroups: [read]\n---\nSay what is wrong; change nothing.\n",
};

/** subtask is the script of one delegated subtask, found by the tag its assignment carries. */
function subtask(tag, turns) {
  return { first_user_contains: `[subtask-${tag}]`, turns };
}

export async function modesStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail }) {
  const dir = path.join(workspace, ".cairn", "modes");
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(modes)) fs.writeFileSync(path.join(dir, name), text);
  const script = {
    turns: [
      {
        text: "I will have the docs written, then reviewed.\n<delegate>\n<mode>docs</mode>\n<message>[subtask-docs] Write MODES-NOTES.md with one line about modes.</message>\n</delegate>",
        expect: { contains: ["You are in the Orchestrator mode (orchestrator).", "- docs (Docs Writer)"] },
      },
      {
        text: "<delegate>\n<mode>reviewer</mode>\n<message>[subtask-reviewer] Review MODES-NOTES.md.</message>\n</delegate>",
        expect: { last_user_contains: ["Wrote MODES-NOTES.md."] },
      },
      {
        text: "<attempt_completion>\n<result>The notes are written and reviewed.</result>\n</attempt_completion>",
        expect: { last_user_contains: ["MODES-NOTES.md reads well."] },
      },
    ],
    routes: [
      subtask("docs", [
        {
          text: "<write_to_file>\n<path>MODES-NOTES.md</path>\n<content>Modes hold a task to its role.\n</content>\n</write_to_file>",
          expect: { contains: ["You are in the Docs Writer mode (docs)."] },
        },
        { text: "<attempt_completion>\n<result>Wrote MODES-NOTES.md.</result>\n</attempt_completion>" },
      ]),
      subtask("reviewer", [
        {
          text: "<attempt_completion>\n<result>MODES-NOTES.md reads well.</result>\n</attempt_completion>",
          expect: { contains: ["You are in the Reviewer mode (reviewer)."], not_contains: ["## write_to_file"] },
        },
      ]),
    ],
  };
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the modes script: ${res.status}`);
  const first = (await requests()).length;

  // A new task: the picker reads the workspace's modes again.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  const picker = view.getByRole("combobox", { name: "Other modes" });
  await poll(
    "the mode picker to list the workspace's modes",
    async () => ((await picker.locator("option").allTextContents().catch(() => [])).some((t) => t.startsWith("Docs Writer"))),
    30_000,
    200,
  );
  await picker.selectOption("docs");
  await screenshot(page, "modes-picker");
  const options = await picker.locator("option").allTextContents();
  log(`mode picker lists: ${options.join(" | ")}`);

  await picker.selectOption("orchestrator");
  await input.fill("Write notes about modes, then have them reviewed.");
  await input.press("Enter");

  // Each delegate call asks unless YOLO is on; the subtasks cannot ask.
  const tree = view.getByRole("tree", { name: "Subtask tree" });
  await poll(
    "both subtasks to finish",
    async () => {
      const ask = view.getByText(/Cairn wants to start a subtask in the \w+ mode/).first();
      if (await ask.isVisible().catch(() => false)) {
        await view.getByRole("button", { name: "Approve" }).first().click();
        return false;
      }
      const done = await tree.getByRole("treeitem").filter({ hasText: "done" }).count().catch(() => 0);
      return done === 2;
    },
    90_000,
    150,
  );
  await view.getByText("The notes are written and reviewed.").first().waitFor({ timeout: 30_000 });
  await tree.getByLabel("Subtask 1 in docs: done").getByRole("button").click();
  await tree.getByText("Wrote MODES-NOTES.md.").first().waitFor({ timeout: 10_000 });
  await tree.scrollIntoViewIfNeeded();
  await screenshot(page, "modes-subtask-tree");

  // The next task starts in ACT again.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await view.getByRole("radio", { name: "Act" }).click();

  const after = await requests();
  const sub = after.slice(first).filter((r) => r.messages.some((m) => m.role === "user" && /\[subtask-/.test(m.text)));
  if (sub.length !== 3) fail(`expected 3 subtask requests, saw ${sub.length}`);
  log(`modes step passed (${after.length - first} model requests, 3 of them the subtasks')`);
}
