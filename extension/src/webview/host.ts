// Webview hosting: the sidebar view (cairn.chat) and the "Open in Editor Tab" panel. Each
// webview gets its own Relay and its own client id; host events (context, daemon status,
// addToInput, navigate) are broadcast to all of them, the context with each webview's id.

import * as vscode from "vscode";
import { randomBytes } from "node:crypto";
import { makeNonce, webviewHtml } from "./html";
import { Relay, type RelayOptions } from "../relay/relay";
import { newClientId } from "../host/clientId";
import { forWebview, type Broadcast, type FromWebview, type HostEvent, type ToWebview } from "@cairn/proto/envelope";
import { saveFile, type SaveUi } from "./saveFile";
import { shouldNotify, type NoticeSetting } from "./notice";

/** editorSaveUi saves through the editor's save dialog, next to the first workspace folder. */
const editorSaveUi: SaveUi = {
  pick: async (name) => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { Markdown: ["md"] },
      saveLabel: "Export",
    });
    return uri?.fsPath;
  },
  write: (p, content) => Promise.resolve(vscode.workspace.fs.writeFile(vscode.Uri.file(p), new TextEncoder().encode(content))),
  info: (m) => void vscode.window.showInformationMessage(m),
  error: (m) => void vscode.window.showErrorMessage(m),
};

export interface WebviewHostOptions {
  extensionUri: vscode.Uri;
  relay: Omit<RelayOptions, "post">;
  /** context builds the "context" event sent when a webview becomes ready. */
  context(): Broadcast;
  /** latestDaemon is the last "daemon" event, replayed to new webviews. */
  latestDaemon(): Broadcast | undefined;
  /** notifyBackground says which background-task events raise a notification (cairn.notifyBackgroundTasks). */
  notifyBackground(): NoticeSetting;
}

interface Mounted {
  webview: vscode.Webview;
  clientId: string;
  ready: boolean;
  queued: HostEvent[];
  relay: Relay;
}

export class WebviewHost implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = "cairn.chat";
  private readonly mounted = new Set<Mounted>();
  private view: vscode.WebviewView | undefined;
  /** The task on screen in the webview that spoke last ("": none). */
  activeTaskId = "";

  constructor(private readonly opts: WebviewHostOptions) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const m = this.mount(view.webview);
    view.onDidDispose(() => {
      this.unmount(m);
      if (this.view === view) this.view = undefined;
    });
  }

  /** openInTab opens the chat in an editor tab. */
  openInTab(): void {
    const panel = vscode.window.createWebviewPanel("cairn.tab", "Cairn", vscode.ViewColumn.Beside, { retainContextWhenHidden: true, enableScripts: true });
    panel.iconPath = vscode.Uri.joinPath(this.opts.extensionUri, "media", "cairn.svg");
    const m = this.mount(panel.webview);
    panel.onDidDispose(() => this.unmount(m));
  }

  /** broadcast sends a host event to every webview (queued until a webview says "ready"). */
  broadcast(event: Broadcast): void {
    for (const m of this.mounted) this.postEvent(m, event);
  }

  /** reveal shows the sidebar view (and then sends the event, once it is ready). */
  async reveal(event?: Broadcast): Promise<void> {
    await vscode.commands.executeCommand(`${WebviewHost.viewId}.focus`);
    if (event) this.broadcast(event);
  }

  get hasWebview(): boolean {
    return this.mounted.size > 0;
  }

  private mount(webview: vscode.Webview): Mounted {
    const root = vscode.Uri.joinPath(this.opts.extensionUri, "webview");
    webview.options = { enableScripts: true, localResourceRoots: [root, vscode.Uri.joinPath(this.opts.extensionUri, "media")] };
    const post = (msg: ToWebview) => void webview.postMessage(msg);
    const m: Mounted = { webview, clientId: newClientId("webview"), ready: false, queued: [], relay: new Relay({ ...this.opts.relay, post }) };
    this.mounted.add(m);
    webview.onDidReceiveMessage((msg: FromWebview) => {
      if (msg?.type === "ready") {
        m.ready = true;
        post(forWebview(m, this.opts.context()));
        const d = this.opts.latestDaemon();
        if (d) post(forWebview(m, d));
        for (const e of m.queued.splice(0)) post(e);
        return;
      }
      if (msg?.type === "saveFile") {
        void saveFile(editorSaveUi, String(msg.fileName ?? ""), String(msg.content ?? ""));
        return;
      }
      if (msg?.type === "badge") {
        // The Cairn view's badge: the tasks waiting for the user (README, "Several tasks at once").
        if (this.view) this.view.badge = msg.count > 0 ? { value: msg.count, tooltip: String(msg.tooltip ?? "") } : undefined;
        return;
      }
      if (msg?.type === "activeTask") {
        this.activeTaskId = String(msg.taskId ?? "");
        return;
      }
      if (msg?.type === "taskNotice") {
        void this.taskNotice(msg.taskId, msg.kind, String(msg.title ?? ""));
        return;
      }
      if (msg?.type === "openFolder") {
        // A task's worktree (README, "Tasks in worktrees"), in a window of its own.
        const folder = String(msg.path ?? "");
        if (folder) void vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(folder), { forceNewWindow: true });
        return;
      }
      m.relay.handle(msg);
    });
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, "assets", "index.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, "assets", "index.css")).toString(),
      nonce: makeNonce(randomBytes),
    });
    return m;
  }

  /** taskNotice raises the notification cairn.notifyBackgroundTasks asks for; "Show" shows the task. */
  private async taskNotice(taskId: string, kind: "waiting" | "done" | "failed", title: string): Promise<void> {
    if (!shouldNotify(this.opts.notifyBackground(), kind)) return;
    const show = kind === "failed" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    if ((await show(`Cairn: ${title}`, "Show")) === "Show") await this.reveal({ type: "host", event: "openTask", taskId });
  }

  private postEvent(m: Mounted, b: Broadcast): void {
    const e = forWebview(m, b);
    if (m.ready) void m.webview.postMessage(e);
    else if (e.event === "addToInput" || e.event === "navigate" || e.event === "focusInput" || e.event === "openTask") m.queued.push(e);
  }

  private unmount(m: Mounted): void {
    m.relay.dispose();
    this.mounted.delete(m);
  }

  dispose(): void {
    for (const m of this.mounted) m.relay.dispose();
    this.mounted.clear();
  }
}
