// Against the real daemon (bin/cairn at the repo root, or $CAIRN_BIN): spawn, handshake file,
// authenticated RPC through the relay, host bridge hello, crash and restart, two windows on one
// daemon, and the daemon's idle exit once both are gone.
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Daemon } from "../src/daemon";
import { pidAlive, pipedSpawner } from "../src/supervisor/spawn";
import { Relay } from "../src/relay/relay";
import { cairnRegistry } from "../src/rpc/registry";
import type { ToWebview, DaemonStatus } from "@cairn/proto/envelope";

const bin = process.env.CAIRN_BIN ?? path.join(__dirname, "..", "..", "bin", "cairn");

async function until<T>(f: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** window is one editor window's Daemon on a shared data dir. */
function window(dataDir: string, clientId: string) {
  const statuses: Array<{ s: DaemonStatus; hostId?: string }> = [];
  const logs: string[] = [];
  const d = new Daemon({
    command: bin,
    // A short idle grace so the test sees the daemon leave (the default is 60 s).
    args: ["serve", "--data-dir", dataDir, "--idle-exit", "300ms"],
    spawner: pipedSpawner,
    handshakeFile: path.join(dataDir, "daemon.json"),
    log: (l) => logs.push(l),
    trace: () => {},
    traceEnabled: () => false,
    hello: () => ({ client: "vscode", ideName: "VSCode", workspaceFolders: [dataDir], shell: "/bin/bash", diffView: true, terminal: true, editor: true, languageModels: false, readFile: false, clientId }),
    handlers: { workspaceFolders: async () => ({ case: "paths", value: { $typeName: "cairn.host.v1.PathsResult", paths: [dataDir] } }) },
    apiKey: async () => "sk-from-secret-storage",
    onStatus: (s, detail) => statuses.push({ s, hostId: detail.hostId }),
  });
  const posted: ToWebview[] = [];
  const relay = new Relay({ registry: cairnRegistry, transport: () => d.transport(), post: (m) => posted.push(m) });
  let seq = 0;
  const getState = async () => {
    const id = String(++seq);
    relay.handle({ type: "rpc", id, service: "cairn.v1.StateService", method: "GetState", payload: {} });
    const mine = () => posted.filter((m) => m.type === "rpc" && m.id === id);
    await until(() => mine().find((m) => "done" in m), `GetState ${id}`);
    return mine()[0];
  };
  return { d, statuses, logs, posted, getState, readyCount: () => statuses.filter((x) => x.s === "ready").length };
}

describe.skipIf(!fs.existsSync(bin))("real daemon", () => {
  it("starts, relays an authenticated call, opens the bridge, and survives a crash", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-ext-"));
    const w = window(dataDir, "window-test");
    const { d, statuses } = w;
    let pid: number | undefined;
    try {
      d.start();
      const ready = await until(() => statuses.find((x) => x.s === "ready"), "ready");
      // The daemon names the host by the window's client id, not by the connection.
      expect(ready.hostId).toBe("window-test");
      expect(fs.statSync(path.join(dataDir, "daemon.sock")).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(dataDir, "daemon.json")).mode & 0o777).toBe(0o600);

      const first = await w.getState();
      expect(first).toMatchObject({ type: "rpc", payload: { dataDir } });
      // The stored key was re-sent: the daemon reports it set, without returning it.
      expect(first).toMatchObject({ payload: { settings: { api: { apiKeySet: true } } } });
      expect(JSON.stringify(first)).not.toContain("sk-from-secret-storage");

      // Crash: the supervisor restarts the daemon and the bridge comes back under the same id.
      const killed = d.pid!;
      process.kill(killed, "SIGKILL");
      await until(() => statuses.find((x) => x.s === "restarting"), "restarting");
      const again = await until(() => statuses.filter((x) => x.s === "ready")[1], "ready again");
      expect(again.hostId).toBe("window-test");
      expect(d.pid).not.toBe(killed);
      expect(await w.getState()).toMatchObject({ payload: { dataDir } });
      pid = d.pid;
    } finally {
      await d.stop();
    }
    // Stopping the window leaves the daemon to its idle grace; then it is gone, and so is its
    // handshake file.
    expect(d.pid).toBeUndefined();
    await until(() => !pidAlive(pid!), "the idle daemon to exit");
    expect(fs.existsSync(path.join(dataDir, "daemon.json"))).toBe(false);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it("serves two windows from one daemon; closing one leaves the other working", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-ext-"));
    const a = window(dataDir, "window-a");
    const b = window(dataDir, "window-b");
    try {
      // Both start at once: one daemon wins the bind, the other window attaches to it.
      a.d.start();
      b.d.start();
      await until(() => a.readyCount() && b.readyCount(), "both windows ready");
      expect(a.d.pid).toBe(b.d.pid);
      expect(a.d.hostId).not.toBe(b.d.hostId);
      const pid = a.d.pid!;

      await a.d.stop();
      expect(await b.getState()).toMatchObject({ payload: { dataDir } });
      expect(pidAlive(pid)).toBe(true);
      await b.d.stop();
      await until(() => !pidAlive(pid), "the daemon to exit after both windows closed");
    } finally {
      await a.d.stop();
      await b.d.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
