import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type Transport } from "@connectrpc/connect";
import { Relay } from "../src/relay/relay";
import { forWebview, type Broadcast, type ToWebview } from "@cairn/proto/envelope";
import { newClientId } from "../src/host/clientId";
import { cairnRegistry } from "../src/rpc/registry";
import { TaskService, UiService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { apiKeyIn } from "../src/apiKey";
import { tick } from "./fakes";

function fakeDaemon(opts: { streamGate?: Promise<void> } = {}): { transport: Transport; seen: unknown[] } {
  const seen: unknown[] = [];
  const transport = createRouterTransport(({ service }) => {
    service(TaskService, {
      newTask: (req) => {
        seen.push(req);
        if (req.text === "boom") throw new ConnectError("no model configured", Code.FailedPrecondition);
        return { taskId: `t-${req.hostId}` };
      },
    });
    service(UiService, {
      async *subscribe(req, ctx) {
        seen.push(req);
        yield { event: { case: "snapshot", value: { state: { taskId: req.taskId, status: TaskStatus.RUNNING, openAskIndex: -1 }, messages: [] } } };
        yield { event: { case: "textAppended", value: { index: 1, delta: "Hello" } } };
        if (opts.streamGate) {
          await opts.streamGate;
          if (ctx.signal.aborted) return;
        }
        yield { event: { case: "textAppended", value: { index: 1, delta: " world" } } };
      },
    });
    service(StateService, {
      updateSettings: (req) => {
        seen.push(req);
        return { settings: req.settings };
      },
    });
  });
  return { transport, seen };
}

function relayWith(transport: Transport, extra: Partial<ConstructorParameters<typeof Relay>[0]> = {}) {
  const posted: ToWebview[] = [];
  const relay = new Relay({ registry: cairnRegistry, transport: async () => transport, post: (m) => posted.push(m), ...extra });
  const waitDone = async (id: string): Promise<void> => {
    while (!posted.some((m) => m.type === "rpc" && m.id === id && "done" in m)) await new Promise((r) => setTimeout(r, 1));
  };
  return { relay, posted, waitDone };
}

describe("Relay", () => {
  it("relays a unary call: payload then done", async () => {
    const { transport, seen } = fakeDaemon();
    const { relay, posted, waitDone } = relayWith(transport);
    relay.handle({ type: "rpc", id: "1", service: "cairn.v1.TaskService", method: "NewTask", payload: { text: "hi", hostId: "h1", workspaceRoots: ["/w"], mode: "MODE_ACT" } });
    await waitDone("1");
    expect(posted).toEqual([
      { type: "rpc", id: "1", payload: { taskId: "t-h1" } },
      { type: "rpc", id: "1", done: true },
    ]);
    expect(seen[0]).toMatchObject({ text: "hi", hostId: "h1", workspaceRoots: ["/w"], mode: 1 });
  });

  it("relays a server stream: each item then done", async () => {
    const { transport } = fakeDaemon();
    const { relay, posted, waitDone } = relayWith(transport);
    relay.handle({ type: "rpc", id: "s", service: "cairn.v1.UiService", method: "Subscribe", payload: { taskId: "t1" }, stream: true });
    await waitDone("s");
    expect(posted.map((m) => ("payload" in m ? m.payload : "done" in m ? "done" : m))).toEqual([
      { snapshot: { state: { taskId: "t1", status: "TASK_STATUS_RUNNING", openAskIndex: -1 } } },
      { textAppended: { index: 1, delta: "Hello" } },
      { textAppended: { index: 1, delta: " world" } },
      "done",
    ]);
  });

  it("maps errors to gRPC code names", async () => {
    const { transport } = fakeDaemon();
    const { relay, posted, waitDone } = relayWith(transport);
    relay.handle({ type: "rpc", id: "e", service: "cairn.v1.TaskService", method: "NewTask", payload: { text: "boom" } });
    await waitDone("e");
    expect(posted).toEqual([{ type: "rpc", id: "e", done: true, error: { code: "failed_precondition", message: "no model configured" } }]);
  });

  it("answers unknown methods and bad payloads without calling the daemon", async () => {
    const { transport, seen } = fakeDaemon();
    const { relay, posted, waitDone } = relayWith(transport);
    relay.handle({ type: "rpc", id: "u", service: "cairn.v1.TaskService", method: "Nope", payload: {} });
    relay.handle({ type: "rpc", id: "b", service: "cairn.v1.TaskService", method: "NewTask", payload: { text: 5 } });
    await waitDone("u");
    await waitDone("b");
    expect(posted).toContainEqual({ type: "rpc", id: "u", done: true, error: { code: "unimplemented", message: "unknown method cairn.v1.TaskService/Nope" } });
    expect(posted.find((m) => m.type === "rpc" && m.id === "b")).toMatchObject({ done: true, error: { code: "invalid_argument" } });
    expect(seen).toEqual([]);
  });

  it("cancel aborts a stream and reports cancelled", async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const { transport } = fakeDaemon({ streamGate: gate });
    const { relay, posted, waitDone } = relayWith(transport);
    relay.handle({ type: "rpc", id: "s", service: "cairn.v1.UiService", method: "Subscribe", payload: { taskId: "t1" }, stream: true });
    while (posted.length < 2) await tick();
    expect(relay.active).toBe(1);
    relay.handle({ type: "cancel", id: "s" });
    open();
    await waitDone("s");
    expect(posted.at(-1)).toEqual({ type: "rpc", id: "s", done: true, error: { code: "cancelled", message: "cancelled" } });
    expect(posted.filter((m) => "payload" in m)).toHaveLength(2);
    expect(relay.active).toBe(0);
  });

  it("reports unavailable when the daemon is down", async () => {
    const { relay, posted, waitDone } = relayWith(undefined as never, {
      transport: () => Promise.reject(new ConnectError("the Cairn daemon is not running", Code.Unavailable)),
    });
    relay.handle({ type: "rpc", id: "d", service: "cairn.v1.StateService", method: "GetState", payload: {} });
    await waitDone("d");
    expect(posted).toEqual([{ type: "rpc", id: "d", done: true, error: { code: "unavailable", message: "the Cairn daemon is not running" } }]);
  });

  it("lets the extension observe an API key in UpdateSettings", async () => {
    const { transport, seen } = fakeDaemon();
    const keys: string[] = [];
    const { relay, waitDone } = relayWith(transport, {
      onRequest: (s, m, req) => {
        const k = apiKeyIn(s, m, req);
        if (k) keys.push(k);
      },
    });
    relay.handle({ type: "rpc", id: "k", service: "cairn.v1.StateService", method: "UpdateSettings", payload: { settings: { api: { baseUrl: "http://x", apiKey: "sk-1" } } } });
    relay.handle({ type: "rpc", id: "n", service: "cairn.v1.StateService", method: "UpdateSettings", payload: { settings: { api: { baseUrl: "http://x" } } } });
    await waitDone("k");
    await waitDone("n");
    expect(keys).toEqual(["sk-1"]);
    // The request itself is relayed unchanged, key included (the daemon keeps it in memory).
    expect(seen[0]).toMatchObject({ settings: { api: { apiKey: "sk-1" } } });
  });

  it("finds every service of the generated files", () => {
    for (const [s, m] of [
      ["cairn.v1.TaskService", "NewTask"],
      ["cairn.v1.UiService", "Subscribe"],
      ["cairn.v1.StateService", "ListModels"],
      ["cairn.v1.WorkspaceService", "SearchFiles"],
    ]) {
      expect(cairnRegistry.method(s, m)?.name).toBe(m);
    }
  });

  it("create() keeps working for request types", () => {
    expect(create(TaskService.method.newTask.input, { text: "x" }).text).toBe("x");
  });
});

describe("cairnRegistry", () => {
  it("registers every generated proto file, so every RPC can be relayed", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const registry = readFileSync(join(__dirname, "..", "src", "rpc", "registry.ts"), "utf8");
    // The generated code lives in the @cairn/proto workspace package (proto/ts).
    const gen = join(__dirname, "..", "..", "proto", "ts", "src", "gen");
    for (const pkg of [["cairn", "v1"], ["cairn", "host", "v1"]]) {
      for (const f of readdirSync(join(gen, ...pkg)).filter((n) => n.endsWith("_pb.ts"))) {
        const name = `file_${pkg.join("_")}_${f.replace(/_pb\.ts$/, "")}`;
        expect(registry, `${name} is not in the relay's registry`).toContain(`  ${name},`);
      }
    }
    expect(cairnRegistry.method("cairn.v1.CheckpointService", "RestoreCheckpoint")).toBeDefined();
    expect(cairnRegistry.method("cairn.v1.UiService", "Subscribe")).toBeDefined();
  });
});

describe("client ids", () => {
  it("each webview receives the window context with its own id; other events pass unchanged", () => {
    const sidebar = { clientId: newClientId("webview") };
    const panel = { clientId: newClientId("webview") };
    expect(sidebar.clientId).toMatch(/^webview-[0-9a-f]{24}$/);
    expect(panel.clientId).not.toBe(sidebar.clientId);
    const context: Broadcast = { type: "host", event: "context", workspaceRoots: ["/w"], hostId: "window-1" };
    expect(forWebview(sidebar, context)).toEqual({ ...context, clientId: sidebar.clientId });
    expect(forWebview(panel, context)).toEqual({ ...context, clientId: panel.clientId });
    const daemon: Broadcast = { type: "host", event: "daemon", status: "ready" };
    expect(forWebview(panel, daemon)).toBe(daemon);
  });

  it("a window id is made from the random source it is given", () => {
    expect(newClientId("window", (n) => new Uint8Array(n).fill(0xab))).toBe(`window-${"ab".repeat(12)}`);
  });
});
