//go:build !js

// Package bench measures specdash side by side with the Prometheus UI: it
// holds only benchmarks (go test -bench), each reporting the median of
// several runs as custom metrics, and cmd/specbench runs them all and
// writes the table of docs/PERFORMANCE.md (`make bench`).
//
// The benchmarks use real parts: Prometheus 2.42 (/usr/bin/prometheus, with
// data backfilled by promtool), headless Chromium (/usr/bin/chromium via
// chromedp), the specdash server in process, and the built ./specdash
// binary for embedded mode. Nothing here runs in `make test` (no Test
// functions; benchmarks run only with -bench).
//
// Data: 16 engines x 8 draft positions (3 + 8 counter series per engine,
// 176 series) scraped every 15 s, over the 24 h before the run (BenchCase).
//
// Environment:
//   - SPECDASH_BENCH_RUNS: runs per figure (default 5; the median is
//     reported);
//   - SPECDASH_BENCH_EMBEDDED: duration of the embedded-mode run (Go
//     duration, default 10m);
//   - SPECDASH_BENCH_SCALE and SPECDASH_BENCH_SCALE_WINDOWS: the fleet
//     sizes and windows of BenchmarkScale (default 16,256,1024,4096 and
//     6h,7d; its data sets are described in scaledata_test.go);
//   - SPECDASH_BENCH_CACHE_TTL: the proxy cache's TTL in BenchmarkScale
//     (a Go duration; default off, so that every load queries the source;
//     "5s" is a server's default, as users run it);
//   - SPECDASH_BENCH_WEB: a directory with dist/ and static/ to serve
//     instead of the embedded web.FS (to compare two builds of the wasm);
//   - SPECDASH_BENCH_LATENCY=1: the data also holds vLLM's latency, output
//     and load families (per engine 16 series: the inter-token latency
//     histogram, generation tokens, running requests; caseLatency), as a
//     vLLM server exports them, so every load and refresh reads them too;
//     the scale data sets too (scaleSet.latency, cached apart);
//   - SPECDASH_BENCH_PROFILE=dir: a CPU profile of the page's main thread
//     (JavaScript and wasm; open it in Chromium's DevTools) per specdash
//     load, in BenchmarkInteractive (cold loads), BenchmarkRefresh and
//     BenchmarkScale (every load: specdash-<window>-<engines>-<run>);
//     a wasm built without -ldflags="-s -w" (SPECDASH_BENCH_WEB) names
//     its frames;
//   - SPECDASH_BENCH_ZONE: an IANA time zone for BenchmarkInteractive's
//     browser (a visitor from another zone than the server's: its first
//     visit's page is asked for twice, server/zone.go);
//   - SPECDASH_BENCH_FLOOR=1: BenchmarkInteractive and BenchmarkScale also
//     load the stack's floor (bench/cmd/floorapp, built by the benchmark:
//     floor_test.go), =2 BenchmarkInteractive its hello variant too (needs
//     `make build` for ECharts).
package bench
