package logparse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"specdash/simulate"
)

// simulatedScrape is a simulator speaking format f after 4 s of drafts
// (one model, k = 2), and its /metrics text.
func simulatedScrape(t *testing.T, f simulate.Format) (*simulate.Simulator, string) {
	t.Helper()
	s, err := simulate.New(simulate.Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.7}, DraftsPerSecond: 5, Seed: 1, Start: time.Unix(1700000000, 0), Format: f})
	if err != nil {
		t.Fatal(err)
	}
	s.Step(4 * time.Second)
	var b bytes.Buffer
	if err := s.WriteMetrics(&b); err != nil {
		t.Fatal(err)
	}
	return s, b.String()
}

// TestScrapeEngineFormats: raw scrapes in the formats of the engines with
// vLLM's four counters (vLLM's Python and Rust front ends, llama.cpp,
// LMDeploy) give the simulator's true counts.
func TestScrapeEngineFormats(t *testing.T) {
	for _, f := range []simulate.Format{simulate.FormatVLLM, simulate.FormatVLLMRust, simulate.FormatLlamaCpp, simulate.FormatLMDeploy} {
		s, text := simulatedScrape(t, f)
		sc := ParseScrape(text)
		c := s.Truth().Series[0].Exposed
		if len(sc.Groups) != 1 || len(sc.Problems) != 0 || sc.Total.Drafts != float64(c.Drafts) || c.Drafts == 0 ||
			sc.Total.DraftTokens != float64(c.DraftTokens) || sc.Total.AcceptedTokens != float64(c.AcceptedTokens) ||
			fmt.Sprint(sc.Total.AcceptedPerPosition) != fmt.Sprint(c.AcceptedPerPosition) {
			t.Errorf("%s: groups %d, total %+v, problems %v; want %+v", f, len(sc.Groups), sc.Total, sc.Problems, c)
		}
	}
}

// TestScrapeOtherEngines: a raw scrape of TensorRT-LLM or SGLang, whose
// speculative-decoding metrics --from-log does not read, is not called
// "is speculative decoding on?": the problem names the metrics found and
// what reads them.
func TestScrapeOtherEngines(t *testing.T) {
	for f, metric := range map[simulate.Format]string{simulate.FormatTRTLLM: "trtllm_spec_decode_", simulate.FormatSGLang: "sglang:spec_"} {
		_, text := simulatedScrape(t, f)
		sc := ParseScrape(text)
		if len(sc.Groups) != 0 || len(sc.Problems) != 1 {
			t.Fatalf("%s: groups %d, problems %v", f, len(sc.Groups), sc.Problems)
		}
		r := sc.Problems[0].Reason
		if !strings.Contains(r, "another engine's speculative-decoding metrics ("+metric) || !strings.Contains(r, "specdash serve --scrape.target=URL") || strings.Contains(r, "is speculative decoding on") {
			t.Errorf("%s: %q", f, r)
		}
	}
}
