#!/usr/bin/env bash
# Writes link-time stubs (.tbd text files) of what Go's standard library links against on macOS
# beyond libSystem, the CoreFoundation and Security frameworks and libresolv, into DIR, for
# cross-linking a darwin cgo binary with zig cc (`-F DIR`; libresolv.tbd is given to the link as an input file): zig carries libSystem's
# stubs only. A stub lists only
# the symbols the Go toolchain in use imports from the framework (its cgo_import_dynamic
# lines); at run time macOS loads the real framework from the install name.
# Usage: scripts/darwin-stubs.sh DIR
set -euo pipefail
dir=${1:?usage: darwin-stubs.sh DIR}
src="$(go env GOROOT)/src"
# stub OUT INSTALL_NAME: a stub exporting every symbol Go imports from INSTALL_NAME.
stub() {
  local out=$1 install=$2 syms
  syms=$(grep -rh --include='*.go' "^//go:cgo_import_dynamic .* \"$install\"" "$src" |
    awk '{print "_" $3}' | sort -u | paste -sd, - | sed 's/,/, /g')
  if [ -z "$syms" ]; then echo "darwin-stubs: no symbols of $install found under $src" >&2; exit 1; fi
  mkdir -p "$(dirname "$out")"
  cat > "$out" <<TBD
--- !tapi-tbd
tbd-version:     4
targets:         [ x86_64-macos, arm64-macos ]
install-name:    '$install'
exports:
  - targets:         [ x86_64-macos, arm64-macos ]
    symbols:         [ $syms ]
...
TBD
}
for fw in CoreFoundation Security; do
  stub "$dir/$fw.framework/$fw.tbd" "/System/Library/Frameworks/$fw.framework/Versions/A/$fw"
done
stub "$dir/libresolv.tbd" /usr/lib/libresolv.9.dylib
