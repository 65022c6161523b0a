// HostBridge is the extension's end of HostBridgeService.Connect: it says hello, learns its
// host id, answers the daemon's requests through the dispatcher and pushes editor events.
// Ordering: every message goes through one queue, so CommandOutput events sent before a
// CommandExit reach the daemon before it.

import { create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { HostBridgeService, ConnectRequestSchema, type ConnectRequest, type ConnectResponse } from "@cairn/proto/gen/cairn/v1/host_bridge_pb";
import { EventSchema, type Hello, type Event } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { AsyncQueue } from "./queue";
import { dispatch, type Handlers } from "./dispatcher";

export type EventOneof = Exclude<Event["event"], { case: undefined }>;

export interface BridgeOptions {
  transport: Transport;
  hello: Omit<Hello, "$typeName">;
  handlers: Handlers;
  log(line: string): void;
  /** onClosed is called once when the stream ends (error undefined: closed by us). */
  onClosed(error?: Error): void;
}

export class HostBridge {
  private closed = false;

  private constructor(
    private readonly opts: BridgeOptions,
    readonly hostId: string,
    private readonly out: AsyncQueue<ConnectRequest>,
    private readonly abort: AbortController,
  ) {}

  /** open connects and resolves once the daemon's Welcome arrived. */
  static async open(opts: BridgeOptions): Promise<HostBridge> {
    const out = new AsyncQueue<ConnectRequest>();
    const abort = new AbortController();
    out.push(create(ConnectRequestSchema, { message: { case: "hello", value: opts.hello } }));
    const method = HostBridgeService.method.connect;
    const res = await opts.transport.stream(method, abort.signal, undefined, undefined, out);
    const it = res.message[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done || first.value.message.case !== "welcome") {
      abort.abort();
      throw new Error("the daemon did not welcome the host bridge");
    }
    const bridge = new HostBridge(opts, first.value.message.value.hostId, out, abort);
    void bridge.loop(it);
    return bridge;
  }

  /** send pushes an editor event; returns false when the bridge is closed. */
  sendEvent(event: EventOneof): boolean {
    return this.out.push(create(ConnectRequestSchema, { message: { case: "event", value: create(EventSchema, { event }) } }));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.out.close();
    this.abort.abort();
    this.opts.onClosed();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private async loop(it: AsyncIterator<ConnectResponse>): Promise<void> {
    let error: Error | undefined;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        const m = r.value.message;
        if (m.case !== "request") continue;
        const req = m.value;
        const ctl = new AbortController();
        const deadline = Number(req.deadlineMs);
        const timer = deadline > 0 ? setTimeout(() => ctl.abort(), deadline) : undefined;
        const onClose = () => ctl.abort();
        this.abort.signal.addEventListener("abort", onClose, { once: true });
        void dispatch(this.opts.handlers, req, ctl.signal).then((resp) => {
          if (timer) clearTimeout(timer);
          this.abort.signal.removeEventListener("abort", onClose);
          if (resp.error) this.opts.log(`[host] ${req.request.case} failed: ${resp.error}`);
          this.out.push(create(ConnectRequestSchema, { message: { case: "response", value: resp } }));
        });
      }
    } catch (e) {
      error = e as Error;
    }
    if (this.closed) return;
    this.closed = true;
    this.out.close();
    this.abort.abort();
    this.opts.onClosed(error ?? new Error("the daemon closed the host bridge"));
  }
}
