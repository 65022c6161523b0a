// E2E step: the Sandbox section of Settings (README "Security", docs/sandbox.md). It opens
// Settings, checks that the section reports the command sandbox as on (the machines this test
// runs on have it) with its three settings, and takes the section in the light and the dark
// theme; it leaves through History, so nothing is saved.
// Screenshots: NN-sandbox-settings-light.png, NN-sandbox-settings-dark.png.
//
// How e2e/run.mjs calls it (in window B's sequence, after skillsStep):
//
//   import { sandboxStep } from "./steps/sandbox.mjs";
//   …
//   await sandboxStep({ page, view, screenshot, poll, log, fail });

import { switchTheme } from "./chatui.mjs";

export async function sandboxStep({ page, view, screenshot, poll, log, fail }) {
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  await poll("the settings to load", () => settings.getByRole("button", { name: "Save" }).isEnabled(), 15_000);
  const group = settings.getByRole("group", { name: "Sandbox" });
  const status = group.getByRole("note", { name: "Sandbox status" });
  await status.waitFor({ timeout: 15_000 });
  const text = (await status.textContent()) ?? "";
  if (!text.startsWith("Sandbox on:")) fail(`the Sandbox section reads ${JSON.stringify(text)}, want the sandbox on`);
  for (const name of ["Run commands without the sandbox", "Let auto-approved commands use the network"]) {
    const box = group.getByRole("checkbox", { name });
    if (await box.isChecked()) fail(`"${name}" is on by default`);
  }
  await group.scrollIntoViewIfNeeded();
  await screenshot(page, "sandbox-settings-light");
  await switchTheme(page, /Default Dark Modern/, true);
  await view.locator("body.vscode-dark").waitFor({ timeout: 30_000 });
  await group.scrollIntoViewIfNeeded();
  await screenshot(page, "sandbox-settings-dark");
  await switchTheme(page, /Default Light Modern/, false);
  await view.locator("body.vscode-light").waitFor({ timeout: 30_000 });
  await view.getByRole("button", { name: "History", exact: true }).click();
  await view.getByRole("region", { name: "History" }).getByRole("button", { name: "Done" }).click();
  log(`sandbox step passed: ${text}`);
}
