// Relay forwards the webview's RPC envelopes to the daemon unchanged: it looks the method up in
// the generated descriptors, converts protobuf JSON to binary and back, and posts each response
// or stream item followed by "done". It knows nothing about individual RPCs, except the one
// observer hook the extension uses to keep the API key in SecretStorage.

import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { fromJson, toJson, type DescMessage, type DescMethodStreaming, type DescMethodUnary, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { MethodRegistry } from "../rpc/registry";
import type { FromWebview, RpcErrorBody, ToWebview } from "@cairn/proto/envelope";

export interface RelayOptions {
  registry: MethodRegistry;
  /** transport resolves to the daemon's transport once it is ready; rejects when it failed. */
  transport(): Promise<Transport>;
  post(message: ToWebview): void;
  /** onRequest observes each decoded request before it is sent (may not change it). */
  onRequest?(service: string, method: string, request: Message): void;
  /** onResponse observes each response or stream item (for the status bar). */
  onResponse?(service: string, method: string, response: Message): void;
}

const jsonRead = { ignoreUnknownFields: true } as const;

/** codeName maps a Connect code to the envelope's gRPC code name ("unavailable"…). */
export function codeName(code: Code): string {
  if (code === Code.Canceled) return "cancelled"; // gRPC spells it CANCELLED
  const name = Code[code] ?? "Unknown";
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

export function errorBody(e: unknown): RpcErrorBody {
  const ce = ConnectError.from(e);
  return { code: codeName(ce.code), message: ce.rawMessage };
}

/** Relay serves one webview; dispose() cancels every call it started. */
export class Relay {
  private readonly calls = new Map<string, AbortController>();

  constructor(private readonly opts: RelayOptions) {}

  /** handle takes one message from the webview; non-RPC messages are ignored. */
  handle(msg: FromWebview): void {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "cancel") {
      this.calls.get(msg.id)?.abort();
      this.calls.delete(msg.id);
      return;
    }
    if (msg.type === "rpc") void this.call(msg);
  }

  /** active is the number of calls in flight. */
  get active(): number {
    return this.calls.size;
  }

  dispose(): void {
    for (const c of this.calls.values()) c.abort();
    this.calls.clear();
  }

  private async call(msg: Extract<FromWebview, { type: "rpc" }>): Promise<void> {
    const { id } = msg;
    const method = this.opts.registry.method(msg.service, msg.method);
    if (!method) {
      this.opts.post({ type: "rpc", id, done: true, error: { code: "unimplemented", message: `unknown method ${msg.service}/${msg.method}` } });
      return;
    }
    const abort = new AbortController();
    this.calls.set(id, abort);
    const finish = (error?: RpcErrorBody) => {
      // A cancelled call still gets its "done", so the webview can always clean up.
      this.calls.delete(id);
      this.opts.post(error ? { type: "rpc", id, done: true, error } : { type: "rpc", id, done: true });
    };
    try {
      let input: Message;
      try {
        input = fromJson(method.input as DescMessage, (msg.payload ?? {}) as JsonValue, jsonRead);
      } catch (e) {
        finish({ code: "invalid_argument", message: `bad ${method.input.typeName}: ${(e as Error).message}` });
        return;
      }
      this.opts.onRequest?.(msg.service, msg.method, input);
      const transport = await this.opts.transport();
      if (abort.signal.aborted) throw new ConnectError("cancelled", Code.Canceled);
      const out = method.output as DescMessage;
      switch (method.methodKind) {
        case "unary": {
          const res = await transport.unary(method as DescMethodUnary, abort.signal, undefined, undefined, input as never);
          this.opts.onResponse?.(msg.service, msg.method, res.message as Message);
          this.opts.post({ type: "rpc", id, payload: toJson(out, res.message as Message) });
          break;
        }
        case "server_streaming": {
          const res = await transport.stream(method as DescMethodStreaming, abort.signal, undefined, undefined, single(input) as never);
          for await (const item of res.message) {
            if (abort.signal.aborted) break;
            this.opts.onResponse?.(msg.service, msg.method, item as Message);
            this.opts.post({ type: "rpc", id, payload: toJson(out, item as Message) });
          }
          break;
        }
        default:
          finish({ code: "unimplemented", message: `${method.methodKind} methods cannot be relayed` });
          return;
      }
      finish(abort.signal.aborted ? { code: "cancelled", message: "cancelled" } : undefined);
    } catch (e) {
      finish(abort.signal.aborted ? { code: "cancelled", message: "cancelled" } : errorBody(e));
    }
  }
}

async function* single<T>(m: T): AsyncIterable<T> {
  yield m;
}
