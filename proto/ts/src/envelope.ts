// The webview ⇄ extension postMessage envelope: the one definition both sides compile against.
// The webview sends FromWebview messages; the extension relays each "rpc" one to the daemon's gRPC
// services unchanged (protobuf JSON payloads) and answers with ToWebview messages: the call's
// replies, then one "done" (with the gRPC code name on failure), plus host events of its own.
// docs/architecture.md ("One message, end to end") follows one message through it.

import type { JsonValue } from "@bufbuild/protobuf";

/** The views the extension can ask the webview to show. */
// newWorktreeTask is a new task whose next message starts it in a git worktree of its own.
export type View = "chat" | "history" | "settings" | "mcp" | "board" | "newTask" | "newWorktreeTask";

/** The daemon's state as the extension's supervisor sees it. */
export type DaemonStatus = "starting" | "ready" | "restarting" | "failed";

/** webview → extension */
export type FromWebview =
  | { type: "rpc"; id: string; service: string; method: string; payload: JsonValue; stream?: boolean }
  | { type: "cancel"; id: string }
  | { type: "ready" }
  // The extension asks where to save (its save dialog) and writes the file.
  | { type: "saveFile"; fileName: string; content: string }
  // The extension opens a folder (a task's worktree) in a new window.
  | { type: "openFolder"; path: string }
  // The window's open tasks that wait for the user: the Cairn view's badge (README, "Several tasks at once").
  | { type: "badge"; count: number; tooltip: string }
  // A background task finished or waits: the extension raises a notification when the
  // cairn.notifyBackgroundTasks setting asks for it; "Show" sends navigate/openTask back.
  | { type: "taskNotice"; taskId: string; kind: "waiting" | "done" | "failed"; title: string }
  // The task on screen ("": none), whose model writes a commit message.
  | { type: "activeTask"; taskId: string };

/** A failed call: code is the gRPC code name ("unavailable", "cancelled"…). */
export interface RpcErrorBody {
  code: string;
  message: string;
}

/** The editor context of the window: hostId names the window's editor to the daemon (the same
 * for every webview of the window and across reconnects of its bridge). */
export interface WindowContext {
  type: "host";
  event: "context";
  workspaceRoots: string[];
  hostId: string;
  /** cairn.parallelTasksInWorktrees: a task started while another runs in the same folder gets a worktree. */
  parallelWorktrees?: boolean;
}

/** Editor events that are not RPC replies. */
export type HostEvent =
  | { type: "host"; event: "addToInput"; text: string }
  | { type: "host"; event: "navigate"; view: View }
  // Show a task of the window (a notification's "Show").
  | { type: "host"; event: "openTask"; taskId: string }
  // Each webview receives the window context with its own clientId.
  | (WindowContext & { clientId: string })
  | { type: "host"; event: "daemon"; status: DaemonStatus }
  // The "Focus Chat Input" command.
  | { type: "host"; event: "focusInput" };

/** What the extension broadcasts: host events, the context still without a webview's id. */
export type Broadcast = Exclude<HostEvent, { event: "context" }> | WindowContext;

/** extension → webview: one message per reply of a call, then one that ends it. */
export type ToWebview =
  | { type: "rpc"; id: string; payload: JsonValue }
  | { type: "rpc"; id: string; done: true; error?: RpcErrorBody }
  | HostEvent;

/** forWebview addresses a broadcast to one webview: the context carries that webview's id. */
export function forWebview(webview: { clientId: string }, b: Broadcast): HostEvent {
  return b.event === "context" ? { ...b, clientId: webview.clientId } : b;
}
