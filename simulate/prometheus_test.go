package simulate

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/internal/promtest"
)

// serve runs s on a free loopback port until the test ends.
func serve(t *testing.T, s *Simulator) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return l.Addr().String()
}

func promString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestScrapedByPrometheus: a real Prometheus scrapes the simulator and
// stores exactly the true counts, for awkward model names, several engines,
// different k, and after a counter reset.
func TestScrapedByPrometheus(t *testing.T) {
	models := []string{`Llama 3 "chat" 8B`, "org/model-b", `back\slash`}
	s := mustNew(t, Config{
		Models: models, Engines: 2, K: 4, Acceptance: []float64{0.8, 0.7, 0.6, 0.5},
		PerModel:        map[string]ModelOptions{"org/model-b": {K: 3, Acceptance: []float64{0.6}}},
		DraftsPerSecond: 500, Seed: 11,
	})
	s.Step(1234 * time.Second) // 617,000 drafts per series: token counts > 1e6, in exponent form
	if err := s.ResetCounters(`back\slash`, "1"); err != nil {
		t.Fatal(err)
	}
	s.Step(3 * time.Second)
	s.Pause() // fixed counts from here on
	addr := serve(t, s)
	prom := promtest.Start(t, promtest.Options{Targets: []string{addr}, ScrapeInterval: 200 * time.Millisecond})

	tr := s.Truth()
	last := tr.Series[len(tr.Series)-1]
	// Wait until Prometheus holds a scrape of the final state.
	prom.WaitFor(t, fmt.Sprintf(`vllm:spec_decode_num_drafts_total{model_name=%s,engine=%q} == %d`,
		promString(last.Model), last.Engine, last.Exposed.Drafts), nil, 60*time.Second)

	now := time.Now()
	for _, ts := range tr.Series {
		sel := fmt.Sprintf(`{model_name=%s,engine=%q,job="vllm"}`, promString(ts.Model), ts.Engine)
		c := ts.Exposed
		checks := map[string]float64{
			"vllm:spec_decode_num_drafts_total" + sel:          float64(c.Drafts),
			"vllm:spec_decode_num_draft_tokens_total" + sel:    float64(c.DraftTokens),
			"vllm:spec_decode_num_accepted_tokens_total" + sel: float64(c.AcceptedTokens),
			"vllm:generation_tokens_total" + sel:               float64(c.GenerationTokens),
			"vllm:spec_decode_num_drafts_created" + sel:        float64(ts.Created.UnixNano()) / 1e9,
			"vllm:num_requests_running" + sel:                  0,
		}
		for i, v := range c.AcceptedPerPosition {
			checks[fmt.Sprintf(`vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=%s,engine=%q,position="%d"}`,
				promString(ts.Model), ts.Engine, i)] = float64(v)
		}
		checks[fmt.Sprintf(`count(vllm:spec_decode_num_accepted_tokens_per_pos_total%s)`, sel)] = float64(ts.K)
		for q, want := range checks {
			vec := prom.QueryVector(t, q, now)
			if len(vec) != 1 {
				t.Errorf("%s: %d samples, want 1: %v", q, len(vec), vec)
				continue
			}
			got := float64(vec[0].Value)
			if strings.Contains(q, "_created") {
				if d := got - want; d > 1e-3 || d < -1e-3 {
					t.Errorf("%s = %v, want %v", q, got, want)
				}
			} else if got != want {
				t.Errorf("%s = %v, want %v", q, got, want)
			}
		}
	}
	// The reset series shows its restart in the exposed values only.
	for _, ts := range tr.Series {
		if ts.Model == `back\slash` && ts.Engine == "1" {
			if ts.Exposed.Drafts != 1500 || ts.Total.Drafts != 618500 || ts.Resets != 1 {
				t.Errorf("reset series truth: exposed %d, total %d, resets %d", ts.Exposed.Drafts, ts.Total.Drafts, ts.Resets)
			}
		}
	}
	vec := prom.QueryVector(t, `count(vllm:spec_decode_num_drafts_total)`, now)
	if len(vec) != 1 || vec[0].Value != model.SampleValue(6) {
		t.Errorf("drafts series: %v, want 6", vec)
	}
}
