// Hand-written fakes shared by the tests.

import { PassThrough } from "node:stream";
import type { Clock, Spawned, Spawner } from "../src/supervisor/supervisor";

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

export class FakeProcess implements Spawned {
  static seq = 100;
  readonly pid = ++FakeProcess.seq;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly signals: string[] = [];
  private exitCb: ((code: number | null, signal: string | null, error?: Error) => void) | undefined;
  exited = false;

  constructor(readonly command: string, readonly args: string[]) {}

  kill(signal: NodeJS.Signals): void {
    this.signals.push(signal);
    if (signal === "SIGKILL" || this.dieOnTerm) this.exit(null, signal);
  }
  dieOnTerm = true;
  onExit(cb: (code: number | null, signal: string | null, error?: Error) => void): void {
    this.exitCb = cb;
  }
  handshake(): void {
    this.stdout.write(JSON.stringify({ address: "unix:///tmp/x.sock", token_file: "/tmp/x.token", pid: this.pid, version: "test" }) + "\n");
  }
  exit(code: number | null, signal: string | null = null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCb?.(code, signal);
  }
}

export function fakeSpawner(): Spawner & { procs: FakeProcess[] } {
  const procs: FakeProcess[] = [];
  const spawn: Spawner = (command, args) => {
    const p = new FakeProcess(command, args);
    procs.push(p);
    return p;
  };
  return Object.assign(spawn, { procs });
}

/** tick lets stream "data" events and promise callbacks run. */
export const tick = () => new Promise((r) => setImmediate(r));
