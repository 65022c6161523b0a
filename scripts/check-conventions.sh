#!/usr/bin/env bash
# Fails on what docs/conventions.md asks that a linter does not check (golangci-lint's
# containedctx checks stored contexts; scripts/check-imports.sh the levels):
#   1. Comments and docs cite this repository's own documents, never the number of an issue in a
#      tracker that is not in it ("issue 12", "issues 20 and 23", "#34").
#   2. Only server/follow reads a task's event stream (docs/architecture.md, "Packages and
#      levels"): a client of the daemon gives it a reader and a question policy rather than
#      switching over the stream's events itself. server/rpc writes the stream.
#   3. A tool's name is spelled once, in core/toolnames (docs/architecture.md, "Packages and
#      levels"): no other Go source file of core/ or server/ holds it as a string literal. The
#      chat rows' kinds in core/msg that share a tool's name are rows, not tools; tests may
#      spell names, as the model does.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
bad() { echo "check-conventions: $*" >&2; fail=1; }

files=$(git ls-files -- '*.go' '*.ts' '*.tsx' '*.js' '*.mjs' '*.sh' '*.md' '*.yml' '*.yaml' \
  ':!**/internal/gen/**' ':!proto/ts/src/gen/**' ':!**/testdata/**' ':!CHANGELOG.md')
# shellcheck disable=SC2086
if hits=$(grep -nIE '\bissues? +#?[0-9]+|(^|[[:space:](])#[0-9]{1,5}\b' $files | grep -vE '"[^"]*#[0-9]+[^"]*"'); then
  bad "cite the repository's documents, not issue numbers:"$'\n'"$hits"
fi

if hits=$(git grep -nE 'case \*cairnv1\.SubscribeResponse_' -- 'server/**.go' ':!server/follow/**' ':!server/rpc/**' ':!**/*_test.go'); then
  bad "read the task's event stream through server/follow:"$'\n'"$hits"
fi

names=$(sed -nE 's/^[[:space:]]+[A-Za-z]+[[:space:]]*= "([a-z_]+)"$/\1/p' core/toolnames/toolnames.go | grep -v '^task_progress$' | paste -sd'|')
[ -n "$names" ] || bad "no tool names found in core/toolnames/toolnames.go"
if hits=$(git grep -nE "\"($names)\"" -- 'core/**.go' 'server/**.go' ':!core/toolnames/**' ':!core/msg/**' ':!**/*_test.go' ':!**/internal/gen/**' |
  grep -vE "//.*\"($names)\""); then
  bad "spell a tool's name through core/toolnames:"$'\n'"$hits"
fi

[ "$fail" = 0 ] && echo "check-conventions: ok"
exit "$fail"
