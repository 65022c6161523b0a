// The webview ⇄ extension postMessage envelope (the shared contract; webview-ui/src/rpc/envelope.ts
// is the other side).

import type { JsonValue } from "@bufbuild/protobuf";

export type View = "chat" | "history" | "settings" | "mcp" | "newTask";
export type DaemonStatus = "starting" | "ready" | "restarting" | "failed";

/** webview → extension */
export type FromWebview =
  | { type: "rpc"; id: string; service: string; method: string; payload: JsonValue; stream?: boolean }
  | { type: "cancel"; id: string }
  | { type: "ready" };

export interface RpcErrorBody {
  code: string;
  message: string;
}

export type HostEvent =
  | { type: "host"; event: "addToInput"; text: string }
  | { type: "host"; event: "navigate"; view: View }
  | { type: "host"; event: "context"; workspaceRoots: string[]; hostId: string }
  | { type: "host"; event: "daemon"; status: DaemonStatus };

/** extension → webview */
export type ToWebview =
  | { type: "rpc"; id: string; payload: JsonValue }
  | { type: "rpc"; id: string; done: true; error?: RpcErrorBody }
  | HostEvent;
