# specdash build, test and run. `make test` and `make run` install what they
# need first (scripts/install-deps.sh).
GO        ?= go
WASM      := web/dist/app.wasm
ECHARTS   := web/dist/echarts.min.js
BIN       := ./specdash
GOROOT    := $(shell $(GO) env GOROOT)

.PHONY: all deps assets wasm build test test-short test-host test-host-fuzz test-wasm vet bench run clean fuzz fuzz-exposition

all: build

deps:
	./scripts/install-deps.sh

# ECharts with only what specdash draws (web/echarts/entry.js), bundled by
# esbuild from the npm packages pinned by package-lock.json (about 40 %
# fewer bytes to parse and run than the full dist/echarts.min.js; the same
# pixels, checked by e2e/echarts_bundle_test.go). npm ci runs again when the
# lock file changed since the last install (node_modules/.package-lock.json;
# the packages' own files keep their tarballs' 1985 mtimes).
ESBUILD   := node_modules/.bin/esbuild
ECHARTS_FLAGS := --bundle --minify --format=iife --legal-comments=none \
	--define:process.env.NODE_ENV='"production"' \
	--banner:js='/*! Apache ECharts (Apache-2.0) and ZRender (BSD-3-Clause): specdash build of web/echarts/entry.js */'
$(ECHARTS): web/echarts/entry.js node_modules/.package-lock.json
	mkdir -p web/dist
	$(ESBUILD) $< $(ECHARTS_FLAGS) --log-level=warning --outfile=$@

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund --silent

# The browser front end: cmd/specdash built for js/wasm (main_wasm.go).
# Size flags (docs/PERFORMANCE.md): no symbol table or DWARF (-s -w), and no
# inlining outside the runtime and specdash/compute (-l): inlined copies
# compress badly; without them the brotli size drops by ~13 %.
WASMFLAGS := -trimpath -gcflags=all=-l -gcflags=runtime= -gcflags=specdash/compute= -ldflags="-s -w"
#
# The wasm is rebuilt only when what it is built from changed: the .go
# (and .s, embedded) files of every non-standard package cmd/specdash links
# under js/wasm (go list -deps; module cache files never change), go.mod,
# go.sum, and $(WASM_INPUTS): the Go version, WASMFLAGS and that file list,
# rewritten only when one of them changes (a linked file added or removed
# counts; a test file or host-only code does not). Paths without spaces.
# The list is read for the goals that build the wasm (web/dist/app.wasm by
# name too), not for help, clean or deps.
BUILD_DIR   := .build
WASM_INPUTS := $(BUILD_DIR)/app.wasm.inputs
WASM_LIST   := {{if not .Standard}}{{$$d := .Dir}}{{range .GoFiles}}{{$$d}}/{{.}}{{"\n"}}{{end}}{{range .SFiles}}{{$$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$$d}}/{{.}}{{"\n"}}{{end}}{{end}}
WASM_INPUTS_CMD = { $(GO) env GOVERSION && echo '$(WASMFLAGS)' && GOOS=js GOARCH=wasm $(GO) list -deps -f '$(WASM_LIST)' ./cmd/specdash; }
ifneq ($(filter all assets wasm build vet test bench run $(WASM) $(WASM).br $(WASM).gz,$(or $(MAKECMDGOALS),all)),)
_ := $(shell mkdir -p $(BUILD_DIR) && $(WASM_INPUTS_CMD) > $(WASM_INPUTS).tmp && { cmp -s $(WASM_INPUTS).tmp $(WASM_INPUTS) || mv $(WASM_INPUTS).tmp $(WASM_INPUTS); }; rm -f $(WASM_INPUTS).tmp)
WASM_SRCS := $(shell tail -n +3 $(WASM_INPUTS) 2>/dev/null)
endif
# Made here only when missing (make clean build).
$(WASM_INPUTS):
	mkdir -p $(BUILD_DIR) && $(WASM_INPUTS_CMD) > $@
wasm: $(WASM)
$(WASM): $(WASM_INPUTS) $(WASM_SRCS) go.mod go.sum
	GOOS=js GOARCH=wasm $(GO) build $(WASMFLAGS) -o $(WASM) ./cmd/specdash

# Brotli (quality 11) and gzip copies next to the wasm and ECharts, served
# by the server as they are: made only when the file is newer (~1 min for
# the wasm); precompress writes both in one run.
assets: $(WASM).br $(WASM).gz $(ECHARTS).br $(ECHARTS).gz
web/dist/%.br web/dist/%.gz: web/dist/%
	$(GO) run -trimpath ./bench/cmd/precompress $<

# One binary; it embeds web/dist (app.wasm, echarts), so assets come first.
build: assets
	$(GO) build -trimpath -o $(BIN) ./cmd/specdash

# With the builds' own flags, so that vet reuses their compiled packages
# instead of compiling the dependencies once more (a cold cache: minutes).
vet:
	$(GO) vet -trimpath ./...
	GOOS=js GOARCH=wasm $(GO) vet $(WASMFLAGS) ./compute/ ./logparse/ ./metricsclient/ ./report/ ./model/ ./chartopt/ ./view/ ./app/ ./cmd/specdash/

# Host tests (with the real Prometheus and Chromium tests), then compute under
# js/wasm in Node, where the browser runs it.
# Each step's wall time is printed (where CI's minutes go).
TEST_STEPS := deps build vet test-host-fuzz test-wasm
test:
	@for t in $(TEST_STEPS); do \
		s=$$(date +%s); \
		$(MAKE) --no-print-directory $$t || exit 1; \
		echo "make test: $$t took $$(( $$(date +%s) - s )) s"; \
	done

# Each fuzz target for FUZZTIME (go test alone runs their seed corpora as
# normal tests). A crash's input lands in the package's testdata/fuzz and is
# replayed by go test from then on. The first run builds the instrumented
# dependencies (minutes for embedded's Prometheus). Minimizing each new
# interesting input is capped (go's default, 60 s, took whole runs over the
# kilobyte-sized seeds, with no executions counted meanwhile).
FUZZTIME ?= 20s
FUZZMINIMIZETIME ?= 5s
FUZZ_TARGETS := embedded:FuzzScrapeParse logparse:FuzzParseScrape logparse:FuzzParse \
	compute:FuzzAggregate compute:FuzzStatistics chartsvg:FuzzDraw
# The exposition path (embedded scrape, and report --from-log of a raw
# scrape) is fuzzed in every `make test`, 10 s each.
fuzz-exposition:
	$(MAKE) fuzz FUZZTIME=10s FUZZ_TARGETS="embedded:FuzzScrapeParse logparse:FuzzParseScrape"

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) ./$${t%%:*}/; \
	done

# e2e in E2E_SHARDS processes beside the other packages (scripts/test-host.sh).
test-host:
	GO=$(GO) ./scripts/test-host.sh

# test-host with fuzz-exposition beside it (its output follows
# test-host's): the fuzz step is mostly the build of its instrumented
# dependencies, 4 minutes on a slow 2-core VM with a cold cache, which ran
# after the 21 minutes of test-host there, and the browser tests mostly
# wait on their pages.
test-host-fuzz:
	@log=$$(mktemp); \
	( $(MAKE) --no-print-directory fuzz-exposition >"$$log" 2>&1; echo $$? >"$$log.rc" ) & \
	rc=0; $(MAKE) --no-print-directory test-host || rc=$$?; \
	wait; cat "$$log"; frc=$$(cat "$$log.rc"); rm -f "$$log" "$$log.rc"; \
	echo "make test: fuzz-exposition (beside test-host) exit $$frc"; \
	[ "$$rc" -eq 0 ] && [ "$$frc" -eq 0 ]

# The pure and in-process tests (31 s on a quiet 2-core machine, warm
# cache): -short skips those that start Prometheus, VictoriaMetrics or
# Chromium, the long load test and the 16 MiB scrape bodies.
# No deps, no wasm build: the e2e tests it would need are skipped.
test-short:
	$(GO) test -short -count=1 ./...

test-wasm:
	PATH="$$PATH:$(GOROOT)/lib/wasm" GOOS=js GOARCH=wasm $(GO) test -count=1 ./compute/ ./logparse/ ./model/ ./chartopt/

# The performance table of docs/PERFORMANCE.md (about 20 minutes, of which
# 10 are the embedded-mode run): BENCHFLAGS="-embedded 3m -runs 3" shortens
# it; -only load,interactive,size,refresh,compute,proxy,viewers,embedded picks parts
# (then nothing is written).
BENCHFLAGS ?=
bench: deps build
	$(GO) run ./bench/cmd/specbench $(BENCHFLAGS)

# The README's run command: embedded mode on the built-in simulator (no
# Prometheus needed). Port: SPECDASH_PORT (8080).
run: deps build
	$(BIN) serve --web.listen-address=:$${SPECDASH_PORT:-8080}

clean:
	rm -f $(BIN) $(WASM) $(ECHARTS) $(WASM).br $(WASM).gz $(ECHARTS).br $(ECHARTS).gz
	rm -rf $(BUILD_DIR)
