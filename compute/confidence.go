package compute

import (
	"fmt"
	"math"
)

// DefaultZ is the standard normal quantile for a two-sided 95 % interval,
// Phi^-1(0.975) = 1.959963984540054. A z of 0 passed to the functions below
// means DefaultZ.
const DefaultZ = 1.959963984540054

// Interval is a confidence interval for a proportion (ratio 0..1): Successes
// of Trials (tokens or drafts; NaN or Inf inputs are stored as 0). Estimate,
// Lower and Upper are undefined when there are no trials or the inputs are
// bad (Reason then says why).
type Interval struct {
	Successes float64 `json:"successes"`
	Trials    float64 `json:"trials"`
	// Z is the normal quantile used (DefaultZ for 95 %).
	Z        float64 `json:"z"`
	Estimate Value   `json:"estimate"`
	Lower    Value   `json:"lower"`
	Upper    Value   `json:"upper"`
	Reason   string  `json:"reason,omitempty"`
}

// resolveZ returns the z to use and "" or why z is unusable.
func resolveZ(z float64) (float64, string) {
	if z == 0 {
		return DefaultZ, ""
	}
	if !finite(z) || z < 0 {
		return 0, fmt.Sprintf("z must be a finite number > 0 (0 for 95 %%), got %v", z)
	}
	return z, ""
}

// Wilson returns the Wilson score interval for the proportion successes /
// trials at normal quantile z (0 means DefaultZ, 95 %):
//
//	p = x/n, center = (p + z²/2n) / (1 + z²/n),
//	half = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²),
//	interval = [center - half, center + half], clipped to [0, 1].
//
// Source: E. B. Wilson, "Probable inference, the law of succession, and
// statistical inference", JASA 22 (1927) 209-212; method 3 of R. G.
// Newcombe, "Two-sided confidence intervals for the single proportion",
// Statistics in Medicine 17 (1998) 857-872 (its example 81/263 gives
// 0.2553..0.3662). Unlike the Wald interval p ± z sqrt(p(1-p)/n) it stays
// inside [0, 1] and is not degenerate at 0 or n successes.
//
// Undefined (Reason set) when trials = 0, a count is negative or not
// finite, successes > trials, or z is negative or not finite. Counts may be
// fractional (increases of counters are whole in practice).
func Wilson(successes, trials, z float64) Interval {
	out := Interval{Successes: clean(successes), Trials: clean(trials)}
	zz, reason := resolveZ(z)
	out.Z = zz
	switch {
	case reason != "":
	case !finite(successes) || !finite(trials) || successes < 0 || trials < 0:
		reason = fmt.Sprintf("counts must be finite and >= 0, got %s of %s", describe(successes), describe(trials))
	case trials == 0:
		reason = Undefined
	case greater(successes, trials):
		reason = fmt.Sprintf("successes (%s) exceed trials (%s)", num(successes), num(trials))
	}
	if reason != "" {
		out.Reason = reason
		return out
	}
	n := trials
	p := math.Min(successes/n, 1)
	z2 := zz * zz
	den := 1 + z2/n
	center := (p + z2/(2*n)) / den
	half := zz / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	out.Estimate = Defined(p)
	out.Lower = Defined(math.Max(0, center-half))
	out.Upper = Defined(math.Min(1, center+half))
	return out
}

// AcceptanceRateInterval is the Wilson interval (see Wilson) of the
// acceptance rate: accepted tokens of draft tokens.
//
// Caveat: it treats every draft token as an independent trial. Tokens of one
// draft are not independent (accepted tokens form a prefix), so the true
// uncertainty is larger than this interval says, by up to a factor
// sqrt(k); the per-position intervals (PerPositionIntervals), whose trials
// are drafts, do not have this problem.
func AcceptanceRateInterval(c Counts, z float64) Interval {
	return Wilson(c.AcceptedTokens, c.DraftTokens, z)
}

// PerPositionIntervals returns, for each 0-based position i, the Wilson
// interval (see Wilson) of the per-position acceptance rate
// accepted_per_pos[i] of drafts (the denominator is c.PositionDrafts(i),
// as in Derive). Length k = len(c.AcceptedPerPosition); each is undefined
// when there are no drafts.
func PerPositionIntervals(c Counts, z float64) []Interval {
	out := make([]Interval, len(c.AcceptedPerPosition))
	for i, v := range c.AcceptedPerPosition {
		out[i] = Wilson(v, c.PositionDrafts(i), z)
	}
	return out
}

// Comparison compares a proportion between two windows or groups, A (the
// baseline, for example the earlier window) and B.
type Comparison struct {
	A Interval `json:"a"`
	B Interval `json:"b"`
	// Difference is pB - pA (ratio, -1..1; negative when B is lower).
	Difference Value `json:"difference"`
	// Lower and Upper bound Difference: Newcombe's hybrid score interval.
	Lower Value `json:"lower"`
	Upper Value `json:"upper"`
	// ZScore is the pooled two-proportion z statistic (pB - pA) / SE, and
	// PValue its two-sided p-value; both undefined when the pooled
	// proportion is 0 or 1 (no variation: no evidence of a difference).
	ZScore Value `json:"z_score"`
	PValue Value `json:"p_value"`
	// Significant is true when the difference interval excludes 0: the
	// move is larger than chance explains at the chosen confidence.
	Significant bool   `json:"significant"`
	Reason      string `json:"reason,omitempty"`
}

// CompareProportions compares xA of nA with xB of nB at normal quantile z
// (0 means DefaultZ, 95 %).
//
// The interval of the difference pB - pA is Newcombe's hybrid score
// interval (method 10 of R. G. Newcombe, "Interval estimation for the
// difference between independent proportions: comparison of eleven
// methods", Statistics in Medicine 17 (1998) 873-890; its example 56/70
// vs 48/80, difference 0.2, gives 0.0524..0.3339), built from the Wilson intervals
// [lA, uA] and [lB, uB]:
//
//	d = pB - pA,
//	lower = d - sqrt((pB - lB)² + (uA - pA)²),
//	upper = d + sqrt((uB - pB)² + (pA - lA)²).
//
// Significant is lower > 0 or upper < 0. ZScore and PValue are the classic
// pooled z-test, p = (xA + xB) / (nA + nB), SE = sqrt(p(1-p)(1/nA + 1/nB)),
// two-sided p-value erfc(|z| / sqrt 2), reported alongside; Significant
// follows the interval. Everything is undefined (Reason set) when either
// side has no trials or bad counts.
func CompareProportions(xA, nA, xB, nB, z float64) Comparison {
	out := Comparison{A: Wilson(xA, nA, z), B: Wilson(xB, nB, z)}
	switch {
	case out.A.Reason != "":
		out.Reason = "A: " + out.A.Reason
		return out
	case out.B.Reason != "":
		out.Reason = "B: " + out.B.Reason
		return out
	}
	pA, pB := out.A.Estimate.V, out.B.Estimate.V
	lA, uA := out.A.Lower.V, out.A.Upper.V
	lB, uB := out.B.Lower.V, out.B.Upper.V
	d := pB - pA
	out.Difference = Defined(d)
	out.Lower = Defined(d - math.Sqrt((pB-lB)*(pB-lB)+(uA-pA)*(uA-pA)))
	out.Upper = Defined(d + math.Sqrt((uB-pB)*(uB-pB)+(pA-lA)*(pA-lA)))
	out.Significant = out.Lower.V > 0 || out.Upper.V < 0
	p := (xA + xB) / (nA + nB)
	if se := math.Sqrt(p * (1 - p) * (1/nA + 1/nB)); se > 0 {
		zs := d / se
		out.ZScore = Defined(zs)
		out.PValue = Defined(math.Erfc(math.Abs(zs) / math.Sqrt2))
	}
	return out
}

// CompareAcceptanceRate compares the acceptance rate (accepted of draft
// tokens) of window or group a (baseline) with b; see CompareProportions,
// and the caveat of AcceptanceRateInterval (token trials are not
// independent, so a difference called significant here should be confirmed
// on the per-position rates).
func CompareAcceptanceRate(a, b Counts, z float64) Comparison {
	return CompareProportions(a.AcceptedTokens, a.DraftTokens, b.AcceptedTokens, b.DraftTokens, z)
}

// ComparePerPosition compares each per-position acceptance rate
// (accepted_per_pos[i] of PositionDrafts(i), as in Derive) of a (baseline) with b; see
// CompareProportions. The result has max(len) positions; a position one side
// lacks counts as 0 accepted of that side's drafts.
func ComparePerPosition(a, b Counts, z float64) []Comparison {
	k := max(len(a.AcceptedPerPosition), len(b.AcceptedPerPosition))
	out := make([]Comparison, k)
	at := func(c Counts, i int) float64 {
		if i < len(c.AcceptedPerPosition) {
			return c.AcceptedPerPosition[i]
		}
		return 0
	}
	drafts := func(c Counts, i int) float64 {
		if i < len(c.AcceptedPerPosition) {
			return c.PositionDrafts(i)
		}
		return c.Drafts
	}
	for i := range out {
		out[i] = CompareProportions(at(a, i), drafts(a, i), at(b, i), drafts(b, i), z)
	}
	return out
}
