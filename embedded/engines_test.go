package embedded

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

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
