// CommandRunner runs the daemon's commands: in a VS Code terminal with shell integration when
// it is available, otherwise as a child process (the output is never lost). It is free of
// VS Code: terminal.ts supplies the Terminals and Processes implementations.
//
// Contract with the daemon: output is reported with sink.output in order, and sink.exit is
// called exactly once per command, after the last output.

import { AnsiStripper } from "./ansi";

/** ShellExecution is one command run through shell integration. */
export interface ShellExecution {
  /** output yields the raw terminal output; it ends when the command ends. */
  output: AsyncIterable<string>;
  /** exitCode resolves when VS Code reports the end (undefined: unknown). */
  exitCode: Promise<number | undefined>;
}

/** CairnTerminal is a terminal the runner may use. */
export interface CairnTerminal {
  readonly name: string;
  /** execute runs through shell integration. */
  execute(command: string): ShellExecution;
  /** note prints an explanation for the user in the terminal (without running anything). */
  note(text: string): void;
  /** interrupt sends Ctrl+C. */
  interrupt(): void;
  show(): void;
}

export interface Terminals {
  /** acquire returns an idle Cairn terminal whose cwd is cwd, or a new one. */
  acquire(cwd: string): CairnTerminal;
  /** release marks the terminal idle again. */
  release(t: CairnTerminal): void;
  /** waitForShellIntegration resolves true once t supports execute, false after timeoutMs. */
  waitForShellIntegration(t: CairnTerminal, timeoutMs: number): Promise<boolean>;
}

/** BackgroundProcess is a child process in its own process group. */
export interface BackgroundProcess {
  onData(cb: (data: string) => void): void;
  /** onExit fires after all data was delivered. */
  onExit(cb: (code: number) => void): void;
  /** interrupt signals the whole process group (SIGINT, then SIGKILL after a grace period). */
  interrupt(): void;
}

export interface Processes {
  spawn(command: string, cwd: string): BackgroundProcess;
}

export interface CommandSink {
  output(commandId: string, data: string): void;
  exit(commandId: string, exitCode: number): void;
}

export interface Started {
  shellIntegration: boolean;
  terminalName: string;
}

interface Running {
  interrupt(): void;
  /** visible: the command runs in a terminal the user sees (shell integration). */
  visible: boolean;
}

export class CommandRunner {
  private readonly running = new Map<string, Running>();
  /** released holds commands handed to the user: their output and exit no longer go to the sink. */
  private readonly released = new Set<string>();

  constructor(
    private readonly terminals: Terminals,
    private readonly processes: Processes,
    private readonly sink: CommandSink,
    private readonly shellIntegrationTimeoutMs = 4000,
  ) {}

  /**
   * run starts the command and resolves once it runs; output and exit follow via the sink.
   * display is what the user is shown of it when command is another line that runs it: the
   * daemon's sandbox launcher line (docs/sandbox.md), which exits with the command's exit code.
   */
  async run(commandId: string, command: string, cwd: string, display = command): Promise<Started> {
    const term = this.terminals.acquire(cwd);
    term.show();
    if (await this.terminals.waitForShellIntegration(term, this.shellIntegrationTimeoutMs)) {
      const exec = term.execute(command);
      this.running.set(commandId, { interrupt: () => term.interrupt(), visible: true });
      void this.pump(commandId, exec).finally(() => this.terminals.release(term));
      return { shellIntegration: true, terminalName: term.name };
    }
    const how = display === command ? "" : " in Cairn's sandbox";
    term.note(
      `Cairn: shell integration is not available in this terminal, so "${display}" runs${how} as a background process; its output goes to the chat.`,
    );
    this.terminals.release(term);
    const proc = this.processes.spawn(command, cwd);
    this.running.set(commandId, { interrupt: () => proc.interrupt(), visible: false });
    proc.onData((d) => this.sink.output(commandId, d));
    proc.onExit((code) => {
      this.running.delete(commandId);
      this.sink.exit(commandId, code);
    });
    return { shellIntegration: false, terminalName: term.name };
  }

  /** kill interrupts a running command; unknown ids are ignored (it may have just finished). */
  kill(commandId: string): boolean {
    const r = this.running.get(commandId);
    r?.interrupt();
    return r !== undefined;
  }

  /**
   * release hands a running command to the user when its task ends: one in a terminal keeps
   * running there, untouched, and nothing more of it goes to the daemon. A command the user
   * cannot see (a child process without shell integration) is not released; false tells the
   * daemon to stop it.
   */
  release(commandId: string): boolean {
    const r = this.running.get(commandId);
    if (!r?.visible) return false;
    this.running.delete(commandId);
    this.released.add(commandId);
    return true;
  }

  private async pump(commandId: string, exec: ShellExecution): Promise<void> {
    const strip = new AnsiStripper();
    const drained = (async () => {
      for await (const chunk of exec.output) {
        const text = strip.push(chunk);
        if (text && !this.released.has(commandId)) this.sink.output(commandId, text);
      }
    })().catch(() => undefined);
    const code = await exec.exitCode;
    // The end event may overtake the last output: wait for the stream to finish (bounded, in
    // case a VS Code version never ends it).
    await Promise.race([drained, new Promise((r) => setTimeout(r, 3000))]);
    if (this.released.delete(commandId)) return; // the user's now; the daemon let go of it
    const rest = strip.flush();
    if (rest) this.sink.output(commandId, rest);
    this.running.delete(commandId);
    this.sink.exit(commandId, code ?? -1);
  }
}
