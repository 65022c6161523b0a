import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SECRET_ENV_NAMES, daemonEnv, withEditorNetwork } from "../src/supervisor/env";
import { detachedSpawner } from "../src/supervisor/spawn";

describe("daemonEnv", () => {
  it("removes the key variables and keeps the others", () => {
    const env = daemonEnv({ HOME: "/home/u", PATH: "/bin", OPENAI_API_KEY: "sk-1", CAIRN_API_KEY: "sk-2", HF_TOKEN: "hf", OPENAI_API_KEY_HINT: "keep" });
    expect(env).toEqual({ HOME: "/home/u", PATH: "/bin", OPENAI_API_KEY_HINT: "keep" });
  });

  it("removes a variable holding a known key under another name", () => {
    const env = daemonEnv({ MY_LLM_TOKEN: "sk-stored-key-1234", CI: "1", OTHER: "visible" }, ["sk-stored-key-1234", "1"]);
    expect(env).toEqual({ CI: "1", OTHER: "visible" });
  });

  it("is the environment the spawned daemon gets", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cairn-env-"));
    const log = path.join(dir, "daemon.log");
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = "sk-ant-secret-1";
    process.env.MY_LLM_TOKEN = "sk-stored-key-2";
    process.env.KEYTEST_MARKER = "visible";
    try {
      const child = detachedSpawner(log, () => ["sk-stored-key-2"])(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.env))"]);
      await new Promise<void>((resolve) => child.onExit(() => resolve()));
    } finally {
      for (const k of ["ANTHROPIC_API_KEY", "MY_LLM_TOKEN", "KEYTEST_MARKER"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    const text = fs.readFileSync(log, "utf8");
    const seen = JSON.parse(text) as Record<string, string>;
    expect(seen.KEYTEST_MARKER).toBe("visible");
    expect(seen.PATH).toBe(process.env.PATH);
    expect(seen.ANTHROPIC_API_KEY).toBeUndefined();
    expect(seen.MY_LLM_TOKEN).toBeUndefined();
    expect(text).not.toContain("sk-ant-secret-1");
    expect(text).not.toContain("sk-stored-key-2");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("names the same variables as the daemon's config.DefaultSecretEnv", () => {
    const src = fs.readFileSync(path.join(__dirname, "../../core/config/config.go"), "utf8");
    const block = /var DefaultSecretEnv = \[\]string\{([^}]*)\}/.exec(src);
    expect(block).not.toBeNull();
    const goNames = [...block![1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(goNames.length).toBeGreaterThan(10);
    expect([...SECRET_ENV_NAMES]).toEqual(goNames);
  });
});

describe("withEditorNetwork", () => {
  it("passes http.proxy, http.noProxy and the managed policy to the daemon", () => {
    const out = withEditorNetwork({ PATH: "/bin" }, { proxy: "http://proxy.corp:3128", noProxy: ["localhost", " .corp "], managedPolicy: '{"yoloAllowed": false}' });
    expect(out).toEqual({ PATH: "/bin", HTTPS_PROXY: "http://proxy.corp:3128", HTTP_PROXY: "http://proxy.corp:3128", NO_PROXY: "localhost,.corp", CAIRN_MANAGED_POLICY: '{"yoloAllowed": false}' });
  });
  it("leaves the window's own proxy variables alone", () => {
    const out = withEditorNetwork({ https_proxy: "http://mine:1", NO_PROXY: "x" }, { proxy: "http://proxy.corp:3128", noProxy: ["y"], managedPolicy: "" });
    expect(out).toEqual({ https_proxy: "http://mine:1", NO_PROXY: "x" });
  });
});
