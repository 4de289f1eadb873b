package compute

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEstimateSpeedup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       Counts
		cost    float64
		k, l, s float64
		fromDT  bool
	}{
		// Worked example: L = 1 + 9/5 = 2.8 tokens per target pass, k = 3,
		// c = 0.05: 2.8 / (1 + 0.05·3) = 2.8 / 1.15 = 2.434783.
		{"worked example", workedExample, DefaultDraftCostRatio, 3, 2.8, 2.8 / 1.15, false},
		// Free drafting (n-gram): speedup = L = 2.8.
		{"c = 0", workedExample, 0, 3, 2.8, 2.8, false},
		// Reference, k = 4, accepted 464, drafted 828: drafts 828/4 = 207,
		// L = 1 + 464/207 = 3.241546, c = 0.2: 3.241546 / 1.8 = 1.800859.
		{"reference k=4", Counts{Drafts: 207, DraftTokens: 828, AcceptedTokens: 464, AcceptedPerPosition: []float64{158, 129, 95, 82}}, 0.2, 4, 1 + 464.0/207, (1 + 464.0/207) / 1.8, false},
		// V0 reference (no per-position counts): k = draft tokens / drafts =
		// 13311/4437 = 3, L = 1 + 8547/4437 = 2.926302, /1.15 = 2.544610.
		{"V0 reference", Counts{Drafts: 4437, DraftTokens: 13311, AcceptedTokens: 8547}, 0.05, 3, 1 + 8547.0/4437, (1 + 8547.0/4437) / 1.15, true},
	} {
		s := EstimateSpeedup(tc.c, tc.cost)
		if s.K != tc.k || s.KFromDraftTokens != tc.fromDT || !near(s.TokensPerTargetPass.V, tc.l) || !s.Speedup.OK || !near(s.Speedup.V, tc.s) || s.DraftCostRatio != tc.cost {
			t.Errorf("%s: %+v, want k %v L %v speedup %v", tc.name, s, tc.k, tc.l, tc.s)
		}
	}
	if s := EstimateSpeedup(workedExample, 0.05); !approx(s.Speedup.V, 2.434783, 1e-6) {
		t.Errorf("worked example speedup %v", s.Speedup)
	}
}

func TestEstimateSpeedupUndefined(t *testing.T) {
	for _, tc := range []struct {
		c      Counts
		cost   float64
		reason string
	}{
		{Counts{AcceptedPerPosition: []float64{0, 0}}, 0.05, Undefined},
		{workedExample, -0.1, "draft cost ratio must be a finite number >= 0, got -0.1"},
		{workedExample, math.NaN(), "draft cost ratio"},
		{Counts{Drafts: math.Inf(1)}, 0.05, "drafts is infinite"},
	} {
		s := EstimateSpeedup(tc.c, tc.cost)
		if s.Speedup.OK || s.Reason == "" || !strings.Contains(s.Reason, tc.reason) {
			t.Errorf("%+v cost %v: %+v, want undefined with %q", tc.c, tc.cost, s, tc.reason)
		}
		if b, err := json.Marshal(s); err != nil || !strings.Contains(string(b), `"speedup":null`) {
			t.Errorf("JSON %s %v", b, err)
		}
	}
	if SpeedupFromLength(2, -1, 0.05).OK || SpeedupFromLength(math.NaN(), 1, 0).OK || !SpeedupFromLength(2, 0, 0).OK {
		t.Error("SpeedupFromLength edge cases")
	}
}

func TestFindBestKWorkedExample(t *testing.T) {
	// Rates [1, 0.6, 0.2], alpha = 9/13, c = 0.05, default search to
	// max(2·3, 8) = 8:
	//   K=0: L 1,                      S 1
	//   K=1: L 2,                      S 2/1.05 = 1.904762
	//   K=2: L 2.6,                    S 2.6/1.10 = 2.363636
	//   K=3: L 2.8,                    S 2.8/1.15 = 2.434783 (current)
	//   K=4: L 2.8 + 0.2·9/13 = 2.938462, S /1.20 = 2.448718 (extrapolated, best)
	//   K=5: L + 0.2·(9/13)² = 3.034320,  S /1.25 = 2.427456
	b := FindBestK(workedExample, 0.05, 0)
	if b.CurrentK != 3 || b.BestK != 4 || !b.BestExtrapolated || b.AtSearchLimit || len(b.Points) != 9 {
		t.Fatalf("%+v", b)
	}
	l4 := 2.8 + 0.2*9/13
	l5 := l4 + 0.2*81/169
	want := []struct{ l, s float64 }{{1, 1}, {2, 2 / 1.05}, {2.6, 2.6 / 1.1}, {2.8, 2.8 / 1.15}, {l4, l4 / 1.2}, {l5, l5 / 1.25}}
	for K, w := range want {
		p := b.Points[K]
		if p.K != K || !near(p.MeanAcceptanceLength.V, w.l) || !near(p.Speedup.V, w.s) || p.Extrapolated != (K > 3) {
			t.Errorf("K=%d: %+v, want L %v S %v", K, p, w.l, w.s)
		}
	}
	if !approx(b.Best.V, 2.448718, 1e-6) || !approx(b.Current.V, 2.434783, 1e-6) || !near(b.Alpha.V, 9.0/13) {
		t.Errorf("best %v current %v alpha %v", b.Best, b.Current, b.Alpha)
	}
	// Gain: 2.448718 / 2.434783 - 1 = 0.572 %.
	if g := b.Gain(); !g.OK || !approx(g.V, 2.448718/2.434783-1, 1e-6) || b.FormatGain() != "+0.6 %" {
		t.Errorf("gain %v, %q", g, b.FormatGain())
	}
	if got := b.ExtrapolatedKs(); !slices.Equal(got, []int{4, 5, 6, 7, 8}) {
		t.Errorf("ExtrapolatedKs = %v", got)
	}
	// Current equals EstimateSpeedup when per-position counts sum to accepted.
	if !near(b.Current.V, EstimateSpeedup(workedExample, 0.05).Speedup.V) {
		t.Error("current speedup differs from EstimateSpeedup")
	}
}

func TestFindBestKCases(t *testing.T) {
	// A costly drafter, c = 0.2: S(1) = 2/1.2 = 1.667, S(2) = 2.6/1.4 = 1.857,
	// S(3) = 2.8/1.6 = 1.75, S(4) = 2.938/1.8 = 1.632: best 2, observed.
	b := FindBestK(workedExample, 0.2, 6)
	if b.BestK != 2 || b.BestExtrapolated || !near(b.Best.V, 2.6/1.4) || len(b.Points) != 7 {
		t.Errorf("c=0.2: %+v", b)
	}
	// Speculation does not pay: 10 of 100 accepted, c = 1: S(1) = 1.1/2 =
	// 0.55 < 1 = S(0): best 0.
	b = FindBestK(Counts{Drafts: 100, DraftTokens: 100, AcceptedTokens: 10, AcceptedPerPosition: []float64{10}}, 1, 4)
	if b.BestK != 0 || b.Best.V != 1 || !near(b.Current.V, 0.55) {
		t.Errorf("not paying: %+v", b)
	}
	// Everything accepted: alpha = 1, L(K) = 1 + K, S = (1+K)/(1+0.05K)
	// grows with K: best is the search limit.
	b = FindBestK(Counts{Drafts: 10, DraftTokens: 20, AcceptedTokens: 20, AcceptedPerPosition: []float64{10, 10}}, 0.05, 5)
	if b.BestK != 5 || !b.AtSearchLimit || !near(b.Best.V, 6/1.25) {
		t.Errorf("all accepted: %+v", b)
	}
	// Search limit below the current k: Current still from all observed rates.
	b = FindBestK(workedExample, 0.05, 2)
	if len(b.Points) != 3 || !near(b.Current.V, 2.8/1.15) || b.BestK != 2 {
		t.Errorf("maxK < k: %+v", b)
	}
	// Gain's text: none at the current k; a gain that rounds to 0.0 %.
	b = FindBestK(workedExample, 0.05, 3)
	if b.BestK != 3 || b.FormatGain() != "" || b.Gain().V != 0 {
		t.Errorf("best is current: %+v, %q", b, b.FormatGain())
	}
	b.BestK, b.Best = 4, Defined(b.Current.V*1.0004)
	if got := b.FormatGain(); got != "+<0.1 %" {
		t.Errorf("gain 0.04 %%: %q", got)
	}
	b.Best = Value{}
	if got := b.FormatGain(); got != "" || b.Gain().OK {
		t.Errorf("undefined best: %q", got)
	}
	// Undefined inputs.
	for _, tc := range []struct {
		c      Counts
		cost   float64
		reason string
	}{
		{Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9}, 0.05, "no per-position counts"},
		{Counts{AcceptedPerPosition: []float64{0}}, 0.05, Undefined},
		{workedExample, math.Inf(1), "draft cost ratio"},
	} {
		b := FindBestK(tc.c, tc.cost, 0)
		if b.Points != nil || b.Best.OK || !strings.Contains(b.Reason, tc.reason) {
			t.Errorf("%+v: %+v, want undefined with %q", tc.c, b, tc.reason)
		}
	}
}
