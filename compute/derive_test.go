package compute

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// workedExample is the worked example of vLLM PR 16665's review thread
// (docs/METRICS.md, "Formulas"): 5 drafts, k=3, 15 draft tokens, 9 accepted,
// accepted per position [5, 3, 1].
var workedExample = Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestDeriveWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		conv Convention
		mean float64
	}{{WithoutBonus, 1.8}, {WithBonus, 2.8}} {
		s := Derive(workedExample, 10, tc.conv)
		if s.K != 3 {
			t.Errorf("K = %d, want 3", s.K)
		}
		if !s.AcceptanceRate.OK || !near(s.AcceptanceRate.V, 0.6) {
			t.Errorf("acceptance rate = %v, want 0.6", s.AcceptanceRate)
		}
		if !s.MeanAcceptanceLength.OK || !near(s.MeanAcceptanceLength.V, tc.mean) {
			t.Errorf("%v: mean acceptance length = %v, want %v", tc.conv, s.MeanAcceptanceLength, tc.mean)
		}
		want := []float64{1.0, 0.6, 0.2}
		sum := 0.0
		for i, w := range want {
			if v := s.PerPositionAcceptanceRate[i]; !v.OK || !near(v.V, w) {
				t.Errorf("per-position[%d] = %v, want %v", i, v, w)
			}
			sum += s.PerPositionAcceptanceRate[i].V
		}
		// sum_i rate[i] = mean length (with bonus) - 1 = accepted / drafts.
		if !near(sum, 1.8) {
			t.Errorf("sum of per-position rates = %v, want 1.8", sum)
		}
		if !near(s.AcceptedThroughput.V, 0.9) || !near(s.DraftedThroughput.V, 1.5) || !near(s.DraftsPerSecond.V, 0.5) {
			t.Errorf("throughputs = %v %v %v, want 0.9 1.5 0.5", s.AcceptedThroughput, s.DraftedThroughput, s.DraftsPerSecond)
		}
		if len(s.Violations) != 0 {
			t.Errorf("violations on the worked example: %q", s.Violations)
		}
	}
}

func ExampleDerive() {
	c := Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}
	s := Derive(c, 10, WithBonus)
	fmt.Println("acceptance rate:", FormatPercent(s.AcceptanceRate, 1))
	fmt.Println("mean acceptance length:", FormatLength(s.MeanAcceptanceLength))
	fmt.Println("without bonus:", FormatLength(Derive(c, 10, WithoutBonus).MeanAcceptanceLength))
	fmt.Println("per position:", s.PerPositionAcceptanceRate)
	fmt.Println("accepted throughput:", FormatRate(s.AcceptedThroughput, "tokens/s"))
	fmt.Println(FormatLogLine(s))
	// Output:
	// acceptance rate: 60.0 %
	// mean acceptance length: 2.80 tokens/draft
	// without bonus: 1.80 tokens/draft
	// per position: [1 0.6 0.2]
	// accepted throughput: 0.9 tokens/s
	// SpecDecoding metrics: Mean acceptance length: 2.80, Accepted throughput: 0.90 tokens/s, Drafted throughput: 1.50 tokens/s, Accepted: 9 tokens, Drafted: 15 tokens, Per-position acceptance rate: 1.000, 0.600, 0.200, Avg Draft acceptance rate: 60.0%
}

func TestDeriveUndefined(t *testing.T) {
	s := Derive(Counts{AcceptedPerPosition: []float64{0, 0}}, 15, WithBonus)
	for name, v := range map[string]Value{"rate": s.AcceptanceRate, "mean": s.MeanAcceptanceLength, "pos1": s.PerPositionAcceptanceRate[0]} {
		if v.OK {
			t.Errorf("%s defined (%v) with no drafts", name, v)
		}
	}
	// Zero counts over a positive window: throughput defined and 0.
	if s.AcceptedThroughput != (Value{0, true}) || s.DraftsPerSecond != (Value{0, true}) {
		t.Errorf("throughput with zero counts = %v %v, want defined 0", s.AcceptedThroughput, s.DraftsPerSecond)
	}
	// No window: throughput undefined.
	for _, sec := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if s := Derive(workedExample, sec, WithBonus); s.AcceptedThroughput.OK || s.DraftedThroughput.OK || s.DraftsPerSecond.OK {
			t.Errorf("seconds=%v: throughput defined", sec)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, want := range []string{`"acceptance_rate":null`, `"mean_acceptance_length":null`, `"per_position_acceptance_rate":[null,null]`, `"accepted_throughput":0`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON %s lacks %s", js, want)
		}
	}
	if strings.Contains(strings.ToLower(js), "nan") || strings.Contains(strings.ToLower(js), "inf") {
		t.Errorf("JSON holds NaN/Inf: %s", js)
	}
	if got := FormatPercent(s.AcceptanceRate, 1); got != Undefined {
		t.Errorf("FormatPercent(undefined) = %q", got)
	}
	if got := FormatLogLine(s); got != "SpecDecoding metrics: Mean acceptance length: n/a, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: n/a, n/a, Avg Draft acceptance rate: n/a" {
		t.Errorf("log line = %q", got)
	}
}

func TestDeriveBadInputs(t *testing.T) {
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -1, 0, 1e-300}
	for _, d := range bad {
		for _, a := range bad {
			c := Counts{Drafts: d, DraftTokens: a, AcceptedTokens: a, AcceptedPerPosition: []float64{a, d}}
			s := Derive(c, 1e-300, WithBonus)
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatalf("drafts=%v accepted=%v: marshal: %v", d, a, err)
			}
			for _, v := range append([]Value{s.AcceptanceRate, s.MeanAcceptanceLength, s.AcceptedThroughput, s.DraftedThroughput, s.DraftsPerSecond}, s.PerPositionAcceptanceRate...) {
				if v.OK && !finite(v.V) {
					t.Errorf("drafts=%v accepted=%v: defined non-finite value %v in %s", d, a, v.V, b)
				}
			}
			for _, f := range []float64{s.Drafts, s.DraftTokens, s.AcceptedTokens} {
				if !finite(f) {
					t.Errorf("non-finite count %v", f)
				}
			}
			if (!finite(d) || !finite(a)) && len(s.Violations) == 0 {
				t.Errorf("drafts=%v accepted=%v: no violation reported", d, a)
			}
		}
	}
}
