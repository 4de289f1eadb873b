//go:build !js

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"specdash/internal/promtest"
	"specdash/server"
	"specdash/simulate"
)

// The benchmark data: 16 engines x k = 8 positions, one sample every 15 s
// for 24 h ending at the run's start.
const (
	caseEngines = 16
	caseK       = 8
	caseScrape  = 15 * time.Second
	caseHours   = 24
)

// acceptanceRateExpr is the expression the Prometheus UI is given: the
// acceptance rate (accepted / draft tokens, ratio of sums) per step, the
// same number as the dashboard's acceptance-rate chart.
const acceptanceRateExpr = `sum(increase(vllm:spec_decode_num_accepted_tokens_total[1m])) / sum(increase(vllm:spec_decode_num_draft_tokens_total[1m]))`

// runs is the number of runs per figure (SPECDASH_BENCH_RUNS, default 5).
func runs(b *testing.B) int {
	if s := os.Getenv("SPECDASH_BENCH_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("SPECDASH_BENCH_RUNS=%q: want a positive integer", s)
		}
		return n
	}
	return 5
}

// median of xs (xs is sorted in place); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// caseState is one engine's counters at one sample.
type caseState struct {
	drafts, draftTok, accTok float64
	pos                      [caseK]float64
}

// caseAcceptance is engine e's chance that a draft token is accepted
// given that the ones before it were.
func caseAcceptance(e int) float64 { return 0.75 + 0.1*float64(e%4)/4 }

// caseOpenMetrics writes the benchmark data as OpenMetrics (timestamps in
// seconds), ending at end: per engine the three totals and eight
// per-position counters, acceptance falling geometrically with position.
func caseOpenMetrics(path string, end time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	n := int(caseHours * time.Hour / caseScrape)
	endS := end.Truncate(caseScrape).Unix()
	startS := endS - int64(n)*int64(caseScrape/time.Second)
	// Values per engine per sample, computed once.
	vals := make([][]caseState, caseEngines)
	for e := range caseEngines {
		r := rand.New(rand.NewSource(int64(e) + 1))
		var s caseState
		vals[e] = make([]caseState, n+1)
		for j := 0; j <= n; j++ {
			vals[e][j] = s
			d := float64(150 + r.Intn(100)) // drafts per scrape
			s.drafts += d
			s.draftTok += d * caseK
			p := caseAcceptance(e)
			acc := 0.0
			for i := range caseK {
				a := float64(int(d * pow(p, i+1) * (0.9 + 0.2*r.Float64())))
				s.pos[i] += a
				acc += a
			}
			s.accTok += acc
		}
	}
	fams := []struct {
		name string
		pos  bool
		v    func(s *caseState) float64
	}{
		{"vllm:spec_decode_num_drafts", false, func(s *caseState) float64 { return s.drafts }},
		{"vllm:spec_decode_num_draft_tokens", false, func(s *caseState) float64 { return s.draftTok }},
		{"vllm:spec_decode_num_accepted_tokens", false, func(s *caseState) float64 { return s.accTok }},
	}
	for _, fam := range fams {
		fmt.Fprintf(w, "# HELP %s Benchmark data.\n# TYPE %s counter\n", fam.name, fam.name)
		for e := range caseEngines {
			for j := 0; j <= n; j++ {
				fmt.Fprintf(w, "%s_total{engine=\"%d\",model_name=\"bench-model\"} %.0f %d\n", fam.name, e, fam.v(&vals[e][j]), startS+int64(j)*15)
			}
		}
	}
	const pp = "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(w, "# HELP %s Benchmark data.\n# TYPE %s counter\n", pp, pp)
	for e := range caseEngines {
		for i := range caseK {
			for j := 0; j <= n; j++ {
				fmt.Fprintf(w, "%s_total{engine=\"%d\",model_name=\"bench-model\",position=\"%d\"} %.0f %d\n", pp, e, i, vals[e][j].pos[i], startS+int64(j)*15)
			}
		}
	}
	if caseLatency() {
		latencyOpenMetrics(w, vals, startS)
	}
	fmt.Fprintln(w, "# EOF")
	return w.Flush()
}

// caseLatency reports whether the benchmark data carries vLLM's latency,
// output and load families too (SPECDASH_BENCH_LATENCY=1), as a vLLM
// server exports them next to its spec-decode counters: the dashboard then
// reads them on every load and refresh. Off by default, so that the
// figures stay comparable with those recorded before they were added.
func caseLatency() bool { return os.Getenv("SPECDASH_BENCH_LATENCY") == "1" }

// latencyOpenMetrics writes, per engine of vals, vLLM's
// vllm:inter_token_latency_seconds histogram (the simulator's buckets,
// simulate.InterTokenLatencyBoundsMs: one observation per draft, at
// simulate.StepLatencyMs of its accepted tokens, their number geometric
// with the engine's acceptance), vllm:generation_tokens_total (one token
// per draft plus the accepted ones) and vllm:num_requests_running.
func latencyOpenMetrics(w io.Writer, vals [][]caseState, startS int64) {
	bounds := simulate.InterTokenLatencyBoundsMs
	cum := make([][]float64, len(vals))
	mean := make([]float64, len(vals))
	for e := range vals {
		cum[e], mean[e] = latencyShape(caseAcceptance(e), caseK)
	}
	const itl = "vllm:inter_token_latency_seconds"
	fmt.Fprintf(w, "# HELP %s Benchmark data.\n# TYPE %s histogram\n", itl, itl)
	for e := range vals {
		lbl := fmt.Sprintf(`engine="%d",model_name="bench-model"`, e)
		for j, s := range vals[e] {
			ts := startS + int64(j)*15
			for b, ub := range bounds {
				fmt.Fprintf(w, "%s_bucket{%s,le=\"%s\"} %.0f %d\n", itl, lbl, strconv.FormatFloat(float64(ub)/1000, 'g', -1, 64), math.Floor(s.drafts*cum[e][b]), ts)
			}
			fmt.Fprintf(w, "%s_bucket{%s,le=\"+Inf\"} %.0f %d\n", itl, lbl, s.drafts, ts)
			fmt.Fprintf(w, "%s_sum{%s} %.3f %d\n", itl, lbl, s.drafts*mean[e], ts)
			fmt.Fprintf(w, "%s_count{%s} %.0f %d\n", itl, lbl, s.drafts, ts)
		}
	}
	const gen = "vllm:generation_tokens"
	fmt.Fprintf(w, "# HELP %s Benchmark data.\n# TYPE %s counter\n", gen, gen)
	for e := range vals {
		for j, s := range vals[e] {
			fmt.Fprintf(w, "%s_total{engine=\"%d\",model_name=\"bench-model\"} %.0f %d\n", gen, e, s.drafts+s.accTok, startS+int64(j)*15)
		}
	}
	const run = "vllm:num_requests_running"
	fmt.Fprintf(w, "# HELP %s Benchmark data.\n# TYPE %s gauge\n", run, run)
	for e := range vals {
		for j := range vals[e] {
			fmt.Fprintf(w, "%s{engine=\"%d\",model_name=\"bench-model\"} %d %d\n", run, e, 8+(e+j)%5, startS+int64(j)*15)
		}
	}
}

// latencyShape is the inter-token latency of an engine whose drafts of k
// tokens are accepted token by token with probability p: cum[b] the share
// of its drafts observed at most simulate.InterTokenLatencyBoundsMs[b],
// mean their mean latency in seconds (one observation per draft, at
// simulate.StepLatencyMs of its accepted tokens).
func latencyShape(p float64, k int) (cum []float64, mean float64) {
	bounds := simulate.InterTokenLatencyBoundsMs
	cum = make([]float64, len(bounds))
	for n := 0; n <= k; n++ {
		share := pow(p, n) * (1 - p)
		if n == k {
			share = pow(p, n)
		}
		ms := simulate.StepLatencyMs(n)
		mean += share * float64(ms) / 1000
		for b, ub := range bounds {
			if ms <= ub {
				cum[b] += share
			}
		}
	}
	return cum, mean
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}

// benchData is the backfilled TSDB of the benchmark case, made once per
// process (promtool takes about a minute for the 1M samples).
var (
	dataOnce sync.Once
	dataDir  string
	dataErr  error
	dataEnd  time.Time
)

func caseData(b *testing.B) string {
	b.Helper()
	dataOnce.Do(func() {
		work, err := os.MkdirTemp("", "specdash-bench-data-")
		if err != nil {
			dataErr = err
			return
		}
		dataEnd = time.Now()
		in := filepath.Join(work, "case.om")
		if dataErr = caseOpenMetrics(in, dataEnd); dataErr != nil {
			return
		}
		dataDir = filepath.Join(work, "data")
		dataErr = backfill(in, dataDir)
		os.Remove(in)
	})
	if dataErr != nil {
		b.Fatalf("benchmark data: %v", dataErr)
	}
	return dataDir
}

// copyDir gives each Prometheus its own copy of the backfilled blocks
// (Prometheus takes a lock on its data directory).
func copyDir(b *testing.B, src string) string {
	b.Helper()
	dst := b.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		b.Fatalf("copy data: %v", err)
	}
	return dst
}

// startPrometheus runs Prometheus 2.42 over a copy of the benchmark data
// (promtest keeps 100 years: nothing is deleted).
func startPrometheus(b *testing.B) *promtest.Server {
	b.Helper()
	dir := copyDir(b, caseData(b))
	return promtest.Start(b, promtest.Options{DataDir: dir, ScrapeInterval: caseScrape})
}

// startSpecdash serves the specdash server in process on a loopback port
// in front of promURL. cacheTTL < 0 turns the proxy cache off.
func startSpecdash(b *testing.B, promURL string, cacheTTL time.Duration, reg *prometheus.Registry) string {
	b.Helper()
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	cfg := server.Config{PrometheusURL: promURL, ScrapeInterval: caseScrape, CacheTTL: cacheTTL, Registry: reg, Version: "bench"}
	if dir := os.Getenv("SPECDASH_BENCH_WEB"); dir != "" {
		// Another build of the front end (dist/ and static/), to compare.
		cfg.Assets = os.DirFS(dir)
	}
	return serveSpecdash(b, cfg)
}

// startSpecdashWeb is startSpecdash (proxy cache off) serving the front end
// of dir (dist/ and static/) instead of the embedded one.
func startSpecdashWeb(b *testing.B, promURL, dir string) string {
	b.Helper()
	return serveSpecdash(b, server.Config{PrometheusURL: promURL, ScrapeInterval: caseScrape, CacheTTL: -1,
		Registry: prometheus.NewRegistry(), Version: "bench-b", Assets: os.DirFS(dir)})
}

func serveSpecdash(b *testing.B, cfg server.Config) string {
	b.Helper()
	if d, ok := benchPreRender(); ok {
		cfg.PreRenderTimeout = d
	}
	h, err := server.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return serveLoopback(b, h)
}

// benchPreRender is SPECDASH_BENCH_PRERENDER, the server's pre-render
// budget (server.Config.PreRenderTimeout) for every specdash site of a
// benchmark; false when unset (the server's default).
func benchPreRender() (time.Duration, bool) {
	d, err := time.ParseDuration(os.Getenv("SPECDASH_BENCH_PRERENDER"))
	return d, err == nil
}

func serveLoopback(b *testing.B, h http.Handler) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go s.Serve(ln)
	b.Cleanup(func() { s.Close() })
	return "http://" + ln.Addr().String()
}

// backfill runs `promtool tsdb create-blocks-from openmetrics IN DIR`
// (blocks of up to 6 h, like Prometheus' own compaction would leave).
func backfill(in, dir string) error {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		return fmt.Errorf("promtool not found (%v): install it with `make deps`", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", "--quiet", "--max-block-duration=6h", in, dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.String())
	}
	return nil
}
