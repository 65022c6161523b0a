#!/usr/bin/env bash
# Builds the daemon into OUT for $GOOS/$GOARCH (default: this machine), the way every package of
# it ships: the Makefile's daemon and cross builds, the release workflow and BenchmarkP5 all
# call this, so what is measured is what is installed. CC and CGO_LDFLAGS come from the caller
# (tree-sitter needs cgo; see the Makefile's "Cross builds"). docs/performance.md ("P5 — the
# daemon at rest") has the figures behind both choices below.
#
# A Linux daemon links statically: it then runs on any distribution whatever its C library (a
# dynamic one built on a new glibc refuses to start on an older one, as on many remote
# machines), the kernel maps no ld.so or libc.so beside it, and no dynamic loader runs before
# main. Name lookups and users then come from Go's own resolver and /etc/passwd reader (netgo,
# osusergo), as in any Go program built without cgo.
#
# The MCP client library, github.com/mark3labs/mcp-go, links its own server through the client's
# in-process transport (client/inprocess.go, client/transport/inprocess.go), which Cairn never
# uses; the server links jsonschema/v6, whose initialiser compiles every draft's meta-schemas
# before main in every process of the binary, the daemon's and the sandbox launcher's. The daemon
# is built against the same module, as go.sum verified it into the module cache, less those two
# files: a copy under .cache/daemon-build, named by a replace in a build-only copy of go.mod
# (-modfile). Should another file of a later version use them, this build fails, loudly. Tests
# build against the module as it is.
#
# Usage: scripts/build-daemon.sh OUT   (VERSION: what `cairn --version` prints; GO: the go command)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/build-daemon.sh OUT}
go=${GO:-go}
goos=${GOOS:-$("$go" env GOOS)}
ldflags="-X github.com/cairnhq/cairn/server/cli.Version=${VERSION:-dev}"
args=()
case $goos in
  # zig's linker refuses -s: the darwin daemon keeps its symbol table.
  darwin) ldflags="-w $ldflags" ;;
  linux)
    ldflags="-s -w $ldflags -linkmode=external -extldflags=-static"
    args=(-tags netgo,osusergo)
    ;;
  *) ldflags="-s -w $ldflags" ;;
esac

work=.cache/daemon-build
mkdir -p "$work"
"$go" mod download github.com/mark3labs/mcp-go
{ read -r ver; read -r src; } < <("$go" list -m -f '{{.Version}}{{"\n"}}{{.Dir}}' github.com/mark3labs/mcp-go)
if command -v cygpath >/dev/null; then src=$(cygpath -u "$src"); fi # Git Bash on Windows
[ -f "$src/client/transport/inprocess.go" ] || { echo "build-daemon: mark3labs/mcp-go $ver has no in-process transport at '$src'" >&2; exit 1; }
lib=$work/mcp-go@$ver
if [ ! -d "$lib" ]; then
  tmp=$(mktemp -d "$work/copy.XXXXXX")
  cp -R "$src/." "$tmp/"
  chmod -R u+w "$tmp"
  rm "$tmp/client/inprocess.go" "$tmp/client/transport/inprocess.go"
  [ -d "$lib" ] || mv "$tmp" "$lib" # a build beside this one may have made it meanwhile
  rm -rf "$tmp"
fi
modfile=$work/go.$$.mod
trap 'rm -f "$modfile" "${modfile%.mod}.sum"' EXIT
cp go.mod "$modfile"
cp go.sum "${modfile%.mod}.sum"
echo "replace github.com/mark3labs/mcp-go => ./$lib" >>"$modfile"

CGO_ENABLED=1 "$go" build -modfile "$modfile" -trimpath ${args[@]+"${args[@]}"} -ldflags "$ldflags" -o "$out" ./server/cmd/cairn
