// Bundles the extension with esbuild into out/extension.js and copies the webview build
// (webview-ui/dist) into webview/ so the package carries it.
import * as esbuild from "esbuild";
import { cpSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");

const webviewDist = join(root, "..", "webview-ui", "dist");
if (existsSync(join(webviewDist, "assets", "index.js"))) {
  rmSync(join(root, "webview"), { recursive: true, force: true });
  cpSync(webviewDist, join(root, "webview"), { recursive: true });
} else {
  console.warn("build: webview-ui/dist not built yet (npm run build -w webview-ui); the view will be empty");
}

const options = {
  entryPoints: [join(root, "src", "extension.ts")],
  outfile: join(root, "out", "extension.js"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
  sourcemap: production ? false : "linked",
  minify: production,
  logLevel: "info",
};
if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
