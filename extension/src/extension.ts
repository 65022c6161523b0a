// The extension's composition root: a supervisor for the daemon, the host bridge, and the
// webview relay, nothing more (docs/conventions.md, "The extension and the webview").

import * as vscode from "vscode";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Daemon } from "./daemon";
import { detachedSpawner } from "./supervisor/spawn";
import { cairnRegistry } from "./rpc/registry";
import { WebviewHost } from "./webview/host";
import { VirtualDocs, DIFF_SCHEME } from "./host/virtualDocs";
import { DiffSessions } from "./host/diff";
import { CommandRunner } from "./host/commandRunner";
import { VsCodeTerminals, childProcesses } from "./host/terminal";
import { hostHandlers } from "./host";
import { LanguageModels } from "./host/languageModels";
import { newClientId } from "./host/clientId";
import { registerCommands } from "./commands";
import { SECRET_KEY, apiKeyIn } from "./apiKey";
import { TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { SubscribeResponse } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { Broadcast, DaemonStatus, HostEvent } from "@cairn/proto/envelope";

let daemon: Daemon | undefined;

export function activate(ctx: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Cairn");
  const rpcLog = vscode.window.createOutputChannel("Cairn RPC");
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "cairn.focusChat";
  ctx.subscriptions.push(log, rpcLog, status);
  const config = () => vscode.workspace.getConfiguration("cairn");

  const docs = new VirtualDocs();
  ctx.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, docs));
  const diffs = new DiffSessions(docs);
  const terminals = new VsCodeTerminals();
  ctx.subscriptions.push(diffs, terminals);

  const runner = new CommandRunner(
    terminals,
    childProcesses,
    {
      output: (commandId, data) => daemon?.sendEvent({ case: "commandOutput", value: { $typeName: "cairn.host.v1.CommandOutput", commandId, data } }),
      exit: (commandId, exitCode) => daemon?.sendEvent({ case: "commandExit", value: { $typeName: "cairn.host.v1.CommandExit", commandId, exitCode } }),
    },
    config().get<number>("terminalShellIntegrationTimeout", 4000),
  );

  // The editor's own language models, for the vscode-lm provider.
  const languageModels = new LanguageModels(vscode, (e) => daemon?.sendEvent(e), (l) => log.appendLine(l));

  // Status bar: idle / working / error.
  let daemonStatus: DaemonStatus = "starting";
  const running = new Set<string>();
  const renderStatus = () => {
    if (daemonStatus === "failed") {
      status.text = "$(error) Cairn";
      status.tooltip = "The Cairn daemon is not running (click for the chat; see the Cairn log)";
      status.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    } else if (daemonStatus !== "ready" || running.size > 0) {
      status.text = "$(loading~spin) Cairn";
      status.tooltip = daemonStatus === "ready" ? "Cairn is working" : `Cairn daemon: ${daemonStatus}`;
      status.backgroundColor = undefined;
    } else {
      status.text = "$(check) Cairn";
      status.tooltip = "Cairn is idle";
      status.backgroundColor = undefined;
    }
    status.show();
  };
  renderStatus();

  // This window's editor, as tasks name it: the same across reconnects of the bridge, so tasks
  // started before a reconnect (or before the bridge first opened) still use this editor.
  const hostClientId = newClientId("window");
  let lastDaemonEvent: HostEvent | undefined;
  const contextEvent = (): Broadcast => ({
    type: "host",
    event: "context",
    workspaceRoots: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    hostId: hostClientId,
    parallelWorktrees: config().get<boolean>("parallelTasksInWorktrees", true),
  });

  // Keys the daemon must not find in its environment under any name (detachedSpawner): the one
  // in secret storage, and any the settings view stores while the window is open.
  const knownKeys: string[] = [];
  void ctx.secrets.get(SECRET_KEY).then((k) => {
    if (k) knownKeys.push(k);
  });

  const webviews: WebviewHost = new WebviewHost({
    extensionUri: ctx.extensionUri,
    context: contextEvent,
    latestDaemon: () => lastDaemonEvent,
    notifyBackground: () => config().get<"off" | "waiting" | "all">("notifyBackgroundTasks", "all"),
    relay: {
      registry: cairnRegistry,
      transport: () => daemon!.transport(),
      onRequest: (service, method, request) => {
        const key = apiKeyIn(service, method, request);
        if (key) {
          knownKeys.push(key);
          void ctx.secrets.store(SECRET_KEY, key).then(() => log.appendLine("[extension] API key stored in SecretStorage"));
        }
      },
      onResponse: (service, method, response) => {
        if (service !== "cairn.v1.UiService" || method !== "Subscribe") return;
        const ev = (response as SubscribeResponse).event;
        const st = ev.case === "stateChanged" ? ev.value : ev.case === "snapshot" ? ev.value.state : undefined;
        if (!st) return;
        if (st.status === TaskStatus.RUNNING) running.add(st.taskId);
        else running.delete(st.taskId);
        renderStatus();
      },
    },
  });
  // A change of cairn.parallelTasksInWorktrees reaches the webviews with the context.
  ctx.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("cairn.parallelTasksInWorktrees")) webviews.broadcast(contextEvent());
    }),
  );
  ctx.subscriptions.push(webviews, vscode.window.registerWebviewViewProvider(WebviewHost.viewId, webviews, { webviewOptions: { retainContextWhenHidden: true } }));

  const dataDir = ctx.globalStorageUri.fsPath;
  fs.mkdirSync(dataDir, { recursive: true });
  // One daemon serves every window: the first starts it, the others find it through the
  // handshake file. It ends itself a while after the last window left (--idle-exit).
  const args = ["serve", "--data-dir", dataDir];
  // Unix socket paths are limited to ~104 bytes; a long storage path gets a socket in tmp, named
  // after the data dir so every window picks the same one (the bind decides who serves).
  if (process.platform !== "win32" && path.join(dataDir, "daemon.sock").length > 100) {
    const id = crypto.createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
    args.push("--socket", path.join(os.tmpdir(), `cairn-${id}.sock`));
  }
  args.push(...config().get<string[]>("daemonArgs", []));
  const command = daemonPath(ctx);
  log.appendLine(`[extension] daemon: ${command} ${args.join(" ")} (its log: ${path.join(dataDir, "daemon.log")})`);

  daemon = new Daemon({
    command,
    args,
    spawner: detachedSpawner(path.join(dataDir, "daemon.log"), () => knownKeys, () => ({
      proxy: vscode.workspace.getConfiguration("http").get<string>("proxy") ?? "",
      noProxy: vscode.workspace.getConfiguration("http").get<string[]>("noProxy") ?? [],
      managedPolicy: vscode.workspace.getConfiguration("cairn").get<string>("managedPolicy") ?? "",
    })),
    handshakeFile: path.join(dataDir, "daemon.json"),
    log: (l) => log.appendLine(l),
    trace: (l) => rpcLog.appendLine(`${new Date().toISOString()} ${l}`),
    traceEnabled: () => config().get<boolean>("rpcTrace", false),
    handlers: hostHandlers(diffs, runner, docs, languageModels),
    hello: () => ({
      client: "vscode",
      ideName: vscode.env.appName || "VSCode",
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      shell: vscode.env.shell,
      diffView: true,
      terminal: true,
      editor: true,
      languageModels: true,
      // This host does not serve reads (ReadFileRequest): the daemon reads the disk.
      readFile: false,
      clientId: hostClientId,
    }),
    apiKey: async () => ctx.secrets.get(SECRET_KEY),
    onStatus: (s, detail) => {
      daemonStatus = s;
      if (s !== "ready") running.clear();
      renderStatus();
      lastDaemonEvent = { type: "host", event: "daemon", status: s };
      webviews.broadcast(lastDaemonEvent);
      if (s === "ready") webviews.broadcast(contextEvent());
      if (s === "failed") {
        void vscode.window.showErrorMessage(`Cairn: ${detail.reason ?? "the daemon stopped"}`, "Show Log", "Restart").then((pick) => {
          if (pick === "Show Log") log.show();
          if (pick === "Restart") void daemon?.supervisor.restart();
        });
      }
    },
  });

  registerCommands(ctx, {
    webviews,
    decide: (approved) => {
      const sessionId = diffs.sessionOfActiveEditor();
      if (!sessionId) return;
      daemon?.sendEvent({ case: "diffDecision", value: { $typeName: "cairn.host.v1.DiffDecision", sessionId, approved } });
    },
    restartDaemon: () => void daemon?.supervisor.restart(),
    showLog: () => log.show(),
    scm: { transport: () => daemon!.transport(), activeTask: () => webviews.activeTaskId },
  });

  ctx.subscriptions.push(
    vscode.workspace.onDidChangeWorkspaceFolders(() => webviews.broadcast(contextEvent())),
    vscode.window.onDidChangeActiveTextEditor((ed) => {
      if (ed?.document.uri.scheme === "file") {
        daemon?.sendEvent({ case: "activeEditorChanged", value: { $typeName: "cairn.host.v1.ActiveEditorChanged", path: ed.document.uri.fsPath } });
      }
    }),
  );

  daemon.start();
}

export async function deactivate(): Promise<void> {
  const d = daemon;
  daemon = undefined;
  await d?.stop();
}

/** daemonPath is the cairn.daemonPath setting, else the binary bundled for this platform. */
function daemonPath(ctx: vscode.ExtensionContext): string {
  const configured = vscode.workspace.getConfiguration("cairn").get<string>("daemonPath", "");
  if (configured) return configured;
  const exe = process.platform === "win32" ? "cairn.exe" : "cairn";
  const bundled = path.join(ctx.extensionPath, "bin", `${process.platform}-${process.arch}`, exe);
  try {
    // Unpacking a .vsix may drop the executable bit.
    if (process.platform !== "win32" && (fs.statSync(bundled).mode & 0o111) === 0) fs.chmodSync(bundled, 0o755);
  } catch {
    /* missing: the spawn reports it */
  }
  return bundled;
}
