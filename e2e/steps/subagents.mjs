// The subagents step of the E2E: the model starts three read-only subagents with
// use_subagents; the chat shows one subagents row with a nested entry per child that follows
// them live (running, then done, with requests, cost and the last tool), and the model's next
// request carries the three reports and none of the files the children read.
//
// e2e/run.mjs calls it at the end of window B's sequence:
//
//   import { subagentsStep } from "./steps/subagents.mjs";
//   await subagentsStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail });
//
// The arguments are those of the other steps (see steps/browser.mjs).

import fs from "node:fs";
import path from "node:path";

const names = ["alpha", "beta", "gamma"];

/** child is one subagent's script: it reads its file (held until all three asked), then reports. */
function child(name) {
  const usage = (cost) => ({ prompt_tokens: 1200, completion_tokens: 40, cost });
  return {
    first_user_contains: `[subagent-${name}]`,
    turns: [
      { text: `<read_file>\n<path>sub-${name}.txt</path>\n</read_file>`, gate: { name: "e2e-subagents", count: 3 }, usage: usage(0.0015) },
      {
        text: `Looking at what sub-${name}.txt says.\n<attempt_completion>\n<result>Report ${name}: the file says ${name} is ready.</result>\n</attempt_completion>`,
        chunk_size: 6,
        delay: "250ms",
        usage: usage(0.002),
      },
    ],
  };
}

export async function subagentsStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail }) {
  for (const n of names) fs.writeFileSync(path.join(workspace, `sub-${n}.txt`), `secret-${n}-content\n`);
  const prompts = names.map((n, i) => `<prompt_${i + 1}>[subagent-${n}] Read sub-${n}.txt and report what it says.</prompt_${i + 1}>`).join("\n");
  const script = {
    turns: [
      { text: `I will ask three helpers to read the files at once.\n<use_subagents>\n${prompts}\n</use_subagents>` },
      {
        text: "<attempt_completion>\n<result>All three files are ready, according to the subagents.</result>\n</attempt_completion>",
        expect: { last_user_contains: names.map((n) => `Report ${n}: the file says ${n} is ready.`), last_user_not_contains: ["secret-"] },
      },
    ],
    routes: names.map(child),
  };
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the subagents script: ${res.status}`);
  const first = (await requests()).length;

  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Ask helpers what the three sub files say.");
  await input.press("Enter");

  // The call asks unless reads are auto-approved.
  const list = view.getByRole("list", { name: "Subagents" }).first();
  await poll(
    "the subagents row (or its approval)",
    async () => {
      if (await list.isVisible().catch(() => false)) return true;
      const ask = view.getByText("Cairn wants to start read-only subagents").first();
      if (await ask.isVisible().catch(() => false)) {
        await screenshot(page, "subagents-ask");
        await view.getByRole("button", { name: "Approve" }).first().click();
      }
      return false;
    },
    30_000,
    100,
  );

  // While the children stream their reports, the row shows them running with their last tool.
  await view.getByText(/Subagents: \d of 3 running/).first().waitFor({ timeout: 30_000 });
  await list.getByText("Read sub-alpha.txt").first().waitFor({ timeout: 30_000 }).catch(() => undefined);
  await screenshot(page, "subagents-running");

  await view.getByText("Subagents: 3 finished").first().waitFor({ timeout: 60_000 });
  for (let i = 1; i <= 3; i++) await list.getByLabel(`Subagent ${i}: done`).waitFor({ timeout: 10_000 });
  await list.scrollIntoViewIfNeeded();
  await screenshot(page, "subagents-done");

  await view.getByText("All three files are ready, according to the subagents.").first().waitFor({ timeout: 30_000 });
  const after = await requests();
  const children = after.slice(first).filter((r) => r.messages.some((m) => m.role === "user" && /\[subagent-/.test(m.text)));
  if (children.length !== 6) fail(`expected 6 subagent requests, saw ${children.length}`);
  log(`subagents step passed (${after.length - first} model requests, 6 of them the subagents')`);
}
