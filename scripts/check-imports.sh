#!/usr/bin/env bash
# Fails when a package imports across the architecture's dependency direction
# (docs: architecture.md "Rules"). Go rules use `go list`; TypeScript rules use grep.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
fail=0
bad() { echo "check-imports: $*" >&2; fail=1; }

# 1. core/** never depends on server/**, grpc or protobuf — not even transitively.
while read -r pkg deps; do
  for d in $deps; do
    case "$d" in
      "$mod"/server*|google.golang.org/grpc|google.golang.org/grpc/*|google.golang.org/protobuf|google.golang.org/protobuf/*)
        bad "$pkg depends on $d"; break;;
    esac
  done
done < <(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./core/... >/dev/null && \
         go list -f '{{.ImportPath}} {{join .Deps " "}}' ./core/...)

# 2. Level-0 packages import only the standard library.
level0="core/parse core/diff core/event core/msg"
for p in $level0; do
  [ -d "$p" ] || continue
  for imp in $(go list -f '{{join .Imports " "}}' "./$p"); do
    case "$imp" in *.*/*) bad "$mod/$p (level 0) imports $imp";; esac
  done
done

# 3. A tool family never imports core/task or a sibling family.
for dir in core/tools/*/; do
  fam=$(basename "$dir")
  [ -n "$(ls "$dir"*.go 2>/dev/null)" ] || continue
  for imp in $(go list -f '{{join .Imports " "}}' "./$dir"); do
    case "$imp" in
      "$mod"/core/task|"$mod"/core/task/*) bad "tool family $fam imports $imp";;
      "$mod"/core/tools/"$fam"|"$mod"/core/tools/"$fam"/*) ;;
      "$mod"/core/tools/*) bad "tool family $fam imports sibling $imp";;
    esac
  done
done

# 4. TypeScript: the extension never imports the webview; only webview-ui/src/rpc touches the VS Code API.
if [ -d extension/src ] && grep -rEn "from ['\"][./]*\.\./\.\./webview-ui|from ['\"]webview-ui|cairn-webview-ui" extension/src; then
  bad "extension/src imports from webview-ui"
fi
if [ -d webview-ui/src ]; then
  hits=$(grep -rln "acquireVsCodeApi" webview-ui/src --include='*.ts' --include='*.tsx' | grep -v '^webview-ui/src/rpc/' | grep -v '\.test\.' || true)
  [ -z "$hits" ] || bad "acquireVsCodeApi outside webview-ui/src/rpc: $hits"
fi

[ "$fail" = 0 ] && echo "check-imports: ok"
exit "$fail"
