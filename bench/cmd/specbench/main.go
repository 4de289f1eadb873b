//go:build !js

// Command specbench runs specdash's benchmarks (package specdash/bench,
// compute's benchmarks on the host and in wasm under Node, the server's
// 200-viewer load test), prints one table of medians with the command that
// reproduces each figure, and writes it into docs/PERFORMANCE.md between
// the "bench:begin" and "bench:end" markers. `make bench` runs it after
// `make build`.
//
// Usage: go run ./bench/cmd/specbench [-runs 5] [-embedded 10m]
// [-load-seconds 60] [-out docs/PERFORMANCE.md] [-only load,size,...]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	runsFlag     = flag.Int("runs", 5, "runs per figure; the table shows the median")
	embeddedFlag = flag.Duration("embedded", 10*time.Minute, "duration of the embedded-mode run (at least 2m)")
	blockFlag    = flag.Duration("embedded-block", 0, "embedded run: --storage.block-duration (0: the default 2h); e.g. 10m to go through head compactions within the run")
	retainFlag   = flag.Duration("embedded-retention", 0, "embedded run: --storage.retention (0: the default 6h); e.g. 30m to delete blocks within the run")
	loadFlag     = flag.Int("load-seconds", 60, "duration of the 200-viewer load test in seconds")
	outFlag      = flag.String("out", "docs/PERFORMANCE.md", "file whose bench:begin/bench:end section receives the table (\"\": print only)")
	onlyFlag     = flag.String("only", "", "comma-separated subset: size,load,interactive,refresh,decode,compute,proxy,viewers,embedded,scale (default all); the file keeps the other parts' rows")
)

// row is one line of the table; part is the -only name that produces it.
type row struct {
	part, what, value, budget, cmd string
}

// parts in table order.
var parts = []string{"size", "load", "interactive", "refresh", "decode", "compute", "proxy", "viewers", "embedded", "scale"}

func main() {
	flag.Parse()
	only := map[string]bool{}
	for _, s := range strings.Split(*onlyFlag, ",") {
		if s = strings.TrimSpace(s); s != "" {
			only[s] = true
		}
	}
	want := func(s string) bool { return len(only) == 0 || only[s] }
	env := []string{"SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag)}
	var rows []row
	failed := false
	add := func(part string, f func() ([]row, error)) {
		if !want(part) {
			return
		}
		fmt.Fprintf(os.Stderr, "specbench: %s ...\n", part)
		t0 := time.Now()
		rs, err := f()
		if err != nil {
			fmt.Fprintf(os.Stderr, "specbench: %s: %v\n", part, err)
			rs = append(rs, row{what: part, value: "FAILED: " + firstLine(err.Error())})
			failed = true
		}
		for i := range rs {
			rs[i].part = part
		}
		fmt.Fprintf(os.Stderr, "specbench: %s done in %s\n", part, time.Since(t0).Round(time.Second))
		rows = append(rows, rs...)
	}

	add("size", sizes)
	add("load", func() ([]row, error) { return firstChart(env) })
	add("interactive", func() ([]row, error) { return interactive(env) })
	add("refresh", func() ([]row, error) { return refresh(env) })
	add("decode", decodeBench)
	add("compute", computeBench)
	add("proxy", func() ([]row, error) { return proxy(env) })
	add("viewers", viewers)
	add("embedded", func() ([]row, error) { return embedded(env) })
	add("scale", func() ([]row, error) { return scaleBench(env) })

	header := fmt.Sprintf("Measured %s on %s (%d CPUs, %s, shared with other work: figures are medians of %d runs unless said otherwise).\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU(), runtime.Version(), *runsFlag)
	if len(only) > 0 && *outFlag != "" {
		// Keep the other parts' rows (and the first header) of the file.
		old, oldHeader := readSection(*outFlag)
		if oldHeader != "" {
			var names []string
			for _, p := range parts {
				if only[p] {
					names = append(names, p)
				}
			}
			header = oldHeader + "\n\n" + fmt.Sprintf("Re-run %s: %s (%d runs).\n",
				time.Now().UTC().Format("2006-01-02 15:04 MST"), strings.Join(names, ", "), *runsFlag)
		}
		var merged []row
		for _, p := range parts {
			for _, r := range append(old, rows...) {
				if r.part == p && (only[p] == contains(rows, r)) {
					merged = append(merged, r)
				}
			}
		}
		rows = merged
	}
	table := render(header, rows)
	fmt.Print(table)
	if *outFlag != "" {
		if err := writeSection(*outFlag, table); err != nil {
			fmt.Fprintln(os.Stderr, "specbench:", err)
			failed = true
		} else {
			fmt.Fprintf(os.Stderr, "specbench: table written to %s\n", *outFlag)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func contains(rows []row, r row) bool {
	for _, x := range rows {
		if x == r {
			return true
		}
	}
	return false
}

// render formats the rows as a Markdown table under header; each row's
// first cell starts with an HTML comment naming its part (kept by later
// -only runs).
func render(header string, rows []row) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	b.WriteString("| Figure | Value | Budget | Reproduce |\n|---|---|---|---|\n")
	for _, r := range rows {
		cmd := r.cmd
		if cmd != "" && !strings.HasPrefix(cmd, "`") {
			cmd = "`" + strings.ReplaceAll(cmd, "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| <!--%s--> %s | %s | %s | %s |\n", r.part, r.what, r.value, r.budget, cmd)
	}
	return b.String()
}

var rowLine = regexp.MustCompile(`^\| <!--(\w+)--> (.*?) \| (.*?) \| (.*?) \| (.*?) \|$`)

// readSection returns the rows and the header (text before the table) of
// the bench section of path, if any.
func readSection(path string) ([]row, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, ""
	}
	s := string(b)
	i, j := strings.Index(s, "<!-- bench:begin -->"), strings.Index(s, "<!-- bench:end -->")
	if i < 0 || j < i {
		return nil, ""
	}
	sec := s[i+len("<!-- bench:begin -->") : j]
	header, _, _ := strings.Cut(strings.TrimLeft(sec, "\n"), "| Figure")
	var rows []row
	for _, l := range strings.Split(sec, "\n") {
		if m := rowLine.FindStringSubmatch(l); m != nil {
			rows = append(rows, row{part: m[1], what: m[2], value: m[3], budget: m[4], cmd: m[5]})
		}
	}
	return rows, strings.TrimSpace(header)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// writeSection replaces the text between the markers in path (appending
// the markers when missing).
func writeSection(path, table string) error {
	const begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	section := begin + "\n" + table + end
	if i >= 0 && j > i {
		s = s[:i] + section + s[j+len(end):]
	} else {
		s += "\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// goTest runs `go test ARGS` with extra environment and returns its
// output; the error carries the output's tail.
func goTest(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		s := out.String()
		if len(s) > 3000 {
			s = s[len(s)-3000:]
		}
		return out.String(), fmt.Errorf("go test %s: %v\n%s", shellJoin(args), err, s)
	}
	return out.String(), nil
}

// benchLine matches a benchmark result line: name-procs, N, then
// "value unit" pairs.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// metrics parses benchmark output into name -> unit -> values (one per
// -count repetition).
func metrics(out string) map[string]map[string][]float64 {
	res := map[string]map[string][]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		if res[m[1]] == nil {
			res[m[1]] = map[string][]float64{}
		}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				res[m[1]][f[i+1]] = append(res[m[1]][f[i+1]], v)
			}
		}
	}
	return res
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// get returns the median of one metric, or an error naming what is
// missing.
func get(m map[string]map[string][]float64, bench, unit string) (float64, error) {
	vs := m[bench][unit]
	if len(vs) == 0 {
		return 0, fmt.Errorf("no %s in the output of %s", unit, bench)
	}
	return median(vs), nil
}

// shellJoin quotes the arguments that the shell would change.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$*?[]|&;<>()'\" \t") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// sizes reads web/dist/app.wasm and its precompressed copies.
func sizes() ([]row, error) {
	var n [3]int64
	for i, ext := range []string{"", ".gz", ".br"} {
		st, err := os.Stat(filepath.Join("web", "dist", "app.wasm"+ext))
		if err != nil {
			return nil, fmt.Errorf("%v: run `make assets` first", err)
		}
		n[i] = st.Size()
	}
	cmd := "make assets && ls -l web/dist/app.wasm*"
	return []row{
		{"", "wasm size raw", mb(n[0]), "", cmd},
		{"", "wasm size gzip -9 (served for Accept-Encoding: gzip)", mb(n[1]), "", cmd},
		{"", "wasm size brotli q11 (served for Accept-Encoding: br)", mb(n[2]), "≤ 3 MB brotli, precompressed: " + ok(float64(n[2]) <= 3e6), cmd},
	}, nil
}

func ok(b bool) string {
	if b {
		return "**met**"
	}
	return "**missed**"
}

func firstChart(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkFirstChart$", "-benchtime=1x", "-timeout", "60m", "./bench/"}
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	cmd := "SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag) + " go test " + shellJoin(args)
	var rows []row
	for _, rng := range []string{"15m", "6h"} {
		for _, kind := range []string{"cold", "warm"} {
			s, err1 := get(m, "BenchmarkFirstChart/specdash/"+rng, kind+"-ms")
			p, err2 := get(m, "BenchmarkFirstChart/prometheus/"+rng, kind+"-ms")
			if err1 != nil || err2 != nil {
				return rows, fmt.Errorf("%v %v", err1, err2)
			}
			budget := ""
			if kind == "cold" {
				budget = "≤ 1000 ms: " + ok(s <= 1000) + "; ≤ Prometheus UI: " + ok(s <= p)
			}
			rows = append(rows, row{"",
				fmt.Sprintf("first chart, %s, %s window: specdash / Prometheus UI", kind, rng),
				fmt.Sprintf("%.0f ms / %.0f ms = **%.2f×**", s, p, s/p), budget, cmd})
			// The first chart is the server's static drawing (chartsvg);
			// the first chart drawn by ECharts (interactive) follows.
			if e, err := get(m, "BenchmarkFirstChart/specdash/"+rng, kind+"-echarts-ms"); err == nil {
				rows = append(rows, row{"",
					fmt.Sprintf("first chart drawn by ECharts (interactive), %s, %s window: specdash / Prometheus UI", kind, rng),
					fmt.Sprintf("%.0f ms / %.0f ms = %.2f×", e, p, e/p), "", cmd})
			}
		}
	}
	return rows, nil
}

// interactive: BenchmarkInteractive, a fresh browser per cold run; the
// live dashboard's budgets are docs/PERFORMANCE.md's ("Live dashboard for
// a new user"): cold no slower than the Prometheus UI, warm at most half.
func interactive(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkInteractive$", "-benchtime=1x", "-timeout", "60m", "./bench/"}
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	cmd := "SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag) + " go test " + shellJoin(args)
	var rows []row
	for _, kind := range []string{"cold", "warm"} {
		for _, moment := range []struct{ name, what string }{
			{"paint", "first chart with numbers"},
			{"hover", "first chart answering a hover (tooltip)"},
			{"live", "live dashboard ready (filters, refresh; Prometheus UI: its graph drawn and hoverable)"},
		} {
			s, err1 := get(m, "BenchmarkInteractive/specdash/6h", kind+"-"+moment.name+"-ms")
			p, err2 := get(m, "BenchmarkInteractive/prometheus/6h", kind+"-"+moment.name+"-ms")
			if err1 != nil || err2 != nil {
				return rows, fmt.Errorf("%v %v", err1, err2)
			}
			budget := ""
			if moment.name == "live" {
				limit := 1.0
				if kind == "warm" {
					limit = 0.5
				}
				budget = fmt.Sprintf("≤ %.1f× Prometheus UI: %s", limit, ok(s <= limit*p))
			}
			rows = append(rows, row{"",
				fmt.Sprintf("%s, %s (fresh browser process per run), 6h window: specdash / Prometheus UI", moment.what, kind),
				fmt.Sprintf("%.0f ms / %.0f ms = **%.2f×**", s, p, s/p), budget, cmd})
		}
	}
	return rows, nil
}

func refresh(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkRefresh$", "-benchtime=1x", "-timeout", "40m", "./bench/"}
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	cmd := "SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag) + " go test " + shellJoin(args)
	var rows []row
	for _, c := range []struct{ rng, prefix, what string }{
		{"6h", "slide-", "after the window slid one step (a live refresh: every chart changes)"},
		{"6h", "", "numbers unchanged (charts not redrawn)"},
		{"24h", "", "numbers unchanged (charts not redrawn)"},
	} {
		name := "BenchmarkRefresh/" + c.rng
		var v [5]float64
		for i, u := range []string{"total-ms", "query-ms", "decode-ms", "compute-ms", "render-ms"} {
			x, err := get(m, name, c.prefix+u)
			if err != nil {
				return rows, err
			}
			v[i] = x
		}
		budget := ""
		if c.rng == "6h" && c.prefix == "slide-" {
			budget = "≤ 100 ms: " + ok(v[0] <= 100)
		}
		val := fmt.Sprintf("**%.0f ms** = query %.0f + decode %.0f + compute %.0f + render %.0f", v[0], v[1], v[2], v[3], v[4])
		if all, err := get(m, name, c.prefix+"render-all-ms"); err == nil && all > v[4]+0.5 {
			// Charts out of view drawn afterwards, in idle time (app/chart.go).
			val += fmt.Sprintf(" (charts in view; the charts below drawn by %.0f ms after the load)", all)
		}
		rows = append(rows, row{"",
			"one incremental refresh in the browser, 16 engines × 8 positions, 15 s scrape, " + c.rng + " window, 1440×1000 viewport, " + c.what,
			val, budget, cmd})
	}
	return rows, nil
}

// wasmEnv is the environment of `go test` under js/wasm in Node.
func wasmEnv() ([]string, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	return []string{"GOOS=js", "GOARCH=wasm", "PATH=" + os.Getenv("PATH") + ":" + filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm")}, nil
}

const wasmPrefix = `GOOS=js GOARCH=wasm PATH="$PATH:$(go env GOROOT)/lib/wasm" `

// hostAndWasm runs `go test args` on the host and under js/wasm in Node
// and returns the metrics of each.
func hostAndWasm(args []string) (host, wasm map[string]map[string][]float64, err error) {
	h, err := goTest(nil, args...)
	if err != nil {
		return nil, nil, err
	}
	we, err := wasmEnv()
	if err != nil {
		return nil, nil, err
	}
	w, err := goTest(we, args...)
	if err != nil {
		return nil, nil, err
	}
	return metrics(h), metrics(w), nil
}

// decodeBench runs bench/decode on the host and in wasm.
func decodeBench() ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkDecode$", "-count", strconv.Itoa(*runsFlag), "./bench/decode/"}
	hm, wm, err := hostAndWasm(args)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, v := range []struct{ name, what string }{
		{"FetchSeries", "decode of one refresh's query_range answer (176 series × 361 points, 1.5 MB JSON) by metricsclient.FetchSeries (client_golang)"},
		{"encoding-json-any", "floor: the same bytes by encoding/json into any"},
	} {
		h, err1 := get(hm, "BenchmarkDecode/"+v.name, "ns/op")
		w, err2 := get(wm, "BenchmarkDecode/"+v.name, "ns/op")
		if err1 != nil || err2 != nil {
			return rows, fmt.Errorf("%v %v", err1, err2)
		}
		rows = append(rows, row{"", v.what + ": host / wasm in Node",
			fmt.Sprintf("%.0f ms / **%.0f ms**", h/1e6, w/1e6), "",
			"go test " + shellJoin(args) + "; " + wasmPrefix + "go test " + shellJoin(args)})
	}
	return rows, nil
}

// computeBench runs compute's BenchmarkAggregate on the host and under
// js/wasm in Node (go_js_wasm_exec from GOROOT/lib/wasm).
func computeBench() ([]row, error) {
	count := strconv.Itoa(*runsFlag)
	args := []string{"-run", "^$", "-bench", "^BenchmarkAggregate$", "-count", count, "./compute/"}
	hm, wm, err := hostAndWasm(args)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, rng := range []string{"6h", "24h"} {
		h, err1 := get(hm, "BenchmarkAggregate/"+rng, "samples/s")
		w, err2 := get(wm, "BenchmarkAggregate/"+rng, "samples/s")
		ms, _ := get(wm, "BenchmarkAggregate/"+rng, "ns/op")
		if err1 != nil || err2 != nil {
			return rows, fmt.Errorf("%v %v", err1, err2)
		}
		rows = append(rows,
			row{"", "compute (Aggregate + Sum + BucketStats), 176 raw 15 s series, " + rng + ", host",
				fmt.Sprintf("%.1f M samples/s", h/1e6), "", "go test " + shellJoin(args)},
			row{"", "compute, same, wasm in Node 20",
				fmt.Sprintf("%.1f M samples/s (%.1f ms per call)", w/1e6, ms/1e6), "",
				wasmPrefix + "go test " + shellJoin(args)})
	}
	return rows, nil
}

func proxy(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkProxy$", "-benchtime=1x", "-timeout", "30m", "./bench/"}
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	cmd := "SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag) + " go test " + shellJoin(args)
	var rows []row
	for _, v := range []struct{ suffix, what string }{
		{"", "gzip negotiated (as browsers)"},
		{"-raw", "no compression"},
	} {
		d, err1 := get(m, "BenchmarkProxy", "direct"+v.suffix+"-ms")
		p, err2 := get(m, "BenchmarkProxy", "proxy"+v.suffix+"-ms")
		o, err3 := get(m, "BenchmarkProxy", "overhead"+v.suffix+"-pct")
		if err1 != nil || err2 != nil || err3 != nil {
			return rows, fmt.Errorf("%v %v %v", err1, err2, err3)
		}
		rows = append(rows, row{"", "proxy overhead, " + v.what + ": dashboard fetch (176 series, 6 h at 1 m) direct / through /prom (cache off)",
			fmt.Sprintf("%.1f ms / %.1f ms: **%+.1f %%**", d, p, o), "≤ 5 %: " + ok(o <= 5), cmd})
	}
	return rows, nil
}

// viewers runs the server's load test and reads its log line.
var viewersLine = regexp.MustCompile(`(\d+) viewers for (\S+) .*?: (\d+) viewer requests, (\d+) failed; upstream requests (\d+) \(query_range (\d+)\) for (\d+) distinct windows`)

func viewers() ([]row, error) {
	args := []string{"-count=1", "-run", "^TestManyViewers$", "-v", "./server/"}
	env := []string{"SPECDASH_LOAD_SECONDS=" + strconv.Itoa(*loadFlag)}
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := viewersLine.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no result line in the load test's output")
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	reqs, _ := strconv.ParseFloat(m[3], 64)
	up, _ := strconv.ParseFloat(m[5], 64)
	return []row{{"", fmt.Sprintf("upstream queries with %s viewers refreshing every 5 s for %s", m[1], m[2]),
		fmt.Sprintf("%.0f upstream for %.0f viewer requests (%s failed): **%.3f upstream queries per viewer request**, %.2f per viewer over the run", up, reqs, m[4], up/reqs, up/n),
		"", "SPECDASH_LOAD_SECONDS=" + strconv.Itoa(*loadFlag) + " go test " + shellJoin(args)}}, nil
}

func embedded(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkEmbedded$", "-benchtime=1x", "-timeout", (*embeddedFlag + 10*time.Minute).String(), "./bench/"}
	vars := "SPECDASH_BENCH_EMBEDDED=" + embeddedFlag.String()
	storage := ""
	if *blockFlag > 0 {
		vars += " SPECDASH_BENCH_EMBEDDED_BLOCK=" + blockFlag.String()
		storage += ", " + blockFlag.String() + " blocks"
	}
	if *retainFlag > 0 {
		vars += " SPECDASH_BENCH_EMBEDDED_RETENTION=" + retainFlag.String()
		storage += ", " + retainFlag.String() + " retention"
	}
	env = append(env, strings.Fields(vars)...)
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	v := map[string]float64{}
	for _, u := range []string{"cpu-pct", "rss-1m-mb", "rss-end-mb", "live-1m-mb", "live-end-mb", "live-growth-mb-per-h", "rss-growth-mb-per-h", "series", "minutes", "blocks", "blocks-written", "live-median-early-mb", "live-median-late-mb"} {
		x, err := get(m, "BenchmarkEmbedded", u)
		if err != nil {
			return nil, err
		}
		v[u] = x
	}
	cmd := "make build && " + vars + " go test " + shellJoin(args)
	what := fmt.Sprintf("embedded mode, 50 simulated targets at 5 s%s, %.0f min run (one run)", storage, v["minutes"])
	return []row{
		{"", what + ": CPU", fmt.Sprintf("%.1f %% of one core", v["cpu-pct"]), "", cmd},
		{"", what + ": memory", fmt.Sprintf("live Go heap, median of the first / last eighth: **%.1f → %.1f MB**; RSS %.0f → %.0f MB (1 min → end); trend over the second half: RSS %+.1f MB/h, live heap %+.1f MB/h; %.0f series; %.0f blocks written, %.0f kept",
			v["live-median-early-mb"], v["live-median-late-mb"], v["rss-1m-mb"], v["rss-end-mb"], v["rss-growth-mb-per-h"], v["live-growth-mb-per-h"], v["series"], v["blocks-written"], v["blocks"]),
			"flat (see below)", cmd},
	}, nil
}
