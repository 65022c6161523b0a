// The webview's RPC layer: the typed client interface, the VS Code implementation and the
// React context that hands the client to components.
export type { CairnClient, CallOptions, PersistedState } from "./client";
export { RpcError, isAbort } from "./envelope";
export type { HostEvent, View, DaemonStatus, OutgoingMessage, IncomingMessage } from "./envelope";
export { PostMessageClient, vscodePort } from "./vscode";
