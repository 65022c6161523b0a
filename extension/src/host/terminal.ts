// RunCommand and KillCommand: VS Code terminals named "Cairn" with shell integration, and the
// child-process fallback (both behind CommandRunner's interfaces).

import * as vscode from "vscode";
import { spawn } from "node:child_process";
import { emptyResult, type Handler } from "./dispatcher";
import type { BackgroundProcess, CairnTerminal, CommandRunner, Processes, ShellExecution, Terminals } from "./commandRunner";

const TERMINAL_NAME = "Cairn";

interface Entry {
  terminal: vscode.Terminal;
  cwd: string;
  busy: boolean;
  wrapper: CairnTerminal;
}

/** VsCodeTerminals keeps the Cairn terminals and reuses idle ones with the same cwd. */
export class VsCodeTerminals implements Terminals, vscode.Disposable {
  private readonly entries: Entry[] = [];
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    this.subs.push(
      vscode.window.onDidCloseTerminal((t) => {
        const i = this.entries.findIndex((e) => e.terminal === t);
        if (i >= 0) this.entries.splice(i, 1);
      }),
    );
  }

  acquire(cwd: string): CairnTerminal {
    let e = this.entries.find((x) => !x.busy && x.cwd === cwd && x.terminal.exitStatus === undefined);
    if (!e) {
      const terminal = vscode.window.createTerminal({ name: TERMINAL_NAME, cwd: cwd || undefined, iconPath: new vscode.ThemeIcon("terminal") });
      e = { terminal, cwd, busy: false, wrapper: wrap(terminal) };
      this.entries.push(e);
    }
    e.busy = true;
    return e.wrapper;
  }

  release(t: CairnTerminal): void {
    const e = this.entries.find((x) => x.wrapper === t);
    if (e) e.busy = false;
  }

  waitForShellIntegration(t: CairnTerminal, timeoutMs: number): Promise<boolean> {
    const e = this.entries.find((x) => x.wrapper === t);
    if (!e) return Promise.resolve(false);
    if (e.terminal.shellIntegration) return Promise.resolve(true);
    // The timeout counts from the moment the shell process exists: starting a terminal can
    // take longer than the timeout on a loaded machine, and that says nothing about shell
    // integration.
    const started = Promise.race([e.terminal.processId, new Promise((r) => setTimeout(r, 20_000))]);
    return started.then(() => this.waitForActivation(e, timeoutMs));
  }

  private waitForActivation(e: Entry, timeoutMs: number): Promise<boolean> {
    if (e.terminal.shellIntegration) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(e.terminal.shellIntegration !== undefined);
      }, timeoutMs);
      const sub = vscode.window.onDidChangeTerminalShellIntegration((ev) => {
        if (ev.terminal !== e.terminal) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(true);
      });
    });
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
  }
}

function wrap(terminal: vscode.Terminal): CairnTerminal {
  return {
    name: terminal.name,
    execute(command: string): ShellExecution {
      const si = terminal.shellIntegration;
      if (!si) throw new Error("shell integration went away");
      let resolveExit: (code: number | undefined) => void = () => {};
      const exitCode = new Promise<number | undefined>((r) => (resolveExit = r));
      const execution = si.executeCommand(command);
      const sub = vscode.window.onDidEndTerminalShellExecution((ev) => {
        if (ev.execution !== execution) return;
        sub.dispose();
        resolveExit(ev.exitCode);
      });
      const closeSub = vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal) return;
        closeSub.dispose();
        resolveExit(undefined);
      });
      // read() must be called at once, or early output is lost.
      return { output: execution.read(), exitCode };
    },
    note(text: string) {
      // A comment line is inert in POSIX shells, fish and PowerShell alike.
      terminal.sendText(`# ${text.replace(/\n/g, " ")}`, true);
    },
    interrupt() {
      terminal.sendText("\x03", false);
    },
    show() {
      terminal.show(true);
    },
  };
}

/** childProcesses runs commands with the user's shell, in their own process group. */
export const childProcesses: Processes = {
  spawn(command: string, cwd: string): BackgroundProcess {
    const child = spawn(command, { cwd: cwd || undefined, shell: process.env.SHELL || true, detached: process.platform !== "win32", env: process.env });
    let dataCb: (d: string) => void = () => {};
    let exitCb: (code: number) => void = () => {};
    child.stdout?.setEncoding("utf8").on("data", (d: string) => dataCb(d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => dataCb(d));
    // "close" fires after both pipes ended, so every byte was delivered before the exit.
    child.on("close", (code, signal) => exitCb(code ?? (signal ? 128 + (signalNumber(signal) ?? 1) : -1)));
    child.on("error", (err) => {
      dataCb(`${err.message}\n`);
    });
    const signalGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(process.platform === "win32" ? child.pid : -child.pid, sig);
      } catch {
        /* already gone */
      }
    };
    return {
      onData: (cb) => (dataCb = cb),
      onExit: (cb) => (exitCb = cb),
      interrupt: () => {
        signalGroup("SIGINT");
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) signalGroup("SIGKILL");
        }, 2000).unref();
      },
    };
  },
};

function signalNumber(sig: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[sig];
}

export function runCommand(runner: CommandRunner): Handler<"runCommand"> {
  return async (req) => {
    // A sandboxed command comes as the launcher line that runs it; the user is shown theirs.
    const started = await runner.run(req.commandId, req.command, req.cwd, req.displayCommand || req.command);
    return { case: "runCommand", value: { $typeName: "cairn.host.v1.RunCommandResult", ...started } };
  };
}

export function killCommand(runner: CommandRunner): Handler<"killCommand"> {
  return async (req) => {
    runner.kill(req.commandId);
    return emptyResult;
  };
}

export function releaseCommand(runner: CommandRunner): Handler<"releaseCommand"> {
  return async (req) => {
    const released = runner.release(req.commandId);
    return { case: "releaseCommand", value: { $typeName: "cairn.host.v1.ReleaseCommandResult", released } };
  };
}
