// The background-commands step of the E2E (README, "Commands that keep running"): the model starts two dev servers with
// background from the chat; the next request's environment details list them; their rows show
// them running with a Stop button; the user stops the first with it (its port closes); when
// the model presents its result, the second, which runs in VS Code's terminal, is left to the
// user: the chat says so and the server still answers.
//
// e2e/run.mjs calls it at the end of window B's sequence:
//
//   import { backgroundStep } from "./steps/background.mjs";
//   await backgroundStep({ page, view, input, fakeRoot, requests, screenshot, poll, log, fail });
//
// The arguments are those of the other steps (see steps/browser.mjs). Every wait is on a
// state, never a fixed sleep.

import net from "node:net";

/** freePort asks the system for a port nothing listens on. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** answers reports whether something accepts connections on port. */
function answers(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, "127.0.0.1");
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
  });
}

const server = (port) => `python3 -m http.server ${port} --bind 127.0.0.1`;
const start = (port, why) =>
  `${why}\n\n<execute_command>\n<command>${server(port)}</command>\n<requires_approval>false</requires_approval>\n<background>true</background>\n</execute_command>`;

export async function backgroundStep({ page, view, input, fakeRoot, requests, screenshot, poll, log, fail }) {
  const [p1, p2] = [await freePort(), await freePort()];
  const script = {
    turns: [
      { text: start(p1, "I will start the docs server in the background.") },
      {
        text: start(p2, "Now the API mock, also in the background."),
        expect: { last_user_contains: ["running in the background as command 1", "# Actively Running Terminals", `## Command 1: \`${server(p1)}\``, "Running for"] },
      },
      {
        text: "<ask_followup_question>\n<question>Both servers are up. Shall I leave them running?</question>\n</ask_followup_question>",
        expect: { last_user_contains: ["running in the background as command 2", `## Command 2: \`${server(p2)}\``] },
      },
      { text: "<attempt_completion>\n<result>The servers were started for you.</result>\n</attempt_completion>" },
    ],
  };
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the background script: ${res.status}`);
  const first = (await requests()).length;

  await view.getByRole("button", { name: "New Task", exact: true }).click();
  await input.fill("Start the dev servers.");
  await input.press("Enter");

  // The commands are asked about unless commands are auto-approved.
  const approve = view.getByRole("button", { name: /Run Command|Approve/ }).first();
  await poll(
    "both servers to be running in the background (approving them if asked)",
    async () => {
      if (await approve.isVisible().catch(() => false)) await approve.click().catch(() => undefined);
      return (await view.getByText(/Running in the background \(command 2\)/).count()) > 0;
    },
    60_000,
    200,
  );
  await view.getByText("Both servers are up. Shall I leave them running?").first().waitFor({ timeout: 30_000 });
  if (!(await answers(p1)) || !(await answers(p2))) fail("a server started in the background does not answer");

  // The request after the first start listed it in the environment details.
  const reqs = await requests();
  const second = reqs[first + 1]?.messages.filter((m) => m.role === "user").at(-1)?.text ?? "";
  const entry = second.slice(second.indexOf("# Actively Running Terminals")).split("\n").slice(0, 4).join("\n");
  if (!entry.includes(`## Command 1: \`${server(p1)}\``)) fail(`the environment details lack the running server:\n${second}`);
  log(`environment details of the next request:\n${entry}`);

  const row1 = view.locator(".command-output").filter({ hasText: "Running in the background (command 1)" }).first();
  await row1.scrollIntoViewIfNeeded();
  await screenshot(page, "background-running");

  // Stop on the first row stops that server.
  await row1.getByRole("button", { name: /Stop/ }).click();
  await view.getByText(`Stopped command 1 at the user's request: ${server(p1)}`).first().waitFor({ timeout: 30_000 });
  await poll("the first server's port to close", async () => !(await answers(p1)), 15_000);
  if (!(await answers(p2))) fail("stopping command 1 stopped command 2 too");
  await screenshot(page, "background-stopped");
  log(`Stop on command 1's row closed port ${p1}`);

  // The task ends: the second server, in VS Code's terminal, is left to the user.
  await input.fill("Yes, thanks.");
  await input.press("Enter");
  // The list was scrolled up to press Stop: the user's own answer brings the end into view and
  // the chat follows the task to its result, without "Jump to latest".
  await view.getByText("The servers were started for you.").first().waitFor({ timeout: 30_000 });
  if (await view.getByRole("button", { name: /Jump to latest/ }).isVisible().catch(() => false)) fail("the chat stayed scrolled up after the user's answer");
  const note = view.getByText(/Command 2 runs on in the editor's terminal, which is yours now/).first();
  const stoppedNote = view.getByText(/Stopped command 2 as the task completed/).first();
  await poll("the note about command 2 at the task's end", async () => (await note.count()) > 0 || (await stoppedNote.count()) > 0, 30_000);
  if ((await stoppedNote.count()) > 0) fail("command 2 ran out of sight (no shell integration) and was stopped instead of left to the user");
  await note.scrollIntoViewIfNeeded();
  if (!(await answers(p2))) fail("the server left to the user no longer answers");
  await screenshot(page, "background-left-to-user");
  const errors = await (await fetch(`${fakeRoot}/_errors`)).json();
  if (errors?.length) fail(`the fake model's expectations failed:\n${errors.join("\n")}`);
  log(`background step passed: port ${p2} still served in the user's terminal`);
}
