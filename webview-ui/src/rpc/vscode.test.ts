import { describe, expect, it } from "vitest";
import { PostMessageClient, type Port } from "./vscode";
import type { FromWebview, ToWebview } from "@cairn/proto/envelope";
import { RpcError } from "./errors";
import { AskResponse, TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";

function fakePort() {
  const sent: FromWebview[] = [];
  let handler: (m: ToWebview) => void = () => {};
  let state: unknown;
  const port: Port = {
    post: (m) => sent.push(m),
    listen: (h) => (handler = h),
    getState: () => state,
    setState: (s) => (state = s),
  };
  return { port, sent, deliver: (m: ToWebview) => handler(m) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("PostMessageClient", () => {
  it("sends a unary call as the rpc envelope with protobuf JSON and parses the reply", async () => {
    const { port, sent, deliver } = fakePort();
    const c = new PostMessageClient(port);
    const p = c.unary(TaskService.method.answerAsk, { taskId: "t1", response: AskResponse.APPROVE, text: "ok", messageIndex: 4 });
    expect(sent).toEqual([
      {
        type: "rpc",
        id: "r1",
        service: "cairn.v1.TaskService",
        method: "AnswerAsk",
        payload: { taskId: "t1", response: "ASK_RESPONSE_APPROVE", text: "ok", messageIndex: 4 },
      },
    ]);
    deliver({ type: "rpc", id: "r1", payload: {} });
    deliver({ type: "rpc", id: "r1", done: true });
    await expect(p).resolves.toBeTruthy();
  });

  it("an answer to message 0 says so; one with no index leaves it out", () => {
    const { port, sent } = fakePort();
    const c = new PostMessageClient(port);
    void c.unary(TaskService.method.answerAsk, { taskId: "t1", response: AskResponse.APPROVE, messageIndex: 0 });
    void c.unary(TaskService.method.answerAsk, { taskId: "t1", response: AskResponse.APPROVE });
    const payloads = sent.map((m) => (m as { payload: Record<string, unknown> }).payload);
    expect(payloads[0]).toMatchObject({ messageIndex: 0 });
    expect(payloads[1]).not.toHaveProperty("messageIndex");
  });

  it("decodes int64 and enums from JSON and rejects with the gRPC code", async () => {
    const { port, deliver } = fakePort();
    const c = new PostMessageClient(port);
    const ok = c.unary(TaskService.method.listTasks, { search: "x" });
    deliver({ type: "rpc", id: "r1", payload: { tasks: [{ taskId: "a", tokensIn: "12345", favorite: true }], totalSizeBytes: "99" } });
    deliver({ type: "rpc", id: "r1", done: true });
    const r = await ok;
    expect(r.tasks[0]?.tokensIn).toBe(12345n);
    expect(r.totalSizeBytes).toBe(99n);
    const bad = c.unary(TaskService.method.cancelTask, { taskId: "a" });
    deliver({ type: "rpc", id: "r2", done: true, error: { code: "unavailable", message: "daemon down" } });
    await expect(bad).rejects.toMatchObject({ code: "unavailable", message: "daemon down" });
  });

  it("streams items until done and cancels with an envelope on abort", async () => {
    const { port, sent, deliver } = fakePort();
    const c = new PostMessageClient(port);
    const ac = new AbortController();
    const got: string[] = [];
    const done = (async () => {
      try {
        for await (const ev of c.stream(UiService.method.subscribe, { taskId: "t1" }, { signal: ac.signal })) {
          if (ev.event.case === "textAppended") got.push(ev.event.value.delta);
        }
        return "ended";
      } catch (e) {
        return (e as RpcError).code;
      }
    })();
    expect(sent[0]).toMatchObject({ type: "rpc", id: "r1", service: "cairn.v1.UiService", method: "Subscribe", stream: true, payload: { taskId: "t1" } });
    deliver({ type: "rpc", id: "r1", payload: { textAppended: { index: 3, delta: "a" } } });
    deliver({ type: "rpc", id: "r1", payload: { textAppended: { index: 3, delta: "b" } } });
    await tick();
    ac.abort();
    expect(await done).toBe("cancelled");
    expect(got).toEqual(["a", "b"]);
    expect(sent[1]).toEqual({ type: "cancel", id: "r1" });
    // Late items for a cancelled call are ignored.
    deliver({ type: "rpc", id: "r1", payload: { textAppended: { index: 3, delta: "c" } } });
    expect(got).toEqual(["a", "b"]);
  });

  it("ends a stream normally on done and cancels it when the consumer breaks", async () => {
    const { port, sent, deliver } = fakePort();
    const c = new PostMessageClient(port);
    const it1 = c.stream(UiService.method.subscribe, { taskId: "a" });
    deliver({ type: "rpc", id: "r1", payload: { stateChanged: { taskId: "a" } } });
    deliver({ type: "rpc", id: "r1", done: true });
    const items = [];
    for await (const ev of it1) items.push(ev);
    expect(items).toHaveLength(1);
    const it2 = c.stream(UiService.method.subscribe, { taskId: "b" });
    deliver({ type: "rpc", id: "r2", payload: { stateChanged: { taskId: "b" } } });
    for await (const _ of it2) break;
    expect(sent.at(-1)).toEqual({ type: "cancel", id: "r2" });
  });

  it("delivers host events, posts ready and persists state", () => {
    const { port, sent, deliver } = fakePort();
    const c = new PostMessageClient(port);
    const events: string[] = [];
    const off = c.onHostEvent((e) => events.push(e.event));
    deliver({ type: "host", event: "context", workspaceRoots: ["/w"], hostId: "h1", clientId: "c1" });
    off();
    deliver({ type: "host", event: "navigate", view: "history" });
    expect(events).toEqual(["context"]);
    c.ready();
    expect(sent).toEqual([{ type: "ready" }]);
    c.savePersisted({ taskId: "t9" });
    expect(c.loadPersisted()).toEqual({ taskId: "t9" });
  });
});
