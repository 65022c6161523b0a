import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { screen, within } from "@testing-library/react";
import { added, ask, AskKind, say, SayKind, snapshot } from "../test/fixtures";
import { renderApp } from "../test/renderApp";
import { pngSize, sessionEnd, sessionStart, steps } from "../util/browserSession";

/** png returns the first bytes of a PNG of the given size: enough for the header reader. */
function png(width: number, height: number, tag: number): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const v = new DataView(b.buffer);
  v.setUint32(16, width);
  v.setUint32(20, height);
  b[32] = tag;
  return b;
}

const url = "http://localhost:3000/";

function session() {
  return [
    say(0, SayKind.TASK, { text: "Check the page" }),
    say(1, SayKind.TEXT, { text: "Let me open the page." }),
    say(2, SayKind.BROWSER_ACTION_LAUNCH, { text: url, payload: { case: "browser", value: { action: "launch", url } } }),
    say(3, SayKind.BROWSER_ACTION_RESULT, { payload: { case: "browser", value: { screenshotPng: png(900, 600, 1), currentUrl: url } } }),
    say(4, SayKind.API_REQ_STARTED, { text: "" }),
    say(5, SayKind.TEXT, { text: "I'll press the button." }),
    say(6, SayKind.BROWSER_ACTION, { payload: { case: "browser", value: { action: "click", coordinate: "200,125" } } }),
    say(7, SayKind.BROWSER_ACTION_RESULT, {
      payload: { case: "browser", value: { screenshotPng: png(900, 600, 2), currentUrl: url + "done", logs: "[log] button clicked\n[error] Uncaught Error: boom", mousePosition: "200,125" } },
    }),
    say(8, SayKind.BROWSER_ACTION, { payload: { case: "browser", value: { action: "close" } } }),
    say(9, SayKind.TEXT, { text: "All done." }),
  ];
}

describe("browser session helpers", () => {
  it("groups launch to close, and nothing after", () => {
    const ms = session();
    expect(sessionEnd(ms, 2)).toBe(9);
    expect([1, 2, 3, 5, 8, 9].map((p) => sessionStart(ms, p))).toEqual([-1, -1, 2, 2, 2, -1]);
    const st = steps(ms.slice(2, 9));
    expect(st.map((s) => [s.action, s.detail, s.mouse])).toEqual([
      ["launch", url, ""],
      ["click", "200,125", "200,125"],
      ["close", "", ""],
    ]);
    expect(st[1].notes).toEqual(["I'll press the button."]);
    expect(pngSize(png(900, 600, 0))).toEqual({ width: 900, height: 600 });
  });

  it("ends a session at a row of another kind", () => {
    const ms = [...session().slice(0, 4), say(4, SayKind.ERROR, { text: "boom" }), say(5, SayKind.TEXT, { text: "after" })];
    expect(sessionEnd(ms, 2)).toBe(4);
    expect(sessionStart(ms, 5)).toBe(-1);
  });
});

describe("BrowserSession row", () => {
  it("shows one row with the latest screenshot, console lines, URL and mouse marker", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot(session()));
    const rows = screen.getAllByLabelText("Browser session");
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(within(row).getByText("Browser session (closed)")).toBeTruthy();
    expect(within(row).getByLabelText("Page URL").textContent).toBe(url + "done");
    const img = within(row).getByAltText("Browser screenshot") as HTMLImageElement;
    expect(img.src).toMatch(/^data:image\/png;base64,/);
    expect(atob(img.src.split(",")[1]).charCodeAt(32)).toBe(2); // the click's screenshot
    const marker = within(row).getByLabelText("Mouse at 200,125") as HTMLElement;
    expect(marker.style.left).toMatch(/^22\.22/);
    expect(marker.style.top).toMatch(/^20\.83/);
    const console = within(row).getByLabelText("Console output");
    expect(console.textContent).toContain("[log] button clicked");
    expect(within(console).getByText("[error] Uncaught Error: boom").className).toContain("console-error");
    // The model's words inside the session appear once, in the session; the one after it is a row of its own.
    expect(screen.getAllByText("I'll press the button.")).toHaveLength(1);
    expect(screen.getByText("All done.")).toBeTruthy();

    // Earlier steps, then enlarge.
    await user.click(within(row).getByLabelText("Previous step"));
    expect(within(row).getByText("Step 1 of 3: Launch")).toBeTruthy();
    expect(within(row).queryByLabelText(/Mouse at/)).toBeNull();
    expect(within(row).getByText("No new console output")).toBeTruthy();
    await user.click(within(row).getByLabelText("Enlarge screenshot"));
    const dialog = screen.getByRole("dialog", { name: "Enlarged screenshot" });
    expect(within(dialog).getByAltText("Browser screenshot")).toBeTruthy();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog", { name: "Enlarged screenshot" })).toBeNull();
  });

  it("asks with the URL, then grows as results arrive", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([say(0, SayKind.TASK, { text: "go" }), ask(1, AskKind.BROWSER_ACTION_LAUNCH, { text: url, payload: { case: "browser", value: { action: "launch", url } } })], {
        openAskIndex: 1,
      }),
    );
    const row = screen.getByLabelText("Browser session");
    expect(within(row).getByText("Cairn wants to open this page in the browser:")).toBeTruthy();
    expect(within(row).getByText(url)).toBeTruthy();
    expect(within(row).queryByAltText("Browser screenshot")).toBeNull();
    await push(added(say(2, SayKind.BROWSER_ACTION_RESULT, { payload: { case: "browser", value: { screenshotPng: png(900, 600, 7), currentUrl: url, logs: "[log] ready" } } })));
    expect(within(screen.getByLabelText("Browser session")).getByAltText("Browser screenshot")).toBeTruthy();
    expect(screen.getByLabelText("Console output").textContent).toContain("[log] ready");
  });
});

describe("the browser row says what happened", () => {
  it("counts one step per action, and each action selects its step", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot(session()));
    const row = screen.getByLabelText("Browser session");
    // Three actions: launch, click, close. The latest screenshot is the click's.
    expect(within(row).getByText("Step 2 of 3: Click")).toBeTruthy();
    await user.click(within(row).getByLabelText("Next step"));
    expect(within(row).getByText("Step 3 of 3: Close")).toBeTruthy();
    // The close left no screenshot: the page as the click left it, without the click's ring.
    expect(atob((within(row).getByAltText("Browser screenshot") as HTMLImageElement).src.split(",")[1]!).charCodeAt(32)).toBe(2);
    expect(within(row).queryByLabelText(/Mouse at/)).toBeNull();
    await user.click(within(row).getByRole("button", { name: /^Launch/ }));
    expect(within(row).getByText("Step 1 of 3: Launch")).toBeTruthy();
  });

  it("a click reads as a place on its screenshot, not as coordinates", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(snapshot(session()));
    const click = within(screen.getByLabelText("Browser session")).getByRole("button", { name: /^Click/ });
    expect(click.textContent).not.toMatch(/\d+,\d+/);
    expect(click.getAttribute("title")).toBe("200,125");
  });

  it("the ring leaves the clicked spot visible, and the enlarged view fits and closes", async () => {
    const { push, user } = await renderApp({ taskId: "t1" });
    await push(snapshot(session()));
    const css = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "styles.css"), "utf8");
    const rule = (sel: string) => {
      const i = css.indexOf(`${sel} {`);
      return i < 0 ? "" : css.slice(i, css.indexOf("}", i));
    };
    expect(rule(".mouse-marker")).toContain("background: transparent");
    expect(rule(".screenshot-overlay .screenshot-frame .screenshot")).toMatch(/max-width: 100%/);
    await user.click(screen.getByLabelText("Enlarge screenshot"));
    const dialog = screen.getByRole("dialog", { name: "Enlarged screenshot" });
    await user.click(within(dialog).getByRole("button", { name: "Close enlarged screenshot" }));
    expect(screen.queryByRole("dialog", { name: "Enlarged screenshot" })).toBeNull();
  });
});
