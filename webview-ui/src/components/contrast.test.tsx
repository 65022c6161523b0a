// Text contrast of the chat's status rows in VS Code's two default themes. jsdom
// has no layout, so axe cannot judge colour here (the code-server E2E does, e2e/steps/chatui.mjs);
// instead the shipped stylesheet is loaded, every text element's colour and background are taken
// from the cascade, their var() references resolved with the theme's values, and the WCAG ratio
// computed. A status colour (the green of a completed task, the amber of a warning, the red of an
// error) used as text falls under the 4.5:1 minimum on the light theme's sidebar.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation, ToolOutcome } from "@cairn/proto/gen/cairn/v1/message_pb";
import { ask, AskKind, say, SayKind, snapshot } from "../test/fixtures";
import { renderApp } from "../test/renderApp";

const css = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "styles.css"), "utf8");

type Palette = Record<string, string>;

// The values code-server 4.100 (VS Code 1.100) gives the colour variables styles.css uses, in its
// two default themes, read from its workbench; "" is a variable the theme leaves unset, so the
// stylesheet's fallback applies. A variable missing here fails the test: a new colour in
// styles.css gets its values added.
const themes: Record<string, Palette> = {
  "Default Light Modern": {
    "badge-background": "#cccccc",
    "badge-foreground": "#3b3b3b",
    "button-background": "#005fb8",
    "button-border": "rgba(0, 0, 0, 0.1)",
    "button-foreground": "#ffffff",
    "button-hoverBackground": "#0258a8",
    "button-secondaryBackground": "#e5e5e5",
    "button-secondaryForeground": "#3b3b3b",
    "button-secondaryHoverBackground": "#cccccc",
    "charts-green": "#388a34",
    "charts-yellow": "#bf8803",
    contrastActiveBorder: "",
    contrastBorder: "",
    "debugTokenExpression-name": "#9b46b0",
    "debugTokenExpression-number": "#098658",
    "debugTokenExpression-string": "#a31515",
    descriptionForeground: "#3b3b3b",
    "diffEditor-insertedLineBackground": "rgba(155, 185, 85, 0.2)",
    "diffEditor-insertedTextBackground": "rgba(156, 204, 44, 0.25)",
    "diffEditor-removedLineBackground": "rgba(255, 0, 0, 0.2)",
    "diffEditor-removedTextBackground": "rgba(255, 0, 0, 0.2)",
    "dropdown-background": "#ffffff",
    "dropdown-border": "#cecece",
    "dropdown-foreground": "#3b3b3b",
    "editor-background": "#ffffff",
    "editorGroupHeader-tabsBackground": "#f8f8f8",
    "editorWarning-foreground": "#bf8803",
    "editorWidget-background": "#f8f8f8",
    "editorWidget-border": "#c8c8c8",
    errorForeground: "#f85149",
    focusBorder: "#005fb8",
    foreground: "#3b3b3b",
    "gitDecoration-addedResourceForeground": "",
    "gitDecoration-deletedResourceForeground": "",
    "icon-foreground": "#3b3b3b",
    "input-background": "#ffffff",
    "input-border": "#cecece",
    "input-foreground": "#3b3b3b",
    "input-placeholderForeground": "#767676",
    "inputValidation-errorBackground": "#f2dede",
    "inputValidation-errorBorder": "#be1100",
    "inputValidation-infoBackground": "#d6ecf2",
    "inputValidation-infoBorder": "#007acc",
    "inputValidation-warningBackground": "#f6f5d2",
    "inputValidation-warningBorder": "#b89500",
    "list-activeSelectionBackground": "#e8e8e8",
    "list-activeSelectionForeground": "#000000",
    "list-hoverBackground": "#f2f2f2",
    "panel-border": "#e5e5e5",
    "progressBar-background": "#005fb8",
    "quickInput-background": "#f8f8f8",
    "quickInput-foreground": "#3b3b3b",
    "quickInputList-focusBackground": "#e8e8e8",
    "quickInputList-focusForeground": "#000000",
    "sideBar-background": "#f8f8f8",
    "symbolIcon-classForeground": "#d67e00",
    "symbolIcon-functionForeground": "#652d90",
    "symbolIcon-variableForeground": "#007acc",
    "terminal-background": "",
    "terminal-foreground": "#3b3b3b",
    "testing-iconPassed": "#73c991",
    "textCodeBlock-background": "#f8f8f8",
    "textLink-activeForeground": "#005fb8",
    "textLink-foreground": "#005fb8",
    "toolbar-hoverBackground": "rgba(184, 184, 184, 0.31)",
    "widget-border": "#e5e5e5",
    "widget-shadow": "rgba(0, 0, 0, 0.16)",
  },
  "Default Dark Modern": {
    "badge-background": "#616161",
    "badge-foreground": "#f8f8f8",
    "button-background": "#0078d4",
    "button-border": "rgba(255, 255, 255, 0.07)",
    "button-foreground": "#ffffff",
    "button-hoverBackground": "#026ec1",
    "button-secondaryBackground": "#313131",
    "button-secondaryForeground": "#cccccc",
    "button-secondaryHoverBackground": "#3c3c3c",
    "charts-green": "#89d185",
    "charts-yellow": "#cca700",
    contrastActiveBorder: "",
    contrastBorder: "",
    "debugTokenExpression-name": "#c586c0",
    "debugTokenExpression-number": "#b5cea8",
    "debugTokenExpression-string": "#ce9178",
    descriptionForeground: "#9d9d9d",
    "diffEditor-insertedLineBackground": "rgba(155, 185, 85, 0.2)",
    "diffEditor-insertedTextBackground": "rgba(156, 204, 44, 0.2)",
    "diffEditor-removedLineBackground": "rgba(255, 0, 0, 0.2)",
    "diffEditor-removedTextBackground": "rgba(255, 0, 0, 0.2)",
    "dropdown-background": "#313131",
    "dropdown-border": "#3c3c3c",
    "dropdown-foreground": "#cccccc",
    "editor-background": "#1f1f1f",
    "editorGroupHeader-tabsBackground": "#181818",
    "editorWarning-foreground": "#cca700",
    "editorWidget-background": "#202020",
    "editorWidget-border": "#454545",
    errorForeground: "#f85149",
    focusBorder: "#0078d4",
    foreground: "#cccccc",
    "gitDecoration-addedResourceForeground": "",
    "gitDecoration-deletedResourceForeground": "",
    "icon-foreground": "#cccccc",
    "input-background": "#313131",
    "input-border": "#3c3c3c",
    "input-foreground": "#cccccc",
    "input-placeholderForeground": "#989898",
    "inputValidation-errorBackground": "#5a1d1d",
    "inputValidation-errorBorder": "#be1100",
    "inputValidation-infoBackground": "#063b49",
    "inputValidation-infoBorder": "#007acc",
    "inputValidation-warningBackground": "#352a05",
    "inputValidation-warningBorder": "#b89500",
    "list-activeSelectionBackground": "#04395e",
    "list-activeSelectionForeground": "#ffffff",
    "list-hoverBackground": "#2a2d2e",
    "panel-border": "#2b2b2b",
    "progressBar-background": "#0078d4",
    "quickInput-background": "#222222",
    "quickInput-foreground": "#cccccc",
    "quickInputList-focusBackground": "#04395e",
    "quickInputList-focusForeground": "#ffffff",
    "sideBar-background": "#181818",
    "symbolIcon-classForeground": "#ee9d28",
    "symbolIcon-functionForeground": "#b180d7",
    "symbolIcon-variableForeground": "#75beff",
    "terminal-background": "",
    "terminal-foreground": "#cccccc",
    "testing-iconPassed": "#73c991",
    "textCodeBlock-background": "#2b2b2b",
    "textLink-activeForeground": "#4daafc",
    "textLink-foreground": "#4daafc",
    "toolbar-hoverBackground": "rgba(90, 93, 94, 0.31)",
    "widget-border": "#313131",
    "widget-shadow": "rgba(0, 0, 0, 0.36)",
  },
};

/** resolve replaces every var(--vscode-x[, fallback]) in v by the palette's value or the fallback. */
function resolve(v: string, p: Palette): string {
  for (;;) {
    const i = v.indexOf("var(");
    if (i < 0) return v.trim();
    let depth = 0;
    let end = i + 3;
    for (; end < v.length; end++) {
      if (v[end] === "(") depth++;
      else if (v[end] === ")" && --depth === 0) break;
    }
    const inner = v.slice(i + 4, end);
    const comma = inner.indexOf(",");
    const name = (comma < 0 ? inner : inner.slice(0, comma)).trim();
    const fallback = comma < 0 ? undefined : inner.slice(comma + 1);
    // jsdom lowers the case of custom property names in computed values.
    const key = name.replace(/^--vscode-/, "").toLowerCase();
    const found = Object.keys(p).find((k) => k.toLowerCase() === key);
    if (name.startsWith("--vscode-") && found === undefined) throw new Error(`no value for ${name}: add it to the test's palettes`);
    // Cairn's own variables are borders and radii, never a text or background colour.
    let value: string | undefined = found ? p[found] || undefined : name.startsWith("--cairn-") ? "transparent" : undefined;
    if (value === undefined) value = fallback;
    if (value === undefined) throw new Error(`${name} is unset and has no fallback`);
    v = v.slice(0, i) + value + v.slice(end + 1);
  }
}

type RGBA = [number, number, number, number];

function parseColor(c: string): RGBA | undefined {
  c = c.trim().toLowerCase();
  if (c === "transparent" || c === "") return undefined;
  let m = /^#([0-9a-f]{3,8})$/.exec(c);
  if (m) {
    let h = m[1];
    if (h.length <= 4) h = [...h].map((x) => x + x).join("");
    const n = (k: number) => parseInt(h.slice(k, k + 2), 16);
    return [n(0), n(2), n(4), h.length === 8 ? n(6) / 255 : 1];
  }
  m = /^rgba?\(([^)]+)\)$/.exec(c);
  if (m) {
    const [r, g, b, a] = m[1].split(/[\s,/]+/).map(Number);
    return [r, g, b, Number.isNaN(a) || a === undefined ? 1 : a];
  }
  // A named colour is only ever a last-resort fallback behind a variable the palettes define.
  throw new Error(`unexpected colour ${c}`);
}

/** over lays colour c at opacity alpha over an opaque background. */
function over(c: RGBA, alpha: number, bg: RGBA): RGBA {
  const a = c[3] * alpha;
  return [0, 1, 2].map((k) => c[k] * a + bg[k] * (1 - a)).concat(1) as RGBA;
}

function luminance([r, g, b]: RGBA): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function ratio(a: RGBA, b: RGBA): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** background is the opaque colour behind el: its ancestors' backgrounds laid over the body's. */
function background(el: Element, p: Palette): RGBA {
  const layers: RGBA[] = [];
  for (let e: Element | null = el; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    // jsdom leaves a shorthand with var() in "background" and reports background-color empty.
    const raw = [s.getPropertyValue("background-color"), s.getPropertyValue("background")].find((v) => v.includes("var(")) ?? s.getPropertyValue("background-color");
    const colour = /#[0-9a-f]{3,8}\b|rgba?\([^)]*\)|transparent/i.exec(raw ? resolve(raw, p) : "");
    const c = colour ? parseColor(colour[0]) : undefined;
    if (c) {
      layers.push(c);
      if (c[3] === 1) break;
    }
  }
  let bg: RGBA = parseColor(p["sideBar-background"])!;
  for (const c of layers.reverse()) bg = c[3] === 1 ? c : over(c, 1, bg);
  return bg;
}

function opacity(el: Element): number {
  let o = 1;
  for (let e: Element | null = el; e; e = e.parentElement) {
    const v = parseFloat(getComputedStyle(e).getPropertyValue("opacity"));
    if (!Number.isNaN(v)) o *= v;
  }
  return o;
}

/** lowContrast lists the text elements under root whose text falls under the WCAG AA minimum. */
function lowContrast(root: Element, p: Palette): string[] {
  const found: string[] = [];
  for (const el of root.querySelectorAll("*")) {
    const text = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? "").join("").trim();
    if (!text || el.closest("[hidden], [aria-hidden='true']")) continue;
    const s = getComputedStyle(el);
    const fg = parseColor(resolve(s.getPropertyValue("color") || "var(--vscode-foreground)", p));
    if (!fg) continue;
    const bg = background(el, p);
    const r = ratio(over(fg, opacity(el), bg), bg);
    // Normal-size text (the chat's 11–13px, bold or not) needs 4.5:1.
    if (r < 4.5) found.push(`"${text.slice(0, 40)}" (${el.className || el.tagName.toLowerCase()}): ${r.toFixed(2)}:1`);
  }
  return found;
}

/** pngHeader is the start of a PNG of 320×200: enough for the browser row to size its screenshot. */
function pngHeader(): Uint8Array {
  const b = new Uint8Array(24);
  b.set([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82]);
  new DataView(b.buffer).setUint32(16, 320);
  new DataView(b.buffer).setUint32(20, 200);
  return b;
}

// Every row that has a status tone: the completion, errors, warnings, edit outcomes, a retry, the
// subagents' statuses, a browser console error and the header's limits at their end.
const rows = [
  say(0, SayKind.TASK, { text: "Tidy the changelog" }),
  say(1, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.EDITED_EXISTING_FILE, path: "CHANGELOG.md", outcome: ToolOutcome.SAVED, diff: "-a\n+b" } } }),
  say(2, SayKind.TOOL, { payload: { case: "tool", value: { operation: ToolOperation.NEW_FILE_CREATED, path: "NOTES.md", outcome: ToolOutcome.FAILED } } }),
  say(3, SayKind.ERROR, { text: "The file could not be read." }),
  say(4, SayKind.DIFF_ERROR, { text: "The search block matched nothing." }),
  say(5, SayKind.SHELL_INTEGRATION_WARNING, { text: "" }),
  say(6, SayKind.ERROR_RETRY, { text: "rate limited" }),
  say(7, SayKind.SUBAGENTS, {
    text: JSON.stringify({
      children: [
        { prompt: "Read api.go", status: "done", requests: 2, cost: 0.002 },
        { prompt: "Read db.go", status: "failed", requests: 1, cost: 0.001, error: "it was cancelled" },
      ],
    }),
  }),
  say(8, SayKind.BROWSER_ACTION_LAUNCH, { text: "http://localhost:3000/", payload: { case: "browser", value: { action: "launch", url: "http://localhost:3000/" } } }),
  say(9, SayKind.BROWSER_ACTION_RESULT, { payload: { case: "browser", value: { screenshotPng: pngHeader(), currentUrl: "http://localhost:3000/", logs: "[error] Uncaught Error: boom" } } }),
  say(10, SayKind.BROWSER_ACTION, { payload: { case: "browser", value: { action: "close" } } }),
  say(11, SayKind.COMPLETION_RESULT, { payload: { case: "completion", value: { result: "The changelog is tidy." } } }),
  ask(12, AskKind.TASK_LIMIT_REACHED, { text: "This task has cost $0.0800, at or over its limit of $0.08." }),
];

describe("text contrast in the default themes", () => {
  let style: HTMLStyleElement;
  beforeAll(() => {
    style = document.createElement("style");
    style.textContent = css;
    document.head.appendChild(style);
  });
  afterAll(() => style.remove());

  for (const [theme, palette] of Object.entries(themes)) {
    it(`${theme}: every status row's text reaches 4.5:1`, async () => {
      const { push, container } = await renderApp({ taskId: "t1" });
      await push(
        snapshot(rows, {
          status: TaskStatus.WAITING,
          openAskIndex: 12,
          requests: 2,
          cost: 0.08,
          limits: { maxRequests: 0, maxCost: 0.08 },
          pricesKnown: true,
        }),
      );
      // The rows under test are all there, with the tone each one carries.
      for (const t of ["Task Completed", "Error", "Cairn edited this file", "The edit could not be applied", "Subagents: 2 finished"]) {
        expect(container.textContent).toContain(t);
      }
      expect(container.querySelector(".row-header.success")).not.toBeNull();
      expect(container.querySelector(".row-header.error")).not.toBeNull();
      expect(container.querySelector(".row-header.warn")).not.toBeNull();
      expect(container.querySelector(".console-error")).not.toBeNull();
      expect(container.querySelector(".task-limits.at-limit")).not.toBeNull();
      expect(lowContrast(container, palette)).toEqual([]);
    });
  }

  it("the completed task's title is in the foreground colour; the green marks its icon", async () => {
    const { push, container } = await renderApp({ taskId: "t1" });
    await push(snapshot([rows[0], rows[11]], { status: TaskStatus.COMPLETED }));
    const header = container.querySelector(".completion-row .row-header")!;
    const title = header.querySelector(".row-title")!;
    expect(title.textContent).toBe("Task Completed");
    const light = themes["Default Light Modern"];
    expect(resolve(getComputedStyle(title).getPropertyValue("color"), light)).toBe(light.foreground);
    expect(resolve(getComputedStyle(header.querySelector(".codicon")!).getPropertyValue("color"), light)).toBe(light["charts-green"]);
  });

  it("the checker itself: green on the light sidebar is under 4.5:1, the foreground is over it", () => {
    const p = themes["Default Light Modern"];
    const bg = parseColor(p["sideBar-background"])!;
    expect(ratio(parseColor(p["charts-green"])!, bg)).toBeLessThan(4.5);
    expect(ratio(parseColor(p.errorForeground)!, bg)).toBeLessThan(4.5);
    expect(ratio(parseColor(p.foreground)!, bg)).toBeGreaterThan(4.5);
    // An unset variable takes its fallback; one the palettes do not know stops the test.
    expect(resolve("var(--vscode-terminal-background, var(--vscode-charts-green))", p)).toBe("#388a34");
    expect(() => resolve("var(--vscode-nope, red)", p)).toThrow(/add it to the test's palettes/);
  });
});
