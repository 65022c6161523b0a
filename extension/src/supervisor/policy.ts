// Restart policy for the daemon: pure, so it is unit-tested without processes or timers.

/** RestartDecision says what to do after the daemon exited unexpectedly. */
export type RestartDecision =
  | { action: "restart"; delayMs: number; crash: number }
  | { action: "giveUp"; crash: number };

export interface RestartPolicyOptions {
  /** The crash that makes the supervisor give up: the fifth (docs/architecture.md, "The extension"). */
  maxCrashes: number;
  /** Delay before the first restart; doubled for each further crash. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A daemon that ran this long before crashing is considered healthy: the count restarts. */
  stableAfterMs: number;
}

export const defaultRestartPolicy: RestartPolicyOptions = {
  maxCrashes: 5,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  stableAfterMs: 5 * 60_000,
};

/**
 * RestartPolicy counts crashes. A crash after a long healthy run starts a new count, so a
 * daemon that crashes once a day is restarted forever, while a crash loop stops after
 * maxCrashes attempts.
 */
export class RestartPolicy {
  private crashes = 0;

  constructor(private readonly opts: RestartPolicyOptions = defaultRestartPolicy) {}

  /** onCrash records a crash of a daemon that had been running for uptimeMs. */
  onCrash(uptimeMs: number): RestartDecision {
    if (uptimeMs >= this.opts.stableAfterMs) this.crashes = 0;
    this.crashes++;
    if (this.crashes >= this.opts.maxCrashes) return { action: "giveUp", crash: this.crashes };
    const delayMs = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (this.crashes - 1));
    return { action: "restart", delayMs, crash: this.crashes };
  }

  /** reset forgets past crashes (the user pressed "Restart"). */
  reset(): void {
    this.crashes = 0;
  }

  get crashCount(): number {
    return this.crashes;
  }
}
