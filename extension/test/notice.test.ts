import { describe, expect, it } from "vitest";
import { shouldNotify, type NoticeKind, type NoticeSetting } from "../src/webview/notice";

describe("background task notifications", () => {
  const cases: [NoticeSetting, NoticeKind, boolean][] = [
    ["all", "waiting", true],
    ["all", "done", true],
    ["all", "failed", true],
    ["waiting", "waiting", true],
    ["waiting", "done", false],
    ["waiting", "failed", false],
    ["off", "waiting", false],
    ["off", "failed", false],
  ];
  for (const [setting, kind, want] of cases) {
    it(`${setting}: ${kind} ${want ? "notifies" : "stays quiet"}`, () => expect(shouldNotify(setting, kind)).toBe(want));
  }
});
