// Supervisor finds or starts the shared `cairn serve` daemon and restarts it after it is lost.
// One daemon serves every window on a data dir: a window first looks for a live one through
// the handshake file the daemon writes, and only starts one (detached, so it outlives this
// window) when there is none. When several windows start one at once the socket bind decides:
// the losers exit with exitDaemonRunning and their windows attach to the winner.
// It knows nothing about VS Code: the spawner, the locator and the clock are injected, so the
// behaviour is unit-tested with fakes.

import { LineSplitter, type Handshake } from "./handshake";
import { RestartPolicy } from "./policy";

/** firstPollMs is how often a spawned daemon is looked for in its first pollMs: it is ready within milliseconds. */
const firstPollMs = 5;

/** exitDaemonRunning is `cairn serve`'s exit code when another daemon already serves the socket. */
export const exitDaemonRunning = 4;

/** Spawned is the part of a child process the supervisor uses. */
export interface Spawned {
  readonly pid: number | undefined;
  /** stderr, when the spawner pipes it (a detached daemon writes to a log file instead). */
  readonly stderr?: NodeJS.ReadableStream;
  kill(signal: NodeJS.Signals): void;
  /** onExit is called once, when the process has exited (or failed to start). */
  onExit(cb: (code: number | null, signal: string | null, error?: Error) => void): void;
}

/** Spawner starts a process; it must not throw for a missing binary but report it via onExit. */
export type Spawner = (command: string, args: string[]) => Spawned;

/**
 * Locator finds the running daemon: find resolves to its handshake once it is proven live (its
 * pid exists and an authenticated call succeeded), else to undefined. It never rejects.
 */
export interface Locator {
  find(): Promise<Handshake | undefined>;
  /** terminate asks the daemon with this pid to stop and resolves once it is gone. */
  terminate(pid: number): Promise<void>;
}

export type SupervisorState =
  | { kind: "starting" }
  | { kind: "ready"; handshake: Handshake; spawned: boolean }
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
  locator: Locator;
  command: string;
  args: string[];
  /** How long a spawned daemon may take until the locator finds it. */
  handshakeTimeoutMs?: number;
  /**
   * How often the locator is asked while a spawned daemon starts, once the first pollMs after
   * the spawn have passed; within them it is asked every firstPollMs.
   */
  pollMs?: number;
  /**
   * supersedes says whether this window's binary should replace a running daemon (it is a
   * newer build than the daemon's). Windows agree on which binary is newer, so two versions
   * never take turns replacing each other.
   */
  supersedes?(found: Handshake): boolean;
  policy?: RestartPolicy;
  clock?: Clock;
  /** log receives the daemon's stderr (when piped) and the supervisor's own notes, line by line. */
  log(line: string): void;
  onState(state: SupervisorState): void;
}

/**
 * Supervisor states: starting → ready (attached to a running daemon, or one it spawned); when
 * the daemon is lost (it exited, or the connection to it failed) → restarting (after the
 * policy's delay) → starting …; after too many losses → failed (until restart()); stop() →
 * stopped, which leaves the daemon running for the other windows: it ends itself once idle.
 */
export class Supervisor {
  private proc: Spawned | undefined;
  private startedAt = 0;
  private stopping = false;
  private timer: unknown;
  private state: SupervisorState = { kind: "stopped" };
  private readonly policy: RestartPolicy;
  private readonly clock: Clock;
  /** attempt increases whenever a launch is superseded (stop, loss, restart): stale async steps check it. */
  private attempt = 0;

  constructor(private readonly opts: SupervisorOptions) {
    this.policy = opts.policy ?? new RestartPolicy();
    this.clock = opts.clock ?? realClock;
  }

  get current(): SupervisorState {
    return this.state;
  }

  /** pid is the daemon's process id while ready (whoever started it). */
  get pid(): number | undefined {
    return this.state.kind === "ready" ? this.state.handshake.pid : undefined;
  }

  /** start finds or launches the daemon (no-op while starting or ready). */
  start(): void {
    this.stopping = false;
    if (this.state.kind === "starting" || this.state.kind === "ready") return;
    void this.launch();
  }

  /**
   * restart forgets past losses, stops the running daemon (every window reconnects to the
   * next one) and starts a fresh one (the "Restart" action).
   */
  async restart(): Promise<void> {
    this.policy.reset();
    const pid = this.pid;
    this.supersede();
    if (pid) {
      this.opts.log(`[supervisor] stopping the daemon (pid ${pid}) to restart it`);
      await this.opts.locator.terminate(pid);
    }
    this.stopping = false;
    void this.launch();
  }

  /** lost reports that the daemon can no longer be used; the restart policy applies. */
  lost(reason: string): void {
    if (this.stopping || this.state.kind !== "ready") return;
    this.supersede();
    this.opts.log(`[supervisor] ${reason}`);
    this.onLoss(reason);
  }

  /** abandon is lost() for a daemon this window could not talk to after it was found. */
  abandon(reason: string): void {
    this.lost(`abandoning the daemon: ${reason}`);
  }

  /** stop disconnects this window; the shared daemon keeps serving the others. */
  stop(): Promise<void> {
    this.stopping = true;
    this.supersede();
    this.setState({ kind: "stopped" });
    return Promise.resolve();
  }

  private supersede(): void {
    this.attempt++;
    this.cancelTimer();
    this.proc = undefined;
  }

  private async launch(): Promise<void> {
    const attempt = ++this.attempt;
    const current = () => attempt === this.attempt && !this.stopping;
    this.setState({ kind: "starting" });
    this.startedAt = this.clock.now();
    let found = await this.opts.locator.find();
    if (!current()) return;
    if (found && this.opts.supersedes?.(found)) {
      this.opts.log(`[supervisor] the running daemon (pid ${found.pid}, ${found.executable}) is older than ${this.opts.command}; replacing it`);
      await this.opts.locator.terminate(found.pid);
      if (!current()) return;
      found = undefined;
    }
    if (found) {
      this.opts.log(`[supervisor] attached to the running daemon ${found.version} (pid ${found.pid}) at ${found.address}`);
      this.setState({ kind: "ready", handshake: found, spawned: false });
      return;
    }

    const spawnedAt = this.clock.now();
    const p = this.opts.spawner(this.opts.command, this.opts.args);
    this.proc = p;
    let exit: { code: number | null; how: string } | undefined;
    const stderrLines = new LineSplitter();
    p.stderr?.on("data", (chunk: Buffer | string) => {
      for (const line of stderrLines.push(chunk.toString())) this.opts.log(line);
    });
    p.onExit((code, signal, error) => {
      for (const line of stderrLines.flush()) this.opts.log(line);
      exit = { code, how: error ? error.message : signal ? `signal ${signal}` : `exit code ${code}` };
      // A daemon we started and were using went away.
      if (this.proc === p && this.state.kind === "ready" && this.state.handshake.pid === p.pid) {
        this.lost(`the daemon exited (${exit.how})`);
      }
    });

    const timeoutMs = this.opts.handshakeTimeoutMs ?? 10_000;
    const deadline = this.clock.now() + timeoutMs;
    // The daemon writes its handshake file a few milliseconds after it starts
    // (docs/performance.md, "P5 — the daemon at rest"): looking only every pollMs would keep
    // the window waiting up to a whole interval for a daemon that is long ready. A look that
    // finds no file costs one failed read.
    const pollMs = this.opts.pollMs ?? 100;
    for (;;) {
      await this.sleep(this.clock.now() - spawnedAt < pollMs ? firstPollMs : pollMs);
      if (!current()) return;
      const hs = await this.opts.locator.find();
      if (!current()) return;
      if (hs) {
        const spawned = hs.pid === p.pid;
        this.opts.log(
          spawned
            ? `[supervisor] daemon ${hs.version} ready (pid ${hs.pid}) at ${hs.address}, ${this.clock.now() - spawnedAt} ms after it was spawned`
            : `[supervisor] another window started the daemon first; attached to pid ${hs.pid} at ${hs.address}`,
        );
        if (!spawned) this.proc = undefined;
        this.setState({ kind: "ready", handshake: hs, spawned });
        return;
      }
      // A loser of the bind race exits at once; the winner's handshake follows: keep looking.
      if (exit && exit.code !== exitDaemonRunning) {
        this.proc = undefined;
        this.supersede();
        const reason = `the daemon failed to start (${exit.how})`;
        this.opts.log(`[supervisor] ${reason}`);
        this.onLoss(reason);
        return;
      }
      if (this.clock.now() >= deadline) {
        this.opts.log(`[supervisor] no handshake within ${timeoutMs} ms; killing the daemon`);
        p.kill("SIGKILL");
        this.supersede();
        this.onLoss("the daemon failed to start (no handshake)");
        return;
      }
    }
  }

  /** onLoss applies the restart policy after the daemon was lost or failed to start. */
  private onLoss(reason: string): void {
    const decision = this.policy.onCrash(this.clock.now() - this.startedAt);
    if (decision.action === "giveUp") {
      this.setState({ kind: "failed", reason: `${reason}; it failed ${decision.crash} times in a row` });
      return;
    }
    this.setState({ kind: "restarting", reason, delayMs: decision.delayMs, crash: decision.crash });
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopping) void this.launch();
    }, decision.delayMs);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
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
