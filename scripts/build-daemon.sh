#!/usr/bin/env bash
# Builds the daemon into OUT for $GOOS/$GOARCH (default: this machine), and beside it its second
# executable, cairn-helper (cairn-helper.exe for Windows), the way every package of it ships: the Makefile's daemon and cross builds, the release workflow and BenchmarkP5 all
# call this, so what is measured is what is installed. docs/performance.md ("P5 — the daemon at
# rest") has the figures behind the choices below.
#
# The daemon is Go only, built without cgo: no C library's start-up runs before main, a crash in
# C code cannot take it down, and it needs no C compiler for any target. A Linux daemon is then
# static by itself: it runs on any distribution whatever its C library, and the kernel maps no
# ld.so or libc.so beside it. The C code Cairn has, tree-sitter's grammars (core/tools/codedefs),
# is in cairn-helper, built with cgo: CC and CGO_LDFLAGS come from the caller (see the Makefile's
# "Cross builds"). A Linux helper links statically too, with Go's own resolver and /etc/passwd
# reader (netgo, osusergo), as in any Go program built without cgo.
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
# whose initialisers would otherwise run before main. And go-seccomp-bpf, whose filter the sandbox
# launcher loads (core/sandbox), builds the syscall tables of every architecture it knows before
# main, in every process of the binary; a daemon is built for linux/amd64 or linux/arm64 only,
# and the filter names the syscalls of the architecture it runs on. Its copy keeps that one
# architecture's table (x86_64 or aarch64) and has the others empty (x32 is still refused: the
# filter tests its syscall bit, not its table).
#
# cairn-helper holds what few tasks need and whose libraries are heavy to load or are C code
# (core/helper): the daemon runs it on first use and finds it beside its own executable.
#
# Usage: scripts/build-daemon.sh OUT   (VERSION: what `cairn --version` prints; GO: the go command)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/build-daemon.sh OUT}
go=${GO:-go}
goos=${GOOS:-$("$go" env GOOS)}
ldflags="-X github.com/cairnhq/cairn/server/cli.Version=${VERSION:-dev}"
helper_ldflags= helper_tags=
# grpc-go's request tracing (golang.org/x/net/trace, for the /debug/requests page of an HTTP
# server Cairn does not run) is left out: its package and initialiser never load.
tags=grpcnotrace
case $goos in
  # zig's linker refuses -s: the darwin helper keeps its symbol table.
  darwin)
    helper_ldflags="-w $ldflags"
    ldflags="-s -w $ldflags"
    ;;
  linux)
    ldflags="-s -w $ldflags"
    helper_ldflags="$ldflags -linkmode=external -extldflags=-static"
    helper_tags=netgo,osusergo
    ;;
  *) ldflags="-s -w $ldflags" ;;
esac

work=.cache/daemon-build
mkdir -p "$work"
modfile=$work/go.$$.mod
trap 'rm -f "$modfile" "${modfile%.mod}.sum"' EXIT
cp go.mod "$modfile"
cp go.sum "${modfile%.mod}.sum"
# patch MODULE NAME CMD...: build against a copy of MODULE that CMD changed (run in the copy's
# folder; it fails when the files are not as it expects), kept in $work/MODULE@VERSION-NAME.
patch() {
  local mod=$1 name=$2 ver src lib tmp
  shift 2
  "$go" mod download "$mod"
  { read -r ver; read -r src; } < <("$go" list -m -f '{{.Version}}{{"\n"}}{{.Dir}}' "$mod")
  if command -v cygpath >/dev/null; then src=$(cygpath -u "$src"); fi # Git Bash on Windows
  lib=$work/${mod//\//_}@$ver-$name
  if [ ! -d "$lib" ]; then
    tmp=$(mktemp -d "$work/copy.XXXXXX")
    cp -R "$src/." "$tmp/"
    chmod -R u+w "$tmp"
    (cd "$tmp" && "$@") || { echo "build-daemon: cannot patch $mod $ver ($name)" >&2; rm -rf "$tmp"; exit 1; }
    [ -d "$lib" ] || mv "$tmp" "$lib" # a build beside this one may have made it meanwhile
    rm -rf "$tmp"
  fi
  echo "replace $mod => ./$lib" >>"$modfile"
}
# remove FILE...: delete FILEs, each of which must exist.
remove() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || { echo "build-daemon: no $f" >&2; return 1; }
  done
  rm "$@"
}
# empty_tables FILE KEEP...: empty every `var syscallsX = map[int]string{…}` of FILE but the KEEP
# ones, each of which must be there with more than 100 entries.
empty_tables() {
  local file=$1
  shift
  awk -v keep=" $* " '
    /^var syscalls[A-Za-z0-9_]* = map\[int\]string\{$/ {
      if (index(keep, " " $2 " ")) { table = $2; entries[table] = 0; print; next } else { print "var " $2 " = map[int]string{}"; emptied++; skip = 1; next }
    }
    skip { if ($0 == "}") skip = 0; next }
    table != "" { if ($0 == "}") table = ""; else entries[table]++ }
    { print }
    END {
      n = split(keep, want, " ")
      for (i = 1; i <= n; i++) if (entries[want[i]] <= 100) exit 1
      if (emptied == 0) exit 1
    }
  ' "$file" >"$file.new" || { echo "build-daemon: $file is not as expected (keeping $*)" >&2; return 1; }
  mv "$file.new" "$file"
}
patch github.com/mark3labs/mcp-go trim remove client/inprocess.go client/transport/inprocess.go
patch github.com/go-git/go-git/v5 trim remove plumbing/format/gitignore/dir.go
goarch=${GOARCH:-$("$go" env GOARCH)}
case $goarch in
  amd64) tables=syscallsX86_64 ;;
  arm64) tables=syscallsAARCH64 ;;
  *) tables="syscallsX86_64 syscallsAARCH64" ;; # no Linux daemon ships for it: the package is unused
esac
patch github.com/elastic/go-seccomp-bpf "tables-$goarch" empty_tables arch/zsyscalls.go $tables

CGO_ENABLED=0 "$go" build -modfile "$modfile" -trimpath -tags "$tags" -ldflags "$ldflags" -o "$out" ./server/cmd/cairn
helper=$(dirname "$out")/cairn-helper
[ "$goos" != windows ] || helper=$helper.exe
CGO_ENABLED=1 "$go" build -trimpath -tags "$helper_tags" -ldflags "${helper_ldflags:-$ldflags}" -o "$helper" ./server/cmd/cairn-helper
