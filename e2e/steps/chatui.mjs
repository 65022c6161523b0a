// The chat's working controls in code-server: a message typed while the task works
// waits as queued and reaches the model when the step ends; "See new changes" opens the task's
// changes in one diff editor; a past message is edited and resent after a confirm (the files and
// the conversation go back to the checkpoint before it); the task is exported through the save
// dialog; and axe-core, injected into the webview frame, finds no serious or critical violation
// and no unnamed button in the chat (showing the completed task), the auto-approve bar, history,
// settings (its skills section, and its hooks section with a changed hook's "Trust this version"
// button) and MCP views, in the window's theme and again in the other one (light and dark),
// with screenshots of the completed task in both.
//
// run.mjs calls it last in window B, after browserStep:
//
//   import { chatuiStep } from "./steps/chatui.mjs";
//   await chatuiStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail });
//
// It replaces the fake model's script (POST /_script). Every wait is on a state.

import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

const filler = "I will write the changelog for this workspace, one entry per change, newest first. ".repeat(6);

const script = {
  models: ["fake-model"],
  turns: [
    {
      // Slow on purpose: the step types a message while this streams.
      text: `${filler}\n\n<write_to_file>\n<path>CHANGELOG.md</path>\n<content>\n# Changelog\n\n- First entry.\n</content>\n</write_to_file>`,
      chunk_size: 8,
      delay: "120ms",
    },
    {
      text: "<attempt_completion>\n<result>The changelog is written.</result>\n</attempt_completion>",
      expect: { last_user_contains: ["Mention the date too."] },
    },
    {
      text: "<attempt_completion>\n<result>The changelog names the version.</result>\n</attempt_completion>",
      expect: { last_user_contains: ["Mention the version too."], not_contains: ["Mention the date too."] },
    },
  ],
};

/** webviewFrame is the Cairn webview's inner frame, where axe runs. */
async function webviewFrame(page) {
  const outer = await (await page.locator('iframe.webview[src*="cairnhq.cairn"]').first().elementHandle()).contentFrame();
  return (await outer.locator("#active-frame").elementHandle()).contentFrame();
}

/** audit runs axe in the webview: serious/critical violations and buttons without a name. */
async function audit(page, axeSource) {
  const frame = await webviewFrame(page);
  if (!(await frame.evaluate(() => typeof window.axe === "object"))) await frame.evaluate(axeSource);
  return frame.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    // Each node with what axe measured (a contrast finding names both colours and the ratio).
    const node = (n) => {
      const d = n.any?.find((c) => c.data?.contrastRatio !== undefined)?.data;
      return `${n.html.slice(0, 100)}${d ? ` [${d.fgColor} on ${d.bgColor}: ${d.contrastRatio}:1, needs ${d.expectedContrastRatio}]` : ""}`;
    };
    const bad = r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 5).map(node).join(" | ")}`);
    const unnamed = r.violations.filter((v) => v.id === "button-name").flatMap((v) => v.nodes.map((n) => n.html.slice(0, 100)));
    return { bad, unnamed, total: r.violations.length };
  });
}

/** switchTheme picks a colour theme through the command palette and waits for the workbench to wear it. */
export async function switchTheme(page, name, dark) {
  await page.keyboard.press("F1");
  const quickInput = page.locator(".quick-input-widget");
  await quickInput.locator("input").first().waitFor();
  await page.keyboard.type("Preferences: Color Theme");
  await quickInput.getByRole("option", { name: /^Preferences: Color Theme/ }).first().click();
  const option = quickInput.getByRole("option", { name }).first();
  await option.waitFor();
  await option.click();
  await quickInput.waitFor({ state: "hidden" });
  await page.locator(dark ? ".monaco-workbench.vs-dark" : ".monaco-workbench.vs").first().waitFor({ timeout: 30_000 });
}

export async function chatuiStep({ page, view, input, workspace, fakeRoot, screenshot, poll, log, fail }) {
  const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the chat UI script: ${res.status} ${await res.text()}`);
  const dark = await page.locator(".monaco-workbench.vs-dark").count() > 0;
  const theme = dark ? "dark" : "light";
  const other = dark ? "light" : "dark";

  // 1. Queue a message while the task works.
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Write the changelog.");
  await input.press("Enter");
  await view.getByText("I will write the changelog").first().waitFor({ timeout: 30_000 });
  await input.fill("Mention the date too.");
  await input.press("Enter");
  const queued = view.getByRole("region", { name: "Queued messages" });
  await queued.getByText("Mention the date too.").waitFor({ timeout: 10_000 });
  await screenshot(page, `queued-${theme}`);
  log("a message typed while the task streams shows as queued");
  // It goes when the write has run: the model's next request carries it (the script expects it).
  const chat = view.getByRole("main", { name: "Chat" });
  await chat.locator(".user-bubble", { hasText: "Mention the date too." }).first().waitFor({ timeout: 60_000 });
  await chat.getByText("The changelog is written.").first().waitFor({ timeout: 30_000 });
  await queued.waitFor({ state: "hidden" });
  if (!fs.existsSync(path.join(workspace, "CHANGELOG.md"))) fail("CHANGELOG.md was not written");

  // 2. See new changes: the task's changes in the editor's diff view.
  await chat.getByRole("button", { name: /See new changes/ }).last().click();
  await poll("a changes tab", async () => (await page.locator(".tab", { hasText: /Changes since checkpoint|CHANGELOG\.md/ }).count()) > 0, 30_000);
  await screenshot(page, `new-changes-${theme}`);
  log("See new changes opened the task's changes in a diff editor");

  // 3. Edit and resend the queued message's row, after the confirm.
  const row = chat.locator(".row", { has: page.locator(".user-bubble", { hasText: "Mention the date too." }) }).first();
  await row.hover();
  await row.getByRole("button", { name: "Edit and resend" }).click();
  await row.getByRole("textbox", { name: "Edited message" }).fill("Mention the version too.");
  await row.getByRole("button", { name: "Resend" }).click();
  const confirm = row.getByRole("alertdialog", { name: "Confirm edit and resend" });
  await confirm.waitFor();
  await screenshot(page, `edit-confirm-${theme}`);
  await confirm.getByRole("button", { name: "Restore and send" }).click();
  await chat.getByText("The changelog names the version.").first().waitFor({ timeout: 60_000 });
  await chat.locator(".user-bubble", { hasText: "Mention the version too." }).first().waitFor();
  if ((await chat.locator(".user-bubble", { hasText: "Mention the date too." }).count()) !== 0) fail("the edited message is still in the chat");
  if (fs.existsSync(path.join(workspace, "CHANGELOG.md")) && !fs.readFileSync(path.join(workspace, "CHANGELOG.md"), "utf8").includes("First entry")) {
    fail("CHANGELOG.md changed unexpectedly");
  }
  await screenshot(page, `edit-resent-${theme}`);
  log("the edited message was resent from the checkpoint before it");

  // 4. Export through the save dialog (code-server's simple file dialog: accept its default).
  await view.getByRole("button", { name: "Export task" }).click();
  const dialog = page.locator(".quick-input-widget");
  await dialog.locator("input").first().waitFor({ timeout: 15_000 });
  await screenshot(page, `export-dialog-${theme}`);
  await page.keyboard.press("Enter");
  const exported = await poll(
    "the exported markdown",
    () => fs.readdirSync(workspace).find((f) => f.endsWith(".md") && f !== "CHANGELOG.md" && fs.readFileSync(path.join(workspace, f), "utf8").includes("Write the changelog.")),
    30_000,
  );
  log(`exported the task to ${exported}`);

  // 5. Accessibility of the views in both themes, the chat showing the completed task (the
  // completion's title once fell under the contrast minimum in the light theme only). Every
  // finding of both passes is collected, then the step fails on them. The auto-approve bar,
  // unfolded, fills the panel: it is audited on its own, and the chat with it folded.
  const autoApprove = view.getByRole("button", { name: /^Auto-approve( \(this task only\))?:/ });
  const setAutoApprove = async (open) => {
    if ((await autoApprove.getAttribute("aria-expanded")) !== String(open)) await autoApprove.click();
    await poll(`the auto-approve bar ${open ? "open" : "folded"}`, async () => (await autoApprove.getAttribute("aria-expanded")) === String(open), 10_000);
  };
  // The hooks section is audited with its "Trust this version" button present:
  // the hook of the hooks step changes on disk again, and is trusted again after the audits.
  const hook = path.join(workspace, ".clinerules", "hooks", "PreToolUse");
  if (!fs.existsSync(hook)) fail(`${hook} is missing: the hooks step runs before this one`);
  fs.appendFileSync(hook, "# checked again for the accessibility pass\n");
  const settingsView = view.getByRole("region", { name: "Settings" });
  const hooksSection = settingsView.getByRole("group", { name: "Hooks", exact: true });
  const trust = hooksSection.getByRole("button", { name: "Trust this version" });
  const openSettings = async () => {
    await view.getByRole("button", { name: "Settings" }).click();
    await poll("the settings to load", () => settingsView.getByRole("button", { name: "Save" }).isEnabled(), 15_000);
  };
  const views = [
    ["auto-approve", () => setAutoApprove(true)],
    ["chat", () => setAutoApprove(false)],
    ["history", async () => view.getByRole("button", { name: "History" }).click()],
    ["settings", openSettings],
    [
      "settings-skills",
      async () => {
        const skills = settingsView.getByRole("group", { name: "Skills", exact: true });
        await skills.getByRole("checkbox").first().waitFor({ timeout: 15_000 });
        await skills.scrollIntoViewIfNeeded();
      },
    ],
    [
      "settings-hooks",
      async () => {
        await hooksSection.getByText("changed since trusted").waitFor({ timeout: 30_000 });
        await trust.scrollIntoViewIfNeeded();
        await trust.waitFor();
      },
    ],
    ["mcp", async () => view.getByRole("button", { name: "MCP Servers" }).click()],
  ];
  const found = [];
  const auditViews = async (th) => {
    let count = 0;
    for (const [name, open] of views) {
      await open();
      await view.locator("body").first().waitFor();
      if (name === "chat") {
        // axe judges what is on screen: bring the last completion into view first.
        const completion = chat.locator(".completion-row").last();
        await completion.scrollIntoViewIfNeeded();
        await completion.getByText("Task Completed").waitFor();
        await completion.getByText("The changelog names the version.").waitFor();
        // On screen, not only in the DOM: the title is what the middle of its own box shows.
        const onScreen = await completion.locator(".row-title").evaluate((el) => {
          const r = el.getBoundingClientRect();
          return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
        });
        if (!onScreen) fail(`the completed task is not on screen for the ${th} audit`);
        await screenshot(page, `completed-${th}`);
      }
      const r = await audit(page, axeSource);
      log(`axe ${name} (${th}): ${r.bad.length} serious/critical, ${r.unnamed.length} unnamed buttons, ${r.total} rules violated in all`);
      await screenshot(page, `a11y-${name}-${th}`);
      for (const b of r.bad) found.push(`${name} (${th}): ${b}`);
      for (const u of r.unnamed) found.push(`${name} (${th}): unnamed button ${u}`);
      count += r.bad.length + r.unnamed.length;
    }
    log(`axe ${th} theme: ${count} serious/critical findings or unnamed buttons in the ${views.length} views`);
    await view.getByRole("button", { name: "Done", exact: true }).first().click(); // leave the MCP view
    await chat.waitFor({ state: "attached" });
  };
  await auditViews(theme);
  await switchTheme(page, other === "dark" ? /Default Dark Modern/ : /Default Light Modern/, other === "dark");
  await view.locator(other === "dark" ? "body.vscode-dark" : "body.vscode-light").waitFor({ timeout: 30_000 });
  await auditViews(other);
  if (found.length) fail(`axe found:\n${found.join("\n")}`);
  // Trust the hook again, so that later steps run it as before; leave through History (nothing saved).
  await openSettings();
  await trust.scrollIntoViewIfNeeded();
  await trust.click();
  await hooksSection.getByText("trusted", { exact: true }).waitFor({ timeout: 30_000 });
  await view.getByRole("button", { name: "History" }).click();
  await view.getByRole("region", { name: "History" }).getByRole("button", { name: "Done" }).click();
  await chat.waitFor({ state: "attached" });

  // Each screenshot waits for the state its name promises (the bar's toggle
  // was once clicked blind, so the resent chat and the open bar were caught under each other's names).
  await view.getByRole("button", { name: "History" }).click();
  await view.getByRole("region", { name: "History" }).waitFor();
  await screenshot(page, `history-${other}`);
  await view.getByRole("button", { name: "Done" }).first().click();
  await setAutoApprove(false);
  await view.locator(".auto-approve-editor").waitFor({ state: "detached" });
  await chat.locator(".user-bubble", { hasText: "Mention the version too." }).first().waitFor();
  await chat.locator(".completion-row").last().scrollIntoViewIfNeeded();
  await screenshot(page, `edit-resent-${other}`);
  await setAutoApprove(true);
  await view.locator(".auto-approve-editor").waitFor();
  await screenshot(page, `auto-approve-${other}`);
  await setAutoApprove(false);
  const errors = await (await fetch(`${fakeRoot}/_errors`)).json();
  if (errors?.length) fail(`the fake model's expectations failed:\n${errors.join("\n")}`);
}
