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

  it("coalesces text notifications until flush, but notifies structural changes at once", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "", partial: true })]));
    let row = 0;
    let list = 0;
    s.subscribeRow(0, () => row++);
    s.subscribeList(() => list++);
    for (let i = 0; i < 100; i++) s.apply(appended(0, "x"));
    expect(row).toBe(0);
    s.flush();
    expect(row).toBe(1);
    s.apply(added(say(1, SayKind.TEXT, { text: "next" })));
    expect(list).toBe(1);
    s.apply(updated(say(0, SayKind.TEXT, { text: "final", partial: false })));
    expect(row).toBe(2);
    expect(s.messages[0]?.text).toBe("final");
    expect(s.messages[0]?.partial).toBe(false);
  });

  it("finalizes a streamed row without resending its text", () => {
    const s = manualStore();
    s.apply(snapshot([say(0, SayKind.TEXT, { text: "Hel", partial: true })]));
    let row = 0;
    s.subscribeRow(0, () => row++);
    s.apply(appended(0, "lo"));
    s.apply(finalized(0));
    expect(row).toBe(1);
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
    act(() => {
      s.apply(appended(19, " streamed"));
      s.apply(appended(19, " more"));
      s.flush();
    });
    expect(renders.slice(0, 19).every((n) => n === 1)).toBe(true);
    expect(renders[19]).toBe(2);
    expect(screen.getByText("message 19 streamed more")).toBeTruthy();
  });
});
