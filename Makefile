# Cairn — build, test and package. `make install` builds everything and installs the .vsix into
# VS Code or code-server when one is found; `make test` runs everything CI runs.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/cairnhq/cairn/server/cli.Version=$(VERSION)
NPM_STAMP := node_modules/.package-lock.json

.PHONY: all build daemon fakellm webview extension generate checkgenerate lint check-imports \
        test test-go test-ts e2e bench soak fuzz vsix install ci deps clean

all: build

## Dependencies --------------------------------------------------------------------------------

$(NPM_STAMP): package-lock.json package.json extension/package.json webview-ui/package.json
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

deps: $(NPM_STAMP)
	$(GO) mod download

## Build ---------------------------------------------------------------------------------------

build: daemon fakellm webview extension

daemon:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/cairn ./server/cmd/cairn

fakellm:
	$(GO) build -trimpath -o bin/fakellm ./server/cmd/fakellm

webview: $(NPM_STAMP)
	npm run -w webview-ui build

extension: $(NPM_STAMP) webview
	npm run -w extension build

## Protocol ------------------------------------------------------------------------------------

GEN_DIRS := server/internal/gen extension/src/gen webview-ui/src/gen

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

lint: $(NPM_STAMP) check-imports
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '/internal/gen/')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool golangci-lint run ./...
	npx buf lint
	npm run -w webview-ui typecheck
	npm run -w extension typecheck

## Tests ---------------------------------------------------------------------------------------

test: lint checkgenerate test-go test-ts e2e

test-go:
	$(GO) test -race -count=1 ./...

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

# Benchmarks print each figure beside its anchor (spec §12). Not part of `make test`.
# P1 parser, P2 edits, P5 daemon, P7 tokens: report tests; P3 search and P4 listing/index: Go
# benchmarks whose metrics include the ripgrep anchor (x-rg); P6: the webview's headless run;
# P8 time to first request and R7 load: report tests in server/.
bench: daemon $(NPM_STAMP)
	CAIRN_BENCH=1 $(GO) test -p 1 -count=1 -run 'Report' -v ./... 2>&1 | grep -v -E '^(=== RUN|--- (PASS|SKIP)|PASS|ok |\?|=== PAUSE|=== CONT|no test files|    [a-z_0-9]+\.go:[0-9]+: set CAIRN_BENCH)'
	$(GO) test -run '^$$' -bench 'SearchGoSource|Listing|Query' -benchtime 5x ./core/tools/search ./core/workspace
	npm run -w webview-ui perf

# R7 soak: one daemon under a steady lower load for 30 minutes; prints its RSS (flat within
# 10%), latency and lost/duplicated messages. Not part of `make test` or `make bench`.
SOAK ?= 30m
soak:
	CAIRN_SOAK=$(SOAK) $(GO) test -count=1 -timeout 60m -run 'TestR7Soak' -v ./server 2>&1 | grep -v -E '^(=== RUN|PASS|ok )'

## Package and install -------------------------------------------------------------------------

# The .vsix bundles bin/cairn (this platform; only linux-x64 cross-builds here: tree-sitter
# needs cgo) and the built webview.
vsix: daemon webview
	npm run -w extension package

install: deps build vsix
	@if command -v code >/dev/null 2>&1; then code --install-extension dist/cairn.vsix --force; \
	elif command -v code-server >/dev/null 2>&1; then code-server --install-extension dist/cairn.vsix --force; \
	elif [ -x .cache/code-server/node_modules/.bin/code-server ]; then .cache/code-server/node_modules/.bin/code-server --install-extension dist/cairn.vsix --force; \
	else echo "Built dist/cairn.vsix (no VS Code or code-server found to install it into)."; fi

ci: deps test

clean:
	rm -rf bin dist extension/out extension/bin webview-ui/dist
