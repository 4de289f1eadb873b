package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"specdash/compute"
)

// The worked example of vLLM PR 16665's review thread (docs/METRICS.md,
// "Formulas"): 5 drafts, k = 3, 9 of 15 draft tokens accepted, per position
// [5, 3, 1].
var seedCounts = compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// wilson95 is the Wilson interval written out (E. B. Wilson 1927):
// center = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) sqrt(p(1-p)/n + z²/4n²).
func wilson95(x, n float64) (lo, hi float64) {
	z := 1.959963984540054
	p := x / n
	den := 1 + z*z/n
	center := (p + z*z/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return math.Max(0, center-half), math.Min(1, center+half)
}

func TestComputeInsightsSeed(t *testing.T) {
	in := ComputeInsights(seedCounts, 0.05)
	if in.Reasons != nil || in.DraftCostRatio != 0.05 {
		t.Fatalf("reasons %v cost %v", in.Reasons, in.DraftCostRatio)
	}
	// Speedup: L = 1 + 9/5 = 2.8 tokens per target pass; 1 + c k = 1 +
	// 0.05·3 = 1.15; 2.8 / 1.15 = 2.434783.
	if s := in.Speedup; s.K != 3 || !closeTo(s.TokensPerTargetPass.V, 2.8) || !closeTo(s.Speedup.V, 2.8/1.15) {
		t.Errorf("speedup %+v, want 2.8/1.15", s)
	}
	// Fit: reached n = [5, 5, 3] (drafts, then accepted at the previous
	// position), accepted x = [5, 3, 1]; alpha = 9/13.
	// chi² = Σ (x - nα)² / (nα(1-α)), α(1-α) = 36/169:
	//   pos 1: (5 - 45/13)² / (5·36/169) = (400/169) / (180/169) = 20/9,
	//   pos 2: (3 - 45/13)² / (180/169) = 36/180 = 1/5,
	//   pos 3: (1 - 27/13)² / (3·36/169) = 196/108 = 49/27;
	// sum = (300 + 27 + 245) / 135 = 572/135 on 2 df; p = exp(-chi²/2).
	f := in.Fit
	if !closeTo(f.Alpha.V, 9.0/13) || !closeTo(f.ChiSquare.V, 572.0/135) || f.DegreesOfFreedom != 2 || math.Abs(f.PValue.V-math.Exp(-286.0/135)) > 1e-9 {
		t.Errorf("fit alpha %v chi² %v df %d p %v, want 9/13, 572/135, 2, %v", f.Alpha, f.ChiSquare, f.DegreesOfFreedom, f.PValue, math.Exp(-286.0/135))
	}
	// Best k: observed rates [1, 0.6, 0.2]; beyond k = 3 rate[i] =
	// 0.2·(9/13)^(i-2). Speedups L(K) / (1 + 0.05 K):
	//   K=3: 2.8 / 1.15 = 2.434783,
	//   K=4: (2.8 + 1.8/13 = 2.938462) / 1.2 = 2.448718 (extrapolated),
	//   K=5: (2.938462 + 16.2/169 = 3.034320) / 1.25 = 2.427456.
	b := in.BestK
	if b.CurrentK != 3 || b.BestK != 4 || !b.BestExtrapolated || !closeTo(b.Best.V, (2.8+1.8/13)/1.2) || !closeTo(b.Current.V, 2.8/1.15) {
		t.Errorf("best k %+v, want 4 (extrapolated, %v) vs 3 (%v)", b, (2.8+1.8/13)/1.2, 2.8/1.15)
	}
	if !closeTo(b.Points[5].Speedup.V, (2.8+1.8/13+16.2/169)/1.25) {
		t.Errorf("K=5 speedup %v", b.Points[5].Speedup)
	}
	// Intervals: acceptance 9 of 15 tokens; p = 0.6, z = 1.96:
	// center = (0.6 + 3.8415/30) / (1 + 3.8415/15) = 0.57961,
	// half = 1.95996/1.25610 · sqrt(0.24/15 + 3.8415/900) = 0.22215
	// -> [0.35746, 0.80176].
	lo, hi := wilson95(9, 15)
	ar := in.Intervals.AcceptanceRate
	if !closeTo(ar.Lower.V, lo) || !closeTo(ar.Upper.V, hi) || math.Abs(lo-0.35746) > 5e-5 || math.Abs(hi-0.80176) > 5e-5 {
		t.Errorf("acceptance interval [%v, %v], want [%v, %v]", ar.Lower, ar.Upper, lo, hi)
	}
	// pos 1: 5 of 5 drafts: lower = 1 / (1 + z²/5) = 5 / (5 + z²) = 0.5655, upper 1.
	p1 := in.Intervals.PerPosition[0]
	z2 := 1.959963984540054 * 1.959963984540054
	if len(in.Intervals.PerPosition) != 3 || !closeTo(p1.Lower.V, 5/(5+z2)) || p1.Upper.V != 1 || p1.Trials != 5 {
		t.Errorf("pos 1 interval %+v, want [%v, 1]", p1, 5/(5+z2))
	}
	for i, x := range []float64{5, 3, 1} {
		lo, hi := wilson95(x, 5)
		if iv := in.Intervals.PerPosition[i]; !closeTo(iv.Lower.V, lo) || !closeTo(iv.Upper.V, hi) {
			t.Errorf("pos %d interval %+v, want [%v, %v]", i+1, iv, lo, hi)
		}
	}
}

func TestComputeInsightsUndefined(t *testing.T) {
	in := ComputeInsights(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 0.05)
	if in.Speedup != nil || in.BestK != nil || in.Fit != nil || in.Intervals != nil {
		t.Fatalf("no drafts: %+v", in)
	}
	for _, f := range []string{"speedup", "best_k", "fit", "intervals"} {
		if in.Reasons[f] != compute.Undefined {
			t.Errorf("reason %s = %q, want %q", f, in.Reasons[f], compute.Undefined)
		}
	}
	b, _ := json.Marshal(in)
	for _, want := range []string{`"speedup":null`, `"best_k":null`, `"fit":null`, `"intervals":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	// V0-like counts (no per-position data): speedup with k = draft tokens /
	// drafts = 13311/4437 = 3, L = 1 + 8547/4437, but no fit and no best k.
	in = ComputeInsights(compute.Counts{Drafts: 4437, DraftTokens: 13311, AcceptedTokens: 8547}, 0.05)
	if in.Speedup == nil || !in.Speedup.KFromDraftTokens || !closeTo(in.Speedup.Speedup.V, (1+8547.0/4437)/1.15) || in.Fit != nil || in.BestK != nil || in.Intervals == nil || len(in.Intervals.PerPosition) != 0 {
		t.Errorf("V0 counts: %+v", in)
	}
	if !strings.Contains(in.Reasons["fit"], "no per-position counts") {
		t.Errorf("fit reason %q", in.Reasons["fit"])
	}
}

func TestParseCostRatios(t *testing.T) {
	c, err := ParseCostRatios([]string{"0.1", "m=0", "a=b=0.3"})
	if err != nil || c.Default != 0.1 || c.ByValue["m"] != 0 || c.ByValue["a=b"] != 0.3 || len(c.ByValue) != 2 {
		t.Fatalf("%+v %v", c, err)
	}
	if c.For(map[string]string{"model_name": "m"}) != 0 || c.For(map[string]string{"model_name": "x"}) != 0.1 || c.For(map[string]string{"engine": "a=b"}) != 0.3 {
		t.Error("For")
	}
	if d, _ := ParseCostRatios(nil); d.Default != compute.DefaultDraftCostRatio {
		t.Errorf("default %v", d.Default)
	}
	if (*CostRatios)(nil).For(nil) != compute.DefaultDraftCostRatio {
		t.Error("nil For")
	}
	for _, bad := range []string{"x", "-1", "NaN", "m=Inf", "m="} {
		if _, err := ParseCostRatios([]string{bad}); err == nil || !strings.Contains(err.Error(), "want a number >= 0") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestResultInsights(t *testing.T) {
	r := seedResult(compute.WithBonus)
	costs, _ := ParseCostRatios([]string{"m \"x\"\n=0", "absent=0.2"})
	r.AddInsights(costs)
	// The worked-example group at c = 0: speedup = L = 2.8; the total at
	// the default 0.05: 2.8/1.15; the idle group: undefined.
	if s := r.Groups[1].Insights.Speedup; s == nil || !closeTo(s.Speedup.V, 2.8) {
		t.Errorf("worked-example group speedup %+v, want 2.8 at c = 0", s)
	}
	if r.Groups[0].Insights.Speedup != nil {
		t.Errorf("idle group speedup %+v", r.Groups[0].Insights.Speedup)
	}
	if s := r.TotalInsights.Speedup; s == nil || !closeTo(s.Speedup.V, 2.8/1.15) {
		t.Errorf("total speedup %+v", s)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `"absent" matched no group`) {
		t.Errorf("warnings %q", r.Warnings)
	}

	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Labels  map[string]string `json:"labels"`
			Drafts  float64           `json:"drafts"`
			Speedup *struct {
				Speedup *float64 `json:"speedup"`
			} `json:"speedup"`
			Fit       *json.RawMessage  `json:"fit"`
			Intervals *json.RawMessage  `json:"intervals"`
			Reasons   map[string]string `json:"reasons"`
		} `json:"groups"`
		Total struct {
			K       int `json:"k"`
			Speedup struct {
				Speedup        float64 `json:"speedup"`
				DraftCostRatio float64 `json:"draft_cost_ratio"`
			} `json:"speedup"`
			BestK struct {
				BestK        int  `json:"best_k"`
				CurrentK     int  `json:"current_k"`
				Extrapolated bool `json:"best_extrapolated"`
			} `json:"best_k"`
			Fit struct {
				Alpha float64 `json:"alpha"`
			} `json:"fit"`
			Intervals struct {
				AcceptanceRate struct {
					Lower, Upper float64
				} `json:"acceptance_rate"`
				PerPosition []struct {
					Lower, Upper float64
				} `json:"per_position"`
			} `json:"intervals"`
		} `json:"total"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	g0 := doc.Groups[0]
	if g0.Speedup != nil || g0.Fit != nil || g0.Intervals != nil || g0.Reasons["speedup"] != compute.Undefined {
		t.Errorf("idle group JSON: %s", b.String())
	}
	if g1 := doc.Groups[1]; g1.Speedup == nil || g1.Speedup.Speedup == nil || *g1.Speedup.Speedup != 2.8 {
		t.Errorf("worked-example group JSON speedup: %+v", g1.Speedup)
	}
	tot := doc.Total
	lo, hi := wilson95(9, 15)
	if tot.K != 3 || !closeTo(tot.Speedup.Speedup, 2.8/1.15) || tot.Speedup.DraftCostRatio != 0.05 || tot.BestK.BestK != 4 || tot.BestK.CurrentK != 3 || !tot.BestK.Extrapolated ||
		!closeTo(tot.Fit.Alpha, 9.0/13) || !closeTo(tot.Intervals.AcceptanceRate.Lower, lo) || !closeTo(tot.Intervals.AcceptanceRate.Upper, hi) || len(tot.Intervals.PerPosition) != 3 {
		t.Errorf("total JSON %+v", tot)
	}

	// Text: printed only with TextInsights.
	b.Reset()
	r.WriteText(&b)
	if strings.Contains(b.String(), "speedup") {
		t.Errorf("text without TextInsights:\n%s", b.String())
	}
	b.Reset()
	r.TextInsights = true
	r.WriteText(&b)
	text := b.String()
	for _, want := range []string{
		"\n  speedup: no drafts in window (c = 0.05)\n",
		// 2.8 / (1 + 0 x 3) = 2.80x for the worked-example group at c = 0.
		"\n  speedup: 2.80x = tokens per target pass 2.80 (1 + accepted/drafts) / (1 + c 0 x k 3) (estimate for sequential drafting",
		// Total at c = 0.05: 2.8 / 1.15 = 2.43x; best k 4 = 2.448718 -> 2.45x.
		"\n  speedup: 2.43x = tokens per target pass 2.80 (1 + accepted/drafts) / (1 + c 0.05 x k 3)",
		"\n  best k: 4 (2.45x, extrapolated beyond the observed k = 3 with the fitted decay, +0.6 % over the current k) vs current k = 3 (2.43x)\n",
		// alpha = 9/13 = 0.692; chi² 572/135 = 4.237; p = exp(-2.1185) = 0.120.
		"\n  fit: per-token acceptance alpha = 0.692 (geometric: pos i rate = alpha^i); chi-square 4.237 on 2 df, p = 0.12",
		"\n  95% intervals (Wilson): acceptance rate 60.0 % [35.7 %, 80.2 %] of 15 draft tokens; pos 1 100.0 % [56.6 %, 100.0 %], pos 2 60.0 % [23.1 %, 88.2 %], pos 3 20.0 % [3.6 %, 62.4 %] of 5 drafts\n",
		"warning: draft cost ratio for \"absent\" matched no group",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "NaN") || strings.Contains(text, "Inf") {
		t.Errorf("text shows NaN/Inf:\n%s", text)
	}
}

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../logparse/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func afterMarker(line string) string {
	if i := strings.Index(line, "SpecDecoding metrics:"); i >= 0 {
		return line[i:]
	}
	return line
}

// TestFromLogReproducesVLLM: each PR 16665 line (2025 form, mean length
// without the bonus token) and each current-form reference line, read on
// its own, gives back the numbers vLLM printed.
func TestFromLogReproducesVLLM(t *testing.T) {
	for _, tc := range []struct {
		file string
		conv compute.Convention
		want func(compute.Stats) string
	}{
		{"seed_000.log", compute.WithoutBonus, compute.FormatLegacyLogLine},
		{"reference.log", compute.WithBonus, compute.FormatLogLine},
	} {
		for i, line := range strings.Split(strings.TrimSpace(readLog(t, tc.file)), "\n") {
			if strings.Contains(line, "Speculative metrics:") {
				continue // V0: no per-position data; checked below
			}
			r := ParseInput("x.log", line, tc.conv, nil)
			if r.Input != "log" || r.Entries != 1 || len(r.Groups) != 1 || len(r.Problems) != 0 {
				t.Fatalf("%s line %d: %+v", tc.file, i+1, r)
			}
			if got := tc.want(r.TotalStats()); got != afterMarker(line) {
				t.Errorf("%s line %d:\n got %s\nwant %s", tc.file, i+1, got, afterMarker(line))
			}
			if d := r.TotalInsights().Derived; len(d) == 0 || d[0] != "drafts" {
				t.Errorf("%s line %d: derived %q, want drafts first", tc.file, i+1, d)
			}
			if len(r.Warnings) != 0 {
				t.Errorf("%s line %d: warnings %q", tc.file, i+1, r.Warnings)
			}
		}
	}
	// The whole PR 16665 log: one source, 8 entries; accepted 686 + 2951 +
	// 3345 + 4029 + 3682 + 2969 + 3545 + 754 = 21961 of 2384 + 7264 +
	// 10984 + 13024 + 12084 + 9260 + 12048 + 2574 = 69622 drafted.
	// Its last line has k = 3, the others k = 4: two groups (by k).
	r := ParseInput("seed.log", readLog(t, "seed_000.log"), compute.WithBonus, nil)
	if r.Entries != 8 || len(r.Groups) != 2 || r.Total.AcceptedTokens != 21961 || r.Total.DraftTokens != 69622 || !closeTo(r.Total.AcceptanceRate.V, 21961.0/69622) {
		t.Errorf("PR 16665 log (seed_000.log): %+v", r.Total.Stats)
	}
	// With the bonus convention the report says the lines did not use it.
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[1], "8 lines (first: line 1) printed the mean acceptance length without bonus token: use --convention no-bonus") {
		t.Errorf("warnings %q", r.Warnings)
	}
	// The V0 reference line: accepted 8547 of 13311, k = 3 -> drafts 4437,
	// acceptance 8547/13311 = 0.642, in a group of its own (format V0),
	// with the k its line prints.
	r = ParseInput("ref.log", readLog(t, "reference.log"), compute.WithBonus, nil)
	var v0 *Group
	for i := range r.Groups {
		if r.Groups[i].Labels["format"] == "V0" {
			v0 = &r.Groups[i]
		}
	}
	if len(r.Groups) != 5 || v0 == nil || v0.Drafts != 4437 || v0.AcceptedTokens != 8547 || compute.FormatRatio(v0.AcceptanceRate) != "0.642" || v0.K != 3 || v0.Insights.Fit != nil {
		t.Errorf("reference groups %+v", r.Groups)
	}
}

func TestFromLogProblemsAndScrape(t *testing.T) {
	// Garbage: nothing usable, a problem for the input as a whole.
	r := ParseInput("g.log", "hello\nworld\n", compute.WithBonus, nil)
	var b bytes.Buffer
	r.WriteProblems(&b)
	if r.Usable() || b.String() != "g.log: no vLLM speculative-decoding line (\"SpecDecoding metrics:\" or \"Speculative metrics:\") in 2 lines\n" {
		t.Errorf("garbage: usable %v, problems %q", r.Usable(), b.String())
	}
	// A good line and a truncated one: usable, the bad line listed with
	// its number.
	good := "INFO 04-16 09:49:04 [metrics.py:82] SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens, Per-position acceptance probabilities: 0.576, 0.327, 0.159, 0.089"
	r = ParseInput("t.log", good+"\n"+good[:120]+"\n", compute.WithoutBonus, nil)
	b.Reset()
	r.WriteProblems(&b)
	if !r.Usable() || r.Entries != 1 || !strings.HasPrefix(b.String(), "t.log line 2: ") {
		t.Errorf("truncated: %+v problems %q", r, b.String())
	}
	// The scrape of logparse/testdata: engine 0 holds the worked example:
	// speedup 2.8 / 1.15.
	r = ParseInput("scrape.txt", readLog(t, "scrape.txt"), compute.WithBonus, nil)
	if r.Input != "scrape" || len(r.Groups) != 3 {
		t.Fatalf("scrape: %+v", r)
	}
	g := r.Groups[1]
	if g.Labels["engine"] != "0" || g.Labels["model_name"] != `meta-llama/Llama-3.1-8B "Instruct"` || g.Insights.Speedup == nil || !closeTo(g.Insights.Speedup.Speedup.V, 2.8/1.15) || g.AcceptedThroughput.OK {
		t.Errorf("scrape engine 0: %+v", g)
	}
	if r.Groups[0].Labels["prefix"] != "ray_vllm:" {
		t.Errorf("ray group labels %v", r.Groups[0].Labels)
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc["input"] != "scrape" || doc["total"].(map[string]any)["speedup"] == nil {
		t.Errorf("scrape JSON %v: %s", err, b.String())
	}
}

// TestIntervalsMixedK: a total over series of k = 4 (611 drafts) and k = 3
// (858 drafts) has 1469 drafts at positions 1-3 but 611 at position 4; the
// text names each position's own denominator instead of "of 1469 drafts".
func TestIntervalsMixedK(t *testing.T) {
	a := compute.Counts{Drafts: 611, DraftTokens: 611 * 4, AcceptedTokens: 900, AcceptedPerPosition: []float64{450, 250, 150, 50}}
	b := compute.Counts{Drafts: 858, DraftTokens: 858 * 3, AcceptedTokens: 1000, AcceptedPerPosition: []float64{550, 300, 150}}
	total := a.Add(b)
	if got := total.PositionDrafts(3); got != 611 {
		t.Fatalf("position 4's drafts %v, want 611 (the k = 4 series only)", got)
	}
	var out strings.Builder
	if err := WriteInsightsText(&out, ComputeInsights(total, 0.05)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// pos 1 = 1000 / 1469 = 68.1 %; pos 4 = 50 / 611 = 8.2 %.
	for _, want := range []string{"; pos 1 68.1 % [", "] of 1469, pos 2 ", "pos 4 8.2 % [", "] of 611 drafts (each position of the drafts that reach it)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "] of 1469 drafts") {
		t.Errorf("text gives one denominator for every position:\n%s", text)
	}
}
