package compute

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestFitGeometricWorkedExample(t *testing.T) {
	// Drafts 5, accepted per position [5, 3, 1]:
	// reached n = [5, 5, 3] (drafts, then per_pos[0], per_pos[1]),
	// accepted x = [5, 3, 1], alpha = (5+3+1) / (5+5+3) = 9/13.
	f := FitGeometric(workedExample)
	const alpha = 9.0 / 13
	if !f.Alpha.OK || !near(f.Alpha.V, alpha) || f.K != 3 {
		t.Fatalf("alpha = %v (k %d), want 9/13", f.Alpha, f.K)
	}
	for i, w := range []float64{5, 5, 3} {
		if f.Reached[i] != w {
			t.Errorf("reached[%d] = %v, want %v", i, f.Reached[i], w)
		}
	}
	// Curve alpha^(i+1) = 9/13, 81/169, 729/2197.
	for i, w := range []float64{9.0 / 13, 81.0 / 169, 729.0 / 2197} {
		if !near(f.Curve[i].V, w) || !near(f.Rate(i).V, w) {
			t.Errorf("curve[%d] = %v, want %v", i, f.Curve[i], w)
		}
	}
	if !near(f.Rate(3).V, math.Pow(alpha, 4)) || f.Rate(-1).OK {
		t.Errorf("Rate beyond k: %v", f.Rate(3))
	}
	// Conditional: 5/5, 3/5, 1/3.
	for i, w := range []float64{1, 0.6, 1.0 / 3} {
		if !near(f.Conditional[i].V, w) {
			t.Errorf("conditional[%d] = %v, want %v", i, f.Conditional[i], w)
		}
	}
	// chi² = sum (x - n alpha)² / (n alpha (1-alpha)), alpha(1-alpha) = 36/169:
	//   pos 1: (5 - 45/13)² / (5·36/169) = (400/169) / (180/169) = 20/9
	//   pos 2: (3 - 45/13)² / (180/169)  = (36/169) / (180/169)  = 1/5
	//   pos 3: (1 - 27/13)² / (3·36/169) = (196/169) / (108/169) = 49/27
	//   total 300/135 + 27/135 + 245/135 = 572/135 = 4.237037; df = 3 - 1 = 2,
	//   p = exp(-chi²/2) for df 2 = exp(-2.118519) = 0.120210.
	if !near(f.ChiSquare.V, 572.0/135) || f.DegreesOfFreedom != 2 || !approx(f.PValue.V, math.Exp(-572.0/270), 1e-12) || !approx(f.PValue.V, 0.120210, 1e-6) {
		t.Errorf("chi² = %v df %d p %v, want 572/135, 2, 0.120210", f.ChiSquare, f.DegreesOfFreedom, f.PValue)
	}
	// R²: observed [1, 0.6, 0.2], mean 0.6, SS_tot = 0.16 + 0 + 0.16 = 0.32;
	// residuals 1-9/13 = 4/13, 0.6-81/169, 0.2-729/2197.
	ssRes := math.Pow(4.0/13, 2) + math.Pow(0.6-81.0/169, 2) + math.Pow(0.2-729.0/2197, 2) // 0.126621
	if !near(f.RSquared.V, 1-ssRes/0.32) || !approx(f.RSquared.V, 0.604309, 1e-6) {
		t.Errorf("R² = %v, want %v", f.RSquared, 1-ssRes/0.32)
	}
	if len(f.Notes) != 0 || f.Reason != "" {
		t.Errorf("notes %q reason %q", f.Notes, f.Reason)
	}
}

func TestFitGeometricExact(t *testing.T) {
	// 1000 drafts halving at every position: alpha = (500+250+125) /
	// (1000+500+250) = 875/1750 = 0.5 exactly, chi² = 0, p = 1, R² = 1.
	f := FitGeometric(Counts{Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 875, AcceptedPerPosition: []float64{500, 250, 125}})
	if f.Alpha.V != 0.5 || f.ChiSquare.V != 0 || f.PValue.V != 1 || f.RSquared.V != 1 {
		t.Errorf("exact geometric: alpha %v chi² %v p %v R² %v", f.Alpha, f.ChiSquare, f.PValue, f.RSquared)
	}
	// All accepted: alpha = 1, chi² = 0 (no variance, exact fit).
	f = FitGeometric(Counts{Drafts: 10, DraftTokens: 20, AcceptedTokens: 20, AcceptedPerPosition: []float64{10, 10}})
	if f.Alpha.V != 1 || f.ChiSquare.V != 0 || f.PValue.V != 1 || f.RSquared.OK {
		t.Errorf("all accepted: %+v", f)
	}
	// k = 1: df 0, no p-value, no R².
	f = FitGeometric(Counts{Drafts: 10, DraftTokens: 10, AcceptedTokens: 4, AcceptedPerPosition: []float64{4}})
	if f.Alpha.V != 0.4 || f.DegreesOfFreedom != 0 || f.PValue.OK || f.RSquared.OK {
		t.Errorf("k=1: %+v", f)
	}
	// A poor fit: position 2 accepted almost always after position 1
	// (conditional 1.0, 0.99 vs first 0.3) gives a tiny p-value.
	f = FitGeometric(Counts{Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 300 + 297 + 294, AcceptedPerPosition: []float64{300, 297, 294}})
	if !f.PValue.OK || f.PValue.V > 1e-6 {
		t.Errorf("poor fit p-value %v", f.PValue)
	}
}

func TestFitGeometricUndefined(t *testing.T) {
	for _, tc := range []struct {
		c      Counts
		reason string
	}{
		{Counts{Drafts: 5}, "no per-position counts"},
		{Counts{AcceptedPerPosition: []float64{0, 0}}, Undefined},
		{Counts{Drafts: math.NaN(), AcceptedPerPosition: []float64{1}}, "drafts is not a number"},
		{Counts{Drafts: 5, AcceptedPerPosition: []float64{5, math.Inf(1)}}, "pos 2 is infinite"},
		{Counts{Drafts: 5, AcceptedPerPosition: []float64{3, 4}}, "pos 2 (4) exceed the drafts reaching it (3)"},
	} {
		f := FitGeometric(tc.c)
		if f.Alpha.OK || !strings.Contains(f.Reason, tc.reason) || f.ChiSquare.OK || f.RSquared.OK {
			t.Errorf("%+v: %+v, want undefined with %q", tc.c, f, tc.reason)
		}
		if len(f.Curve) != len(tc.c.AcceptedPerPosition) {
			t.Errorf("curve length %d", len(f.Curve))
		}
	}
	// Shorter drafts than k: a note.
	f := FitGeometric(Counts{Drafts: 5, DraftTokens: 12, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}})
	if len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "draft tokens (12) < k x drafts = 3 x 5") {
		t.Errorf("notes %q", f.Notes)
	}
}

func TestChiSquareSurvival(t *testing.T) {
	// 95th percentiles of chi² (any statistics table): P(X >= q) = 0.05.
	for _, tc := range []struct {
		df int
		q  float64
	}{{1, 3.841458820694124}, {2, 5.991464547107979}, {4, 9.487729036781154}, {10, 18.307038053275146}, {30, 43.77297182574219}} {
		if got := ChiSquareSurvival(tc.q, tc.df); !approx(got, 0.05, 1e-10) {
			t.Errorf("df %d: Q(%v) = %v, want 0.05", tc.df, tc.q, got)
		}
	}
	// df 2: Q = exp(-x/2) exactly; df 1: Q = erfc(sqrt(x/2)).
	for _, x := range []float64{0.1, 1, 2.5, 7, 40} {
		if got := ChiSquareSurvival(x, 2); !approx(got, math.Exp(-x/2), 1e-13) {
			t.Errorf("df 2, x %v: %v want %v", x, got, math.Exp(-x/2))
		}
		if got := ChiSquareSurvival(x, 1); !approx(got, math.Erfc(math.Sqrt(x/2)), 1e-13) {
			t.Errorf("df 1, x %v: %v want %v", x, got, math.Erfc(math.Sqrt(x/2)))
		}
	}
	if ChiSquareSurvival(0, 3) != 1 || ChiSquareSurvival(math.Inf(1), 3) != 0 || !math.IsNaN(ChiSquareSurvival(1, 0)) || !math.IsNaN(ChiSquareSurvival(math.NaN(), 2)) {
		t.Error("edge cases")
	}
}

// FuzzStatistics feeds arbitrary counts to the fit, speedup, best-k and
// interval functions: no panic, and JSON never fails (no NaN or Inf in a
// defined Value or a float field).
func FuzzStatistics(f *testing.F) {
	f.Add(5.0, 15.0, 9.0, 5.0, 3.0, 1.0, 0.05)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(math.NaN(), -1.0, math.Inf(1), 1e308, -0.0, 3.0, -2.0)
	f.Fuzz(func(t *testing.T, d, dt, a, p0, p1, p2, cost float64) {
		c := Counts{Drafts: d, DraftTokens: dt, AcceptedTokens: a, AcceptedPerPosition: []float64{p0, p1, p2}}
		c2 := Counts{Drafts: dt, DraftTokens: d, AcceptedTokens: p1, AcceptedPerPosition: []float64{p2}}
		for _, v := range []any{
			FitGeometric(c), EstimateSpeedup(c, cost), FindBestK(c, cost, 12),
			AcceptanceRateInterval(c, cost), PerPositionIntervals(c, 0),
			CompareAcceptanceRate(c, c2, 0), ComparePerPosition(c, c2, cost),
		} {
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("%T: %v", v, err)
			}
		}
		if iv := Wilson(a, d, cost); iv.Lower.OK && (iv.Lower.V < 0 || iv.Upper.V > 1 || iv.Lower.V > iv.Upper.V) {
			t.Fatalf("Wilson(%v, %v) = %+v", a, d, iv)
		}
	})
}
