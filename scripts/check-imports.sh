#!/usr/bin/env bash
# Fails when a package imports across the architecture's dependency direction
# (docs/architecture.md, "Packages and levels"). Go rules use `go list`; TypeScript rules use grep.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
fail=0
bad() { echo "check-imports: $*" >&2; fail=1; }

# Imports differ by platform (proc_windows.go, _unix.go files): every rule below reads the
# packages as linux, windows and darwin build them. A go list that fails is a failure.
for goos in linux windows darwin; do
  GOOS=$goos CGO_ENABLED=1 go list ./core/... ./server/... >/dev/null || bad "go list failed for GOOS=$goos"
done

# 1. core/** never depends on server/**, grpc or protobuf — not even transitively.
while read -r pkg deps; do
  for d in $deps; do
    case "$d" in
      "$mod"/server*|google.golang.org/grpc|google.golang.org/grpc/*|google.golang.org/protobuf|google.golang.org/protobuf/*)
        bad "$pkg depends on $d"; break;;
    esac
  done
done < <(for goos in linux windows darwin; do
           GOOS=$goos CGO_ENABLED=1 go list -f '{{.ImportPath}} {{join .Deps " "}}' ./core/...
         done)

# 2. Levels (docs/architecture.md "Packages and levels"): a package imports only packages of a
#    lower level, never one of its own level or above. Every package must have a level.
level() {
  case "$1" in
    core/lazy|core/convert) echo -1;;
    core/helper) echo 0;;
    core/helper/helpertest) echo 1;;
    core/msg|core/toolnames|core/watch|core/event|core/rules|core/shellcmd|core/protect|core/sandbox|core/checkpoint|core/worktree|core/config|\
    core/llm|core/llm/llmtest|core/internal/pdftest|core/internal/wine|core/internal/winjob|core/internal/mdsections|core/internal/golden|core/internal/tailbuf|core/egress|core/telemetry) echo 0;;
    core/workspace) echo 1;;
    core/parse|core/diff|core/commitmsg|core/llm/openai|core/llm/presets|core/llm/vscodelm|core/skills|core/store|core/tools|core/slash|core/mcp|core/hooks|core/sandbox/sandboxtest) echo 2;;
    core/tools/codedefs/treesitter) echo 4;;
    core/store/memstore|core/tools/*|core/prompt|core/modes|core/host/direct|core/lsp|core/policy) echo 3;;
    core/store/storetest|core/envdetails|core/mentions|core/window) echo 4;;
    core/task/*) echo 4;;
    core/task) echo 5;;
    core/agent) echo 6;;
    server/internal/gen/cairn/host/v1) echo 10;;
    server/internal/gen/cairn/v1) echo 11;;
    server/hostbridge) echo 12;;
    server/follow|server/internal/nettest|server/internal/otlptest|server/otel) echo 12;;
    server/rpc|server/otel/exporter) echo 13;;
    server|server/eval|server/acp) echo 14;;
    server/servertest|server/cli) echo 15;;
    server/cmd/*|server/internal/bench/*) echo 16;;
    *) echo "";;
  esac
}
while read -r pkg imps; do
  p=${pkg#"$mod"/}
  lp=$(level "$p")
  if [ -z "$lp" ]; then bad "$p has no level: add it to scripts/check-imports.sh and docs/architecture.md"; continue; fi
  for imp in $imps; do
    case "$imp" in "$mod"/*) ;; *) continue;; esac
    i=${imp#"$mod"/}
    li=$(level "$i")
    if [ -z "$li" ] || [ "$li" -ge "$lp" ]; then bad "$p (level $lp) imports $i (level ${li:-none}): only lower levels"; fi
  done
done < <(for goos in linux windows darwin; do
           GOOS=$goos CGO_ENABLED=1 go list -f '{{.ImportPath}} {{join .Imports " "}}' ./core/... ./server/...
         done | sort -u)

# 3. The daemon's executable links none of the libraries that load on first use in cairn-helper
#    (core/helper; docs/performance.md, "P5 — the daemon at rest"): their initialisers would run
#    in every process of the binary. Nor does it link C code: tree-sitter's grammars are in the
#    helper too (core/tools/codedefs), and the daemon is built without cgo.
heavy=$(for goos in linux windows darwin; do GOOS=$goos CGO_ENABLED=1 go list -deps ./server/cmd/cairn; done |
  grep -E "^(github.com/ledongthuc/pdf|github.com/JohannesKaufmann/html-to-markdown|golang.org/x/net/html|go.opentelemetry.io/otel/sdk|go.opentelemetry.io/otel/exporters|$mod/server/otel/exporter|$mod/core/convert|github.com/saintfish/chardet|golang.org/x/text/encoding/htmlindex|encoding/xml|github.com/smacker/go-tree-sitter|$mod/core/tools/codedefs/treesitter)(/|\$)" | sort -u || true)
for d in $heavy; do bad "server/cmd/cairn depends on $d, which belongs in cairn-helper"; done

# 4. TypeScript: the extension never imports the webview; the shared package (proto/ts) imports
#    neither side, only @bufbuild/protobuf and its own files; only webview-ui/src/rpc touches the
#    VS Code API.
if [ -d extension/src ] && grep -rEn "from ['\"][./]*\.\./\.\./webview-ui|from ['\"]webview-ui|cairn-webview-ui" extension/src; then
  bad "extension/src imports from webview-ui"
fi
if [ -d proto/ts/src ]; then
  imports=$(grep -rEn "(from|import) ['\"]" proto/ts/src --include='*.ts' || true)
  hits=$(grep -Ev "(from|import) ['\"](\./|\.\./|@bufbuild/protobuf)" <<<"$imports" || true; grep -E "['\"](\./|\.\./)+(extension|webview-ui)/" <<<"$imports" || true)
  [ -z "$hits" ] || bad "proto/ts imports beyond @bufbuild/protobuf and itself: $hits"
fi
if [ -d webview-ui/src ]; then
  hits=$(grep -rln "acquireVsCodeApi" webview-ui/src --include='*.ts' --include='*.tsx' | grep -v '^webview-ui/src/rpc/' | grep -v '\.test\.' || true)
  [ -z "$hits" ] || bad "acquireVsCodeApi outside webview-ui/src/rpc: $hits"
fi

[ "$fail" = 0 ] && echo "check-imports: ok"
exit "$fail"
