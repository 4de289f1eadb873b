# specdash build, test and run. `make test` and `make run` install what they
# need first (scripts/install-deps.sh).
GO        ?= go
WASM      := web/dist/app.wasm
ECHARTS   := web/dist/echarts.min.js
BIN       := ./specdash
GOROOT    := $(shell $(GO) env GOROOT)

.PHONY: all deps assets wasm build test test-host test-wasm vet bench run clean

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
wasm:
	GOOS=js GOARCH=wasm $(GO) build $(WASMFLAGS) -o $(WASM) ./cmd/specdash

# Brotli (quality 11) and gzip copies next to the wasm and ECharts, served
# by the server as they are (skipped when up to date; ~1 min for the wasm).
assets: $(ECHARTS) wasm
	$(GO) run ./bench/cmd/precompress $(WASM) $(ECHARTS)

# One binary; it embeds web/dist (app.wasm, echarts), so assets come first.
build: assets
	$(GO) build -trimpath -o $(BIN) ./cmd/specdash

vet: assets
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./compute/ ./logparse/ ./metricsclient/ ./report/ ./app/ ./cmd/specdash/

# Host tests (with the real Prometheus and Chromium tests), then compute under
# js/wasm in Node, where the browser runs it.
test: deps build vet test-host test-wasm

test-host:
	$(GO) test -race -count=1 -timeout 20m ./...

test-wasm:
	PATH="$$PATH:$(GOROOT)/lib/wasm" GOOS=js GOARCH=wasm $(GO) test -count=1 ./compute/ ./logparse/

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
