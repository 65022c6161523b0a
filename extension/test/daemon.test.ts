// Against the real daemon (bin/cairn at the repo root, or $CAIRN_BIN): spawn, handshake,
// authenticated RPC through the relay, host bridge hello, crash and restart.
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Daemon } from "../src/daemon";
import { nodeSpawner } from "../src/supervisor/spawn";
import { Relay } from "../src/relay/relay";
import { cairnRegistry } from "../src/rpc/registry";
import type { ToWebview, DaemonStatus } from "../src/relay/envelope";

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

describe.skipIf(!fs.existsSync(bin))("real daemon", () => {
  it("starts, relays an authenticated call, opens the bridge, and survives a crash", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-ext-"));
    const statuses: Array<{ s: DaemonStatus; hostId?: string }> = [];
    const logs: string[] = [];
    const d = new Daemon({
      command: bin,
      args: ["serve", "--data-dir", dataDir],
      spawner: nodeSpawner,
      log: (l) => logs.push(l),
      trace: () => {},
      traceEnabled: () => false,
      hello: () => ({ client: "vscode", ideName: "VSCode", workspaceFolders: [dataDir], shell: "/bin/bash", diffView: true, terminal: true, editor: true, clientId: "window-test" }),
      handlers: { workspaceFolders: async () => ({ case: "paths", value: { $typeName: "cairn.host.v1.PathsResult", paths: [dataDir] } }) },
      apiKey: async () => "sk-from-secret-storage",
      onStatus: (s, detail) => statuses.push({ s, hostId: detail.hostId }),
    });
    try {
      d.start();
      const ready = await until(() => statuses.find((x) => x.s === "ready"), "ready");
      // The daemon names the host by the window's client id, not by the connection.
      expect(ready.hostId).toBe("window-test");
      expect(fs.statSync(path.join(dataDir, "daemon.sock")).mode & 0o777).toBe(0o600);

      const posted: ToWebview[] = [];
      const relay = new Relay({ registry: cairnRegistry, transport: () => d.transport(), post: (m) => posted.push(m) });
      relay.handle({ type: "rpc", id: "1", service: "cairn.v1.StateService", method: "GetState", payload: {} });
      await until(() => posted.find((m) => "done" in m), "GetState");
      expect(posted[0]).toMatchObject({ type: "rpc", id: "1", payload: { dataDir } });
      // The stored key was re-sent: the daemon reports it set, without returning it.
      expect(posted[0]).toMatchObject({ payload: { settings: { api: { apiKeySet: true } } } });
      expect(JSON.stringify(posted[0])).not.toContain("sk-from-secret-storage");

      // Crash: the supervisor restarts the daemon and the bridge comes back under the same id.
      process.kill(d.pid!, "SIGKILL");
      await until(() => statuses.find((x) => x.s === "restarting"), "restarting");
      const again = await until(() => statuses.filter((x) => x.s === "ready")[1], "ready again");
      expect(again.hostId).toBe("window-test");
      posted.length = 0;
      relay.handle({ type: "rpc", id: "2", service: "cairn.v1.StateService", method: "GetState", payload: {} });
      await until(() => posted.find((m) => "done" in m), "GetState after restart");
      expect(posted[0]).toMatchObject({ id: "2", payload: { dataDir } });
    } finally {
      await d.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect(d.pid).toBeUndefined();
  }, 30_000);
});
