// The real spawner and locator: child_process and the handshake file on disk.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { daemonEnv, withEditorNetwork, type EditorNetwork } from "./env";
import { parseHandshake, type Handshake } from "./handshake";
import type { Locator, Spawned, Spawner } from "./supervisor";

/** maxLogBytes is the daemon log's size past which the next start begins a new one. */
const maxLogBytes = 4 << 20;

/**
 * detachedSpawner starts the daemon in its own process group with its output appended to
 * logFile, and does not wait for it: the daemon outlives the window that started it (it ends
 * itself once no client is left). No pipe ties it to this process, so it cannot be killed by
 * writing to a pipe whose reader is gone. Its environment has no keys (daemonEnv; secrets are
 * the values known to be keys, such as the one in secret storage); it has the editor's proxy and
 * managed policy (network, read at each start).
 */
export function detachedSpawner(
  logFile: string,
  secrets: () => readonly string[] = () => [],
  network: () => EditorNetwork = () => ({ proxy: "", noProxy: [], managedPolicy: "" }),
): Spawner {
  return (command, args): Spawned => {
    let out: number | "ignore" = "ignore";
    try {
      // Keep one previous log; the daemon appends to a fresh one past a few megabytes.
      if ((fs.statSync(logFile, { throwIfNoEntry: false })?.size ?? 0) > maxLogBytes) fs.renameSync(logFile, `${logFile}.1`);
      out = fs.openSync(logFile, "a", 0o600);
    } catch {
      /* no log then; the daemon still runs */
    }
    const child = spawn(command, args, { detached: true, stdio: ["ignore", out, out], env: withEditorNetwork(daemonEnv(process.env, secrets()), network()) });
    if (typeof out === "number") fs.closeSync(out);
    child.unref();
    return adapt(child);
  };
}

/** pipedSpawner keeps stderr piped to the caller (tests read the daemon's log that way). */
export const pipedSpawner: Spawner = (command, args) => adapt(spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: daemonEnv(process.env) }));

function adapt(child: ReturnType<typeof spawn>): Spawned {
  let cb: ((code: number | null, signal: string | null, error?: Error) => void) | undefined;
  let result: [number | null, string | null, Error | undefined] | undefined;
  const finish = (code: number | null, signal: string | null, error?: Error) => {
    if (result) return;
    result = [code, signal, error];
    cb?.(code, signal, error);
  };
  child.on("error", (err) => finish(null, null, err));
  child.on("exit", (code, signal) => finish(code, signal));
  return {
    pid: child.pid,
    stderr: child.stderr ?? undefined,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    onExit: (f) => {
      cb = f;
      if (result) f(...result);
    },
  };
}

/**
 * newerBinary returns supersedes for a window whose daemon binary is command: it replaces a
 * daemon running another binary file when its own was modified later (an upgrade). A daemon
 * that does not name its binary, or whose binary cannot be read, is kept.
 */
export function newerBinary(command: string): (found: Handshake) => boolean {
  return (found) => {
    if (!found.executable) return false;
    try {
      const ours = fs.realpathSync(command);
      if (ours === found.executable) return false;
      return fs.statSync(ours).mtimeMs > fs.statSync(found.executable).mtimeMs;
    } catch {
      return false;
    }
  };
}

/** pidAlive reports whether a process exists (signal 0 delivers nothing; EPERM: it exists, not ours). */
export function pidAlive(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface FileLocatorOptions {
  handshakeFile: string;
  /** probe makes one authenticated call; it rejects when the daemon does not answer. */
  probe(hs: Handshake, token: string): Promise<void>;
  log(line: string): void;
  alive?: (pid: number) => boolean;
  /** How long terminate waits for the daemon to exit after SIGTERM before SIGKILL. */
  stopTimeoutMs?: number;
}

/** fileLocator finds the daemon through its handshake file, proving it alive with a probe call. */
export function fileLocator(opts: FileLocatorOptions): Locator {
  const alive = opts.alive ?? pidAlive;
  return {
    async find() {
      let text: string;
      try {
        text = await fs.promises.readFile(opts.handshakeFile, "utf8");
      } catch {
        return undefined;
      }
      try {
        const hs = parseHandshake(text.trim());
        if (!alive(hs.pid)) {
          opts.log(`[supervisor] the handshake file names pid ${hs.pid}, which is gone`);
          return undefined;
        }
        const token = (await fs.promises.readFile(hs.token_file, "utf8")).trim();
        await opts.probe(hs, token);
        return hs;
      } catch (e) {
        opts.log(`[supervisor] the daemon in ${opts.handshakeFile} does not answer: ${(e as Error).message}`);
        return undefined;
      }
    },
    async terminate(pid) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        return;
      }
      const end = Date.now() + (opts.stopTimeoutMs ?? 3000);
      while (alive(pid)) {
        if (Date.now() > end) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone meanwhile */
          }
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
