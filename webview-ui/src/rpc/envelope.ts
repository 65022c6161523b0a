// The webview ⇄ extension postMessage envelope (shared contract with extension/src).
// The extension relays "rpc" messages to the daemon's gRPC services unchanged.

import type { JsonValue } from "@bufbuild/protobuf";

/** webview → extension */
export type OutgoingMessage =
  | { type: "rpc"; id: string; service: string; method: string; payload: JsonValue; stream?: boolean }
  | { type: "cancel"; id: string }
  | { type: "ready" }
  // The extension asks where to save (its save dialog) and writes the file.
  | { type: "saveFile"; fileName: string; content: string };

export interface RpcErrorBody {
  code: string;
  message: string;
}

export type View = "chat" | "history" | "settings" | "mcp" | "newTask";
export type DaemonStatus = "starting" | "ready" | "restarting" | "failed";

/** Editor events that are not RPC replies. */
export type HostEvent =
  | { type: "host"; event: "addToInput"; text: string }
  | { type: "host"; event: "navigate"; view: View }
  // hostId names the window's editor to the daemon (the same for every webview of the window and
  // across reconnects of its bridge); clientId is this webview's own id.
  | { type: "host"; event: "context"; workspaceRoots: string[]; hostId: string; clientId: string }
  | { type: "host"; event: "daemon"; status: DaemonStatus }
  // The "Focus Chat Input" command.
  | { type: "host"; event: "focusInput" };

/** extension → webview */
export type IncomingMessage =
  | { type: "rpc"; id: string; payload?: JsonValue; done?: boolean; error?: RpcErrorBody }
  | HostEvent;

/** RpcError is a failed call or stream; code is the gRPC code name ("unavailable", "cancelled"…). */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export function isAbort(err: unknown): boolean {
  return err instanceof RpcError && err.code === "cancelled";
}
