// FakeClient is a hand-written CairnClient for tests and the perf/screenshot harness.
// It records every call, answers unary calls from per-method handlers, and exposes every
// open stream so a test can push events into it.

import { create, type DescMessage, type DescMethod, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { CairnClient, CallOptions, PersistedState } from "./client";
import type { HostEvent } from "@cairn/proto/envelope";
import { RpcError } from "./errors";
import { AsyncQueue } from "./queue";

export interface RecordedCall {
  service: string;
  method: string;
  request: unknown;
}

type Handler = (request: never) => unknown;

export class FakeStream<O extends DescMessage = DescMessage> {
  readonly queue: AsyncQueue<MessageShape<O>>;
  aborted = false;
  constructor(
    readonly method: DescMethod & { output: O },
    readonly request: unknown,
  ) {
    this.queue = new AsyncQueue<MessageShape<O>>(() => {
      this.aborted = true;
    });
  }
  /** push sends one stream item (a message init shape, e.g. {event: {case: "snapshot", value: {...}}}). */
  push(item: MessageInitShape<O>): void {
    this.queue.push(create(this.method.output, item));
  }
  end(error?: RpcError): void {
    this.queue.end(error);
  }
  get closed(): boolean {
    return this.queue.isEnded;
  }
}

export class FakeClient implements CairnClient {
  readonly calls: RecordedCall[] = [];
  readonly streams: FakeStream[] = [];
  readyCount = 0;
  persisted: PersistedState = {};
  private readonly handlers = new Map<string, Handler>();
  private readonly hostListeners = new Set<(e: HostEvent) => void>();

  private static key(method: DescMethod): string {
    return `${method.parent.typeName}/${method.name}`;
  }

  /** on sets the answer for a unary method: a response init shape, or throw RpcError. */
  on<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    handler: (request: MessageShape<I>) => MessageInitShape<O> | Promise<MessageInitShape<O>>,
  ): this {
    this.handlers.set(FakeClient.key(method), handler as Handler);
    return this;
  }

  /** callsTo returns the recorded requests of one method, in order. */
  callsTo<I extends DescMessage>(method: DescMethod & { input: I }): MessageShape<I>[] {
    const k = FakeClient.key(method);
    return this.calls.filter((c) => `${c.service}/${c.method}` === k).map((c) => c.request as MessageShape<I>);
  }

  /** lastStream returns the most recent stream of a method (throws when there is none). */
  lastStream<O extends DescMessage>(method: DescMethod & { output: O }): FakeStream<O> {
    const k = FakeClient.key(method);
    for (let i = this.streams.length - 1; i >= 0; i--) {
      const s = this.streams[i]!;
      if (FakeClient.key(s.method) === k) return s as unknown as FakeStream<O>;
    }
    throw new Error(`no stream for ${k}`);
  }

  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>,
    options?: CallOptions,
  ): Promise<MessageShape<O>> {
    const req = create(method.input, request);
    this.calls.push({ service: method.parent.typeName, method: method.name, request: req });
    if (options?.signal?.aborted) throw new RpcError("cancelled", "aborted");
    const h = this.handlers.get(FakeClient.key(method));
    const init = h ? await (h as (r: MessageShape<I>) => unknown)(req) : {};
    if (options?.signal?.aborted) throw new RpcError("cancelled", "aborted");
    return create(method.output, init as MessageInitShape<O>);
  }

  stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>,
    options?: CallOptions,
  ): AsyncIterable<MessageShape<O>> {
    const req = create(method.input, request);
    this.calls.push({ service: method.parent.typeName, method: method.name, request: req });
    const s = new FakeStream<O>(method, req);
    this.streams.push(s as unknown as FakeStream);
    options?.signal?.addEventListener(
      "abort",
      () => {
        s.aborted = true;
        s.end(new RpcError("cancelled", "aborted"));
      },
      { once: true },
    );
    return s.queue;
  }

  onHostEvent(listener: (event: HostEvent) => void): () => void {
    this.hostListeners.add(listener);
    return () => this.hostListeners.delete(listener);
  }

  /** emitHost delivers an editor event as the extension would. */
  emitHost(event: HostEvent): void {
    for (const l of this.hostListeners) l(event);
  }

  ready(): void {
    this.readyCount++;
  }

  /** Files the UI asked the extension to save, in order. */
  saved: { fileName: string; content: string }[] = [];

  saveFile(fileName: string, content: string): void {
    this.saved.push({ fileName, content });
  }

  openedFolders: string[] = [];

  openFolder(path: string): void {
    this.openedFolders.push(path);
  }

  badge = { count: 0, tooltip: "" };
  notices: { taskId: string; kind: string; title: string }[] = [];

  setBadge(count: number, tooltip: string): void {
    this.badge = { count, tooltip };
  }

  taskNotice(taskId: string, kind: "waiting" | "done" | "failed", title: string): void {
    this.notices.push({ taskId, kind, title });
  }

  active = "";

  activeTask(taskId: string): void {
    this.active = taskId;
  }

  loadPersisted(): PersistedState {
    return this.persisted;
  }

  savePersisted(state: PersistedState): void {
    this.persisted = state;
  }
}
