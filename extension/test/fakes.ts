// Hand-written fakes shared by the tests.

import { PassThrough } from "node:stream";
import type { Clock, Locator, Spawned, Spawner } from "../src/supervisor/supervisor";
import type { Handshake } from "../src/supervisor/handshake";

/** FakeClock runs timers when advanced. */
export class FakeClock implements Clock {
  t = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private seq = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = end;
  }
  get pending(): number {
    return this.timers.length;
  }
}

/**
 * FakeWorld stands for the machine: at most one live daemon, found by its locator the way the
 * handshake file finds the real one.
 */
export class FakeWorld implements Locator {
  live: Handshake | undefined;
  finds = 0;
  terminated: number[] = [];
  procs: FakeProcess[] = [];
  async find(): Promise<Handshake | undefined> {
    this.finds++;
    return this.live;
  }
  async terminate(pid: number): Promise<void> {
    this.terminated.push(pid);
    this.procs.find((p) => p.pid === pid)?.exit(0);
    if (this.live?.pid === pid) this.live = undefined;
  }
  /** daemon makes a daemon started elsewhere (another window) live. */
  daemon(pid: number): Handshake {
    this.live = { address: "unix:///tmp/x.sock", token_file: "/tmp/x.token", pid, version: "test" };
    return this.live;
  }
}

export class FakeProcess implements Spawned {
  static seq = 100;
  readonly pid = ++FakeProcess.seq;
  readonly stderr = new PassThrough();
  readonly signals: string[] = [];
  private exitCb: ((code: number | null, signal: string | null, error?: Error) => void) | undefined;
  exited = false;

  constructor(
    readonly command: string,
    readonly args: string[],
    private readonly world: FakeWorld,
  ) {}

  kill(signal: NodeJS.Signals): void {
    this.signals.push(signal);
    if (signal === "SIGKILL" || this.dieOnTerm) this.exit(null, signal);
  }
  dieOnTerm = true;
  onExit(cb: (code: number | null, signal: string | null, error?: Error) => void): void {
    this.exitCb = cb;
  }
  /** handshake: the daemon serves and wrote its handshake file. */
  handshake(): void {
    this.world.daemon(this.pid);
  }
  exit(code: number | null, signal: string | null = null): void {
    if (this.exited) return;
    this.exited = true;
    if (this.world.live?.pid === this.pid) this.world.live = undefined;
    this.exitCb?.(code, signal);
  }
}

export function fakeSpawner(world: FakeWorld): Spawner & { procs: FakeProcess[] } {
  const spawn: Spawner = (command, args) => {
    const p = new FakeProcess(command, args, world);
    world.procs.push(p);
    return p;
  };
  return Object.assign(spawn, { procs: world.procs });
}

/** tick lets stream "data" events and promise callbacks run. */
export const tick = () => new Promise((r) => setImmediate(r));

/** settle runs pending promise callbacks, advancing the clock by stepMs between rounds. */
export async function settle(clock: FakeClock, rounds = 5, stepMs = 0): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await tick();
    clock.advance(stepMs);
  }
  await tick();
}
