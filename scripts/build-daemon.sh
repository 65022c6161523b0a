#!/usr/bin/env bash
# Builds the daemon into OUT for $GOOS/$GOARCH (default: this machine), and beside it its second
# executable, cairn-helper (cairn-helper.exe for Windows), the way every package of it ships: the Makefile's daemon and cross builds, the release workflow and BenchmarkP5 all
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
# build against the module as it is. The same goes for go-git's gitignore matcher, the one part
# of go-git Cairn uses (core/workspace): its dir.go, which reads git's own configuration files
# for global patterns that Cairn never asks for, links go-git's config parser and encoding/gob,
# whose initialisers would otherwise run before main.
#
# cairn-helper holds what few tasks need and whose libraries are heavy to load (core/helper): the
# daemon runs it on first use and finds it beside its own executable. It needs no C code, so it
# builds without cgo: static on Linux and no C cross compiler for any target.
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
modfile=$work/go.$$.mod
trap 'rm -f "$modfile" "${modfile%.mod}.sum"' EXIT
cp go.mod "$modfile"
cp go.sum "${modfile%.mod}.sum"
# trim MODULE FILE...: build against MODULE less FILEs (see above).
trim() {
  local mod=$1 ver src lib tmp f
  shift
  "$go" mod download "$mod"
  { read -r ver; read -r src; } < <("$go" list -m -f '{{.Version}}{{"\n"}}{{.Dir}}' "$mod")
  if command -v cygpath >/dev/null; then src=$(cygpath -u "$src"); fi # Git Bash on Windows
  for f in "$@"; do
    [ -f "$src/$f" ] || { echo "build-daemon: $mod $ver has no $f at '$src'" >&2; exit 1; }
  done
  lib=$work/${mod//\//_}@$ver
  if [ ! -d "$lib" ]; then
    tmp=$(mktemp -d "$work/copy.XXXXXX")
    cp -R "$src/." "$tmp/"
    chmod -R u+w "$tmp"
    for f in "$@"; do rm "$tmp/$f"; done
    [ -d "$lib" ] || mv "$tmp" "$lib" # a build beside this one may have made it meanwhile
    rm -rf "$tmp"
  fi
  echo "replace $mod => ./$lib" >>"$modfile"
}
trim github.com/mark3labs/mcp-go client/inprocess.go client/transport/inprocess.go
trim github.com/go-git/go-git/v5 plumbing/format/gitignore/dir.go

CGO_ENABLED=1 "$go" build -modfile "$modfile" -trimpath ${args[@]+"${args[@]}"} -ldflags "$ldflags" -o "$out" ./server/cmd/cairn
helper=$(dirname "$out")/cairn-helper
[ "$goos" != windows ] || helper=$helper.exe
CGO_ENABLED=0 "$go" build -trimpath -ldflags "${ldflags%% -linkmode*}" -o "$helper" ./server/cmd/cairn-helper
