// The webview's RPC layer: the typed client interface, the VS Code implementation and the
// React context that hands the client to components.
export type { CairnClient, CallOptions, PersistedState } from "./client";
export { RpcError, isAbort } from "./errors";
export type { HostEvent, View, DaemonStatus } from "@cairn/proto/envelope";
export { PostMessageClient, vscodePort } from "./vscode";
