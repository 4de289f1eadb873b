//go:build !js

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/simulate"
)

// promGraphURL is the Prometheus UI's graph page for the acceptance-rate
// expression over the last rng, graph tab.
func promGraphURL(base, rng string) string {
	v := url.Values{}
	v.Set("g0.expr", acceptanceRateExpr)
	v.Set("g0.tab", "0")
	v.Set("g0.range_input", rng)
	return base + "/graph?" + v.Encode()
}

// BenchmarkFirstChart: navigation start to the first drawn chart in
// headless Chromium, specdash's dashboard vs the Prometheus UI's graph page
// for the acceptance rate over the same window of the same Prometheus.
// Cold: a new browser context (empty HTTP cache, no service worker); warm:
// the same page loaded again in that context once the cold load has
// settled (settle: specdash's live dashboard ready and service worker
// active, then 300 ms for both sites). specdash's first chart is
// the server's static drawing when the pre-render drew one (chartsvg), so
// its first chart drawn by ECharts is timed too. Metrics: cold-ms and
// warm-ms (and, for specdash, cold-echarts-ms and warm-echarts-ms),
// medians over SPECDASH_BENCH_RUNS runs. Run with -benchtime=1x.
func BenchmarkFirstChart(b *testing.B) {
	prom := startPrometheus(b)
	spec := startSpecdash(b, prom.URL, -1, nil) // proxy cache off: every load queries Prometheus
	browser := newBrowser(b)
	for _, rng := range []string{"15m", "6h"} {
		for _, site := range []struct{ name, url, cond, echarts string }{
			{"specdash", spec + "/?range=" + rng, specdashDrawn, specdashECharts},
			{"prometheus", promGraphURL(prom.URL, rng), promDrawn, ""},
		} {
			b.Run(site.name+"/"+rng, func(b *testing.B) {
				var cold, warm, coldE, warmE []float64
				for range runs(b) {
					tab, cancel := newProfile(b, browser)
					watchChart(b, tab, site.cond, site.echarts)
					cold = append(cold, timeToChart(b, tab, site.url, time.Minute))
					if site.echarts != "" {
						coldE = append(coldE, timeToECharts(b, tab, time.Minute))
					}
					settle(b, tab, site.name == "specdash", time.Minute)
					warm = append(warm, timeToChart(b, tab, site.url, time.Minute))
					if site.echarts != "" {
						warmE = append(warmE, timeToECharts(b, tab, time.Minute))
					}
					cancel()
				}
				b.ReportMetric(median(cold), "cold-ms")
				b.ReportMetric(median(warm), "warm-ms")
				if site.echarts != "" {
					b.ReportMetric(median(coldE), "cold-echarts-ms")
					b.ReportMetric(median(warmE), "warm-echarts-ms")
				}
			})
		}
	}
}

// BenchmarkProxy: one dashboard fetch (metricsclient.FetchSeries: the
// counter families over 6 h at the dashboard's 1 min step, 176 series),
// straight from Prometheus vs through specdash's /prom proxy with its
// cache off, alternating; 20 fetches per side per run. Twice: with gzip
// negotiated as browsers do (Prometheus and the proxy each compress their
// answer) and with compression off. Metrics: direct-ms, proxy-ms,
// overhead-pct (gzip) and direct-raw-ms, proxy-raw-ms, overhead-raw-pct
// (identity); medians of all fetches.
func BenchmarkProxy(b *testing.B) {
	prom := startPrometheus(b)
	spec := startSpecdash(b, prom.URL, -1, nil)
	g := metricsclient.AlignGrid(dataEnd, 6*time.Hour, metricsclient.ChooseStep(6*time.Hour, caseScrape))
	for _, v := range []struct {
		suffix string
		raw    bool
	}{{"", false}, {"-raw", true}} {
		tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: v.raw}
		defer tr.CloseIdleConnections()
		direct, err := metricsclient.New(metricsclient.Config{Address: prom.URL, RoundTripper: tr, ScrapeInterval: caseScrape})
		if err != nil {
			b.Fatal(err)
		}
		proxied, err := metricsclient.New(metricsclient.Config{Address: spec + "/prom", RoundTripper: tr, ScrapeInterval: caseScrape})
		if err != nil {
			b.Fatal(err)
		}
		fetch := func(c *metricsclient.Client) float64 {
			t0 := time.Now()
			s, _, err := c.FetchSeries(context.Background(), g, nil)
			if err != nil {
				b.Fatalf("FetchSeries: %v", err)
			}
			if len(s) != caseEngines*(3+caseK) {
				b.Fatalf("FetchSeries: %d series, want %d", len(s), caseEngines*(3+caseK))
			}
			return float64(time.Since(t0).Microseconds()) / 1000
		}
		fetch(direct) // warm both paths (connections, Prometheus' page cache)
		fetch(proxied)
		var d, p []float64
		for range runs(b) * 20 {
			d = append(d, fetch(direct))
			p = append(p, fetch(proxied))
		}
		md, mp := median(d), median(p)
		b.ReportMetric(md, "direct"+v.suffix+"-ms")
		b.ReportMetric(mp, "proxy"+v.suffix+"-ms")
		b.ReportMetric(100*(mp-md)/md, "overhead"+v.suffix+"-pct")
	}
}

// BenchmarkEmbedded: the built ./specdash in embedded mode (`serve` with
// one --scrape.target per simulator, default 5 s scrape interval)
// scraping 50 simulated vLLM targets for SPECDASH_BENCH_EMBEDDED (default
// 10m). Sampled every 10 s from /proc and the server's /metrics. Metrics:
// cpu-pct (one core = 100, average after the first minute), rss-*-mb and
// live-*-mb (live heap after the last GC: go_memstats_next_gc_bytes over
// 1 + GOGC/100) at one minute and at the end, live-growth-mb-per-h and
// rss-growth-mb-per-h (least squares over the second half: flat memory is
// about 0), live-median-early-mb and live-median-late-mb (medians over the
// first and last eighth of the run), series (in the engine at the end). Fails unless all 50 targets
// are up at the end.
//
// SPECDASH_BENCH_EMBEDDED_BLOCK and SPECDASH_BENCH_EMBEDDED_RETENTION (Go
// durations) pass --storage.block-duration and --storage.retention: with
// 10m and 30m the head is compacted into a block every 10 minutes from
// minute 15 (WAL truncated, chunks of the head released) and blocks older
// than 30 minutes are deleted, so an hour goes through the cycles that
// take Prometheus' defaults (2 h blocks, 6 h retention) a day. Metrics
// then also: blocks (persisted blocks at the end) and blocks-written (all
// seen during the run).
func BenchmarkEmbedded(b *testing.B) {
	dur := 10 * time.Minute
	if s := os.Getenv("SPECDASH_BENCH_EMBEDDED"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 2*time.Minute {
			b.Fatalf("SPECDASH_BENCH_EMBEDDED=%q: want a Go duration of at least 2m", s)
		}
		dur = d
	}
	bin, err := filepath.Abs("../specdash")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		b.Fatalf("%s not built: run `make build` first", bin)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var args []string
	for i := range 50 {
		sim, err := simulate.New(simulate.Config{Models: []string{"bench-model"}, Engines: 2, K: 4,
			Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: int64(i + 1), Tick: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		go sim.Run(ctx)
		args = append(args, "--scrape.target="+serveLoopback(b, sim)+"/metrics")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	storage := b.TempDir()
	args = append([]string{"serve", "--web.listen-address=" + addr, "--log.level=warn", "--storage.path=" + storage}, args...)
	for env, flag := range map[string]string{"SPECDASH_BENCH_EMBEDDED_BLOCK": "--storage.block-duration=", "SPECDASH_BENCH_EMBEDDED_RETENTION": "--storage.retention="} {
		if s := os.Getenv(env); s != "" {
			if _, err := time.ParseDuration(s); err != nil {
				b.Fatalf("%s=%q: want a Go duration", env, s)
			}
			args = append(args, flag+s)
		}
	}
	blocksSeen := map[string]bool{}
	// blocks lists the persisted TSDB blocks (directories named by a
	// 26-character ULID) and records each in blocksSeen.
	blocks := func() int {
		ents, _ := os.ReadDir(storage)
		n := 0
		for _, e := range ents {
			if e.IsDir() && len(e.Name()) == 26 {
				n++
				blocksSeen[e.Name()] = true
			}
		}
		return n
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	logf, _ := os.Create(filepath.Join(b.TempDir(), "specdash.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	base := "http://" + addr
	testwait.For(b, "specdash serve to be ready (log "+logf.Name()+")", 0, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	pid := cmd.Process.Pid
	clk := 100.0 // USER_HZ on Linux
	type sample struct {
		t        time.Duration
		cpu, rss float64 // seconds, MB
		live     float64 // MB, live heap after the last GC
	}
	var ss []sample
	start := time.Now()
	for {
		el := time.Since(start)
		cpu, rss, err := procStat(pid, clk)
		if err != nil {
			b.Fatalf("read /proc: %v", err)
		}
		m := scrapeMetrics(base + "/metrics")
		// Live heap after the last GC: the GC's next target over
		// (1 + GOGC/100); steadier than heap in use, which swings with
		// every GC cycle.
		gogc := m["go_gc_gogc_percent"]
		if gogc <= 0 {
			gogc = 100
		}
		ss = append(ss, sample{el, cpu, rss, m["go_memstats_next_gc_bytes"] / (1 + gogc/100) / 1e6})
		b.Logf("%4.0fs cpu %.1fs rss %.1f MB live heap %.1f MB heap in use %.1f MB blocks %d", el.Seconds(), cpu, rss, ss[len(ss)-1].live, m["go_memstats_heap_inuse_bytes"]/1e6, blocks())
		if el >= dur {
			break
		}
		time.Sleep(min(10*time.Second, dur-el+time.Millisecond))
	}
	// Every target scraped, and how many series the engine holds.
	up := queryScalar(b, base, `count(up == 1)`)
	series := queryScalar(b, base, `count({__name__=~".+"})`)
	if up != 50 {
		b.Fatalf("%v of 50 targets up at the end (log %s)", up, logf.Name())
	}
	// After the first minute: CPU average; memory then and at the end.
	i1 := 0
	for i1 < len(ss)-1 && ss[i1].t < time.Minute {
		i1++
	}
	last := ss[len(ss)-1]
	b.ReportMetric(100*(last.cpu-ss[i1].cpu)/(last.t-ss[i1].t).Seconds(), "cpu-pct")
	b.ReportMetric(ss[i1].rss, "rss-1m-mb")
	b.ReportMetric(last.rss, "rss-end-mb")
	b.ReportMetric(ss[i1].live, "live-1m-mb")
	b.ReportMetric(last.live, "live-end-mb")
	half := ss[len(ss)/2:]
	xs, ys := make([]float64, len(half)), make([]float64, len(half))
	for i, s := range half {
		xs[i], ys[i] = s.t.Hours(), s.live
	}
	b.ReportMetric(slope(xs, ys), "live-growth-mb-per-h")
	for i, s := range half {
		ys[i] = s.rss
	}
	b.ReportMetric(slope(xs, ys), "rss-growth-mb-per-h")
	// Medians of the live heap over the run's first and last eighth (at
	// least 2 minutes each, the first from minute 1): single samples catch
	// the transient peaks of a head compaction.
	win := max(2*time.Minute, dur/8)
	var early, late []float64
	for _, s := range ss {
		if s.t >= time.Minute && s.t <= time.Minute+win {
			early = append(early, s.live)
		}
		if s.t >= dur-win {
			late = append(late, s.live)
		}
	}
	b.ReportMetric(median(early), "live-median-early-mb")
	b.ReportMetric(median(late), "live-median-late-mb")
	b.ReportMetric(series, "series")
	b.ReportMetric(dur.Minutes(), "minutes")
	b.ReportMetric(float64(blocks()), "blocks")
	b.ReportMetric(float64(len(blocksSeen)), "blocks-written")
}

// queryScalar evaluates a PromQL expression with one result through the
// server's proxy (the embedded engine) and returns its value.
func queryScalar(b *testing.B, base, expr string) float64 {
	b.Helper()
	resp, err := http.Get(base + "/prom/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.Result) != 1 {
		b.Fatalf("%s: %v (%d results)", expr, err, len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		b.Fatalf("%s: value %q", expr, s)
	}
	return v
}

// procStat returns the CPU seconds (user + system) and resident memory
// (MB) of a process.
func procStat(pid int, clk float64) (cpu, rssMB float64, err error) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	rest := string(st[strings.LastIndexByte(string(st), ')')+2:])
	f := strings.Fields(rest)
	ut, _ := strconv.ParseFloat(f[11], 64)
	stt, _ := strconv.ParseFloat(f[12], 64)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			rssMB = kb / 1024
		}
	}
	return (ut + stt) / clk, rssMB, nil
}

// scrapeMetrics reads unlabelled samples of a /metrics page (0 for what
// is missing).
func scrapeMetrics(u string) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get(u)
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.Contains(l, "{") {
			continue
		}
		if name, v, ok := strings.Cut(l, " "); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				out[name] = f
			}
		}
	}
	return out
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
