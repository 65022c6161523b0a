import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { newerBinary } from "../src/supervisor/spawn";
import { RestartPolicy } from "../src/supervisor/policy";
import { Supervisor, exitDaemonRunning, type SupervisorState } from "../src/supervisor/supervisor";
import { parseHandshake, socketPath, LineSplitter } from "../src/supervisor/handshake";
import { FakeClock, FakeWorld, fakeSpawner, settle, tick } from "./fakes";

function setup(maxCrashes = 5) {
  const clock = new FakeClock();
  const world = new FakeWorld();
  const spawner = fakeSpawner(world);
  const states: SupervisorState[] = [];
  const logs: string[] = [];
  const sup = new Supervisor({
    spawner,
    locator: world,
    command: "/bin/cairn",
    args: ["serve", "--data-dir", "/d"],
    clock,
    pollMs: 100,
    handshakeTimeoutMs: 10_000,
    policy: new RestartPolicy({ maxCrashes, baseDelayMs: 250, maxDelayMs: 8000, stableAfterMs: 300_000 }),
    log: (l) => logs.push(l),
    onState: (s) => states.push(s),
  });
  // run lets the supervisor's async steps run, with the clock moving by one poll per round.
  const run = (rounds = 3) => settle(clock, rounds, 100);
  return { clock, world, spawner, states, logs, sup, run, kinds: () => states.map((s) => s.kind) };
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
    expect(socketPath("pipe://\\\\.\\pipe\\cairn-0123")).toEqual({ kind: "unix", path: "\\\\.\\pipe\\cairn-0123" });
  });
  it("splits lines across chunks", () => {
    const s = new LineSplitter();
    expect(s.push('{"a"')).toEqual([]);
    expect(s.push(':1}\r\nnext')).toEqual(['{"a":1}']);
    expect(s.flush()).toEqual(["next"]);
  });
});

describe("Supervisor", () => {
  it("attaches to a running daemon without starting one", async () => {
    const { sup, world, spawner, states, run } = setup();
    world.daemon(7);
    sup.start();
    await run();
    expect(spawner.procs).toHaveLength(0);
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: false, handshake: { pid: 7 } });
    expect(sup.pid).toBe(7);
  });

  it("starts the daemon when none runs and is ready once it is found", async () => {
    const { sup, spawner, kinds, states, run } = setup();
    sup.start();
    await run();
    expect(spawner.procs).toHaveLength(1);
    expect(spawner.procs[0].args).toEqual(["serve", "--data-dir", "/d"]);
    expect(kinds()).toEqual(["starting"]);
    spawner.procs[0].handshake();
    await run();
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: true, handshake: { pid: spawner.procs[0].pid } });
  });

  it("finds a daemon that is ready at once within milliseconds, not a poll later", async () => {
    const { sup, spawner, clock, states } = setup();
    sup.start();
    for (let i = 0; i < 5 && spawner.procs.length === 0; i++) await tick();
    expect(spawner.procs).toHaveLength(1);
    const spawnedAt = clock.now();
    spawner.procs[0].handshake();
    while (states.at(-1)!.kind !== "ready" && clock.now() - spawnedAt < 1000) {
      clock.advance(1);
      await settle(clock, 3);
    }
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: true });
    expect(clock.now() - spawnedAt).toBeLessThanOrEqual(5);
  });

  it("looks at a slow daemon only every poll once its first 100 ms have passed", async () => {
    const { sup, spawner, clock, world } = setup();
    let looks = 0;
    const find = world.find.bind(world);
    world.find = async () => {
      looks++;
      return find();
    };
    sup.start();
    for (let i = 0; i < 5 && spawner.procs.length === 0; i++) await tick();
    const before = looks;
    for (let t = 0; t < 1000; t++) {
      clock.advance(1);
      await settle(clock, 2);
    }
    // Every 5 ms up to 100 ms (20 looks), then every 100 ms (at 200 … 1000 ms, 9 more): 29 by
    // the end of the first second, where the poll alone would make 10.
    expect(looks - before).toBe(29);
  });

  it("loses the bind race and attaches to the window that won", async () => {
    const { sup, world, spawner, states, run } = setup();
    sup.start();
    await run();
    spawner.procs[0].exit(exitDaemonRunning);
    await run();
    expect(states.at(-1)!.kind).toBe("starting");
    world.daemon(999);
    await run();
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: false, handshake: { pid: 999 } });
    expect(spawner.procs).toHaveLength(1);
  });

  it("two windows starting at once end on one daemon", async () => {
    const a = setup();
    const b = setup();
    // One machine: b sees a's world.
    const world = a.world;
    const bSup = new Supervisor({
      spawner: fakeSpawner(world),
      locator: world,
      command: "/bin/cairn",
      args: [],
      clock: a.clock,
      pollMs: 100,
      log: () => {},
      onState: (s) => b.states.push(s),
    });
    a.sup.start();
    bSup.start();
    await a.run();
    expect(world.procs).toHaveLength(2);
    // The bind decides: the first serves, the second exits.
    world.procs[0].handshake();
    world.procs[1].exit(exitDaemonRunning);
    await a.run();
    expect(a.states.at(-1)).toMatchObject({ kind: "ready", handshake: { pid: world.procs[0].pid } });
    expect(b.states.at(-1)).toMatchObject({ kind: "ready", handshake: { pid: world.procs[0].pid } });
  });

  it("restarts after a loss, up to the policy's limit", async () => {
    const { sup, spawner, clock, kinds, states, run } = setup();
    sup.start();
    await run();
    spawner.procs[0].handshake();
    await run();
    for (let i = 0; i < 4; i++) {
      spawner.procs[i].exit(2);
      expect(states.at(-1)).toMatchObject({ kind: "restarting", crash: i + 1 });
      const delay = (states.at(-1) as { delayMs: number }).delayMs;
      expect(delay).toBe(250 * 2 ** i);
      clock.advance(delay);
      await run();
      expect(spawner.procs).toHaveLength(i + 2);
      spawner.procs[i + 1].handshake();
      await run();
      expect(states.at(-1)!.kind).toBe("ready");
    }
    spawner.procs[4].exit(2);
    expect(states.at(-1)!.kind).toBe("failed");
    clock.advance(60_000);
    await run();
    expect(spawner.procs).toHaveLength(5);
    expect(kinds().filter((k) => k === "ready")).toHaveLength(5);
  });

  it("a lost connection finds the daemon another window restarted", async () => {
    const { sup, world, spawner, states, clock, run } = setup();
    world.daemon(7);
    sup.start();
    await run();
    world.daemon(8);
    sup.lost("the connection to the daemon was lost");
    expect(states.at(-1)).toMatchObject({ kind: "restarting", delayMs: 250 });
    clock.advance(250);
    await run();
    expect(states.at(-1)).toMatchObject({ kind: "ready", handshake: { pid: 8 } });
    expect(spawner.procs).toHaveLength(0);
  });

  it("an upgraded window replaces a daemon running an older binary", async () => {
    const clock = new FakeClock();
    const world = new FakeWorld();
    const spawner = fakeSpawner(world);
    const states: SupervisorState[] = [];
    world.daemon(7);
    const sup = new Supervisor({
      spawner,
      locator: world,
      command: "/ext-0.2/bin/cairn",
      args: [],
      clock,
      pollMs: 100,
      supersedes: (found) => found.pid === 7,
      log: () => {},
      onState: (s) => states.push(s),
    });
    sup.start();
    await settle(clock, 3, 100);
    expect(world.terminated).toEqual([7]);
    expect(spawner.procs).toHaveLength(1);
    spawner.procs[0].handshake();
    await settle(clock, 3, 100);
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: true, handshake: { pid: spawner.procs[0].pid } });
  });

  it("a start failure is a crash", async () => {
    const { sup, spawner, states, run } = setup();
    sup.start();
    await run();
    spawner.procs[0].exit(1);
    await run();
    expect(states.at(-1)).toMatchObject({ kind: "restarting", reason: expect.stringMatching(/failed to start \(exit code 1\)/) });
  });

  it("treats a missing handshake as a crash", async () => {
    const { sup, spawner, states, logs, run } = setup();
    sup.start();
    await run(101);
    expect(spawner.procs[0].signals).toEqual(["SIGKILL"]);
    expect(states.find((s) => s.kind === "restarting")).toMatchObject({ reason: expect.stringMatching(/failed to start/) });
    expect(logs.join("\n")).toMatch(/no handshake within 10000 ms/);
  });

  it("restart() after giving up starts again with a fresh count", async () => {
    const { sup, spawner, states, run } = setup(1);
    sup.start();
    await run();
    spawner.procs[0].exit(1);
    await run();
    expect(states.at(-1)!.kind).toBe("failed");
    await sup.restart();
    await run();
    expect(spawner.procs).toHaveLength(2);
    expect(states.at(-1)!.kind).toBe("starting");
  });

  it("restart() stops the shared daemon and starts a fresh one", async () => {
    const { sup, world, spawner, states, run } = setup();
    world.daemon(7);
    sup.start();
    await run();
    await sup.restart();
    expect(world.terminated).toEqual([7]);
    await run();
    expect(spawner.procs).toHaveLength(1);
    spawner.procs[0].handshake();
    await run();
    expect(states.at(-1)).toMatchObject({ kind: "ready", spawned: true });
  });

  it("stop leaves the daemon running for the other windows", async () => {
    const { sup, world, spawner, clock, states, run } = setup();
    sup.start();
    await run();
    spawner.procs[0].handshake();
    await run();
    await sup.stop();
    expect(spawner.procs[0].signals).toEqual([]);
    expect(world.live?.pid).toBe(spawner.procs[0].pid);
    expect(states.at(-1)!.kind).toBe("stopped");
    // Its later exit (idle) is no concern of a stopped window.
    spawner.procs[0].exit(0);
    clock.advance(60_000);
    await run();
    expect(spawner.procs).toHaveLength(1);
    expect(states.at(-1)!.kind).toBe("stopped");
  });

  it("logs a piped stderr line by line", async () => {
    const { sup, spawner, logs, run } = setup();
    sup.start();
    await run();
    spawner.procs[0].stderr.write("level=INFO msg=a\nlevel=INFO ");
    spawner.procs[0].stderr.write("msg=b\n");
    await tick();
    expect(logs).toEqual(["level=INFO msg=a", "level=INFO msg=b"]);
  });
});

describe("newerBinary", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-bin-"));
  const older = path.join(dir, "old-cairn");
  const newer = path.join(dir, "new-cairn");
  fs.writeFileSync(older, "v1");
  fs.writeFileSync(newer, "v2");
  fs.utimesSync(older, new Date(1_000_000), new Date(1_000_000));
  fs.utimesSync(newer, new Date(2_000_000), new Date(2_000_000));
  const hs = (executable?: string) => ({ address: "unix:///x", token_file: "/x", pid: 1, version: "v", executable });
  const cases: Array<{ name: string; ours: string; theirs?: string; want: boolean }> = [
    { name: "our binary is newer: replace", ours: newer, theirs: older, want: true },
    { name: "our binary is older: attach", ours: older, theirs: newer, want: false },
    { name: "the same binary: attach", ours: newer, theirs: newer, want: false },
    { name: "the daemon names no binary: attach", ours: newer, want: false },
    { name: "their binary is gone: attach (it exits by itself)", ours: newer, theirs: path.join(dir, "missing"), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(newerBinary(c.ours)(hs(c.theirs))).toBe(c.want);
    });
  }
});
