// The one typed client the UI uses. Calls are typed by the protobuf-es method descriptors
// (e.g. TaskService.method.newTask), so request and response shapes come from the proto.

import type {
  DescMessage,
  DescMethodServerStreaming,
  DescMethodUnary,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";
import type { HostEvent } from "@cairn/proto/envelope";

export interface CallOptions {
  /** Aborting cancels the call (a {type:"cancel"} envelope); the promise/iterator rejects with code "cancelled". */
  signal?: AbortSignal;
}

/** State the webview keeps across reloads of the panel (vscode.setState). */
export interface PersistedState {
  taskId?: string;
  /** The window's open tasks (the task strip), reopened after a reload. */
  openTasks?: string[];
}

export interface CairnClient {
  unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageInitShape<I>,
    options?: CallOptions,
  ): Promise<MessageShape<O>>;
  /** Server stream; ends when the server finishes, rejects with RpcError on error or abort. */
  stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodServerStreaming<I, O>,
    request: MessageInitShape<I>,
    options?: CallOptions,
  ): AsyncIterable<MessageShape<O>>;
  /** Editor events (addToInput, navigate, context, daemon). Returns an unsubscribe function. */
  onHostEvent(listener: (event: HostEvent) => void): () => void;
  /** Tells the extension the app mounted (it answers with a "context" event). */
  ready(): void;
  /** Asks the extension to save content as a file: it shows its save dialog, fileName first. */
  saveFile(fileName: string, content: string): void;
  /** Asks the extension to open a folder (a task's worktree) in a new window. */
  openFolder(path: string): void;
  /** Sets the Cairn view's badge: the number of tasks waiting for the user (0: none). */
  setBadge(count: number, tooltip: string): void;
  /** Tells the extension a background task finished or waits (it notifies as its setting says). */
  taskNotice(taskId: string, kind: "waiting" | "done" | "failed", title: string): void;
  /** Tells the extension which task is on screen (the commit message uses its model). */
  activeTask(taskId: string): void;
  loadPersisted(): PersistedState;
  savePersisted(state: PersistedState): void;
}
