// PNG screenshots of the webview in VS Code's Light+ and Dark+ colours, from the harness:
// chat with a diff row and an approval, a command row with output, the @ menu, history,
// settings, welcome, and an orchestrator's subtasks in the strip. Output: <repo>/test-results/webview/<scene>-<theme>.png
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { serve, launch, waitReady } from "./lib.mjs";

const out = join(import.meta.dirname, "..", "..", "test-results", "webview");
await mkdir(out, { recursive: true });
const server = await serve();
const browser = await launch();
const errors = [];
try {
  for (const theme of ["light", "dark"]) {
    for (const scene of ["chat", "command", "atmenu", "history", "settings", "welcome", "subtasks"]) {
      const page = await browser.context.newPage();
      page.on("pageerror", (e) => errors.push(`${scene}/${theme}: ${e}`));
      page.on("console", (m) => m.type() === "error" && !m.location()?.url?.endsWith("favicon.ico") && errors.push(`${scene}/${theme}: ${m.text()} ${m.location()?.url ?? ""}`));
      await page.goto(`${server.url}?scene=${scene}&theme=${theme}`);
      await waitReady(page, errors);
      if (scene === "chat") await page.getByRole("button", { name: "Save" }).waitFor();
      if (scene === "command") await page.getByRole("button", { name: "Proceed While Running" }).waitFor();
      if (scene === "atmenu") {
        const box = page.getByRole("textbox", { name: "Message Cairn" });
        await box.click();
        await box.pressSequentially("Refactor @src");
        await page.getByRole("option", { name: /ChatInput\.tsx/ }).waitFor();
        await page.keyboard.press("ArrowDown");
      }
      if (scene === "history") await page.getByRole("button", { name: /Open task: Fix the flaky/ }).waitFor();
      if (scene === "settings") await page.getByRole("checkbox", { name: /style\.md/ }).waitFor();
      if (scene === "subtasks") await page.getByRole("button", { name: /^Review the taxRate change/ }).waitFor();
      if (scene === "welcome") await page.getByRole("region", { name: "Welcome" }).waitFor();
      await page.evaluate(() => document.fonts.ready);
      await page.waitForTimeout(150); // let the list settle its measured heights
      const file = join(out, `${scene}-${theme}.png`);
      await page.screenshot({ path: file });
      console.log(file);
      await page.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
if (errors.length) {
  console.log("page errors:\n" + errors.join("\n"));
  process.exit(1);
}
