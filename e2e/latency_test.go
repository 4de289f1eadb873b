//go:build !js

package e2e

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/model"
	"specdash/server"
	"specdash/simulate"
)

// latencyShown is what the latency panel shows.
type latencyShown struct {
	Present bool                     `json:"present"`
	Values  map[string]latencyMetric `json:"values"`
	Caveat  string                   `json:"caveat"`
	Missing []string                 `json:"missing"`
	Chart   bool                     `json:"chart"`
	Bins    []string                 `json:"bins"`
	Speed   string                   `json:"speed"`
	Text    string                   `json:"text"`
}

type latencyMetric struct {
	Value     string `json:"value"`
	Text      string `json:"text"`
	Undefined bool   `json:"undefined"`
	Reason    string `json:"reason"`
}

const readLatencyJS = `(() => {
  const p = document.querySelector('[data-panel="inter-token-latency"]');
  const out = {present: !!p, values: {}, caveat: '', missing: [], chart: false, bins: [], speed: '', text: ''};
  const k = document.querySelector('[data-speedup-kind]');
  out.speed = k ? k.dataset.speedupKind + ': ' + k.textContent : '';
  if (!p) return out;
  out.text = p.innerText;
  for (const el of p.querySelectorAll('[data-latency]')) {
    out.values[el.dataset.latency] = {value: el.dataset.value || '', text: el.textContent, undefined: el.hasAttribute('data-undefined'), reason: el.dataset.reason || ''};
  }
  const c = p.querySelector('[data-itl-caveat]');
  out.caveat = c ? c.textContent : '';
  for (const el of p.querySelectorAll('[data-latency-missing]')) out.missing.push(el.textContent);
  out.chart = !!p.querySelector('[data-chart="inter-token-latency"]');
  for (const el of p.querySelectorAll('[data-load-bin]')) out.bins.push(el.dataset.loadBin);
  return out;
})()`

func readLatency(t *testing.T, tab context.Context) latencyShown {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[latencyShown](readLatencyJS))
}

// checkMs checks one shown latency: data-value (seconds) within 1e-9 of
// want and the text in ms ("12.34 ms").
func checkMs(t *testing.T, l latencyShown, name string, want float64) {
	t.Helper()
	m, ok := l.Values[name]
	if !ok {
		t.Errorf("%s: not shown", name)
		return
	}
	v, err := strconv.ParseFloat(m.Value, 64)
	if err != nil || math.Abs(v-want) > 1e-9 {
		t.Errorf("%s: data-value %q, want %v", name, m.Value, want)
	}
	if !strings.HasSuffix(m.Text, " ms") || m.Text != model.FormatMs(compute.Defined(want)) {
		t.Errorf("%s: text %q, want %q", name, m.Text, model.FormatMs(compute.Defined(want)))
	}
}

// TestLatencyPanelSimulator: the simulator with --latency scraped by a
// real Prometheus; over an absolute window in the past the latency panel
// shows ITL p50/p95/p99 and mean in ms equal to model.Compute's over the
// page's grid (and within the simulator's step latencies, 20..50 ms for
// k = 3), the per-step caveat, the chart, output share and tokens/s, and
// the load table; the speedup card says it is estimated.
func TestLatencyPanelSimulator(t *testing.T) {
	tab := newTab(t)
	sim, err := simulate.New(simulate.Config{Models: []string{"m"}, Engines: 1, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 11, Latency: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sim.Run(ctx)
	simURL := serve(t, sim)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simURL, "http://")}, ScrapeInterval: time.Second})
	// At least 25 scrapes (one a second) stored: the window below lies
	// inside the data.
	prom.WaitFor(t, `count_over_time(vllm:inter_token_latency_seconds_count[40s]) >= 25`, promtest.NonEmpty, 120*time.Second)
	to := time.Now().Add(-2 * time.Second).Truncate(time.Second)
	from := to.Add(-20 * time.Second)
	// Wait until the window is settled: a sample after it is stored.
	prom.WaitFor(t, fmt.Sprintf(`max(timestamp(vllm:inter_token_latency_seconds_count)) > %d`, to.Unix()+12), promtest.NonEmpty, 90*time.Second)

	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	q := url.Values{"from": {from.UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReady(t, tab, 90*time.Second)
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('[data-latency="itl-p50"]')`)
	l := readLatency(t, tab)
	grid := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => { const r = document.querySelector('[data-dashboard]'); return [r.dataset.windowStart, r.dataset.windowEnd, r.dataset.stepSeconds]; })()`))
	start, _ := strconv.ParseInt(grid[0], 10, 64)
	end, _ := strconv.ParseInt(grid[1], 10, 64)
	stepS, _ := strconv.ParseFloat(grid[2], 64)
	g := compute.Grid{Start: start, End: end, Step: int64(stepS * 1000)}

	c, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Compute(t.Context(), c, model.Request{Grid: g})
	if err != nil || m.Latency == nil || !m.Latency.ITL.P50.OK {
		t.Fatalf("model: %v %+v", err, m.Latency)
	}
	want := m.Latency.ITL
	checkMs(t, l, "itl-p50", want.P50.V)
	checkMs(t, l, "itl-p95", want.P95.V)
	checkMs(t, l, "itl-p99", want.P99.V)
	checkMs(t, l, "itl-mean", want.Mean.V)
	if want.Mean.V < 0.020 || want.Mean.V > 0.050 || want.P50.V <= 0.01 || want.P99.V > 0.075 {
		t.Errorf("ITL mean %v p50 %v p99 %v: outside the simulator's 20..50 ms steps", want.Mean, want.P50, want.P99)
	}
	if !strings.Contains(l.Caveat, model.ITLCaveat) || !l.Chart || len(l.Bins) == 0 || len(l.Missing) != 0 {
		t.Errorf("caveat %q chart %v bins %v missing %q", l.Caveat, l.Chart, l.Bins, l.Missing)
	}
	share, err := strconv.ParseFloat(l.Values["output-share"].Value, 64)
	if err != nil || !m.Latency.OutputShare.OK || math.Abs(share-m.Latency.OutputShare.V) > 1e-12 || share <= 0 || share >= 1 {
		t.Errorf("output share %+v, model %v", l.Values["output-share"], m.Latency.OutputShare)
	}
	if ps := l.Values["output-per-second"]; ps.Undefined || !strings.HasSuffix(ps.Text, " tokens/s") {
		t.Errorf("output tokens/s %+v", ps)
	}
	if !strings.HasPrefix(l.Speed, "estimated: estimated (Leviathan formula, draft cost c = 0.05)") {
		t.Errorf("speedup kind %q", l.Speed)
	}
	for _, bad := range []string{"NaN", "Infinity", "+Inf"} {
		if strings.Contains(l.Text, bad) {
			t.Errorf("the latency panel shows %q:\n%s", bad, l.Text)
		}
	}
}

// TestLatencyPanelFixture: over vLLM V1's fixture with its optional
// families (backfilled, one job) the panel shows the hand-computed
// quantiles; over the counters alone (another job) it names the missing
// histogram and its former name, and shows dashes with reasons, no NaN.
func TestLatencyPanelFixture(t *testing.T) {
	tab := newTab(t)
	base := schemaServer(t, jobsOpenMetrics([]fixtures.SchemaFixture{
		fixtures.SchemaVLLMV1(),
		{ID: "latency", Body: fixtures.SchemaVLLMV1().Body + fixtures.Latency()},
	}))
	from, to := fixtures.SchemaStartUnix, fixtures.SchemaEndUnix

	openSchema(t, tab, base, from, to, url.Values{"f.job": {"latency"}, "f.model_name": {"m-v1"}}, "ready")
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('[data-latency="itl-p50"]')`)
	l := readLatency(t, tab)
	w := fixtures.LatencyWhole
	checkMs(t, l, "itl-p50", w.P50)
	checkMs(t, l, "itl-p95", w.P95)
	checkMs(t, l, "itl-p99", w.P99)
	checkMs(t, l, "itl-mean", w.Mean)
	if s := l.Values["output-share"]; s.Value != "0.6" || s.Text != "60.0 %" {
		t.Errorf("output share %+v, want 240/400", s)
	}
	if len(l.Bins) != 4 {
		t.Errorf("load bins %v, want 0..3", l.Bins)
	}

	openSchema(t, tab, base, from, to, url.Values{"f.job": {"vllm-v1"}}, "ready")
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('[data-latency-missing]')`)
	l = readLatency(t, tab)
	wantMsg := "inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds)"
	found := false
	for _, m := range l.Missing {
		found = found || strings.HasPrefix(m, wantMsg)
	}
	if !found || l.Chart {
		t.Errorf("missing %q chart %v: want %q", l.Missing, l.Chart, wantMsg)
	}
	if p := l.Values["itl-p50"]; !p.Undefined || p.Text != model.Dash || p.Reason == "" {
		t.Errorf("p50 without a histogram: %+v", p)
	}
	if strings.Contains(l.Text, "NaN") || strings.Contains(l.Text, "Infinity") {
		t.Errorf("NaN/Inf:\n%s", l.Text)
	}
}
