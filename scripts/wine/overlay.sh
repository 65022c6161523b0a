#!/usr/bin/env bash
# Writes a go build -overlay for test binaries that run under Wine, and prints the overlay
# file's path. Usage: scripts/wine/overlay.sh DIR
#
# For the Wine test build only, never for a shipped binary. Go's os.RemoveAll (and so every
# t.TempDir cleanup) deletes through internal/syscall/windows.Deleteat, which first asks
# NtSetInformationFile for FileDispositionInformationEx (class 64) and falls back to the older
# disposition call only on the statuses a real Windows answers when it lacks that class. Wine 8
# has no class 64 and answers STATUS_NOT_IMPLEMENTED (0xC0000002, measured), which Go turns into
# "Invalid function", so every temp dir cleanup would fail. The overlay is the local GOROOT's
# own file with that one status added to the fallback case; nothing of Go's is committed here.
set -euo pipefail
dir=$1
mkdir -p "$dir"
src="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
sed 's/^\(\t*case STATUS_INVALID_INFO_CLASS,\)/\1 NTStatus(0xC0000002),/' "$src" >"$dir/at_windows.go"
if cmp -s "$src" "$dir/at_windows.go"; then
  echo "wine overlay: $src no longer has the fallback case this script edits; update the sed" >&2
  exit 1
fi
printf '{"Replace": {"%s": "%s"}}\n' "$src" "$dir/at_windows.go" >"$dir/overlay.json"
printf '%s\n' "$dir/overlay.json"
