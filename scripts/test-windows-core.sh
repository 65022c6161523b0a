#!/usr/bin/env bash
# Runs the core packages' tests as Windows binaries under Wine: the release workflow runs
# `go test ./core/...` on a Windows runner, and this catches what would fail there (drive
# letters, backslashes, CRLF, no execute bits, ACLs instead of mode bits) from a Linux machine.
# Each package's test binary is cross-built (cgo through mingw-w64, for tree-sitter) and run in
# its package folder, as go test would. Needs wine64 and mingw-w64 (.ci/run installs them).
#
# The binaries are built with a test-only -overlay from scripts/wine/overlay.sh, so that Go's
# temp dir cleanup works under Wine 8 (see that script); nothing shipped is built with it.
# Tests that fail only for a reason of Wine's skip themselves there (core/internal/wine).
# Usage: scripts/test-windows-core.sh [package pattern...]   (default ./core/...)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./core/...)

work=$(mktemp -d /tmp/cairn-wintest.XXXXXX)
cleanup() {
  "${wineserver:-/usr/lib/wine/wineserver}" -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=scripts/wine/prefix.sh
. "$repo/scripts/wine/prefix.sh"
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
# One wineserver for the whole run: left alone it exits a moment after each binary, and the
# next binary's start can race its exit ("wine client error: recvmsg: Connection reset").
# A server still running (the prefix was just made) cannot become persistent: wait it out.
"$wineserver" -w
"$wineserver" -p

start=$SECONDS
overlay=$(scripts/wine/overlay.sh "$work/overlay")
GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
  go test -overlay "$overlay" -c -o "$work/bin/" "${pkgs[@]}" | { grep -v 'no test files' || true; }
# Tests that read a PDF, convert a page or outline code run the real cairn-helper (core/helper),
# as Windows would beside the daemon; helpertest uses the one CAIRN_HELPER names (a Windows path:
# Z: is /). Not beside the test binaries: core/helper's tests check what a daemon with none
# beside it does. Its tree-sitter grammars are C code: cgo through mingw-w64, as it ships.
GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc go build -o "$work/helper/cairn-helper.exe" ./server/cmd/cairn-helper
export CAIRN_HELPER="Z:${work//\//\\}\\helper\\cairn-helper.exe"
echo "test-windows-core: built in $((SECONDS - start))s"

# Packages are listed as Windows sees them, so one whose tests are all Windows-only runs too.
failures=0
passed=0
retried=()
while read -r name dir; do
  exe="$work/bin/$name.test.exe"
  if ! [ -f "$exe" ]; then echo "  FAIL  $dir: no test binary $name.test.exe"; failures=$((failures + 1)); continue; fi
  t=$SECONDS
  rel=${dir#"$repo"/}
  rc=0
  (cd "$dir" && timeout 600 "$wine" "$exe" -test.v -test.count=1 -test.timeout=300s >"$work/$name.log" 2>&1) || rc=$?
  if [ "$rc" != 0 ]; then
    # Under Wine a binary now and then fails for Wine's sake: it does not start (exit 1, no test
    # run), or a directory change notification never comes. Such a failure is shown and the binary
    # runs once more; a real failure fails twice.
    echo "  again $rel: exit $rc under Wine; once more. What failed:"
    { grep -E -- '--- FAIL|^[[:space:]]+[[:alnum:]_]+\.go:[0-9]+: ' "$work/$name.log" | grep -v 'under Wine: ' | head -6 || true; tail -3 "$work/$name.log"; } | sed 's/^/        | /'
    rc=0
    (cd "$dir" && timeout 600 "$wine" "$exe" -test.v -test.count=1 -test.timeout=300s >"$work/$name.log" 2>&1) || rc=$?
    [ "$rc" != 0 ] || retried+=("$rel")
  fi
  if [ "$rc" = 0 ]; then
    printf '  ok    %-28s %3ss  %s skipped under Wine\n' "$rel" "$((SECONDS - t))" "$(grep -c -- 'under Wine: ' "$work/$name.log" || true)"
    passed=$((passed + 1))
  else
    printf '  FAIL  %-28s %3ss  exit %s\n' "$rel" "$((SECONDS - t))" "$rc"
    grep -E -A3 -- '--- FAIL|^[[:space:]]+[[:alnum:]_]+\.go:[0-9]+: |^panic' "$work/$name.log" | grep -Ev -- '^=== |--- (PASS|SKIP)|under Wine: ' | head -40 | sed 's/^/        | /' || true
    tail -5 "$work/$name.log" | sed 's/^/        | /'
    failures=$((failures + 1))
  fi
done < <(GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc go list -f '{{if .TestGoFiles}}{{.Name}} {{.Dir}}{{else if .XTestGoFiles}}{{.Name}} {{.Dir}}{{end}}' "${pkgs[@]}")

echo "test-windows-core: $passed passed (${#retried[@]} on a second run: ${retried[*]:-none}), $failures failed, $((SECONDS - start))s in all"
[ "$failures" = 0 ]
