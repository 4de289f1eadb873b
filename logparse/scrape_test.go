package logparse

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"specdash/compute"
)

func TestParseScrape(t *testing.T) {
	text := readTestdata(t, "scrape.txt")
	if !LooksLikeScrape(text) || LooksLikeScrape(readTestdata(t, "seed_000.log")) {
		t.Error("LooksLikeScrape")
	}
	sc := ParseScrape(text)
	if len(sc.Problems) != 0 || len(sc.Groups) != 3 {
		t.Fatalf("groups %+v problems %+v", sc.Groups, sc.Problems)
	}
	model := `meta-llama/Llama-3.1-8B "Instruct"`
	// Engine 0 is PR 16665's worked example; the _created samples
	// (1.7328900005e+09) are not added.
	g := sc.Groups[1]
	if g.Prefix != "vllm:" || g.Model != model || g.Engine != "0" || g.Series != 6 || len(g.Notes) != 0 {
		t.Errorf("engine 0: %+v", g)
	}
	if c := g.Counts; c.Drafts != 5 || c.DraftTokens != 15 || c.AcceptedTokens != 9 || !slices.Equal(c.AcceptedPerPosition, []float64{5, 3, 1}) {
		t.Errorf("engine 0 counts %+v", c)
	}
	// Engine 1: exponent notation and timestamps.
	if c := sc.Groups[2].Counts; sc.Groups[2].Engine != "1" || c.Drafts != 2163932 || c.DraftTokens != 6491796 || c.AcceptedTokens != 4e6 || !slices.Equal(c.AcceptedPerPosition, []float64{2e6, 1.3e6, 7e5}) {
		t.Errorf("engine 1 %+v", sc.Groups[2])
	}
	if s := compute.Derive(sc.Groups[2].Counts, 0, compute.WithBonus); s.Violations != nil {
		t.Errorf("engine 1 violations %q", s.Violations)
	}
	// Ray Serve prefix, summed over replicas, with notes for what is absent.
	r := sc.Groups[0]
	if r.Prefix != "ray_vllm:" || r.Model != "m" || r.Counts.Drafts != 30 || r.Series != 2 || len(r.Notes) != 3 {
		t.Errorf("ray group %+v", r)
	}
	// Total: drafts 5 + 2163932 + 30.
	if sc.Total.Drafts != 2163967 || sc.Total.AcceptedPerPosition[0] != 2000005 {
		t.Errorf("total %+v", sc.Total)
	}
}

func TestParseScrapeProblems(t *testing.T) {
	// Not the text format: the parser's error, with its line.
	sc := ParseScrape("vllm:spec_decode_num_drafts_total{engine=\"0\"} 5\nvllm:spec_decode_num_drafts_total{engine=\"0\" 6\n")
	if len(sc.Problems) == 0 || sc.Problems[0].Line != 2 || !strings.Contains(sc.Problems[0].Reason, "not valid Prometheus text format") {
		t.Errorf("problems %+v", sc.Problems)
	}
	if len(sc.Groups) != 1 || sc.Groups[0].Counts.Drafts != 5 {
		t.Errorf("samples before the error: %+v", sc.Groups)
	}
	// Bad values and positions are skipped and said.
	sc = ParseScrape("vllm:spec_decode_num_drafts_total NaN\nvllm:spec_decode_num_draft_tokens_total -3\nvllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"x\"} 1\nvllm:spec_decode_num_accepted_tokens_per_pos_total 1\nvllm:spec_decode_num_accepted_tokens_total 2\n")
	reasons := ""
	for _, p := range sc.Problems {
		reasons += p.Reason + "\n"
	}
	for _, want := range []string{"vllm:spec_decode_num_drafts_total = NaN", "vllm:spec_decode_num_draft_tokens_total = -3", `position label "x"`, `position label ""`} {
		if !strings.Contains(reasons, want) {
			t.Errorf("problems %q lack %q", reasons, want)
		}
	}
	// V0 scrape: no drafts counter: said in the group's notes.
	sc = ParseScrape("# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{model_name=\"m\"} 8547\n# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{model_name=\"m\"} 13311\n")
	if len(sc.Groups) != 1 || !strings.Contains(strings.Join(sc.Groups[0].Notes, "\n"), "drafts unknown") {
		t.Errorf("V0 %+v", sc)
	}
	// No spec-decode counter at all.
	for _, text := range []string{"", "# TYPE up gauge\nup 1\n", "hello world"} {
		sc = ParseScrape(text)
		if len(sc.Groups) != 0 || len(sc.Problems) == 0 || !strings.Contains(sc.Problems[len(sc.Problems)-1].Reason, "no speculative-decoding counter") {
			t.Errorf("%q: %+v", text, sc)
		}
	}
}

// FuzzParseScrape: `report --from-log` of a raw scrape on hostile input
// never panics; every count it gives is finite and >= 0, the total is the
// sum of the groups (a ratio of sums downstream), no group means a
// Problem that says so, and the answer encodes as JSON.
func FuzzParseScrape(f *testing.F) {
	f.Add(readTestdata(f, "scrape.txt"))
	const drafts = "# TYPE vllm:spec_decode_num_drafts_total counter\n"
	for _, s := range []string{
		// A huge label value.
		drafts + `vllm:spec_decode_num_drafts_total{model_name="` + strings.Repeat("x", 5<<10) + "\"} 5\n",
		drafts + "vllm:spec_decode_num_drafts_total NaN\nvllm:spec_decode_num_drafts_total{engine=\"1\"} +Inf\n",
		drafts + "vllm:spec_decode_num_drafts_total -5\n",
		// Duplicate series, and two whose sum overflows float64.
		drafts + "vllm:spec_decode_num_drafts_total 5\nvllm:spec_decode_num_drafts_total 5\n",
		drafts + "vllm:spec_decode_num_drafts_total{engine=\"0\"} 1.7e308\nvllm:spec_decode_num_drafts_total{engine=\"0\",x=\"1\"} 1.7e308\n",
		// OpenMetrics, which the text parser does not read.
		"# TYPE vllm:spec_decode_num_drafts counter\nvllm:spec_decode_num_drafts_total 5 1700000000.5\n# EOF\n",
		// Without _total (an old prometheus_client).
		"# TYPE vllm:spec_decode_num_drafts counter\nvllm:spec_decode_num_drafts 5\n",
		// Broken UTF-8 in a value and a name.
		"vllm:spec_decode_num_drafts_total{model_name=\"\xff\xfe\"} 1\n\xffvllm:spec_decode_num_drafts_total 2\n",
		"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"99999999999\"} 1\n" +
			"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"-1\"} 1\n" +
			"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"" + strconv.Itoa(compute.MaxPosition) + "\"} 1\n",
		"# TYPE vllm:spec_decode_num_drafts_total histogram\nvllm:spec_decode_num_drafts_total_bucket{le=\"+Inf\"} 1\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc := ParseScrape(s)
		if _, err := json.Marshal(sc); err != nil {
			t.Fatal(err)
		}
		if len(sc.Groups) == 0 && len(sc.Problems) == 0 {
			t.Fatal("no group and no problem")
		}
		sum := compute.Counts{AcceptedPerPosition: []float64{}}
		for _, g := range sc.Groups {
			checkCounts(t, g.Counts)
			if len(g.Counts.AcceptedPerPosition) > compute.MaxPosition+1 {
				t.Fatalf("%d positions", len(g.Counts.AcceptedPerPosition))
			}
			sum = sum.Add(g.Counts)
		}
		checkCounts(t, sc.Total)
		if sum.Drafts != sc.Total.Drafts || sum.DraftTokens != sc.Total.DraftTokens || sum.AcceptedTokens != sc.Total.AcceptedTokens ||
			!slices.Equal(sum.AcceptedPerPosition, sc.Total.AcceptedPerPosition) {
			t.Fatalf("total %+v, groups sum to %+v", sc.Total, sum)
		}
	})
}

func checkCounts(t *testing.T, c compute.Counts) {
	t.Helper()
	for _, v := range append([]float64{c.Drafts, c.DraftTokens, c.AcceptedTokens}, c.AcceptedPerPosition...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("count %v in %+v", v, c)
		}
	}
}
