import { describe, expect, it } from "vitest";
import { BottomFollower, type ScrollGeometry } from "./followBottom";

// Each case is a sequence of scroll positions; the follower's answer after the last one.
const cases: { name: string; steps: ScrollGeometry[]; following: boolean }[] = [
  { name: "at the bottom", steps: [{ scrollTop: 600, scrollHeight: 1000, clientHeight: 400 }], following: true },
  {
    name: "the last row grew below the viewport",
    steps: [
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 600, scrollHeight: 1400, clientHeight: 400 },
    ],
    following: true,
  },
  {
    name: "the viewport shrank (ask buttons appeared)",
    steps: [
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 300 },
    ],
    following: true,
  },
  {
    name: "the user scrolled up",
    steps: [
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 300, scrollHeight: 1000, clientHeight: 400 },
    ],
    following: false,
  },
  {
    name: "scrolled up, then content grew",
    steps: [
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 300, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 300, scrollHeight: 1500, clientHeight: 400 },
    ],
    following: false,
  },
  {
    name: "scrolled up, then back to the bottom",
    steps: [
      { scrollTop: 600, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 300, scrollHeight: 1000, clientHeight: 400 },
      { scrollTop: 590, scrollHeight: 1000, clientHeight: 400 },
    ],
    following: true,
  },
];

describe("BottomFollower", () => {
  for (const c of cases) {
    it(c.name, () => {
      const f = new BottomFollower();
      let got = true;
      for (const s of c.steps) got = f.onScroll(s);
      expect(got).toBe(c.following);
    });
  }

  it("jump follows again after the user scrolled up", () => {
    const f = new BottomFollower();
    f.onScroll({ scrollTop: 600, scrollHeight: 1000, clientHeight: 400 });
    f.onScroll({ scrollTop: 100, scrollHeight: 1000, clientHeight: 400 });
    expect(f.following).toBe(false);
    f.jump();
    expect(f.following).toBe(true);
  });
});
