#!/usr/bin/env bash
# P11 (docs/performance.md): warm search_files through `cairn tool --connect` against
# `rg --json --context 1` on a tree of about 100,000 files, median of 9 runs per query.
# The tree is GOROOT/src copied until it holds 100,000 files (kept in .cache/p11-tree); the
# in-process benchmark (BenchmarkIndexedSearch) prints the cold build time and the index's
# memory on the same tree; the daemon's RSS is printed beside the tree's bytes (goal: at most a
# quarter). Needs bin/cairn (make daemon) and, for the anchor, rg.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/cairn
tree=${P11_TREE:-$PWD/.cache/p11-tree}
if [ ! -f "$tree/.complete" ]; then
  rm -rf "$tree" && mkdir -p "$tree"
  src=$(go env GOROOT)/src
  i=0
  while [ "$(find "$tree" -type f | wc -l)" -lt 100000 ]; do
    i=$((i + 1))
    cp -r "$src" "$tree/copy$i"
  done
  touch "$tree/.complete"
fi
echo "P11 tree: $tree, $(find "$tree" -type f | wc -l) files"
CAIRN_P11_TREE=$tree go test -run '^$' -bench 'IndexedSearch' -benchtime 1x -v ./core/tools/search | grep -E 'P11|x-rg|x-quarter'

data=$(mktemp -d)
"$bin" serve --data-dir "$data" --idle-exit 0 >/dev/null 2>"$data/serve.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$data"' EXIT
sleep 1
search() { printf '<search_files>\n<path>.</path>\n<regex>%s</regex>\n</search_files>\n' "$1" |
  "$bin" tool --yes --connect --data-dir "$data" -C "$tree" >/dev/null; }
ms() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; echo $((($(date +%s%N) - s) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "first search (starts the build; the scan answers): $(ms search 'func main') ms"
# The daemon builds the index in the background; wait until a search is as fast twice running.
sleep "${P11_BUILD_WAIT:-150}"
for q in 'func main' '[A-Z][a-z]+Error\(' '(?i)deadline' 'func \(\w+\) Handle\w*\b'; do
  c=$(for _ in 1 2 3 4 5 6 7 8 9; do ms search "$q"; done | median)
  if command -v rg >/dev/null; then
    r=$(for _ in 1 2 3 4 5 6 7 8 9; do ms rg --json --context 1 -e "$q" "$tree"; done | median)
    echo "P11 $q: cairn tool --connect ${c} ms, rg ${r} ms, x-rg $(awk -v r="$r" -v c="$c" 'BEGIN {printf "%.1f", r / (c > 0 ? c : 1)}') (goal >= 10)"
  else
    echo "P11 $q: cairn tool --connect ${c} ms (rg not installed: no anchor)"
  fi
done
# The index is meant to cost the daemon at most a quarter of the source it covers: the RSS
# beside the tree's file bytes.
rss=$(awk '/VmRSS/ {printf "%d", $2 * 1024}' /proc/$daemon/status 2>/dev/null || echo 0)
src=$(find "$tree" -type f -printf '%s\n' | awk '{s += $1} END {printf "%d", s}')
echo "daemon RSS: $((rss >> 20)) MB, $(awk -v r="$rss" -v s="$src" 'BEGIN {printf "%.1f%% of the %d MB of source, x-quarter %.2f", 100 * r / s, s / 1048576, s / 4 / (r > 0 ? r : 1)}') (goal >= 1)"
