import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { createRouterTransport } from "@connectrpc/connect";
import { HostBridgeService, type ConnectRequest } from "@cairn/proto/gen/cairn/v1/host_bridge_pb";
import { RequestSchema } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { HostBridge } from "../src/host/bridge";
import { dispatch, emptyResult } from "../src/host/dispatcher";
import { CommandRunner, type BackgroundProcess, type CairnTerminal, type ShellExecution, type Terminals } from "../src/host/commandRunner";
import { AnsiStripper } from "../src/host/ansi";
import { changedRange } from "../src/host/textRange";
import { AsyncQueue } from "../src/host/queue";
import { tick } from "./fakes";
import { navigatePlaces } from "../src/host/navigatePlaces";

describe("changedRange", () => {
  const cases: Array<[string, string, string, ReturnType<typeof changedRange>]> = [
    ["equal", "abc", "abc", undefined],
    ["append", "a\nb\n", "a\nb\nc\n", { start: 4, end: 4, text: "c\n" }],
    ["middle", "one\ntwo\nthree\n", "one\n2\nthree\n", { start: 4, end: 7, text: "2" }],
    ["delete all", "xyz", "", { start: 0, end: 3, text: "" }],
    ["crlf kept whole", "a\r\nb", "a\nb", { start: 1, end: 3, text: "\n" }],
  ];
  for (const [name, a, b, want] of cases) {
    it(name, () => {
      const got = changedRange(a, b);
      expect(got).toEqual(want);
      if (got) expect(a.slice(0, got.start) + got.text + a.slice(got.end)).toBe(b);
    });
  }
});

describe("AnsiStripper", () => {
  it("removes colours and OSC 633 marks, also when split across chunks", () => {
    const s = new AnsiStripper();
    const chunks = ["\x1b]633;C\x07\x1b[3", "2mok\x1b[0m\r\n", "line2\x1b]633;D;0", "\x07"];
    expect(chunks.map((c) => s.push(c)).join("") + s.flush()).toBe("ok\nline2");
  });
});

describe("dispatch", () => {
  it("answers by id, maps thrown errors and unsupported kinds", async () => {
    const sig = new AbortController().signal;
    const ok = await dispatch({ openFile: async () => emptyResult }, create(RequestSchema, { id: "1", request: { case: "openFile", value: { path: "/a", line: 2 } } }), sig);
    expect(ok.id).toBe("1");
    expect(ok.result.case).toBe("empty");
    const bad = await dispatch({ openFile: async () => { throw new Error("no such file"); } }, create(RequestSchema, { id: "2", request: { case: "openFile", value: { path: "/a" } } }), sig);
    expect(bad).toMatchObject({ id: "2", error: "no such file" });
    const none = await dispatch({}, create(RequestSchema, { id: "3", request: { case: "visibleFiles", value: {} } }), sig);
    expect(none.error).toMatch(/does not support visibleFiles/);
  });
});

describe("HostBridge", () => {
  it("says hello, answers requests by id and pushes events in order", async () => {
    const received: ConnectRequest[] = [];
    const finished = new AsyncQueue<void>();
    const transport = createRouterTransport(({ service }) => {
      service(HostBridgeService, {
        async *connect(reqs) {
          const it = reqs[Symbol.asyncIterator]();
          const hello = await it.next();
          received.push(hello.value);
          yield { message: { case: "welcome", value: { hostId: "host-7", daemonVersion: "t" } } };
          yield { message: { case: "request", value: { id: "r1", deadlineMs: 5000n, request: { case: "workspaceFolders", value: {} } } } };
          for (;;) {
            const m = await it.next();
            if (m.done) break;
            received.push(m.value);
            if (received.length === 5) break;
          }
          finished.push();
        },
      });
    });
    const bridge = await HostBridge.open({
      transport,
      hello: { client: "vscode", ideName: "VSCode", workspaceFolders: ["/w"], shell: "/bin/bash", diffView: true, terminal: true, editor: true, languageModels: false, readFile: false, clientId: "window-1" },
      handlers: { workspaceFolders: async () => ({ case: "paths", value: { $typeName: "cairn.host.v1.PathsResult", paths: ["/w"] } }) },
      log: () => {},
      onClosed: () => {},
    });
    expect(bridge.hostId).toBe("host-7");
    bridge.sendEvent({ case: "commandOutput", value: { $typeName: "cairn.host.v1.CommandOutput", commandId: "c", data: "a" } });
    bridge.sendEvent({ case: "commandOutput", value: { $typeName: "cairn.host.v1.CommandOutput", commandId: "c", data: "b" } });
    bridge.sendEvent({ case: "commandExit", value: { $typeName: "cairn.host.v1.CommandExit", commandId: "c", exitCode: 0 } });
    await finished[Symbol.asyncIterator]().next();
    bridge.close();
    expect(received[0].message).toMatchObject({ case: "hello", value: { client: "vscode", diffView: true, clientId: "window-1" } });
    const resp = received.find((m) => m.message.case === "response");
    expect(resp?.message.value).toMatchObject({ id: "r1", result: { case: "paths", value: { paths: ["/w"] } } });
    const events = received.filter((m) => m.message.case === "event").map((m) => (m.message.value as { event: { case: string; value: { data?: string } } }).event);
    expect(events.map((e) => `${e.case}:${e.value.data ?? ""}`)).toEqual(["commandOutput:a", "commandOutput:b", "commandExit:"]);
  });
});

class FakeTerminal implements CairnTerminal {
  name = "Cairn";
  notes: string[] = [];
  interrupts = 0;
  executed: string[] = [];
  out = new AsyncQueue<string>();
  private resolveExit: (c: number | undefined) => void = () => {};
  execute(command: string): ShellExecution {
    this.executed.push(command);
    return { output: this.out, exitCode: new Promise((r) => (this.resolveExit = r)) };
  }
  end(code: number) {
    this.resolveExit(code);
  }
  note(t: string) {
    this.notes.push(t);
  }
  interrupt() {
    this.interrupts++;
  }
  show() {}
}

function fakeTerminals(t: FakeTerminal, integration: boolean): Terminals & { released: number } {
  return {
    released: 0,
    acquire: () => t,
    release() {
      this.released++;
    },
    waitForShellIntegration: async () => integration,
  };
}

class FakeProc implements BackgroundProcess {
  data: (d: string) => void = () => {};
  exit: (c: number) => void = () => {};
  interrupted = 0;
  onData(cb: (d: string) => void) {
    this.data = cb;
  }
  onExit(cb: (c: number) => void) {
    this.exit = cb;
  }
  interrupt() {
    this.interrupted++;
  }
}

function sink() {
  const events: string[] = [];
  return { events, output: (id: string, d: string) => events.push(`out ${id} ${d}`), exit: (id: string, c: number) => events.push(`exit ${id} ${c}`) };
}

describe("CommandRunner", () => {
  it("streams shell-integration output and reports the exit after the last byte", async () => {
    const term = new FakeTerminal();
    const terms = fakeTerminals(term, true);
    const s = sink();
    const r = new CommandRunner(terms, { spawn: () => { throw new Error("no fallback expected"); } }, s);
    expect(await r.run("c1", "echo hi", "/w")).toEqual({ shellIntegration: true, terminalName: "Cairn" });
    term.out.push("\x1b]633;C\x07hi");
    await tick();
    // The end event overtakes the rest of the output: exit must still come last.
    term.end(0);
    await tick();
    term.out.push(" there\r\n");
    term.out.close();
    for (let i = 0; i < 5; i++) await tick();
    expect(s.events).toEqual(["out c1 hi", "out c1  there\n", "exit c1 0"]);
    expect(terms.released).toBe(1);
  });

  it("falls back to a background process without shell integration, and tells the user", async () => {
    const term = new FakeTerminal();
    const proc = new FakeProc();
    const s = sink();
    const spawned: string[] = [];
    const r = new CommandRunner(fakeTerminals(term, false), { spawn: (c, cwd) => (spawned.push(`${c} @ ${cwd}`), proc) }, s);
    expect(await r.run("c2", "make test", "/w")).toEqual({ shellIntegration: false, terminalName: "Cairn" });
    expect(spawned).toEqual(["make test @ /w"]);
    expect(term.notes[0]).toMatch(/shell integration is not available/);
    proc.data("building\n");
    expect(r.kill("c2")).toBe(true);
    expect(proc.interrupted).toBe(1);
    proc.data("interrupted\n");
    proc.exit(130);
    expect(s.events).toEqual(["out c2 building\n", "out c2 interrupted\n", "exit c2 130"]);
    expect(r.kill("c2")).toBe(false);
  });

  it("runs a sandboxed command's launcher line and shows the user's command", async () => {
    const line = "/opt/cairn __cairn-sandbox --policy /t/p.json -- /bin/bash -c 'make test'";
    const term = new FakeTerminal();
    const s = sink();
    const r = new CommandRunner(fakeTerminals(term, true), { spawn: () => new FakeProc() }, s);
    await r.run("c6", line, "/w", "make test");
    expect(term.executed).toEqual([line]);
    const fallback = new FakeTerminal();
    const spawned: string[] = [];
    const r2 = new CommandRunner(fakeTerminals(fallback, false), { spawn: (c) => (spawned.push(c), new FakeProc()) }, s);
    await r2.run("c7", line, "/w", "make test");
    expect(spawned).toEqual([line]);
    expect(fallback.notes[0]).toContain(`"make test" runs in Cairn's sandbox as a background process`);
  });

  it("release leaves a terminal command running for the user and stops reporting it", async () => {
    const term = new FakeTerminal();
    const terms = fakeTerminals(term, true);
    const s = sink();
    const r = new CommandRunner(terms, { spawn: () => new FakeProc() }, s);
    await r.run("c4", "npm run dev", "/w");
    term.out.push("ready on :5173\n");
    await tick();
    expect(r.release("c4")).toBe(true);
    expect(term.interrupts).toBe(0);
    term.out.push("GET /\n");
    term.end(0);
    term.out.close();
    for (let i = 0; i < 5; i++) await tick();
    expect(s.events).toEqual(["out c4 ready on :5173\n"]);
    // Once the user's command ends, the terminal is free again.
    expect(terms.released).toBe(1);
    expect(r.kill("c4")).toBe(false);
  });

  it("release refuses a command the user cannot see", async () => {
    const proc = new FakeProc();
    const r = new CommandRunner(fakeTerminals(new FakeTerminal(), false), { spawn: () => proc }, sink());
    await r.run("c5", "npm run dev", "/w");
    expect(r.release("c5")).toBe(false);
    expect(r.kill("c5")).toBe(true);
    expect(proc.interrupted).toBe(1);
  });

  it("kill sends Ctrl+C to the terminal", async () => {
    const term = new FakeTerminal();
    const r = new CommandRunner(fakeTerminals(term, true), { spawn: () => new FakeProc() }, sink());
    await r.run("c3", "sleep 100", "/w");
    r.kill("c3");
    expect(term.interrupts).toBe(1);
  });
});

describe("navigatePlaces", () => {
  it("takes Locations and LocationLinks (the target's selection range), files only, 1-based lines", () => {
    const file = (fsPath: string) => ({ scheme: "file", fsPath });
    const got = navigatePlaces([
      { uri: file("/w/a.go"), range: { start: { line: 4 } } },
      { targetUri: file("/w/b.go"), targetRange: { start: { line: 1 } }, targetSelectionRange: { start: { line: 2 } } },
      { uri: { scheme: "untitled", fsPath: "Untitled-1" }, range: { start: { line: 0 } } },
    ]);
    expect(got.map((p) => [p.path, p.line])).toEqual([
      ["/w/a.go", 5],
      ["/w/b.go", 3],
    ]);
    expect(navigatePlaces(undefined)).toEqual([]);
  });
});
