import { describe, expect, it } from "vitest";
import { RestartPolicy } from "../src/supervisor/policy";
import { Supervisor, type SupervisorState } from "../src/supervisor/supervisor";
import { parseHandshake, socketPath, LineSplitter } from "../src/supervisor/handshake";
import { FakeClock, fakeSpawner, tick } from "./fakes";

function setup(maxCrashes = 5) {
  const clock = new FakeClock();
  const spawner = fakeSpawner();
  const states: SupervisorState[] = [];
  const logs: string[] = [];
  const sup = new Supervisor({
    spawner,
    command: "/bin/cairn",
    args: ["serve", "--data-dir", "/d"],
    clock,
    policy: new RestartPolicy({ maxCrashes, baseDelayMs: 250, maxDelayMs: 8000, stableAfterMs: 300_000 }),
    log: (l) => logs.push(l),
    onState: (s) => states.push(s),
  });
  return { clock, spawner, states, logs, sup, kinds: () => states.map((s) => s.kind) };
}

describe("RestartPolicy", () => {
  const cases: Array<{ name: string; uptimes: number[]; want: string[] }> = [
    { name: "backoff doubles", uptimes: [10, 10, 10], want: ["restart 250", "restart 500", "restart 1000"] },
    { name: "gives up at the fifth crash", uptimes: [1, 1, 1, 1, 1], want: ["restart 250", "restart 500", "restart 1000", "restart 2000", "giveUp"] },
    { name: "a long healthy run resets the count", uptimes: [1, 1, 1, 1, 600_000, 1], want: ["restart 250", "restart 500", "restart 1000", "restart 2000", "restart 250", "restart 500"] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = new RestartPolicy({ maxCrashes: 5, baseDelayMs: 250, maxDelayMs: 8000, stableAfterMs: 300_000 });
      expect(c.uptimes.map((u) => p.onCrash(u)).map((d) => (d.action === "restart" ? `restart ${d.delayMs}` : "giveUp"))).toEqual(c.want);
    });
  }
  it("caps the delay", () => {
    const p = new RestartPolicy({ maxCrashes: 100, baseDelayMs: 250, maxDelayMs: 8000, stableAfterMs: 300_000 });
    let last = 0;
    for (let i = 0; i < 10; i++) {
      const d = p.onCrash(0);
      if (d.action === "restart") last = d.delayMs;
    }
    expect(last).toBe(8000);
  });
});

describe("handshake", () => {
  it("parses the ready line", () => {
    expect(parseHandshake('{"address":"unix:///d/daemon.sock","token_file":"/d/daemon.token","pid":7,"version":"0.1"}')).toEqual({
      address: "unix:///d/daemon.sock",
      token_file: "/d/daemon.token",
      pid: 7,
      version: "0.1",
    });
  });
  it("rejects other output", () => {
    expect(() => parseHandshake("hello")).toThrow(/not a handshake/);
    expect(() => parseHandshake('{"pid":1}')).toThrow(/lacks address/);
  });
  it("reads socket addresses", () => {
    expect(socketPath("unix:///a/b.sock")).toEqual({ kind: "unix", path: "/a/b.sock" });
    expect(socketPath("127.0.0.1:5000")).toEqual({ kind: "tcp", hostPort: "127.0.0.1:5000" });
  });
  it("splits lines across chunks", () => {
    const s = new LineSplitter();
    expect(s.push('{"a"')).toEqual([]);
    expect(s.push(':1}\r\nnext')).toEqual(['{"a":1}']);
    expect(s.flush()).toEqual(["next"]);
  });
});

describe("Supervisor", () => {
  it("spawns serve and becomes ready on the handshake", async () => {
    const { sup, spawner, states, kinds } = setup();
    sup.start();
    expect(spawner.procs).toHaveLength(1);
    expect(spawner.procs[0].args).toEqual(["serve", "--data-dir", "/d"]);
    spawner.procs[0].handshake();
    await tick();
    expect(kinds()).toEqual(["starting", "ready"]);
    const last = states.at(-1)!;
    expect(last.kind === "ready" && last.handshake.token_file).toBe("/tmp/x.token");
  });

  it("restarts after a crash with backoff, then gives up at the fifth crash", async () => {
    const { sup, spawner, clock, kinds, states } = setup();
    sup.start();
    spawner.procs[0].handshake();
    await tick();
    for (let i = 0; i < 4; i++) {
      spawner.procs[i].exit(2);
      expect(states.at(-1)!.kind).toBe("restarting");
      const delay = (states.at(-1) as { delayMs: number }).delayMs;
      expect(delay).toBe(250 * 2 ** i);
      clock.advance(delay - 1);
      expect(spawner.procs).toHaveLength(i + 1);
      clock.advance(1);
      expect(spawner.procs).toHaveLength(i + 2);
      spawner.procs[i + 1].handshake();
      await tick();
    }
    spawner.procs[4].exit(2);
    expect(states.at(-1)!.kind).toBe("failed");
    clock.advance(60_000);
    expect(spawner.procs).toHaveLength(5);
    expect(kinds().filter((k) => k === "ready")).toHaveLength(5);
  });

  it("treats a missing handshake as a crash", async () => {
    const { sup, spawner, clock, states, logs } = setup();
    sup.start();
    clock.advance(10_000);
    expect(spawner.procs[0].signals).toEqual(["SIGKILL"]);
    expect(states.at(-1)).toMatchObject({ kind: "restarting", reason: expect.stringMatching(/failed to start/) });
    expect(logs.join("\n")).toMatch(/no handshake within 10000 ms/);
  });

  it("restart() after giving up starts again with a fresh count", async () => {
    const { sup, spawner, states } = setup(1);
    sup.start();
    spawner.procs[0].exit(1);
    expect(states.at(-1)!.kind).toBe("failed");
    await sup.restart();
    expect(spawner.procs).toHaveLength(2);
    expect(states.at(-1)!.kind).toBe("starting");
  });

  it("stop sends SIGTERM and does not restart", async () => {
    const { sup, spawner, clock, states } = setup();
    sup.start();
    spawner.procs[0].handshake();
    await tick();
    await sup.stop();
    expect(spawner.procs[0].signals).toEqual(["SIGTERM"]);
    clock.advance(60_000);
    expect(spawner.procs).toHaveLength(1);
    expect(states.at(-1)!.kind).toBe("stopped");
  });

  it("stop escalates to SIGKILL when SIGTERM is ignored", async () => {
    const { sup, spawner, clock } = setup();
    sup.start();
    spawner.procs[0].dieOnTerm = false;
    const stopped = sup.stop();
    clock.advance(3000);
    await stopped;
    expect(spawner.procs[0].signals).toEqual(["SIGTERM", "SIGKILL"]);
  });

  it("logs stderr line by line", async () => {
    const { sup, spawner, logs } = setup();
    sup.start();
    spawner.procs[0].stderr.write("level=INFO msg=a\nlevel=INFO ");
    spawner.procs[0].stderr.write("msg=b\n");
    await tick();
    expect(logs).toEqual(["level=INFO msg=a", "level=INFO msg=b"]);
  });
});
