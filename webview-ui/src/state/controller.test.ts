import { describe, expect, it } from "vitest";
import { AskResponse, TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { FakeClient } from "../rpc/fake";
import type { HostEvent } from "../rpc";
import { ask, AskKind, snapshot } from "../test/fixtures";
import { Controller } from "./controller";

const flush = () => new Promise((r) => setTimeout(r, 0));

function started(persistedTask?: string): { fake: FakeClient; ctrl: Controller } {
  const fake = new FakeClient();
  if (persistedTask) fake.persisted = { taskId: persistedTask };
  const ctrl = new Controller(fake, { scheduler: (fn) => queueMicrotask(fn) });
  ctrl.start();
  return { fake, ctrl };
}

const context: HostEvent = { type: "host", event: "context", workspaceRoots: ["/w"], hostId: "window-1", clientId: "webview-a" };

describe("the window's editor and this webview's id", () => {
  it("a persisted task opens once the context names the window's editor, and through it", () => {
    const { fake, ctrl } = started("t1");
    expect(fake.callsTo(UiService.method.subscribe)).toEqual([]);
    fake.emitHost(context);
    expect(fake.lastStream(UiService.method.subscribe).request).toMatchObject({ taskId: "t1", hostId: "window-1" });
    expect(ctrl.app.get()).toMatchObject({ hostId: "window-1", clientId: "webview-a" });
    ctrl.stop();
  });

  it("messages and answers name the editor; an answer names the ask on screen, 0 included", async () => {
    const { fake, ctrl } = started("t1");
    fake.emitHost(context);
    await ctrl.send("go on");
    expect(fake.callsTo(TaskService.method.sendMessage)).toMatchObject([{ taskId: "t1", text: "go on", hostId: "window-1" }]);

    await ctrl.answer(AskResponse.APPROVE);
    const blind = fake.callsTo(TaskService.method.answerAsk)[0]!;
    expect(blind).toMatchObject({ taskId: "t1", hostId: "window-1" });
    expect(blind.messageIndex).toBeUndefined();

    fake.lastStream(UiService.method.subscribe).push(snapshot([ask(0, AskKind.FOLLOWUP, { text: "which?" })], { openAskIndex: 0 }));
    await flush();
    await ctrl.answer(AskResponse.MESSAGE, "this one");
    expect(fake.callsTo(TaskService.method.answerAsk)[1]).toMatchObject({ messageIndex: 0, text: "this one", hostId: "window-1" });
    ctrl.stop();
  });

  it("a task typed before the context arrives waits for it and starts with the window's roots", async () => {
    const { fake, ctrl } = started();
    fake.on(TaskService.method.newTask, () => ({ taskId: "t-new" }));
    const sent = ctrl.send("start early");
    await flush();
    expect(fake.callsTo(TaskService.method.newTask)).toEqual([]);
    fake.emitHost(context);
    await sent;
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([{ text: "start early", workspaceRoots: ["/w"], hostId: "window-1" }]);
    ctrl.stop();
  });
});
