import { describe, expect, it } from "vitest";
import { Profiler } from "react";
import { act, render, screen } from "@testing-library/react";
import { TaskStore } from "./taskStore";
import { MessageRow } from "../components/MessageRow";
import { added, appended, finalized, say, SayKind, snapshot, stateChanged, updated } from "../test/fixtures";

/** A store whose coalesced notifications run only when the test calls flush(). */
function manualStore(): TaskStore {
  return new TaskStore(() => {});
}

describe("TaskStore", () => {
  it("applies a snapshot with a first index and the header state", () => {
    const s = manualStore();
    s.apply(snapshot([say(10, SayKind.TEXT, { text: "a" }), say(11, SayKind.TEXT, { text: "b" })], { title: "T", cost: 0.5 }, 10));
    expect(s.count).toBe(2);
    expect(s.firstIndex).toBe(10);
    expect(s.messageAt(11)?.text).toBe("b");
    expect(s.state?.title).toBe("T");
    expect(s.state?.cost).toBe(0.5);
  });

  it("appends text in place without copying the list or the message", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TASK, { text: "task" }), say(1, SayKind.TEXT, { text: "Hel", partial: true })]));
    const list = s.messages;
    const msg = s.messages[1];
    const before = s.rowVersion(1);
    const other = s.rowVersion(0);
    s.apply(appended(1, "lo"));
    s.apply(appended(1, ", world"));
    expect(s.messages).toBe(list);
    expect(s.messages[1]).toBe(msg);
    expect(msg?.text).toBe("Hello, world");
    expect(s.rowVersion(1)).toBeGreaterThan(before);
    expect(s.rowVersion(0)).toBe(other);
  });

  it("shows a delta at once, holds the rest of the frame's, and notifies structural changes at once", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "", partial: true })]));
    let row = 0;
    let list = 0;
    s.subscribeRow(0, () => row++);
    s.subscribeList(() => list++);
    for (let i = 0; i < 100; i++) s.apply(appended(0, "x"));
    expect(row).toBe(1);
    s.flush();
    expect(row).toBe(2);
    s.apply(added(say(1, SayKind.TEXT, { text: "next" })));
    expect(list).toBe(1);
    s.apply(updated(say(0, SayKind.TEXT, { text: "final", partial: false })));
    expect(row).toBe(3);
    expect(s.messages[0]?.text).toBe("final");
    expect(s.messages[0]?.partial).toBe(false);
  });

  it("paces text by frames: a delta at once, a burst once a frame, at once again when it slows", () => {
    const frames: Array<() => void> = [];
    const s = new TaskStore((run) => frames.push(run));
    const nextFrame = () => frames.splice(0).forEach((run) => run());
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "", partial: true })]));
    const seen: string[] = [];
    s.subscribeRow(0, () => seen.push(s.messages[0]!.text));

    s.apply(appended(0, "a"));
    expect(seen).toEqual(["a"]);
    s.apply(appended(0, "b"));
    s.apply(appended(0, "c"));
    expect(seen).toEqual(["a"]);
    nextFrame();
    expect(seen).toEqual(["a", "abc"]);
    // A burst that goes on: one notification per frame, none in between.
    for (let f = 0; f < 3; f++) {
      s.apply(appended(0, "d"));
      s.apply(appended(0, "e"));
      expect(seen.length).toBe(2 + f);
      nextFrame();
      expect(seen.length).toBe(3 + f);
    }
    expect(frames.length).toBe(1);
    nextFrame(); // a frame with no text: the store stops asking for frames
    expect(frames.length).toBe(0);
    s.apply(appended(0, "f"));
    expect(seen.at(-1)).toBe("abcdededef");
    expect(frames.length).toBe(1);
    // Text at a steady pace, one delta held now and then: shown with the frame, and the delta
    // after that frame at once again.
    s.apply(appended(0, "g"));
    expect(seen.at(-1)).toBe("abcdededef");
    nextFrame();
    expect(seen.at(-1)).toBe("abcdededefg");
    expect(frames.length).toBe(0);
    s.apply(appended(0, "h"));
    expect(seen.at(-1)).toBe("abcdededefgh");
  });

  it("finalizes a streamed row without resending its text", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "Hel", partial: true })]));
    let row = 0;
    s.subscribeRow(0, () => row++);
    s.apply(appended(0, "lo"));
    expect(row).toBe(1);
    s.apply(finalized(0));
    expect(row).toBe(2);
    expect(s.messages[0]?.text).toBe("Hello");
    expect(s.messages[0]?.partial).toBe(false);
  });

  it("replaces a re-sent message, ignores deltas for unknown rows, and applies state changes", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "a" })]));
    s.apply(added(say(0, SayKind.TEXT, { text: "a2" })));
    expect(s.count).toBe(1);
    expect(s.messages[0]?.text).toBe("a2");
    s.apply(appended(7, "zzz"));
    expect(s.count).toBe(1);
    let st = 0;
    s.subscribeState(() => st++);
    s.apply(stateChanged({ openAskIndex: 0, tokensIn: 1234n }));
    expect(st).toBe(1);
    expect(s.state?.openAskIndex).toBe(0);
    expect(s.state?.tokensIn).toBe(1234n);
  });

  it("re-renders only the streaming row on TextAppended", () => {
    const s = manualStore();
    const msgs = Array.from({ length: 20 }, (_, i) =>
      say(i, SayKind.TEXT, { text: `message ${i}`, partial: i === 19 }),
    );
    s.apply(snapshot(msgs));
    const renders = new Array<number>(20).fill(0);
    render(
      <div>
        {msgs.map((_, i) => (
          <Profiler key={i} id={String(i)} onRender={() => renders[i]!++}>
            <MessageRow store={s} pos={i} />
          </Profiler>
        ))}
      </div>,
    );
    expect(renders.every((n) => n === 1)).toBe(true);
    act(() => s.apply(appended(19, " streamed")));
    expect(renders[19]).toBe(2);
    expect(screen.getByText("message 19 streamed")).toBeTruthy();
    act(() => {
      s.apply(appended(19, " more"));
      s.flush();
    });
    expect(renders.slice(0, 19).every((n) => n === 1)).toBe(true);
    expect(renders[19]).toBe(3); // the first delta at once, the second with the frame
    expect(screen.getByText("message 19 streamed more")).toBeTruthy();
  });
});
