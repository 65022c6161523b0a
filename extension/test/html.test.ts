import { describe, expect, it } from "vitest";
import { makeNonce, webviewHtml } from "../src/webview/html";

describe("webviewHtml", () => {
  it("loads the bundle under a strict CSP with a nonce", () => {
    const html = webviewHtml({ cspSource: "https://csp.example", scriptUri: "https://csp.example/assets/index.js", styleUri: "https://csp.example/assets/index.css", nonce: "N0nce" });
    const csp = /content="([^"]+)"/.exec(html)![1];
    expect(csp.split("; ")).toEqual([
      "default-src 'none'",
      "script-src 'nonce-N0nce' https://csp.example",
      "style-src https://csp.example 'unsafe-inline'",
      "img-src https://csp.example data: https:",
      "font-src https://csp.example",
    ]);
    expect(html).toContain('<script type="module" nonce="N0nce" src="https://csp.example/assets/index.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="https://csp.example/assets/index.css">');
  });
  it("makes alphanumeric nonces", () => {
    expect(makeNonce(() => Buffer.from([250, 251, 252, 253, 254, 255, 1, 2, 3]))).toMatch(/^[A-Za-z0-9]+$/);
  });
});
