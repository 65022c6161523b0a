// Shared by perf.mjs and screenshots.mjs: a static server for perf/dist and a headless Chromium.
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { tmpdir } from "node:os";
import { chromium } from "playwright-core";

const root = join(import.meta.dirname, "dist");
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf", ".svg": "image/svg+xml", ".png": "image/png" };

export async function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    try {
      const body = await readFile(join(root, path === "/" ? "harness.html" : path));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      if (path !== "/favicon.ico") console.error(`404 ${path}`);
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/harness.html`, close: () => new Promise((r) => server.close(r)) };
}

export async function launch() {
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`${executablePath} missing: apt-get install -y chromium`);
  const userDataDir = await mkdtemp(join(tmpdir(), "cairn-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 420, height: 820 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--enable-precise-memory-info",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** waitReady waits for the harness to set body[data-ready]; on a timeout it names the page errors
 * collected so far, so a harness that never gets ready says why. */
export async function waitReady(page, errors, timeout = 30_000) {
  try {
    await page.waitForFunction(() => document.body.dataset.ready === "1", undefined, { timeout });
  } catch (err) {
    const seen = errors.length ? `page errors so far:\n${errors.join("\n")}` : "no page errors so far";
    throw new Error(`harness not ready after ${timeout} ms (${seen})`, { cause: err });
  }
}
