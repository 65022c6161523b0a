import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { Markdown, splitBlocks, splitThinking } from "./Markdown";

describe("markdown", () => {
  it("splits blocks at blank lines, never inside code fences or indented list continuations", () => {
    const text = "# Title\n\npara one\nstill one\n\n```ts\nconst a = 1\n\nconst b = 2\n```\n\n- item\n\n  continued\n\nlast";
    expect(splitBlocks(text)).toEqual(["# Title\n", "para one\nstill one\n", "```ts\nconst a = 1\n\nconst b = 2\n```\n", "- item\n\n  continued\n", "last"]);
  });

  it("streaming render equals the final render for the same text", () => {
    const text = "Intro **bold**\n\n```go\nfunc f() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nend";
    const a = render(<Markdown text={text} streaming />);
    const norm = (s: string | null) => (s ?? "").replace(/\s+/g, "");
    const streamed = norm(a.container.textContent);
    a.unmount();
    const b = render(<Markdown text={text} />);
    expect(norm(b.container.textContent)).toBe(streamed);
    expect(b.container.querySelector("table")).toBeTruthy();
  });

  it("folds <thinking>, also while it is still open", () => {
    expect(splitThinking("<thinking>plan</thinking>Answer")).toEqual([
      { thinking: true, text: "plan" },
      { thinking: false, text: "Answer" },
    ]);
    expect(splitThinking("Hi <thinking>still typing")).toEqual([
      { thinking: false, text: "Hi " },
      { thinking: true, text: "still typing" },
    ]);
    render(<Markdown text={"<thinking>hidden</thinking>shown"} />);
    expect(screen.queryByText("hidden")).toBeNull();
    expect(screen.getByRole("button", { name: "Thinking" }).getAttribute("aria-expanded")).toBe("false");
  });

  it("highlights code and adds a copy button; mermaid is not rendered while streaming", () => {
    const { container } = render(<Markdown text={"```ts\nconst x: number = 1\n```\n\n```mermaid\ngraph TD; A-->B\n```"} streaming />);
    expect(container.querySelector(".hljs-keyword")?.textContent).toBe("const");
    expect(screen.getAllByRole("button", { name: "Copy code" })).toHaveLength(2);
    expect(container.querySelector(".mermaid")).toBeNull();
  });
});
