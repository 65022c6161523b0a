// The real client: protobuf JSON over the VS Code webview postMessage envelope.
// This is the only module that touches acquireVsCodeApi (checked by make check-imports).

import { create, fromJson, toJson, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import type { CairnClient, CallOptions, PersistedState } from "./client";
import type { FromWebview, HostEvent, ToWebview } from "@cairn/proto/envelope";
import { RpcError } from "./errors";
import { AsyncQueue } from "./queue";

/** Port is the raw message channel; tests substitute a fake one. */
export interface Port {
  post(message: FromWebview): void;
  listen(handler: (message: ToWebview) => void): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** vscodePort uses the webview API, or window.parent messaging when run outside VS Code. */
export function vscodePort(): Port {
  const api: VsCodeApi =
    typeof acquireVsCodeApi === "function"
      ? acquireVsCodeApi()
      : { postMessage: (m) => window.parent.postMessage(m, "*"), getState: () => undefined, setState: () => {} };
  return {
    post: (m) => api.postMessage(m),
    listen: (h) => window.addEventListener("message", (e: MessageEvent) => h(e.data as ToWebview)),
    getState: () => api.getState(),
    setState: (s) => api.setState(s),
  };
}

interface Pending {
  item(payload: unknown): void;
  done(error?: RpcError): void;
}

const jsonOptions = { ignoreUnknownFields: true } as const;

export class PostMessageClient implements CairnClient {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly hostListeners = new Set<(e: HostEvent) => void>();

  constructor(private readonly port: Port) {
    port.listen((m) => this.receive(m));
  }

  private receive(m: ToWebview): void {
    if (!m || typeof m !== "object") return;
    if (m.type === "host") {
      for (const l of this.hostListeners) l(m);
      return;
    }
    if (m.type !== "rpc") return;
    const p = this.pending.get(m.id);
    if (!p) return;
    if ("payload" in m && m.payload !== undefined && m.payload !== null) p.item(m.payload);
    if ("done" in m && m.done) {
      this.pending.delete(m.id);
      p.done(m.error ? new RpcError(m.error.code, m.error.message) : undefined);
    }
  }

  private start(method: DescMethod, request: unknown, stream: boolean, pending: Pending, signal?: AbortSignal): string | undefined {
    if (signal?.aborted) {
      pending.done(new RpcError("cancelled", "aborted before start"));
      return undefined;
    }
    const id = `r${this.nextId++}`;
    this.pending.set(id, pending);
    const msg = create(method.input, request as never);
    this.port.post({
      type: "rpc",
      id,
      service: method.parent.typeName,
      method: method.name,
      payload: toJson(method.input, msg),
      ...(stream ? { stream: true } : {}),
    });
    signal?.addEventListener(
      "abort",
      () => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        this.port.post({ type: "cancel", id });
        pending.done(new RpcError("cancelled", "aborted"));
      },
      { once: true },
    );
    return id;
  }

  unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    request: unknown,
    options?: CallOptions,
  ): Promise<MessageShape<O>> {
    return new Promise((resolve, reject) => {
      let result: MessageShape<O> | undefined;
      this.start(
        method,
        request,
        false,
        {
          item: (payload) => {
            result = fromJson(method.output, payload as never, jsonOptions) as MessageShape<O>;
          },
          done: (err) => {
            if (err) reject(err);
            else resolve(result ?? (create(method.output) as MessageShape<O>));
          },
        },
        options?.signal,
      );
    });
  }

  stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    request: unknown,
    options?: CallOptions,
  ): AsyncIterable<MessageShape<O>> {
    let id: string | undefined;
    const queue = new AsyncQueue<MessageShape<O>>(() => {
      if (id && this.pending.has(id)) {
        this.pending.delete(id);
        this.port.post({ type: "cancel", id });
      }
    });
    id = this.start(
      method,
      request,
      true,
      {
        item: (payload) => queue.push(fromJson(method.output, payload as never, jsonOptions) as MessageShape<O>),
        done: (err) => queue.end(err),
      },
      options?.signal,
    );
    return queue;
  }

  onHostEvent(listener: (event: HostEvent) => void): () => void {
    this.hostListeners.add(listener);
    return () => this.hostListeners.delete(listener);
  }

  ready(): void {
    this.port.post({ type: "ready" });
  }

  saveFile(fileName: string, content: string): void {
    this.port.post({ type: "saveFile", fileName, content });
  }

  openFolder(path: string): void {
    this.port.post({ type: "openFolder", path });
  }

  setBadge(count: number, tooltip: string): void {
    this.port.post({ type: "badge", count, tooltip });
  }

  activeTask(taskId: string): void {
    this.port.post({ type: "activeTask", taskId });
  }

  taskNotice(taskId: string, kind: "waiting" | "done" | "failed", title: string): void {
    this.port.post({ type: "taskNotice", taskId, kind, title });
  }

  loadPersisted(): PersistedState {
    const s = this.port.getState();
    return s && typeof s === "object" ? (s as PersistedState) : {};
  }

  savePersisted(state: PersistedState): void {
    this.port.setState(state);
  }
}
