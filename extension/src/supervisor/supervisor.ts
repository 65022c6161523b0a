// Supervisor runs `cairn serve`, waits for its handshake, and restarts it after a crash.
// It knows nothing about VS Code: the process spawner, clock and sinks are injected, so the
// restart behaviour is unit-tested with a fake spawner.

import { LineSplitter, parseHandshake, type Handshake } from "./handshake";
import { RestartPolicy } from "./policy";

/** Spawned is the part of a child process the supervisor uses. */
export interface Spawned {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  kill(signal: NodeJS.Signals): void;
  /** onExit is called once, when the process has exited (or failed to start). */
  onExit(cb: (code: number | null, signal: string | null, error?: Error) => void): void;
}

/** Spawner starts a process; it must not throw for a missing binary but report it via onExit. */
export type Spawner = (command: string, args: string[]) => Spawned;

export type SupervisorState =
  | { kind: "starting" }
  | { kind: "ready"; handshake: Handshake }
  | { kind: "restarting"; reason: string; delayMs: number; crash: number }
  | { kind: "failed"; reason: string }
  | { kind: "stopped" };

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface SupervisorOptions {
  spawner: Spawner;
  command: string;
  args: string[];
  handshakeTimeoutMs?: number;
  /** Grace period between SIGTERM and SIGKILL on stop. */
  stopTimeoutMs?: number;
  policy?: RestartPolicy;
  clock?: Clock;
  /** log receives the daemon's stderr and the supervisor's own notes, line by line. */
  log(line: string): void;
  onState(state: SupervisorState): void;
}

/**
 * Supervisor owns at most one daemon process at a time. States: starting → ready; on an
 * unexpected exit → restarting (after the policy's delay) → starting …; after too many crashes
 * → failed (until restart() is called); stop() → stopped.
 */
export class Supervisor {
  private proc: Spawned | undefined;
  private startedAt = 0;
  private stopping = false;
  private timer: unknown;
  private state: SupervisorState = { kind: "stopped" };
  private readonly policy: RestartPolicy;
  private readonly clock: Clock;
  private exitWaiters: Array<() => void> = [];

  constructor(private readonly opts: SupervisorOptions) {
    this.policy = opts.policy ?? new RestartPolicy();
    this.clock = opts.clock ?? realClock;
  }

  get current(): SupervisorState {
    return this.state;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** start launches the daemon (no-op while one is running). */
  start(): void {
    this.stopping = false;
    if (this.proc) return;
    this.launch();
  }

  /** restart forgets past crashes and starts a fresh daemon (the "Restart" action). */
  async restart(): Promise<void> {
    this.policy.reset();
    await this.stop();
    this.start();
  }

  /** abandon kills a daemon that cannot be used (e.g. it refuses connections); the exit is
   * handled as a crash, so the restart policy applies. */
  abandon(reason: string): void {
    if (!this.proc) return;
    this.opts.log(`[supervisor] abandoning the daemon: ${reason}`);
    this.proc.kill("SIGKILL");
  }

  /** stop sends SIGTERM, then SIGKILL after the grace period, and resolves once it exited. */
  stop(): Promise<void> {
    this.stopping = true;
    this.cancelTimer();
    const p = this.proc;
    if (!p) {
      this.setState({ kind: "stopped" });
      return Promise.resolve();
    }
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    p.kill("SIGTERM");
    const kill = this.clock.setTimeout(() => {
      if (this.proc === p) p.kill("SIGKILL");
    }, this.opts.stopTimeoutMs ?? 3000);
    return exited.then(() => this.clock.clearTimeout(kill));
  }

  private launch(): void {
    this.setState({ kind: "starting" });
    const p = this.opts.spawner(this.opts.command, this.opts.args);
    this.proc = p;
    this.startedAt = this.clock.now();
    let ready = false;
    let exited = false;
    const stdoutLines = new LineSplitter();
    const stderrLines = new LineSplitter();

    const handshakeTimer = this.clock.setTimeout(() => {
      if (ready || exited) return;
      this.opts.log(`[supervisor] no handshake within ${this.opts.handshakeTimeoutMs ?? 10_000} ms; killing the daemon`);
      p.kill("SIGKILL");
    }, this.opts.handshakeTimeoutMs ?? 10_000);

    p.stdout.on("data", (chunk: Buffer | string) => {
      for (const line of stdoutLines.push(chunk.toString())) {
        if (ready || !line.trim()) {
          if (line.trim()) this.opts.log(line);
          continue;
        }
        try {
          const hs = parseHandshake(line);
          ready = true;
          this.clock.clearTimeout(handshakeTimer);
          this.opts.log(`[supervisor] daemon ${hs.version} ready (pid ${hs.pid}) at ${hs.address}`);
          if (this.proc === p && !this.stopping) this.setState({ kind: "ready", handshake: hs });
        } catch (e) {
          this.opts.log(`[supervisor] ${(e as Error).message}`);
        }
      }
    });
    p.stderr.on("data", (chunk: Buffer | string) => {
      for (const line of stderrLines.push(chunk.toString())) this.opts.log(line);
    });

    p.onExit((code, signal, error) => {
      if (exited) return;
      exited = true;
      this.clock.clearTimeout(handshakeTimer);
      for (const line of stderrLines.flush()) this.opts.log(line);
      if (this.proc !== p) return;
      this.proc = undefined;
      const waiters = this.exitWaiters;
      this.exitWaiters = [];
      waiters.forEach((w) => w());
      const how = error ? error.message : signal ? `signal ${signal}` : `exit code ${code}`;
      if (this.stopping) {
        this.opts.log(`[supervisor] daemon stopped (${how})`);
        this.setState({ kind: "stopped" });
        return;
      }
      const reason = ready ? `the daemon exited (${how})` : `the daemon failed to start (${how})`;
      this.opts.log(`[supervisor] ${reason}`);
      const decision = this.policy.onCrash(this.clock.now() - this.startedAt);
      if (decision.action === "giveUp") {
        this.setState({ kind: "failed", reason: `${reason}; it crashed ${decision.crash} times in a row` });
        return;
      }
      this.setState({ kind: "restarting", reason, delayMs: decision.delayMs, crash: decision.crash });
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        if (!this.stopping && !this.proc) this.launch();
      }, decision.delayMs);
    });
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private setState(s: SupervisorState): void {
    this.state = s;
    this.opts.onState(s);
  }
}
