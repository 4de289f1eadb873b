package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"specdash/compute"
	"specdash/model"
)

func latencyModel() *model.Model {
	g := compute.Grid{Start: 0, End: 600000, Step: 15000}
	c := compute.Counts{Drafts: 160, DraftTokens: 480, AcceptedTokens: 240, AcceptedPerPosition: []float64{120, 80, 40}}
	m := model.FromSeries(nil, model.Request{Grid: g})
	m.Total.Total = c
	m.Stats = compute.Derive(c, 600, compute.WithBonus)
	h := compute.Histogram{Buckets: []compute.HistogramBucket{{UpperBound: 0.025, Count: 480}, {UpperBound: 0.05, Count: 900}, {UpperBound: math.Inf(1), Count: 960}}, Sum: 30, Count: 960}
	m.Latency = &model.Latency{
		ITLMetric: "vllm:inter_token_latency_seconds", ITL: h.Summarize(), Histogram: h,
		GenerationMetric: "vllm:generation_tokens_total", GenerationTokens: 400,
		OutputPerSecond: compute.Defined(400.0 / 600), OutputShare: compute.Defined(0.6),
		LoadMetric: "vllm:num_requests_running", LoadCost: 0.05,
		Load: compute.BinByLoad([]compute.GaugeAverage{{Value: compute.Defined(2)}}, []compute.Counts{c}, []compute.Histogram{h}, 0.05),
	}
	return m
}

// TestLatencyReport: the text report prints ITL p50/p95/p99 and mean in
// ms with the per-step caveat, output tokens/s and share, the estimated
// speedup labelled with its draft cost and the load bin; JSON carries the
// same numbers in seconds and ratios; a source without the families
// prints dashes with reasons and the missing metrics, and no NaN.
func TestLatencyReport(t *testing.T) {
	r := FromModel(latencyModel(), nil)
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{
		"inter-token latency (vllm:inter_token_latency_seconds, classic histogram, per engine step): p50 25.0 ms, p95 50.0 ms, p99 50.0 ms, mean 31.2 ms over 960 steps\n",
		"  note: " + model.ITLCaveat + "\n",
		"output: 0.67 tokens/s, 60.0 % from accepted drafts (240 of 400 output tokens)\n",
		"speedup: 2.17× estimated (Leviathan formula, draft cost c = 0.05)\n",
		"estimated speedup (c = 0.05):\n  2 running: 50.0 %, 31.2 ms, 2.17× (1 bucket)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Latency struct {
			ITL         struct{ P50, P95, P99, Mean *float64 } `json:"itl_seconds"`
			OutputShare *float64                               `json:"output_share"`
			PerSecond   *float64                               `json:"output_tokens_per_second"`
			Speedup     struct {
				Value    *float64
				Measured bool
				Label    string
			}
			Load []struct {
				From *float64 `json:"load_from"`
				Rate *float64 `json:"acceptance_rate"`
				ITL  *float64 `json:"mean_itl_seconds"`
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	l := js.Latency
	if l.ITL.P50 == nil || *l.ITL.P50 != 0.025 || *l.ITL.P95 != 0.05 || *l.ITL.Mean != 30.0/960 || *l.OutputShare != 0.6 || *l.PerSecond != 400.0/600 {
		t.Errorf("json latency %+v", l)
	}
	if l.Speedup.Value == nil || l.Speedup.Measured || !strings.HasPrefix(l.Speedup.Label, "estimated") || len(l.Load) != 1 || *l.Load[0].From != 2 || *l.Load[0].Rate != 0.5 {
		t.Errorf("json speedup/load %+v", l)
	}

	// Two buckets at the same load: one bin of both, "2 buckets".
	m := latencyModel()
	c, h := m.Total.Total, m.Latency.Histogram
	two := compute.GaugeAverage{Value: compute.Defined(2)}
	m.Latency.Load = compute.BinByLoad([]compute.GaugeAverage{two, two}, []compute.Counts{c, c}, []compute.Histogram{h, h}, 0.05)
	b.Reset()
	if err := FromModel(m, nil).WriteText(&b); err != nil || !strings.Contains(b.String(), "\n  2 running: 50.0 %, 31.2 ms, 2.17× (2 buckets)\n") {
		t.Errorf("two buckets (%v):\n%s", err, b.String())
	}

	// Output tokens only.
	m = latencyModel()
	m.Latency = &model.Latency{Missing: []string{"inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds)"},
		GenerationMetric: "vllm:generation_tokens_total",
		Reasons:          map[string]string{"itl": "no inter-token latency histogram", "output_share": "no output tokens in the window", "output_per_second": "no output tokens in the window"}}
	r = FromModel(m, nil)
	b.Reset()
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text = b.String()
	for _, want := range []string{
		"inter-token latency: – (no inter-token latency histogram)\n",
		"output: – (no output tokens in the window), – (no output tokens in the window) from accepted drafts\n",
		"missing: inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "NaN") || strings.Contains(text, "Inf") {
		t.Errorf("NaN/Inf in:\n%s", text)
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil || strings.Contains(b.String(), "NaN") || !strings.Contains(b.String(), `"p50": null`) {
		t.Errorf("json %v %s", err, b.String())
	}

	// None found: the text is the counters' report, the JSON names them.
	m.Latency = &model.Latency{Missing: []string{"inter-token latency: x not found"}}
	r = FromModel(m, nil)
	b.Reset()
	if err := r.WriteText(&b); err != nil || strings.Contains(b.String(), "latency") || strings.Contains(b.String(), "output:") {
		t.Errorf("text %v:\n%s", err, b.String())
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"missing": [`) {
		t.Errorf("json %v %s", err, b.String())
	}
}

// TestNativeLatencyReport: ITL read from a native histogram (schema 0:
// (1/128, 1/64] 2, (1/64, 1/32] 4, (1/32, 1/16] 2 observations, sum 0.2 s)
// is printed like a classic one and says so: p50 = 1/64 + 1/64 x 2/4 =
// 23.4 ms, p95 = 1/32 + 1/32 x 1.6/2 = 56.25 ms, mean 0.2 / 8 = 25 ms;
// JSON "itl_histogram": "native" (a classic one's says "classic"). No
// bucket at all: dashes, no NaN.
func TestNativeLatencyReport(t *testing.T) {
	n := compute.NativeHistogram{Schema: 0, Count: 8, Sum: 0.2, Positive: []compute.NativeIndexBucket{{Index: -6, Count: 2}, {Index: -5, Count: 4}, {Index: -4, Count: 2}}}
	h := compute.Histogram{Native: &n, Count: n.Count, Sum: n.Sum}
	m := latencyModel()
	var b bytes.Buffer
	if err := FromModel(m, nil).WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"itl_histogram": "classic"`) {
		t.Errorf("classic kind not in JSON (%v):\n%s", err, b.String())
	}
	b.Reset()
	m.Latency.Histogram, m.Latency.ITL, m.Latency.ITLNative = h, h.Summarize(), true
	if err := FromModel(m, nil).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "inter-token latency (vllm:inter_token_latency_seconds, native histogram, per engine step): p50 23.4 ms, p95 56."
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "mean 25.0 ms over 8 steps\n") {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := FromModel(m, nil).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Latency struct {
			Kind string                                 `json:"itl_histogram"`
			ITL  struct{ P50, P95, P99, Mean *float64 } `json:"itl_seconds"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	l := js.Latency
	near := func(v *float64, want float64) bool { return v != nil && math.Abs(*v-want) <= 1e-12 }
	if l.Kind != "native" || !near(l.ITL.P50, 0.0234375) || !near(l.ITL.P95, 0.05625) || !near(l.ITL.Mean, 0.025) {
		t.Errorf("json %s", b.String())
	}

	empty := compute.NativeHistogram{Schema: 0, Count: 3, Sum: math.NaN()}
	h = compute.Histogram{Native: &empty, Count: 3, Sum: math.NaN()}
	m.Latency.Histogram, m.Latency.ITL = h, h.Summarize()
	m.Latency.Reasons = map[string]string{"itl": "no inter-token latency observations in the window"}
	b.Reset()
	if err := FromModel(m, nil).WriteText(&b); err != nil || strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") || !strings.Contains(b.String(), "inter-token latency: –") {
		t.Errorf("text %v:\n%s", err, b.String())
	}
	b.Reset()
	if err := FromModel(m, nil).WriteJSON(&b); err != nil || strings.Contains(b.String(), "NaN") {
		t.Errorf("json %v %s", err, b.String())
	}
}
