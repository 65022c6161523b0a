import { describe, expect, it } from "vitest";
import { TaskStore } from "../state/taskStore";
import { say, SayKind, snapshot } from "../test/fixtures";
import { forkReason } from "./RowActions";

const cp = (i: number, hash: string) => say(i, SayKind.CHECKPOINT_CREATED, { payload: { case: "checkpoint", value: { hash } } });

describe("Fork from here", () => {
  it("is offered on a message a checkpoint follows, and refused with the reason elsewhere", () => {
    const s = new TaskStore(() => {});
    s.apply(
      snapshot([
        say(0, SayKind.TASK, { text: "the task" }),
        cp(1, "abc123"),
        say(2, SayKind.TEXT, { text: "no checkpoint after me" }),
        say(3, SayKind.TEXT, { text: "nor after me: the checkpoint failed" }),
        cp(4, ""),
      ]),
    );
    expect(forkReason(s, 0)).toBe("");
    expect(forkReason(s, 2)).toMatch(/^No checkpoint at this message/);
    expect(forkReason(s, 3)).toMatch(/checkpoints are off/);
    expect(forkReason(s, 4)).not.toBe("");
  });
});
