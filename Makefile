# vaultgraph — developer tasks. `make help` lists them.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
GO ?= go
PKGS := ./...
# The version and commit a build of this checkout reports: the VERSION file
# (v0.2.0 at a release, v0.2.0-dev+<commit> between releases) and the commit
# from git, computed by scripts/dist so it holds in a linked worktree too.
# Evaluated only by the targets that link a binary.
VERSION_COMMIT = $(shell $(GO) run ./scripts/dist -print-version 2>/dev/null)
LDFLAGS = -X main.version=$(word 1,$(VERSION_COMMIT)) -X main.commit=$(word 2,$(VERSION_COMMIT))
BIN := bin/vaultgraph
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || echo $(HOME)/go/bin/staticcheck)
STATICCHECK_VERSION := v0.8.2
EXAMPLE_VAULT ?= examples/vault
# A test package that runs longer than this fails with every goroutine's
# stack (go test's -timeout): a hang costs CI this, not its whole budget
# (90 minutes; the steps before the tests take about 9). The slowest
# package, integration/e2e, took 19 minutes of a quiet 2-core run before its
# tests ran side by side (docs/TESTING.md, "CI's time"), and a loaded run
# can take twice a quiet one: 40 minutes tells a hang from a busy machine.
TEST_TIMEOUT ?= 40m
# The slowest test packages, slowest first: go test starts packages in the
# order it is given them, two at a time on 2 cores, so these go first and the
# short ones fill in around them (in name order, e2e and neo4jstore ended up
# running last, one after the other).
SLOW_PKGS := ./integration/e2e ./neo4jstore ./memstore ./embedding/minilm ./vault ./memstore/internal/kv ./semantic ./scripts/dist ./server

.PHONY: help docs build dist run test test-unit test-integration test-e2e lint vet staticcheck fmt check snaps generate bench bench-quick eval fuzz soak conformance neo4j tools clean

help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | column -t -s $$'\t'

build: ## build bin/vaultgraph
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/vaultgraph

dist: ## release files in dist/: archives, MCP bundles, SBOMs, checksums.txt, server.json (DIST_TARGETS=linux/amd64,... for fewer)
	$(GO) run ./scripts/dist -out dist

run: build ## serve the example vault over stdio on the embedded store
	@echo "vaultgraph: serving $(EXAMPLE_VAULT) over stdio on the embedded store (Ctrl-D or Ctrl-C to stop)." >&2
	@echo "vaultgraph: connect an MCP client with: command=$(CURDIR)/$(BIN) args=[serve --vault $(CURDIR)/$(EXAMPLE_VAULT)]" >&2
	$(BIN) serve --vault $(EXAMPLE_VAULT) --state-dir $(CURDIR)/.vg-state

test: ## every test, race detector on, against a real Neo4j (started from Maven jars when needed)
	@echo "== Neo4j round trip (server version, write + read, stop + restart)"
	@log=$$(mktemp); if $(GO) test -race -count=1 -v ./integration/neo4jtest/ >$$log 2>&1; then grep -E '^(neo4j: |--- |ok)' $$log; rm -f $$log; else cat $$log; rm -f $$log; exit 1; fi
	@echo "== all packages"
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $$({ $(GO) list $(SLOW_PKGS); $(GO) list $(PKGS); } | awk '!seen[$$0]++' | grep -v /integration/neo4jtest$$)

test-unit: ## tests that need nothing but Go (Neo4j suites skip)
	NEO4J_DISABLE=1 $(GO) test -race -count=1 $(PKGS)

test-integration: ## the Neo4j suites only, verbose
	$(GO) test -race -count=1 -v ./integration/... ./neo4jstore/...

test-e2e: build ## end-to-end suite: the real binary over stdio and HTTP
	$(GO) test -race -count=1 -v ./integration/e2e/...

lint: vet staticcheck fmt ## go vet, staticcheck, gofmt

vet:
	$(GO) vet $(PKGS)

staticcheck: tools
	$(STATICCHECK) $(PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

tools: ## install the lint tools this Makefile uses
	@command -v $(STATICCHECK) >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

check: ## modules tidy and generated files current
	$(GO) mod tidy -diff

eval: ## the retrieval evaluations (docs/SEARCH.md): the hard eval (keyword, static, transformer, hybrid) and the long-note prose eval
	VAULTGRAPH_HARD_EVAL=1 $(GO) test -count=1 -timeout 120m -v -run 'TestHardEval|TestProseEval' ./embedding/eval

snaps: ## rewrite tool schema snapshots and docs/TOOLS.md
	UPDATE_TOOLSNAPS=true UPDATE_TOOLSDOC=true $(GO) test ./tools/...

docs: ## regenerate docs/TOOLS.md from the tool specs
	UPDATE_TOOLSDOC=true $(GO) test -count=1 -run TestToolsDocIsCurrent ./tools/catalog

generate:
	$(GO) generate $(PKGS)

bench: build ## full benchmark run (10k and 100k notes, both stores); writes docs/BENCHMARKS.md
	$(GO) run ./cmd/vgbench -sizes 10000,100000 -out docs/BENCHMARKS.md

bench-quick: build ## quick benchmark run (10k notes only)
	$(GO) run ./cmd/vgbench -sizes 10000 -out docs/BENCHMARKS.md -quick

fuzz: ## run every fuzz target for FUZZTIME each (default 60s)
	bash scripts/fuzz.sh $${FUZZTIME:-60s}

soak: build ## reliability soak: long crash, rename-crash, outside-editor, symlink-race, document-race, session, subscription, load and storm runs
	VAULTGRAPH_SOAK=1 $(GO) test -count=1 -timeout 60m -run 'TestSwapLosesNoOutsideEdit|TestNoEscapeWhileFoldersAreSwapped|TestWritesKeepEveryOtherLinksMeaning|TestDeleteNodeRacesAnEditorCreatingInItsFolder|TestInt8VectorSearchRecall' ./confine/ ./vault/ ./memstore/
	VAULTGRAPH_CRASH_RUNS=$${VAULTGRAPH_CRASH_RUNS:-1000} VAULTGRAPH_LOAD_CALLS=$${VAULTGRAPH_LOAD_CALLS:-1000} \
	VAULTGRAPH_RENAME_CRASH_RUNS=$${VAULTGRAPH_RENAME_CRASH_RUNS:-200} VAULTGRAPH_OUTSIDE_EDITS=$${VAULTGRAPH_OUTSIDE_EDITS:-10000} \
	VAULTGRAPH_SYMLINK_RACE=$${VAULTGRAPH_SYMLINK_RACE:-60s} VAULTGRAPH_DOCRACE_SECONDS=$${VAULTGRAPH_DOCRACE_SECONDS:-60} \
	VAULTGRAPH_SETUP_CRASH_RUNS=$${VAULTGRAPH_SETUP_CRASH_RUNS:-300} VAULTGRAPH_CANVAS_CRASH_RUNS=$${VAULTGRAPH_CANVAS_CRASH_RUNS:-150} \
		$(GO) test -count=1 -timeout 90m -v -run 'TestCrashSafety|TestFirstSyncSurvivesSIGKILL|TestCrashDuringRename|TestOutsideEditsAreNeverLost|TestSymlinkSwapsNeverLeakOrEscape|TestLoad|TestWatcherStorm|TestDocumentSymlinkRace|TestKilledSetupLeavesTheClientFileWhole' ./integration/e2e/
	VAULTGRAPH_SESSION_SOAK=$${VAULTGRAPH_SESSION_SOAK:-50000} VAULTGRAPH_SUBSCRIBE_SOAK=1 \
		$(GO) test -count=1 -timeout 30m -v -run 'TestHTTPSessionsKeepMemoryFlat|TestSubscriptionsAreVettedAndBounded' ./server/

conformance: ## the official MCP conformance suite (server scenarios without fixture tools) against serve --http
	bash scripts/conformance.sh

neo4j: ## start a local Neo4j 5.26 from Maven jars (no Docker); prints the bolt URI
	bash scripts/neo4j-local/neo4j-local.sh --data $${NEO4J_DATA:-$(CURDIR)/.neo4j-data} --port $${NEO4J_PORT:-7687}

clean:
	rm -rf bin dist .vg-state
