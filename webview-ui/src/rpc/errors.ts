// The webview's error for a failed RPC; the envelope it comes from is @cairn/proto/envelope.

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

/** isAbort tells whether err is the cancellation of a call the webview aborted. */
export function isAbort(err: unknown): boolean {
  return err instanceof RpcError && err.code === "cancelled";
}
