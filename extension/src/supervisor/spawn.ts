// The real spawner: child_process.spawn adapted to Supervisor's Spawned.

import { spawn } from "node:child_process";
import type { Spawned, Spawner } from "./supervisor";

export const nodeSpawner: Spawner = (command, args): Spawned => {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });
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
    stdout: child.stdout,
    stderr: child.stderr,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    onExit: (f) => {
      cb = f;
      if (result) f(...result);
    },
  };
};
