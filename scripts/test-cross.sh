#!/usr/bin/env bash
# Runs the cross-built daemons on this machine: bin/linux-arm64/cairn under qemu-user and
# bin/win32-x64/cairn.exe under Wine. For each: version, debug parse, tool (an edit applied; a
# failing edit leaves the file byte-identical), search_files and list_code_definition_names on a
# small tree (tree-sitter, through cgo in cairn-helper), serve + one authenticated RPC from the native client
# (server/cli TestForeignDaemon), and `cairn run` against the fake model: attached to that
# daemon (Windows: from cmd.exe) and with a private daemon (not under Wine: see pipe_skip). First,
# the daemons must be as scripts/build-daemon.sh builds them (Linux ones and their helpers static). Needs
# qemu-user, gcc-aarch64-linux-gnu with its static libc, and wine64 (.ci/run installs them).
# Usage: scripts/test-cross.sh [linux-arm64] [win32-x64]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-arm64 win32-x64)

work=$(mktemp -d /tmp/cairn-cross.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${WINEPREFIX:-}" ]; then wineserver -k 2>/dev/null || /usr/lib/wine/wineserver -k 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

failures=0
pass() { printf '  ok    %s\n' "$1"; }
fail() { printf '  FAIL  %s\n' "$1"; sed 's/^/        | /' "$work/out" | head -20; failures=$((failures + 1)); }
skip() { printf '  skip  %s: %s\n' "$1" "$2"; }

# The native side: the CLI's client as a test binary, and the fake model.
go test -c -o "$work/cli.test" ./server/cli
go build -o "$work/fakellm" ./server/cmd/fakellm

# Per target: run CMD... runs the foreign cairn; hostpath P turns a path here into the one the
# foreign binary sees.
setup_linux_arm64() {
  command -v qemu-aarch64 >/dev/null || { echo "test-cross: qemu-aarch64 missing (apt-get install qemu-user)"; exit 1; }
  # No -L sysroot: a Linux daemon is static (scripts/build-daemon.sh) and must run without one.
  # Without binfmt_misc the kernel cannot start an arm64 program the daemon starts itself: its
  # cairn-helper is named to it (core/helper) through a script that runs it under qemu too.
  printf '#!/bin/sh\nexec qemu-aarch64 "%s" "$@"\n' "$repo/bin/linux-arm64/cairn-helper" >"$work/arm64-helper"
  chmod +x "$work/arm64-helper"
  run() { CAIRN_HELPER="$work/arm64-helper" qemu-aarch64 "$repo/bin/linux-arm64/cairn" "$@"; }
  shell_run() { run "$@"; }
  hostpath() { printf '%s' "$1"; }
  serve_args=()
  shell_name=""
  pipe_skip=""
}
setup_win32_x64() {
  # shellcheck source=scripts/wine/prefix.sh
  . "$repo/scripts/wine/prefix.sh"
  run() { "$wine" "$repo/bin/win32-x64/cairn.exe" "$@"; }
  shell_run() { "$wine" cmd.exe /c "$(hostpath "$repo/bin/win32-x64/cairn.exe")" "$@"; }
  hostpath() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }
  # The native client cannot open a Wine named pipe: the daemon it talks to listens on
  # loopback TCP; the pipe is exercised by `cairn run` below, client and daemon both in Wine.
  serve_args=(--listen 127.0.0.1:0)
  shell_name="cmd.exe"
  # Measured with Wine 8.0: go-winio's overlapped named-pipe I/O never completes (a client's
  # first write to a freshly accepted pipe blocks for good), so a daemon on a pipe cannot be
  # talked to under Wine; real Windows is covered by the release workflow's Windows runner.
  pipe_skip="Wine 8 does not complete go-winio's overlapped named-pipe writes (the gRPC preface never arrives)"
}

tree() {
  rm -rf "$work/tree" && mkdir -p "$work/tree/src"
  printf 'package src\n\n// Hello greets.\nfunc Hello() string {\n\treturn "hi"\n}\n' >"$work/tree/src/hello.go"
  printf 'export function wave(name: string): string {\n  return `bye ${name}`;\n}\n' >"$work/tree/src/wave.ts"
}

tool() { # tool NAME EXPECTED_RC INPUT
  local rc=0
  printf '%s' "$3" | run tool -C "$(hostpath "$work/tree")" --yes >"$work/out" 2>&1 || rc=$?
  if [ "$rc" != "$2" ]; then echo "exit $rc, want $2" >>"$work/out"; return 1; fi
}

suite() {
  local t=$1
  echo "== $t"
  "setup_${t//-/_}"

  if run version >"$work/out" 2>&1 && grep -q '^cairn ' "$work/out"; then pass "version: $(cat "$work/out")"; else fail version; fi

  if printf '<read_file>\n<path>src/a.go</path>\n</read_file>' | run debug parse >"$work/out" 2>&1 &&
    grep -q '"tool_use"' "$work/out" && grep -q '"src/a.go"' "$work/out"; then pass "debug parse"; else fail "debug parse"; fi

  tree
  if tool apply 0 $'<replace_in_file>\n<path>src/hello.go</path>\n<diff>\n------- SEARCH\n\treturn "hi"\n=======\n\treturn "hello"\n+++++++ REPLACE\n</diff>\n</replace_in_file>' &&
    grep -q 'return "hello"' "$work/tree/src/hello.go" && ! grep -q 'return "hi"' "$work/tree/src/hello.go"; then
    pass "tool replace_in_file applied"
  else fail "tool replace_in_file applied"; fi

  local before after
  before=$(sha256sum <"$work/tree/src/hello.go")
  if tool miss 1 $'<replace_in_file>\n<path>src/hello.go</path>\n<diff>\n------- SEARCH\n\treturn "absent"\n=======\n\treturn "x"\n+++++++ REPLACE\n</diff>\n</replace_in_file>' &&
    after=$(sha256sum <"$work/tree/src/hello.go") && [ "$before" = "$after" ]; then
    pass "tool replace_in_file error: exit 1, file byte-identical"
  else fail "tool replace_in_file error"; fi

  if tool search 0 $'<search_files>\n<path>.</path>\n<regex>func Hel+o|function wave</regex>\n</search_files>' &&
    grep -q 'src/hello.go' "$work/out" && grep -q 'src/wave.ts' "$work/out"; then pass "search_files"; else fail search_files; fi

  if tool defs 0 $'<list_code_definition_names>\n<path>src</path>\n</list_code_definition_names>' &&
    grep -q 'func Hello' "$work/out" && grep -q 'function wave' "$work/out"; then
    pass "list_code_definition_names (tree-sitter in cairn-helper: Go and TypeScript)"
  else fail list_code_definition_names; fi

  # A PDF's text comes from cairn-helper, which the daemon runs from beside its own executable.
  cp scripts/cross/hello.pdf "$work/tree/doc.pdf"
  if tool pdf 0 $'<read_file>\n<path>doc.pdf</path>\n</read_file>' && grep -q 'Hello from a cross-built helper' "$work/out"; then
    pass "read_file of a PDF (through cairn-helper)"
  else fail "read_file of a PDF"; fi

  # The fake model, for the runs below.
  "$work/fakellm" --script scripts/cross/run-script.json >"$work/fake.out" 2>&1 &
  local fpid=$!
  pids+=("$fpid")
  for _ in $(seq 1 100); do grep -q base_url "$work/fake.out" 2>/dev/null && break; sleep 0.1; done
  local base
  base=$(sed -n 's/.*"base_url": *"\([^"]*\)".*/\1/p' "$work/fake.out" | head -1)

  # serve, then one RPC from the native client.
  local data="$work/data-$t"
  mkdir -p "$data"
  # An attached run follows the daemon's approval settings, not its own flags: yolo here.
  printf '{"api": {"baseUrl": "%s", "apiKey": "test", "model": "fake"}, "autoApprove": {"yolo": true}}\n' "$base" >"$data/settings.json"
  run serve --data-dir "$(hostpath "$data")" "${serve_args[@]}" >"$work/serve.log" 2>&1 &
  local spid=$!
  pids+=("$spid")
  for _ in $(seq 1 240); do [ -s "$data/daemon.json" ] && break; sleep 0.5; done
  if [ -s "$data/daemon.json" ] &&
    CAIRN_FOREIGN_HANDSHAKE="$data/daemon.json" CAIRN_FOREIGN_TOKEN="$data/daemon.token" \
      "$work/cli.test" -test.run '^TestForeignDaemon$' -test.v >"$work/out" 2>&1; then
    pass "serve + GetState from the native client: $(grep -o 'daemon pid.*' "$work/out")"
  else
    cat "$work/serve.log" >>"$work/out"
    fail "serve + GetState from the native client"
  fi

  # cairn run --connect, attached to that daemon (found through its handshake), from the
  # foreign shell: a task with an edit and a command against the fake model.
  tree
  local rc=0
  shell_run run --connect --data-dir "$(hostpath "$data")" -C "$(hostpath "$work/tree")" --yolo "write the note" >"$work/out" 2>&1 || rc=$?
  if [ "$rc" = 0 ] && grep -q 'written by the foreign daemon' "$work/tree/note.txt" 2>/dev/null && grep -q 'ran-in-shell' "$work/out"; then
    pass "cairn run --connect${shell_name:+ from $shell_name} (write_to_file + execute_command)"
  else
    echo "exit $rc" >>"$work/out"
    fail "cairn run --connect"
  fi
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true

  # cairn run with its own private daemon: a Unix socket, or on Windows a named pipe.
  if [ -n "$pipe_skip" ]; then
    skip "cairn run (private daemon over a named pipe)" "$pipe_skip"
  else
    "$work/fakellm" --script scripts/cross/run-script.json >"$work/fake2.out" 2>&1 &
    pids+=("$!")
    for _ in $(seq 1 100); do grep -q base_url "$work/fake2.out" 2>/dev/null && break; sleep 0.1; done
    base=$(sed -n 's/.*"base_url": *"\([^"]*\)".*/\1/p' "$work/fake2.out" | head -1)
    tree
    rc=0
    CAIRN_DATA_DIR="$(hostpath "$work/rundata-$t")" shell_run run -C "$(hostpath "$work/tree")" --base-url "$base" \
      --api-key test --model fake --yolo "write the note" >"$work/out" 2>&1 || rc=$?
    if [ "$rc" = 0 ] && grep -q 'written by the foreign daemon' "$work/tree/note.txt" 2>/dev/null && grep -q 'ran-in-shell' "$work/out"; then
      pass "cairn run (private daemon, write_to_file + execute_command)"
    else
      echo "exit $rc" >>"$work/out"
      fail "cairn run"
    fi
  fi
  kill "$fpid" 2>/dev/null || true
}

# The daemons as they ship (scripts/build-daemon.sh): a Linux one needs no C library of the
# machine it runs on, none runs C code (tree-sitter's grammars are in the helper) or links the
# MCP library's server, its JSON Schema compiler or grpc-go's request tracing, and what loads on
# first use (the PDF reader, HTML to Markdown, the OpenTelemetry SDK) is in the cairn-helper
# beside each, not in the daemon (core/helper).
echo "== shipped daemons"
for exe in bin/cairn bin/linux-arm64/cairn bin/win32-x64/cairn.exe; do
  [ -e "$exe" ] || continue
  if [ "$exe" != bin/win32-x64/cairn.exe ]; then
    for bin in "$exe" "$(dirname "$exe")/cairn-helper"; do
      if LC_ALL=C readelf -d "$bin" >"$work/out" 2>&1 && grep -q 'no dynamic section' "$work/out"; then
        pass "$bin: static"
      else fail "$bin: dynamically linked"; fi
    done
  fi
  if go version -m "$exe" >"$work/out" 2>&1 && grep -q 'mark3labs/mcp-go' "$work/out" &&
    ! grep -q 'santhosh-tekuri/jsonschema' "$work/out"; then
    pass "$exe: MCP client without the library's server"
  else fail "$exe: links jsonschema/v6 (the MCP library's server)"; fi
  if grep -qE 'build[[:space:]]+CGO_ENABLED=0$' "$work/out" && ! grep -q 'smacker/go-tree-sitter' "$work/out"; then
    pass "$exe: Go only (no cgo, no tree-sitter)"
  else fail "$exe: built with cgo or linking tree-sitter"; fi
  if grep -qE 'build[[:space:]]+-tags=(.*,)?grpcnotrace(,|$)' "$work/out"; then
    pass "$exe: without grpc-go's request tracing"
  else fail "$exe: built without the grpcnotrace tag"; fi
  helper=$(dirname "$exe")/cairn-helper${exe##*cairn}
  heavy='ledongthuc/pdf|html-to-markdown|go.opentelemetry.io/otel/sdk|smacker/go-tree-sitter'
  if go version -m "$helper" >"$work/helper.out" 2>&1 && [ "$(grep -cE "$heavy" "$work/helper.out")" -ge 4 ] &&
    go version -m "$exe" >"$work/out" 2>&1 && ! grep -qE "$heavy" "$work/out"; then
    pass "$exe: the PDF reader, HTML to Markdown, OpenTelemetry and tree-sitter are in $helper only"
  else cat "$work/helper.out" >>"$work/out"; fail "$exe: heavy libraries in the daemon, or no $helper"; fi
done

for t in "${targets[@]}"; do suite "$t"; done
if [ "$failures" -gt 0 ]; then echo "test-cross: $failures failed"; exit 1; fi
echo "test-cross: all passed"
