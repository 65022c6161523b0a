// The browser step of the E2E: the model drives browser_action (launch a page served on
// loopback — the browser opens only http(s) pages — click its button, close); the chat shows one browser session row with the
// screenshot, which enlarges on click; the model's next request carries the screenshot and
// the console line; no Chromium of the daemon is left running. Then web_fetch of the same page
// reaches the model as Markdown, converted by the cairn-helper the package holds.
//
// e2e/run.mjs calls it after the main task completed (step 11), before the UI screenshots:
//
//   import { browserStep } from "./steps/browser.mjs";
//   await browserStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail });
//
// page is the code-server page, view the Cairn webview's frame locator, input the chat box,
// workspace the opened folder, fakeRoot the fake model's root URL (without /v1), requests()
// its request log, and screenshot/poll/log/fail run.mjs's helpers.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const pageHTML = `<!doctype html>
<html><body style="margin:0;font-family:sans-serif;background:#fff">
<h1 style="margin:16px">Counter</h1>
<button id="b" style="position:absolute;left:100px;top:100px;width:200px;height:50px;font-size:18px"
  onclick="this.textContent='Clicked!'; document.body.style.background='#e6ffe6'; console.log('e2e button clicked')">Click me</button>
</body></html>
`;

/** daemonChromium counts Chromium processes started by the daemon (chromedp profiles). */
function daemonChromium() {
  let n = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--user-data-dir=") && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("chromedp-runner")) n++;
    } catch {
      // the process ended
    }
  }
  return n;
}

export async function browserStep({ page, view, input, workspace, fakeRoot, requests, screenshot, poll, log, fail }) {
  const file = path.join(workspace, "counter.html");
  fs.writeFileSync(file, pageHTML);
  // The page is served on loopback, as a dev server would serve it; its launch is asked under
  // the local-network category.
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/counter.html`;
  const before = daemonChromium();

  // 1. Switch the browser tool on in the settings view.
  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  const box = settings.getByRole("checkbox", { name: /Browser tool/ });
  if (!(await box.isChecked())) await box.click();
  await settings.getByRole("button", { name: "Test connection" }).click();
  await settings.getByText("Connected").waitFor({ timeout: 30_000 });
  await settings.getByRole("button", { name: "Save", exact: true }).click();
  await input.waitFor({ timeout: 30_000 });

  // 2. The model's script: launch, click, close, finish.
  const turns = [
    { text: `Let me look at the counter page.\n<browser_action>\n<action>launch</action>\n<url>${url}</url>\n</browser_action>` },
    { text: "I'll press the button.\n<browser_action>\n<action>click</action>\n<coordinate>200,125</coordinate>\n</browser_action>" },
    { text: "The button works. Closing the browser.\n<browser_action>\n<action>close</action>\n</browser_action>" },
    { text: "<attempt_completion>\n<result>The counter button logs when pressed.</result>\n</attempt_completion>" },
  ];
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify({ turns }) });
  if (!res.ok) fail(`the fake model refused the browser script: ${res.status}`);
  const first = (await requests()).length;

  // 3. A new task; approve the launch (its ask shows the URL).
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Check the counter page in the browser.");
  await input.press("Enter");
  const session = view.getByLabel("Browser session").first();
  await session.getByText(url).first().waitFor({ timeout: 30_000 });
  await screenshot(page, "browser-ask");
  await view.getByRole("button", { name: "Approve" }).first().click();

  // 4. The session row shows the click's screenshot with the mouse marked and the console line.
  await session.getByLabel("Mouse at 200,125").waitFor({ timeout: 60_000 });
  await session.getByText("[log] e2e button clicked").waitFor({ timeout: 30_000 });
  const shot = session.getByAltText("Browser screenshot").first();
  const size = await shot.evaluate((img) => ({ w: img.naturalWidth, h: img.naturalHeight }));
  if (size.w !== 900 || size.h !== 600) fail(`the screenshot in the chat is ${size.w}x${size.h}, want 900x600`);
  await screenshot(page, "browser-session");
  await session.getByRole("button", { name: "Enlarge screenshot" }).click();
  const big = view.getByRole("dialog", { name: "Enlarged screenshot" });
  await big.waitFor();
  await screenshot(page, "browser-enlarged");
  await page.keyboard.press("Escape");
  await big.waitFor({ state: "hidden" });

  // 5. The model saw the screenshot and the console line.
  const afterClick = await poll("the model's request after the click", async () => (await requests())[first + 2], 60_000);
  const last = afterClick.messages.filter((m) => m.role === "user").at(-1) ?? {};
  if (!String(last.text).includes("[log] e2e button clicked")) fail(`the console line did not reach the model:\n${last.text}`);
  if (!last.images?.length || !String(last.images[0]).startsWith("data:image/png;base64,")) fail("the screenshot did not reach the model");
  log(`the model's request after the click carries the console line and a ${last.images[0].length}-character screenshot`);

  // 6. The task finishes and no daemon Chromium is left.
  await view.getByText("The counter button logs when pressed.").first().waitFor({ timeout: 60_000 });
  await session.getByText("Browser session (closed)").waitFor({ timeout: 30_000 });
  await poll("the daemon's Chromium to exit", () => daemonChromium() <= before, 15_000);

  // 7. web_fetch of the same page: the installed daemon converts its HTML to Markdown through
  //    the cairn-helper packaged beside it (core/helper), and the model reads the heading.
  const fetchTurns = [
    { text: `Reading the page as text.\n<web_fetch>\n<url>${url}</url>\n</web_fetch>` },
    { text: "<attempt_completion>\n<result>The page is titled Counter.</result>\n</attempt_completion>" },
  ];
  const res2 = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify({ turns: fetchTurns }) });
  if (!res2.ok) fail(`the fake model refused the web_fetch script: ${res2.status}`);
  const beforeFetch = (await requests()).length;
  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Read the counter page as text.");
  await input.press("Enter");
  // A loopback page asks first, unless the settings auto-approve it.
  const approve = view.getByRole("button", { name: "Approve" }).first();
  const afterFetch = await poll("the model's request after web_fetch", async () => {
    if (await approve.isVisible()) await approve.click();
    return (await requests())[beforeFetch + 1];
  }, 60_000);
  const fetched = String(afterFetch.messages.filter((m) => m.role === "user").at(-1)?.text ?? "");
  if (!fetched.includes("# Counter") || !fetched.includes("Click me")) fail(`the page did not reach the model as Markdown:\n${fetched}`);
  await view.getByText("The page is titled Counter.").first().waitFor({ timeout: 60_000 });
  await screenshot(page, "web-fetch-markdown");
  log("web_fetch: the page reached the model as Markdown (converted by cairn-helper)");
  server.close();
  log("browser step passed");
}
