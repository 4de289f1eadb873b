package compute

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// approx reports |a-b| <= tol.
func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilsonKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		name         string
		x, n, z      float64
		lower, upper float64
		tol          float64
	}{
		// By hand, z = 2: p = 0.5, z²/n = 0.4, den = 1.4,
		// center = (0.5 + 4/20) / 1.4 = 0.5,
		// half = 2/1.4 * sqrt(0.25/10 + 4/400) = 1.4285714 * sqrt(0.035)
		//      = 1.4285714 * 0.1870829 = 0.2672612.
		{"5 of 10, z=2", 5, 10, 2, 0.5 - 0.2672612, 0.5 + 0.2672612, 1e-7},
		// By hand, z = 2, 0 of 4: p = 0, z²/n = 1, den = 2,
		// center = (0 + 4/8) / 2 = 0.25, half = 2/2 * sqrt(0 + 4/64) = 0.25.
		{"0 of 4, z=2", 0, 4, 2, 0, 0.5, 1e-12},
		// Newcombe (1998a), Table I, method 3 (Wilson), 95 %.
		{"81 of 263", 81, 263, 0, 0.2553, 0.3662, 5e-5},
		{"15 of 148", 15, 148, 0, 0.0624, 0.1605, 5e-5},
		{"0 of 20", 0, 20, 0, 0, 0.1611, 5e-5},
		{"1 of 29", 1, 29, 0, 0.0061, 0.1718, 5e-5},
	} {
		iv := Wilson(tc.x, tc.n, tc.z)
		if !iv.Lower.OK || !iv.Upper.OK || !approx(iv.Lower.V, tc.lower, tc.tol) || !approx(iv.Upper.V, tc.upper, tc.tol) {
			t.Errorf("%s: Wilson = [%v, %v], want [%v, %v]", tc.name, iv.Lower, iv.Upper, tc.lower, tc.upper)
		}
		if !approx(iv.Estimate.V, tc.x/tc.n, 1e-15) {
			t.Errorf("%s: estimate %v", tc.name, iv.Estimate)
		}
	}
	if iv := Wilson(1, 2, 0); iv.Z != DefaultZ {
		t.Errorf("z=0 gave Z=%v, want DefaultZ", iv.Z)
	}
}

func TestWilsonUndefined(t *testing.T) {
	for _, tc := range []struct {
		x, n, z float64
		reason  string
	}{
		{0, 0, 0, Undefined},
		{3, 2, 0, "successes (3) exceed trials (2)"},
		{-1, 2, 0, "counts must be finite and >= 0, got -1 of 2"},
		{math.NaN(), 2, 0, "not a number"},
		{1, math.Inf(1), 0, "infinite"},
		{1, 2, -1, "z must be"},
		{1, 2, math.NaN(), "z must be"},
	} {
		iv := Wilson(tc.x, tc.n, tc.z)
		if iv.Estimate.OK || iv.Lower.OK || iv.Upper.OK || !strings.Contains(iv.Reason, tc.reason) {
			t.Errorf("Wilson(%v, %v, %v) = %+v, want undefined with %q", tc.x, tc.n, tc.z, iv, tc.reason)
		}
		b, err := json.Marshal(iv)
		if err != nil || !strings.Contains(string(b), `"lower":null`) {
			t.Errorf("JSON %s %v", b, err)
		}
	}
}

func TestIntervalsWorkedExample(t *testing.T) {
	// Acceptance rate 9 of 15 draft tokens; per position 5, 3, 1 of 5 drafts.
	ar := AcceptanceRateInterval(workedExample, 0)
	if ar.Successes != 9 || ar.Trials != 15 || !near(ar.Estimate.V, 0.6) {
		t.Errorf("acceptance rate interval %+v", ar)
	}
	if !(ar.Lower.V < 0.6 && ar.Upper.V > 0.6) {
		t.Errorf("interval [%v, %v] does not hold 0.6", ar.Lower, ar.Upper)
	}
	pp := PerPositionIntervals(workedExample, 2)
	if len(pp) != 3 {
		t.Fatalf("len %d", len(pp))
	}
	// Position 1: 5 of 5, z = 2: p = 1, z²/n = 0.8, den = 1.8,
	// center = (1 + 4/10) / 1.8 = 0.7777778, half = 2/1.8 * sqrt(0 + 4/100) = 0.2222222:
	// [0.5555556, 1].
	if !approx(pp[0].Lower.V, 5.0/9, 1e-12) || !approx(pp[0].Upper.V, 1, 1e-12) {
		t.Errorf("pos 1: %+v", pp[0])
	}
	for i, w := range []float64{1, 0.6, 0.2} {
		if pp[i].Trials != 5 || !near(pp[i].Estimate.V, w) {
			t.Errorf("pos %d: %+v, want estimate %v of 5 drafts", i+1, pp[i], w)
		}
	}
	// No drafts: every position undefined, never NaN.
	for _, iv := range PerPositionIntervals(Counts{AcceptedPerPosition: []float64{0, 0}}, 0) {
		if iv.Lower.OK || iv.Reason != Undefined {
			t.Errorf("no drafts: %+v", iv)
		}
	}
}

func TestCompareNewcombe(t *testing.T) {
	// Newcombe (1998b), Table II, method 10: 56/70 vs 48/80, difference
	// 0.8 - 0.6 = 0.2000, interval 0.0524..0.3339.
	c := CompareProportions(48, 80, 56, 70, 0)
	if !near(c.Difference.V, 0.2) || !approx(c.Lower.V, 0.0524, 5e-5) || !approx(c.Upper.V, 0.3339, 5e-5) || !c.Significant {
		t.Errorf("56/70 vs 48/80: %+v", c)
	}
	// Same table: 5/56 vs 0/29, difference 0.0893, interval -0.0381..0.1926.
	c = CompareProportions(0, 29, 5, 56, 0)
	if !approx(c.Difference.V, 0.0893, 5e-5) || !approx(c.Lower.V, -0.0381, 5e-5) || !approx(c.Upper.V, 0.1926, 5e-5) || c.Significant {
		t.Errorf("5/56 vs 0/29: %+v", c)
	}
}

// TestCompareTwoPointsOnFortyDrafts: a 2-point drop of the acceptance rate
// over 40 drafts (k = 5, 200 draft tokens per window: 60 % -> 58 %) is not
// a regression; the same drop over 40,000 drafts is.
func TestCompareTwoPointsOnFortyDrafts(t *testing.T) {
	a := Counts{Drafts: 40, DraftTokens: 200, AcceptedTokens: 120, AcceptedPerPosition: []float64{30, 28, 25, 20, 17}}
	b := Counts{Drafts: 40, DraftTokens: 200, AcceptedTokens: 116, AcceptedPerPosition: []float64{29, 27, 24, 20, 16}}
	c := CompareAcceptanceRate(a, b, 0)
	if c.Significant {
		t.Errorf("60%% -> 58%% on 40 drafts called significant: %+v", c)
	}
	// d = 116/200 - 120/200 = -0.02.
	// Pooled p = 236/400 = 0.59, SE = sqrt(0.59 * 0.41 * (1/200 + 1/200))
	// = sqrt(0.2419 * 0.01) = 0.0491833, z = -0.02 / 0.0491833 = -0.406642,
	// two-sided p = erfc(0.406642 / sqrt 2) = 0.684271.
	if !near(c.Difference.V, -0.02) || !approx(c.ZScore.V, -0.406642, 1e-6) || !approx(c.PValue.V, 0.684271, 1e-6) {
		t.Errorf("difference %v z %v p %v", c.Difference, c.ZScore, c.PValue)
	}
	if !(c.Lower.V < -0.02 && c.Upper.V > 0) {
		t.Errorf("interval [%v, %v] should straddle 0", c.Lower, c.Upper)
	}
	// Per position: pos 1 30/40 -> 29/40 (2.5 points) is not significant either.
	for i, pc := range ComparePerPosition(a, b, 0) {
		if pc.Significant {
			t.Errorf("pos %d: %v -> %v on 40 drafts called significant", i+1, pc.A.Estimate, pc.B.Estimate)
		}
	}
	// 1000 times the drafts: the same 2 points is significant
	// (SE = sqrt(0.2419 * 2/200000) = 0.00155531, z = -12.86).
	big := CompareProportions(120000, 200000, 116000, 200000, 0)
	if !big.Significant || big.Upper.V >= 0 || !approx(big.ZScore.V, -0.02/math.Sqrt(0.2419*2/200000), 1e-9) {
		t.Errorf("60%% -> 58%% on 40,000 drafts: %+v", big)
	}
}

func TestCompareUndefined(t *testing.T) {
	c := CompareAcceptanceRate(Counts{}, workedExample, 0)
	if c.Difference.OK || c.Significant || c.Reason != "A: "+Undefined {
		t.Errorf("no drafts in A: %+v", c)
	}
	c = CompareProportions(5, 5, 10, 10, 0)
	// Both 100 %: pooled p = 1, SE = 0: no z-test, difference 0, not significant.
	if c.ZScore.OK || c.PValue.OK || c.Significant || !c.Difference.OK || c.Difference.V != 0 {
		t.Errorf("5/5 vs 10/10: %+v", c)
	}
	// Per-position comparison with different k: the missing position is 0 accepted.
	pc := ComparePerPosition(Counts{Drafts: 10, AcceptedPerPosition: []float64{5}}, Counts{Drafts: 10, AcceptedPerPosition: []float64{5, 2}}, 0)
	if len(pc) != 2 || pc[1].A.Successes != 0 || pc[1].A.Trials != 10 || !near(pc[1].Difference.V, 0.2) {
		t.Errorf("different k: %+v", pc)
	}
}
