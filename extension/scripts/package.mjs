// Builds dist/cairn.vsix: copies the daemon binaries from ../bin (bin/cairn for this machine's
// platform, bin/<platform>-<arch>/cairn for cross builds), each with the cairn-helper beside it
// (scripts/build-daemon.sh builds both), into extension/bin/<platform>-<arch>/ and runs vsce. Run after `npm run build` (the "package" script does both).
//
// With `--target <platform>-<arch>` (linux-x64, linux-arm64, darwin-x64, darwin-arm64,
// win32-x64) it builds dist/cairn-<target>.vsix instead: a platform-specific package (vsce
// --target) holding that platform's daemon only, which the Marketplace offers to that platform.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoBin = join(root, "..", "bin");
const outBin = join(root, "bin");
rmSync(outBin, { recursive: true, force: true });

const targets = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
const at = process.argv.indexOf("--target");
const target = at >= 0 ? process.argv[at + 1] : undefined;
if (at >= 0 && !targets.includes(target)) {
  console.error(`package: --target must be one of ${targets.join(", ")}`);
  process.exit(2);
}

let copied = 0;
const copy = (src, target) => {
  const ext = target.startsWith("win32") ? ".exe" : "";
  // The daemon runs the helper on first use and finds it beside its own executable.
  const helper = join(dirname(src), `cairn-helper${ext}`);
  if (!existsSync(helper)) {
    console.error(`package: no cairn-helper${ext} beside ${src} (build both with scripts/build-daemon.sh)`);
    process.exit(1);
  }
  mkdirSync(join(outBin, target), { recursive: true });
  for (const [from, name] of [[src, `cairn${ext}`], [helper, `cairn-helper${ext}`]]) {
    cpSync(from, join(outBin, target, name));
    chmodSync(join(outBin, target, name), 0o755);
    console.log(`package: bundled ${from} as bin/${target}/${name}`);
  }
  copied++;
};
if (existsSync(repoBin)) {
  for (const entry of readdirSync(repoBin)) {
    const p = join(repoBin, entry);
    if (statSync(p).isDirectory() && targets.includes(entry) && (!target || entry === target)) {
      for (const exe of ["cairn", "cairn.exe"]) if (existsSync(join(p, exe))) copy(join(p, exe), entry);
    }
  }
  const native = `${process.platform}-${process.arch}`;
  if ((!target || target === native) && !existsSync(join(outBin, native)) && existsSync(join(repoBin, "cairn"))) copy(join(repoBin, "cairn"), native);
}
if (copied === 0) {
  const want = target ? `bin/${target}/${target.startsWith("win32") ? "cairn.exe" : "cairn"}` : "bin/cairn";
  console.error(`package: no daemon binary at ../${want} (build it: go build -o ${want} ./server/cmd/cairn)`);
  process.exit(1);
}
if (!existsSync(join(root, "webview", "assets", "index.js"))) {
  console.error("package: webview/ is missing (build webview-ui first: npm run build -w webview-ui)");
  process.exit(1);
}
mkdirSync(join(root, "..", "dist"), { recursive: true });
const vsce = join(root, "..", "node_modules", ".bin", "vsce");
const out = join(root, "..", "dist", target ? `cairn-${target}.vsix` : "cairn.vsix");
const args = ["package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "-o", out];
if (target) args.push("--target", target);
execFileSync(vsce, args, {
  cwd: root,
  stdio: "inherit",
});
