// Daemon ties the supervisor to a live connection: once the shared daemon is found or started
// it reads the token, builds this window's transport, opens this window's host bridge and
// re-sends the API key; when the daemon is lost it drops them. The relay waits on transport()
// while the daemon (re)starts. Stopping disconnects this window only.

import * as fs from "node:fs/promises";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { connectDaemon, traceInterceptor, type DaemonConnection } from "./rpc/transport";
import { Supervisor, type Locator, type Spawner, type SupervisorState } from "./supervisor/supervisor";
import { fileLocator, newerBinary } from "./supervisor/spawn";
import type { Handshake } from "./supervisor/handshake";
import { HostBridge, type EventOneof } from "./host/bridge";
import type { Handlers } from "./host/dispatcher";
import type { Hello } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { StateService, UpdateSettingsRequestSchema } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { DaemonStatus } from "@cairn/proto/envelope";

export interface DaemonOptions {
  command: string;
  args: string[];
  spawner: Spawner;
  /** handshakeFile is where the daemon of this data dir says where it listens. */
  handshakeFile: string;
  /** locator replaces the handshake-file locator (tests). */
  locator?: Locator;
  /** supersedes replaces the default (a daemon running an older binary file than command is replaced). */
  supersedes?(found: Handshake): boolean;
  log(line: string): void;
  trace(line: string): void;
  traceEnabled(): boolean;
  hello(): Omit<Hello, "$typeName">;
  handlers: Handlers;
  apiKey(): Promise<string | undefined>;
  /** onStatus reports the daemon's status and, once the bridge is open, the host id. */
  onStatus(status: DaemonStatus, detail: { hostId?: string; reason?: string }): void;
}

export class Daemon {
  readonly supervisor: Supervisor;
  private conn: DaemonConnection | undefined;
  private bridge: HostBridge | undefined;
  private generation = 0;
  private waiters: Array<{ resolve(t: Transport): void; reject(e: Error): void }> = [];
  private failed: string | undefined;

  constructor(private readonly opts: DaemonOptions) {
    this.supervisor = new Supervisor({
      spawner: opts.spawner,
      locator: opts.locator ?? fileLocator({ handshakeFile: opts.handshakeFile, probe, log: opts.log }),
      supersedes: opts.supersedes ?? newerBinary(opts.command),
      command: opts.command,
      args: opts.args,
      log: opts.log,
      onState: (s) => void this.onState(s),
    });
  }

  start(): void {
    this.supervisor.start();
  }

  async stop(): Promise<void> {
    this.drop();
    await this.supervisor.stop();
  }

  get hostId(): string {
    return this.bridge?.hostId ?? "";
  }

  get pid(): number | undefined {
    return this.supervisor.pid;
  }

  /** transport resolves once the daemon is ready (and the bridge open). */
  transport(): Promise<Transport> {
    if (this.conn && this.bridge) return Promise.resolve(this.conn.transport);
    if (this.failed) return Promise.reject(new ConnectError(`the Cairn daemon is not running: ${this.failed}`, Code.Unavailable));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** sendEvent pushes an editor event over the bridge (dropped while no bridge is open). */
  sendEvent(e: EventOneof): boolean {
    return this.bridge?.sendEvent(e) ?? false;
  }

  private async onState(s: SupervisorState): Promise<void> {
    switch (s.kind) {
      case "starting":
        this.failed = undefined;
        this.opts.onStatus(this.generation === 0 ? "starting" : "restarting", {});
        return;
      case "restarting":
        this.drop();
        this.opts.onStatus("restarting", { reason: s.reason });
        return;
      case "failed":
        this.drop();
        this.failed = s.reason;
        for (const w of this.waiters.splice(0)) w.reject(new ConnectError(s.reason, Code.Unavailable));
        this.opts.onStatus("failed", { reason: s.reason });
        return;
      case "stopped":
        this.drop();
        return;
      case "ready": {
        const gen = ++this.generation;
        try {
          const token = (await fs.readFile(s.handshake.token_file, "utf8")).trim();
          const conn = connectDaemon(s.handshake.address, token, [traceInterceptor(this.opts.trace, this.opts.traceEnabled)]);
          this.conn = conn;
          await this.openBridge(gen);
          if (gen !== this.generation) return;
          await this.sendApiKey(conn.transport);
          for (const w of this.waiters.splice(0)) w.resolve(conn.transport);
          this.opts.onStatus("ready", { hostId: this.hostId });
        } catch (e) {
          this.opts.log(`[daemon] connecting to the daemon failed: ${(e as Error).message}`);
          // A daemon we cannot talk to is as good as crashed: let the supervisor restart it.
          if (gen === this.generation) this.supervisor.abandon((e as Error).message);
        }
        return;
      }
    }
  }

  private async openBridge(gen: number): Promise<void> {
    const conn = this.conn;
    if (!conn) return;
    this.bridge = await HostBridge.open({
      transport: conn.transport,
      hello: this.opts.hello(),
      handlers: this.opts.handlers,
      log: this.opts.log,
      onClosed: (err) => {
        if (!err || gen !== this.generation) return;
        this.opts.log(`[host] bridge closed: ${err.message}`);
        this.bridge = undefined;
        // The daemon died or dropped us: the supervisor looks for it again (another window may
        // already have restarted it) or starts a new one.
        this.supervisor.lost(`the connection to the daemon was lost (${err.message})`);
      },
    });
    this.opts.log(`[host] bridge open, host id ${this.bridge.hostId}`);
  }

  private async sendApiKey(transport: Transport): Promise<void> {
    const key = await this.opts.apiKey();
    if (!key) return;
    const client = createClient(StateService, transport);
    const state = await client.getState({});
    const settings = state.settings;
    if (!settings) return;
    settings.api = { ...(settings.api ?? { $typeName: "cairn.v1.ApiConfig" }), apiKey: key } as typeof settings.api;
    await client.updateSettings(create(UpdateSettingsRequestSchema, { settings }));
    this.opts.log("[daemon] API key sent from SecretStorage");
  }

  private drop(): void {
    this.generation++;
    this.bridge?.close();
    this.bridge = undefined;
    this.conn?.close();
    this.conn = undefined;
  }
}

/** probe proves a daemon found through the handshake file answers with its token. */
async function probe(hs: Handshake, token: string): Promise<void> {
  const conn = connectDaemon(hs.address, token);
  try {
    await createClient(StateService, conn.transport).getState({}, { timeoutMs: 3000 });
  } finally {
    conn.close();
  }
}
