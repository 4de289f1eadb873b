package simulate

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestInterTokenLatencyCounts(t *testing.T) {
	// k = 2, 10 drafts: 4 accepted none (20 ms), 3 exactly one (30 ms), 3
	// both (40 ms).
	cum, sum := Counts{Drafts: 10, DraftTokens: 20, AcceptedTokens: 9, AcceptedPerPosition: []int64{6, 3}}.InterTokenLatency()
	if fmt.Sprint(cum) != "[0 4 10 10 10 10 10 10 10 10 10 10 10 10]" || sum != 0.29 {
		t.Errorf("histogram %v, sum %v", cum, sum)
	}
	if cum, sum := (Counts{AcceptedPerPosition: []int64{0, 0}}).InterTokenLatency(); cum[len(cum)-1] != 0 || sum != 0 {
		t.Errorf("no drafts: %v %v", cum, sum)
	}
}

// TestLatencyExposition: with Config.Latency the vLLM format carries the
// inter-token latency histogram in prometheus_client's layout, parsed by
// Prometheus' text parser into the counts' histogram; without it the bytes
// are unchanged.
func TestLatencyExposition(t *testing.T) {
	cfg := Config{Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 10, Seed: 5, Start: time.Unix(1700000000, 0)}
	plain, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Latency = true
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain.Step(3 * time.Second)
	s.Step(3 * time.Second)
	text := string(s.exposition())
	base := string(plain.exposition())
	if !strings.HasPrefix(text, base) || strings.Contains(base, "inter_token_latency") {
		t.Fatal("the latency families must only be appended")
	}
	if !strings.Contains(text, "\nvllm:inter_token_latency_seconds_bucket{engine=\"0\",model_name=\"m\",le=\"0.025\"} ") ||
		!strings.Contains(text, "\n# TYPE vllm:inter_token_latency_seconds_created gauge\n") {
		t.Errorf("not prometheus_client's histogram layout:\n%s", text[len(base):])
	}
	vals, types := parseExposition(t, []byte(text), ContentType)
	if types["vllm:inter_token_latency_seconds"] != "histogram" {
		t.Errorf("types %v", types)
	}
	for _, x := range s.Truth().Series {
		cum, sum := x.Exposed.InterTokenLatency()
		if cum[len(cum)-1] != x.Exposed.Drafts || x.Exposed.Drafts == 0 {
			t.Fatalf("engine %s: %d observations for %d drafts", x.Engine, cum[len(cum)-1], x.Exposed.Drafts)
		}
		got := func(suffix, le string) float64 {
			for k, v := range vals {
				if strings.Contains(k, "inter_token_latency_seconds"+suffix+"\"") && strings.Contains(k, `engine="`+x.Engine+`"`) && (le == "" || strings.Contains(k, `le="`+le+`"`)) {
					return v
				}
			}
			return -1
		}
		if got("_bucket", "0.05") != float64(cum[2]) || got("_bucket", "+Inf") != float64(x.Exposed.Drafts) ||
			got("_count", "") != float64(x.Exposed.Drafts) || got("_sum", "") != sum {
			t.Errorf("engine %s: parsed %v / %v / %v / %v, want %d / %d / %d / %v", x.Engine,
				got("_bucket", "0.05"), got("_bucket", "+Inf"), got("_count", ""), got("_sum", ""), cum[2], x.Exposed.Drafts, x.Exposed.Drafts, sum)
		}
	}
}
