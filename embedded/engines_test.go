package embedded

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestScrapeEngineFormats: the embedded engine scrapes the simulator in
// every engine's exposition (vLLM's prometheus_client text, vLLM's Rust
// front end's OpenMetrics with "# EOF" and no _created, llama.cpp's
// hand-written text, TensorRT-LLM at /prometheus/metrics, LMDeploy,
// SGLang), one target each; every format's counters arrive with the
// simulator's true values, and metricsclient.Detect names each engine's
// schema when filtered to its target.
func TestScrapeEngineFormats(t *testing.T) {
	type target struct {
		format   simulate.Format
		sim      *simulate.Simulator
		instance string
	}
	var targets []target
	var urls []string
	for i, f := range simulate.Formats {
		sim, err := simulate.New(simulate.Config{
			Models: []string{"m-" + string(f)}, Engines: 2, K: 3, Acceptance: []float64{0.8, 0.6, 0.5},
			DraftsPerSecond: 20, Seed: int64(i + 1), Start: time.Now(), Format: f,
			Latency: f == simulate.FormatVLLM,
		})
		if err != nil {
			t.Fatal(err)
		}
		sim.Step(10 * time.Second) // 200 drafts per series, then still
		sim.Pause()
		hs := httptest.NewServer(sim)
		t.Cleanup(hs.Close)
		targets = append(targets, target{f, sim, strings.TrimPrefix(hs.URL, "http://")})
		urls = append(urls, hs.URL+f.MetricsPath())
	}
	e := start(t, Config{Targets: urls, ScrapeInterval: time.Second})
	c := client(t, e.URL, time.Second)

	for _, tg := range targets {
		t.Run(string(tg.format), func(t *testing.T) {
			var drafts, draftTokens, accepted, pos0 int64
			for _, s := range tg.sim.Truth().Series {
				drafts += s.Total.Drafts
				draftTokens += s.Total.DraftTokens
				accepted += s.Total.AcceptedTokens
				pos0 += s.Total.AcceptedPerPosition[0]
			}
			if drafts != 400 || accepted == 0 {
				t.Fatalf("truth: %d drafts, %d accepted", drafts, accepted)
			}
			in := fmt.Sprintf(`instance=%q`, tg.instance)
			checks := map[string]int64{}
			schema := ""
			switch tg.format {
			case simulate.FormatVLLM, simulate.FormatVLLMRust, simulate.FormatLMDeploy, simulate.FormatLlamaCpp:
				p := map[simulate.Format]string{simulate.FormatVLLM: "vllm:", simulate.FormatVLLMRust: "vllm:", simulate.FormatLMDeploy: "lmdeploy:", simulate.FormatLlamaCpp: "llamacpp:"}[tg.format]
				checks[p+"spec_decode_num_drafts_total"] = drafts
				checks[p+"spec_decode_num_draft_tokens_total"] = draftTokens
				checks[p+"spec_decode_num_accepted_tokens_total"] = accepted
				checks[p+`spec_decode_num_accepted_tokens_per_pos_total{position="0",`] = pos0
				schema = map[simulate.Format]string{simulate.FormatVLLM: "vllm-v1", simulate.FormatVLLMRust: "vllm-v1", simulate.FormatLMDeploy: "lmdeploy", simulate.FormatLlamaCpp: "llamacpp"}[tg.format]
			case simulate.FormatTRTLLM:
				checks["trtllm_spec_decode_num_draft_tokens_total"] = draftTokens
				checks["trtllm_spec_decode_num_accepted_tokens_total"] = accepted
				checks[`trtllm_spec_decode_drafted_tokens_total{token_position="0",`] = drafts
				checks[`trtllm_spec_decode_accepted_tokens_total{token_position="0",`] = pos0
				schema = "trtllm"
			case simulate.FormatSGLang:
				checks["sglang:spec_verify_calls_total"] = drafts
				schema = "sglang"
			}
			for sel, want := range checks {
				q := "sum(" + sel + in + "})"
				if !strings.Contains(sel, "{") {
					q = "sum(" + sel + "{" + in + "})"
				}
				waitFor(t, e.API, q, equals(float64(want)), 60*time.Second)
			}
			// vLLM's Rust front end, llama.cpp and LMDeploy (which disables
			// them) write no _created; the other prometheus_client formats do.
			created := waitFor(t, e.API, `count({__name__=~".+_created",`+in+`}) or vector(0)`, nonEmpty, 10*time.Second)
			hasCreated := float64(created[0].Value) > 0
			if wantCreated := tg.format == simulate.FormatVLLM || tg.format == simulate.FormatTRTLLM || tg.format == simulate.FormatSGLang; hasCreated != wantCreated {
				t.Errorf("_created series: %v, want %v", created, wantCreated)
			}
			if tg.format == simulate.FormatVLLMRust {
				// The Rust crate's TYPE lines use the base name; the scraped
				// counters keep _total and no series without it exists.
				v := waitFor(t, e.API, `count({__name__="vllm:spec_decode_num_drafts",`+in+`}) or vector(0)`, nonEmpty, 10*time.Second)
				if v[0].Value != 0 {
					t.Errorf("series without _total: %v", v)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if tg.format == simulate.FormatVLLM {
				checkLatency(ctx, t, e, c, tg.sim, tg.instance)
			}
			det, err := c.Detect(ctx, []metricsclient.Filter{{Name: "instance", Values: []string{tg.instance}}}, time.Now().Add(-5*time.Minute), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if det.Schema.ID != schema || len(det.Others) != 0 {
				t.Errorf("detected %s, others %v; want %s", det.Schema.ID, det.OtherNames(), schema)
			}
		})
	}
	up := waitFor(t, e.API, `sum(up)`, nonEmpty, 10*time.Second)
	if up[0].Value != model.SampleValue(len(targets)) {
		t.Errorf("up = %v, want %d targets up", up, len(targets))
	}
}

// checkLatency: the simulator's inter-token latency histogram, scraped by
// the engine and read with metricsclient.FetchOptional, gives the
// quantiles and mean of the histogram the true counts imply.
func checkLatency(ctx context.Context, t *testing.T, e *running, c *metricsclient.Client, sim *simulate.Simulator, instance string) {
	t.Helper()
	var want compute.Histogram
	for _, s := range sim.Truth().Series {
		cum, sum := s.Total.InterTokenLatency()
		h := compute.Histogram{Sum: sum, Count: float64(cum[len(cum)-1])}
		for i, n := range cum {
			ub := math.Inf(1)
			if i < len(simulate.InterTokenLatencyBoundsMs) {
				ub = float64(simulate.InterTokenLatencyBoundsMs[i]) / 1000
			}
			h.Buckets = append(h.Buckets, compute.HistogramBucket{UpperBound: ub, Count: float64(n)})
		}
		want = want.Add(h)
	}
	waitFor(t, e.API, fmt.Sprintf(`sum(vllm:inter_token_latency_seconds_count{instance=%q})`, instance), equals(want.Count), 60*time.Second)
	now := time.Now().UnixMilli() / 1000 * 1000
	g := compute.Grid{Start: now - 300_000, End: now + 1000, Step: 1000}
	of, err := c.FetchOptional(ctx, metricsclient.VLLMV1, g, []metricsclient.Filter{{Name: "instance", Values: []string{instance}}}, metricsclient.InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	fam := of.Families[metricsclient.InterTokenLatency]
	if fam.Name != "vllm:inter_token_latency_seconds" || len(fam.Histograms) != 2 {
		t.Fatalf("inter-token latency: %+v", fam)
	}
	// The series started inside the window with their _created time: every
	// observation counts (IncreaseSince's rule).
	got := compute.SumOverBuckets(compute.HistogramIncreases(fam.Histograms, g))
	if got.Count != want.Count || math.Abs(got.Sum-want.Sum) > 1e-9 {
		t.Errorf("scraped histogram count %v sum %v, want %v %v", got.Count, got.Sum, want.Count, want.Sum)
	}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		if a, b := got.Quantile(q), want.Quantile(q); !a.OK || !b.OK || math.Abs(a.V-b.V) > 1e-12 {
			t.Errorf("q%v: scraped %v, truth %v", q, a, b)
		}
	}
}
