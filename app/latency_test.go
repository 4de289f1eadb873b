package app

import (
	"math"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

func noChart(name string, h int, zoom bool) app.UI { return app.Div().DataSet("chart", name) }

// element reports whether html has an element with attribute hook whose
// tag also carries every one of attrs and whose text starts with text
// (attribute order is not fixed; the text as a browser shows it: the
// inner tags, such as a number's unit span, left out and whitespace runs
// read as one space).
func element(html, hook, text string, attrs ...string) bool {
	for rest := html; ; {
		i := strings.Index(rest, hook)
		if i < 0 {
			return false
		}
		start := strings.LastIndex(rest[:i], "<")
		end := strings.Index(rest[i:], ">")
		if start < 0 || end < 0 {
			return false
		}
		tag, after := rest[start:i+end], shownText(rest[i+end+1:])
		ok := strings.HasPrefix(after, text)
		for _, a := range attrs {
			ok = ok && strings.Contains(tag, a)
		}
		if ok {
			return true
		}
		rest = rest[i+end:]
	}
}

// shownText is html's text without its tags, whitespace runs as one
// space.
func shownText(html string) string {
	var b strings.Builder
	for in := false; html != ""; html = html[1:] {
		switch c := html[0]; {
		case c == '<':
			in = true
		case c == '>':
			in = false
		case !in:
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// TestLatencyPanel: the panel shows the ITL quantiles and mean in ms with
// their seconds in data-value, the per-step caveat, output tokens/s and
// share, the chart and the load table; without the families every value
// is a dash with its reason, the missing metrics are named, and nothing
// says NaN or Inf.
func TestLatencyPanel(t *testing.T) {
	h := compute.Histogram{Buckets: []compute.HistogramBucket{{UpperBound: 0.025, Count: 480}, {UpperBound: 0.05, Count: 900}, {UpperBound: math.Inf(1), Count: 960}}, Sum: 30, Count: 960}
	c := compute.Counts{Drafts: 160, DraftTokens: 480, AcceptedTokens: 240, AcceptedPerPosition: []float64{120, 80, 40}}
	m := model.FromSeries(nil, model.Request{Grid: compute.Grid{Start: 0, End: 600000, Step: 15000}})
	m.Total.Total = c
	m.Latency = &model.Latency{ITLMetric: "vllm:inter_token_latency_seconds", ITL: h.Summarize(), Histogram: h,
		GenerationMetric: "vllm:generation_tokens_total", GenerationTokens: 400,
		OutputPerSecond: compute.Defined(400.0 / 600), OutputShare: compute.Defined(0.6), LoadMetric: "vllm:num_requests_running",
		Load: compute.BinByLoad([]compute.GaugeAverage{{Value: compute.Defined(3.5)}}, []compute.Counts{c}, []compute.Histogram{h}, 0.05)}
	d := &Dashboard{res: &view.Result{Model: *m}}
	html := renderHTML(t, d.renderLatency(noChart))
	for _, e := range [][3]string{
		{`data-latency="itl-p50"`, "25.0 ms", `data-value="0.025"`},
		{`data-latency="itl-p95"`, "50.0 ms", `data-value="0.05"`},
		{`data-latency="itl-p99"`, "50.0 ms", `data-value="0.05"`},
		{`data-latency="itl-mean"`, "31.2 ms", `data-value="0.03125"`},
		{`data-latency="output-share"`, "60.0 %", `data-value="0.6"`},
		{`data-latency="output-per-second"`, "0.67 tokens/s", `data-value="0.6666666666666666"`},
	} {
		if !element(html, e[0], e[1], e[2]) {
			t.Errorf("panel lacks %s %s %q:\n%s", e[0], e[2], e[1], html)
		}
	}
	for _, want := range []string{
		model.ITLCaveat,
		`data-chart="inter-token-latency"`,
		`data-load-bin="3"`, `50.0 %`, `2.17×`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("panel lacks %q:\n%s", want, html)
		}
	}

	// Every value is defined: the large font, its unit set as the top
	// cards' units are (so that "147.3 tokens/s" keeps to one line).
	// The p95 / p99 pair keeps its slash with the p99 (a narrow card
	// breaks the line before the slash).
	if strings.Contains(html, "metric-value undefined") || !strings.Contains(html, `<span class="unit">tokens/s</span>`) || !strings.Contains(html, `<span class="unit">ms</span>`) ||
		!element(html, `class="pair-second"`, "/ 50.0 ms") {
		t.Errorf("defined values: want no undefined value line and units in their spans:\n%s", html)
	}

	// One decimal from 1 tokens/s up, as the other throughput cards.
	m.Latency.OutputPerSecond = compute.Defined(147.34)
	if html := renderHTML(t, (&Dashboard{res: &view.Result{Model: *m}}).renderLatency(noChart)); !element(html, `data-latency="output-per-second"`, "147.3 tokens/s", `data-value="147.34"`) {
		t.Errorf("output tokens/s 147.34: want 147.3 tokens/s:\n%s", html)
	}

	m.Latency = &model.Latency{Missing: []string{"inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds); none of the latency, output or load metrics were found"},
		Reasons: map[string]string{"itl": "no inter-token latency histogram", "output_share": "no output-token counter", "output_per_second": "no output-token counter", "load": "no running-requests gauge"}}
	d = &Dashboard{res: &view.Result{Model: *m}}
	html = renderHTML(t, d.renderLatency(noChart))
	for _, want := range []string{
		`inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds)`,
		`data-latency-missing`,
		`data-reason="no inter-token latency histogram"`,
		`data-reason="no output-token counter"`,
		`– no running-requests gauge`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("panel lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(html, "Inf") || strings.Contains(html, `data-chart=`) {
		t.Errorf("NaN, Inf or a chart without a histogram:\n%s", html)
	}
	// Each card's value line is set small, as the top cards' undefined
	// values are: the reason is not a number.
	if n := strings.Count(html, `class="metric-value undefined"`); n != 5 {
		t.Errorf("undefined value lines: %d, want 5 (every card):\n%s", n, html)
	}
	// Both quantiles undefined: two dashes, the reason said once between
	// them and the card's note (the p50 and mean cards say it too).
	if n := strings.Count(html, "> no inter-token latency histogram<"); n != 3 {
		t.Errorf("p95 / p99 card: reason shown %d times (want once each in p50, p95 / p99, mean):\n%s", n, html)
	}
	if html := renderHTML(t, (&Dashboard{}).renderLatency(noChart)); strings.Contains(html, "latency") {
		t.Errorf("no model: %s", html)
	}
}

// TestSpeedupCardKind: the speedup card says "estimated (Leviathan
// formula, draft cost c = 0.05)" without a measurement, and "Measured
// speedup" with the per-token times when a baseline without drafts gave
// one.
func TestSpeedupCardKind(t *testing.T) {
	s := compute.Derive(compute.Counts{Drafts: 160, DraftTokens: 480, AcceptedTokens: 240, AcceptedPerPosition: []float64{120, 80, 40}}, 600, compute.WithBonus)
	p := &InsightsPanel{Stats: s, Ready: true, cost: 0.05}
	html := renderHTML(t, p.renderCards(model.Estimate(s.Counts(), 0.05)))
	if !element(html, `data-speedup-kind="estimated"`, "estimated (Leviathan formula, draft cost c = 0.05)") || strings.Contains(html, "Measured") {
		t.Errorf("estimated card:\n%s", html)
	}
	p.Measured = &model.Measured{Speedup: compute.Defined(1.8), BaselinePerToken: compute.Defined(0.018), CurrentPerToken: compute.Defined(0.01)}
	html = renderHTML(t, p.renderCards(model.Estimate(s.Counts(), 0.05)))
	if !strings.Contains(html, "Measured speedup") || !element(html, `data-metric="speedup-measured"`, "1.80×", `data-value="1.8"`) ||
		!element(html, `data-speedup-kind="measured"`, "measured: time per output token without drafts (baseline window) 18.0 ms / with drafts 10.0 ms") {
		t.Errorf("measured card:\n%s", html)
	}
}

// TestNativeLatencyPanel: ITL from a native histogram (schema 0: (1/128,
// 1/64] 2, (1/64, 1/32] 4, (1/32, 1/16] 2 observations, sum 0.2 s) shows
// like a classic one, says "native histogram", p50 = 1/64 + 1/64 x 2/4 s
// and mean 25 ms; a native histogram without observations shows dashes
// with the reason, never NaN or Inf.
func TestNativeLatencyPanel(t *testing.T) {
	n := compute.NativeHistogram{Schema: 0, Count: 8, Sum: 0.2, Positive: []compute.NativeIndexBucket{{Index: -6, Count: 2}, {Index: -5, Count: 4}, {Index: -4, Count: 2}}}
	h := compute.Histogram{Native: &n, Count: n.Count, Sum: n.Sum}
	m := model.FromSeries(nil, model.Request{Grid: compute.Grid{Start: 0, End: 600000, Step: 15000}})
	m.Latency = &model.Latency{ITLMetric: "vllm:inter_token_latency_seconds", ITLNative: true, ITL: h.Summarize(), Histogram: h}
	html := renderHTML(t, (&Dashboard{res: &view.Result{Model: *m}}).renderLatency(noChart))
	if !element(html, `data-latency="itl-p50"`, "23.4 ms", `data-value="0.0234375"`) || !element(html, `data-latency="itl-mean"`, "25.0 ms", `data-value="0.025"`) ||
		!strings.Contains(html, "vllm:inter_token_latency_seconds (native histogram), 8 steps in the window") {
		t.Errorf("native panel:\n%s", html)
	}
	empty := compute.NativeHistogram{Schema: 0}
	h = compute.Histogram{Native: &empty}
	m.Latency = &model.Latency{ITLMetric: "vllm:inter_token_latency_seconds", ITLNative: true, ITL: h.Summarize(), Histogram: h,
		Reasons: map[string]string{"itl": "no inter-token latency observations in the window"}}
	html = renderHTML(t, (&Dashboard{res: &view.Result{Model: *m}}).renderLatency(noChart))
	if !strings.Contains(html, `data-reason="no inter-token latency observations in the window"`) || strings.Contains(html, "NaN") || strings.Contains(html, "Inf") {
		t.Errorf("empty native panel:\n%s", html)
	}
}
