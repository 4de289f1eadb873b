package metricsclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/internal/vmtest"
)

// fleetLatencyBounds are the le bounds of the fleet's inter-token latency
// histogram.
var fleetLatencyBounds = []string{"0.01", "0.025", "0.05", "0.1", "+Inf"}

// writeFleetLatencyOM writes vLLM's latency, output and load families of
// the fleet's engines as OpenMetrics (no # EOF): an inter-token latency
// histogram and an output-token counter that count with the engine's
// drafts (so they reset, start and stop with its processes, and have
// _created unless the engine has none), and a running-requests gauge.
func writeFleetLatencyOM(w io.Writer, engines []fleetEngine) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	lbl := func(e fleetEngine) string {
		return fmt.Sprintf(`instance="%s",engine="%s",model_name="%s"`, e.inst, e.engine, omEscape(e.model))
	}
	each := func(fn func(e fleetEngine, p fleetProc, t, d, acc int64)) {
		for _, e := range engines {
			for _, p := range e.procs {
				for t := p.from; t <= p.to; t += fleetScrape {
					if t > e.gap[0] && t < e.gap[1] {
						continue
					}
					d, _, acc, _ := fleetValues(e, p, t)
					fn(e, p, t, d, acc)
				}
			}
		}
	}
	const itl = "vllm:inter_token_latency_seconds"
	fmt.Fprintf(bw, "# TYPE %s histogram\n", itl)
	each(func(e fleetEngine, p fleetProc, t, d, acc int64) {
		for i, le := range fleetLatencyBounds {
			// Cumulative in le and in time: a share of the drafts so far.
			v := d * int64(i+1+e.idx%3) / int64(len(fleetLatencyBounds)+e.idx%3)
			fmt.Fprintf(bw, "%s_bucket{%s,le=\"%s\"} %d %d\n", itl, lbl(e), le, v, t)
		}
		fmt.Fprintf(bw, "%s_count{%s} %d %d\n", itl, lbl(e), d, t)
		fmt.Fprintf(bw, "%s_sum{%s} %.6f %d\n", itl, lbl(e), float64(d)*0.0213+float64(acc)*0.000137, t)
		if !e.noCreated {
			fmt.Fprintf(bw, "%s_created{%s} %s %d\n", itl, lbl(e), fmtSec(p.created), t)
		}
	})
	const gen = "vllm:generation_tokens"
	fmt.Fprintf(bw, "# TYPE %s counter\n", gen)
	each(func(e fleetEngine, p fleetProc, t, d, acc int64) {
		fmt.Fprintf(bw, "%s_total{%s} %d %d\n", gen, lbl(e), d+acc, t)
		if !e.noCreated {
			fmt.Fprintf(bw, "%s_created{%s} %s %d\n", gen, lbl(e), fmtSec(p.created), t)
		}
	})
	const run = "vllm:num_requests_running"
	fmt.Fprintf(bw, "# TYPE %s gauge\n", run)
	each(func(e fleetEngine, p fleetProc, t, d, acc int64) {
		fmt.Fprintf(bw, "%s{%s} %d %d\n", run, lbl(e), (int64(e.idx)+t/fleetScrape)%7, t)
	})
	return bw.Flush()
}

// fleetWithLatencyOM is the fleet's counters and latency families.
func fleetWithLatencyOM(t *testing.T, engines []fleetEngine) string {
	t.Helper()
	var b strings.Builder
	if err := writeFleetOM(&b, engines); err != nil {
		t.Fatal(err)
	}
	om, ok := strings.CutSuffix(b.String(), "# EOF\n")
	if !ok {
		t.Fatal("writeFleetOM wrote no # EOF")
	}
	b.Reset()
	b.WriteString(om)
	if err := writeFleetLatencyOM(&b, engines); err != nil {
		t.Fatal(err)
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// latencyFleet is fleet(n) whose last two engines are of model "m-gap", the
// last of them not scraped for 6.5 minutes (longer than the lookback)
// inside the window without restarting: it has values at both ends of the
// window, so only a detection that looks at every grid point names it.
func latencyFleet(n int, gs int64) []fleetEngine {
	engines := fleet(n, gs)
	for i := n - 2; i < n; i++ {
		engines[i].model = "m-gap"
	}
	engines[n-1].gap = [2]int64{gs + 60, gs + 450}
	return engines
}

var summedRoles = []OptionalRole{InterTokenLatency, GenerationTokens, RequestsRunning}

// sameOptional reports where the summed read's numbers differ from the raw
// read's: the inter-token latency's per-bucket histograms (counts exact,
// seconds to the rounding of the summed _sum), the output tokens per bucket
// (exact) and the running requests' bucket averages.
func sameOptional(t *testing.T, what string, g compute.Grid, got, want *OptionalFetch) {
	t.Helper()
	for _, r := range summedRoles {
		_, g := got.Families[r]
		_, w := want.Families[r]
		if !g || !w {
			t.Fatalf("%s: %s read summed %v, raw %v", what, r, g, w)
		}
	}
	gh, wh := got.Families[InterTokenLatency].HistogramIncreases(g), want.Families[InterTokenLatency].HistogramIncreases(g)
	observed := 0.0
	for j := range wh {
		a, b := gh[j], wh[j]
		observed += b.Count
		same := a.Count == b.Count && closeTo(a.Sum, b.Sum) && len(a.Buckets) == len(b.Buckets)
		for i := 0; same && i < len(a.Buckets); i++ {
			same = a.Buckets[i] == b.Buckets[i]
		}
		if !same {
			t.Errorf("%s: latency bucket %d: summed %+v, raw %+v", what, j, a, b)
		}
	}
	gt, wt := got.Families[GenerationTokens].BucketIncreases(g), want.Families[GenerationTokens].BucketIncreases(g)
	if !reflect.DeepEqual(gt, wt) {
		t.Errorf("%s: output tokens per bucket\nsummed %v\nraw    %v", what, gt, wt)
	}
	ga, wa := got.Families[RequestsRunning].BucketAverages(g), want.Families[RequestsRunning].BucketAverages(g)
	for j := range wa {
		if ga[j].Value.OK != wa[j].Value.OK || !closeTo(ga[j].Value.V, wa[j].Value.V) || ga[j].Samples != wa[j].Samples {
			t.Errorf("%s: running requests bucket %d: summed %+v, raw %+v", what, j, ga[j], wa[j])
		}
	}
	if observed == 0 || wt[0] == 0 || !wa[0].Value.OK {
		t.Fatalf("%s: the raw read has no observations, output tokens or load: the comparison proves nothing", what)
	}
}

// TestOptionalSummedFleet: against a real Prometheus, the latency, output
// and load families of 1,024 engines with restarts (on a step point,
// between two, with a higher first value, after an outage), an engine
// joining and one leaving inside the window, engines without _created and
// one with a gap longer than the lookback, read summed by the source
// (FetchOptionalSummed), give per bucket the raw read's numbers
// (FetchOptional, series by series): the same whole counts. The steady
// series come as one summed series, each irregular engine's as its own;
// the read costs a fraction of the raw read's bytes. A gap the detection
// does not name sends the read to the raw path, which the warnings say.
func TestOptionalSummedFleet(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	const n = 1024
	engines := latencyFleet(n, gs)
	dir := promtest.Backfill(t, fleetWithLatencyOM(t, engines))
	srv := promtest.Start(t, promtest.Options{DataDir: dir, ScrapeInterval: fleetScrape * time.Second})
	ct := &countingTransport{}
	defer ct.checkStepLocal(t)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second, RoundTripper: ct})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	steady := []Filter{{Name: "model_name", Values: []string{"m-a", "m-b"}}}
	raw, err := c.FetchOptional(ctx, VLLMV1, g, steady, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	rawBytes, _ := ct.take()
	sum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, steady, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	sumBytes, sumN := ct.take()
	t.Logf("raw read %v bytes; summed %v bytes in %v requests; %d irregular", rawBytes, sumBytes, sumN, sum.Irregular)
	if !sum.Summed {
		t.Fatalf("not summed: warnings %q", sum.Warnings)
	}
	if !reflect.DeepEqual(sum.Warnings, raw.Warnings) {
		t.Errorf("warnings: summed %q, raw %q", sum.Warnings, raw.Warnings)
	}
	// The restarted and joined engines (scJoinNoCreated starts between
	// two step points without _created: absent at the start). scLeave's
	// last sample lies within the lookback of the window's end: steady.
	if want := 10; sum.Irregular != want {
		t.Errorf("%d irregular engines, want %d", sum.Irregular, want)
	}
	itl := sum.Families[InterTokenLatency]
	summed := 0
	for _, hs := range itl.Histograms {
		if len(hs.Labels) == 0 {
			summed++
		}
	}
	if len(itl.Histograms) != 1+sum.Irregular || summed != 1 {
		t.Errorf("inter-token latency: %d series, %d summed; want the steady sum and %d irregular", len(itl.Histograms), summed, sum.Irregular)
	}
	// At the start: all but the two of m-gap and the two that join.
	if run := sum.Families[RequestsRunning]; len(run.Series) != 1 || len(run.GaugeCounts) != len(run.Series[0].Points) || run.GaugeCounts[0].V != n-4 {
		t.Errorf("running requests: %d series, counts %v", len(run.Series), run.GaugeCounts)
	}
	sameOptional(t, "1,024 engines", g, sum, raw)
	if total, r := sumOf(sumBytes), sumOf(rawBytes); total == 0 || total*4 > r {
		t.Errorf("the summed read took %d bytes, the raw read %d: want under a quarter", total, r)
	}

	// The engine with a gap: the detection (step-local, so it sees the
	// grid points without a value in their lookback) names it, and it is
	// read series by series: summed, exact, no warning.
	gap := []Filter{{Name: "model_name", Values: []string{"m-gap"}}}
	raw, err = c.FetchOptional(ctx, VLLMV1, g, gap, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	sum, err = c.FetchOptionalSummed(ctx, nil, VLLMV1, g, gap, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Summed || len(sum.Warnings) != 0 || len(raw.Warnings) != 0 || sum.Irregular != 1 {
		t.Errorf("gap: summed %v, %d irregular, warnings %q (raw %q); want summed, the gapped engine irregular, no warning", sum.Summed, sum.Irregular, sum.Warnings, raw.Warnings)
	}
	sameOptional(t, "gap", g, sum, raw)

	// A detection that misses it (blindDetection): the count of steady
	// series dips, and the read falls back to the raw one, saying why.
	var blinded atomic.Int64
	blind, err := New(Config{Address: blindDetection(t, srv.URL, &blinded), ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sum, err = blind.FetchOptionalSummed(ctx, nil, VLLMV1, g, gap, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Summed || blinded.Load() == 0 || len(sum.Warnings) == 0 || !strings.Contains(sum.Warnings[len(sum.Warnings)-1], "steady series at the window's start and 1 at") {
		t.Errorf("blind detection: summed %v, warnings %q", sum.Summed, sum.Warnings)
	}
	if !reflect.DeepEqual(sum.Families, raw.Families) {
		t.Errorf("blind detection: the fallback differs from the raw read:\n%+v\n%+v", sum.Families, raw.Families)
	}
}

// TestOptionalSummedVictoriaMetrics: the summed read of the same fleet's
// latency families from a real VictoriaMetrics (whose lookback, rollups
// and name-keeping differ from Prometheus') equals its raw read.
func TestOptionalSummedVictoriaMetrics(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := latencyFleet(72, gs)
	vm := vmtest.Start(t)
	t.Logf("imported %d samples", vmtest.Import(t, vm, fleetWithLatencyOM(t, engines), nil))
	c, err := New(Config{Address: vm, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	steady := []Filter{{Name: "model_name", Values: []string{"m-a", "m-b"}}}
	var raw *OptionalFetch
	var ferr error
	// Imported data becomes searchable after a moment.
	if !testwait.Until(2*time.Minute, func() bool {
		raw, ferr = c.FetchOptional(ctx, VLLMV1, g, steady, summedRoles...)
		return ferr == nil && len(raw.Families) == len(summedRoles) && len(raw.Families[RequestsRunning].Series) == 70
	}) {
		t.Fatalf("VictoriaMetrics has not all series 2 min after import: %v", ferr)
	}
	sum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, steady, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summed %v, %d irregular, warnings %q", sum.Summed, sum.Irregular, sum.Warnings)
	if !sum.Summed {
		t.Errorf("VictoriaMetrics fell back to the raw read: %q", sum.Warnings)
	}
	sameOptional(t, "VictoriaMetrics", g, sum, raw)
}

func sumOf(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// TestOptionalSummedContinued: a live window of the fleet's restarted,
// joining and leaving engines slides over their restarts; each summed
// read that continues the previous one (the sums' newest points, and the
// detection over them only, with the previous irregular label sets)
// equals a full summed read and the raw read, and then a whole-window
// detection once the last one is a minute of data old.
func TestOptionalSummedContinued(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := latencyFleet(80, gs)
	dir := promtest.Backfill(t, fleetWithLatencyOM(t, engines))
	srv := promtest.Start(t, promtest.Options{DataDir: dir, ScrapeInterval: fleetScrape * time.Second})
	const scrape = fleetScrape * time.Second
	c, err := New(Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	f := []Filter{fleetInstances(engines, scRestartAligned, scRestartBetween, scRestartHigher, scJoin, scLeave, scNoCreated, scOutageRestart, scJoinNoCreated)}
	var prev *Window
	continued, whole := 0, 0
	for i, now := range []int64{gs + 200, gs + 223, gs + 223, gs + 262, gs + 290, gs + 311, gs + 340, gs + 371, gs + 420, gs + 455, gs + 490, gs + 521, gs + 560, gs + 600} {
		at := time.Unix(now, 0)
		g := AlignGrid(at, 5*time.Minute, scrape)
		what := fmt.Sprintf("load %d (now gs+%d s)", i, now-gs)
		_, w, err := c.Fetch(ctx, FetchRequest{Grid: g, Filters: f, Prev: prev, Settled: at.Add(-scrape - 5*time.Second), Now: at})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		inc, err := c.FetchOptionalSummed(ctx, prev, VLLMV1, g, f, summedRoles...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		full, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, f, summedRoles...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		raw, err := c.FetchOptional(ctx, VLLMV1, g, f, summedRoles...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !inc.Summed || !full.Summed {
			t.Fatalf("%s: not summed: %q %q", what, inc.Warnings, full.Warnings)
		}
		if i > 0 != inc.Incremental {
			t.Fatalf("%s: incremental %v", what, inc.Incremental)
		}
		switch {
		case inc.raw.detectedAt == g.End:
			whole++
		case i > 0:
			continued++
		}
		if inc.Irregular < full.Irregular {
			t.Errorf("%s: %d irregular label sets continued, %d in full: the continued detection missed some", what, inc.Irregular, full.Irregular)
		}
		sameOptional(t, what+", continued vs raw", g, inc, raw)
		sameOptional(t, what+", full vs raw", g, full, raw)
		t.Logf("%s: %d irregular (full read %d), detected over the whole window %v", what, inc.Irregular, full.Irregular, inc.raw.detectedAt == g.End)
		prev = w.WithReads(nil, inc)
	}
	if continued < 8 || whole < 3 {
		t.Errorf("%d reads detected over the new points, %d over the whole window: the test proves little", continued, whole)
	}
}

// TestOptionalSummedOffGrid: a source that answers the irregular series'
// query with a point off the grid (a fault a real Prometheus does not
// make: a proxy in front of one moves each series' last point one step
// past the grid's end) sends the summed read to the raw
// read, with a warning that says so, instead of indexing outside its sums
// (a panic that would end the page).
func TestOptionalSummedOffGrid(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := latencyFleet(32, gs)
	dir := promtest.Backfill(t, fleetWithLatencyOM(t, engines))
	srv := promtest.Start(t, promtest.Options{DataDir: dir, ScrapeInterval: fleetScrape * time.Second})
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var moved atomic.Int64 // the proxy's handlers run concurrently
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		q := resp.Request.URL.Query().Get("query") + resp.Request.Form.Get("query")
		if !strings.HasPrefix(q, "label_replace(last_over_time(") {
			return nil
		}
		var body struct {
			Status string `json:"status"`
			Data   struct {
				ResultType string `json:"resultType"`
				Result     []struct {
					Metric map[string]string `json:"metric"`
					Values [][2]any          `json:"values"`
				} `json:"result"`
			} `json:"data"`
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &body); err != nil {
			return err
		}
		for i := range body.Data.Result {
			if v := body.Data.Result[i].Values; len(v) > 0 {
				last := v[len(v)-1][0].(float64)
				v[len(v)-1][0] = last + fleetStep // one step past the grid's end
				moved.Add(1)
			}
		}
		b, err = json.Marshal(body)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", fmt.Sprint(len(b)))
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Accept-Encoding") // answers the proxy can read
		if err := parseFormAgain(r); err != nil {
			t.Error(err)
		}
		rp.ServeHTTP(w, r)
	}))
	defer front.Close()
	c, err := New(Config{Address: front.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	steady := []Filter{{Name: "model_name", Values: []string{"m-a", "m-b"}}}
	sum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, steady, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Load() == 0 {
		t.Fatal("no irregular series was read: the test proves nothing")
	}
	if sum.Summed || len(sum.Warnings) == 0 || !strings.Contains(sum.Warnings[len(sum.Warnings)-1], "irregular series' query off the grid") {
		t.Fatalf("summed %v, warnings %q: want the raw read and a warning naming the points off the grid", sum.Summed, sum.Warnings)
	}
	direct, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := direct.FetchOptional(ctx, VLLMV1, g, steady, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	sameOptional(t, "off the grid", g, sum, raw)
}

// TestOptionalSummedRestartsExact: the fleet's inter-token latency
// histogram observes once per draft and its output tokens are drafts plus
// accepted tokens, so per bucket the summed read's observations and output
// tokens must equal the exact counters' (FetchShaped, exact against the
// generator's truth in TestShapedFleetPrometheus) for engines that restart
// between step points (the grid's step is two scrapes), on one, with a
// first value above the old one (only _created says so), after an outage,
// or start and stop inside the window.
func TestOptionalSummedRestartsExact(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := latencyFleet(80, gs)
	dir := promtest.Backfill(t, fleetWithLatencyOM(t, engines))
	srv := promtest.Start(t, promtest.Options{DataDir: dir, ScrapeInterval: fleetScrape * time.Second})
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	g := fleetGrid(gs)
	for _, sc := range []int{scRestartAligned, scRestartBetween, scRestartHigher, scJoin, scLeave, scNoCreated, scOutageRestart, scJoinNoCreated} {
		f := []Filter{fleetInstances(engines, sc)}
		what := fmt.Sprintf("instance %s (engine %d)", engines[sc].inst, sc)
		sh, err := c.FetchShaped(ctx, g, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		groups := sh.Groups(g)
		if len(groups) != 1 {
			t.Fatalf("%s: %d groups", what, len(groups))
		}
		sum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, f, summedRoles...)
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Summed {
			t.Fatalf("%s: not summed: %q", what, sum.Warnings)
		}
		itl := sum.Families[InterTokenLatency].HistogramIncreases(g)
		out := sum.Families[GenerationTokens].BucketIncreases(g)
		for j, b := range groups[0].Buckets {
			if itl[j].Count != b.Drafts || out[j] != b.Drafts+b.AcceptedTokens {
				t.Errorf("%s, bucket %d: %g observations and %g output tokens; the counters say %g drafts and %g output tokens",
					what, j, itl[j].Count, out[j], b.Drafts, b.Drafts+b.AcceptedTokens)
			}
		}
	}
}
