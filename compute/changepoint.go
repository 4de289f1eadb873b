package compute

import (
	"fmt"
	"math"
	"slices"
)

// ChangeOptions configures ChangePoints. Zero fields take the defaults.
type ChangeOptions struct {
	// Alpha is the significance level of each split test, after the
	// Bonferroni correction over the candidate split points (default 0.001).
	// On steady data the chance of reporting any change is at most about
	// Alpha (the correction is conservative).
	Alpha float64 `json:"alpha"`
	// MinSegment is the minimum number of buckets with trials on each side
	// of a change (default 5).
	MinSegment int `json:"min_segment"`
	// Dispersion divides the likelihood-ratio statistic (quasi-binomial):
	// the ratio of the real variance of the successes to the binomial one.
	// 0 means 1 for ChangePoints; AcceptanceChangePoints estimates it from
	// the per-position counts (see there).
	Dispersion float64 `json:"dispersion"`
	// Z is the normal quantile of the Before/After intervals (0: DefaultZ).
	Z float64 `json:"z"`
}

// DefaultChangeAlpha and DefaultMinSegment are ChangeOptions' defaults.
const (
	DefaultChangeAlpha = 0.001
	DefaultMinSegment  = 5
)

// ChangePoint is one change of a proportion over buckets.
type ChangePoint struct {
	// Bucket is the index of the first bucket after the change.
	Bucket int `json:"bucket"`
	// Before and After are the proportion over the segments on either
	// side (up to the neighbouring change points or the ends).
	Before Interval `json:"before"`
	After  Interval `json:"after"`
	// Difference is After - Before (ratio).
	Difference float64 `json:"difference"`
	// Statistic is the likelihood-ratio statistic 2(l1 + l2 - l0) of the
	// split, divided by the dispersion.
	Statistic float64 `json:"statistic"`
	// PValue is the Bonferroni-adjusted p-value of the split (chi-square,
	// 1 degree of freedom, times the number of candidate splits, at most 1),
	// and Confidence = 1 - PValue.
	PValue     float64 `json:"p_value"`
	Confidence float64 `json:"confidence"`
}

// Start is the start of the first bucket after the change on grid
// (Unix ms): the change happened within that bucket or at its start.
func (c ChangePoint) Start(grid Grid) int64 { return grid.BucketStart(c.Bucket) }

// String is "bucket 30: 46.8 % -> 30.0 % (-16.8 points, confidence 99.99 %)".
func (c ChangePoint) String() string {
	return fmt.Sprintf("bucket %d: %s -> %s (%+.1f points, confidence %s)",
		c.Bucket, pct(c.Before.Estimate.V), pct(c.After.Estimate.V), c.Difference*100, confText(c.Confidence))
}

func confText(c float64) string {
	if c >= 0.9999 {
		return "> 99.99 %"
	}
	return fmt.Sprintf("%.2f %%", c*100)
}

// binomLL is the binomial log-likelihood x log p + (n-x) log(1-p) at the
// maximum-likelihood p = x/n (0 log 0 = 0).
func binomLL(x, n float64) float64 {
	if n <= 0 {
		return 0
	}
	p := x / n
	ll := 0.0
	if x > 0 {
		ll += x * math.Log(p)
	}
	if n-x > 0 {
		ll += (n - x) * math.Log(1-p)
	}
	return ll
}

// ChangePoints finds the buckets where the proportion successes[j] /
// trials[j] changes, by binary segmentation with a binomial
// likelihood-ratio test: for a segment, every split leaving at least
// MinSegment buckets with trials on each side is scored with
//
//	LR = 2 (l(left) + l(right) - l(segment)) / Dispersion,
//	l(s) = x log(x/n) + (n-x) log(1 - x/n) over the segment's sums,
//
// the best split's p-value is the chi-square (1 df) survival of LR times
// the number of candidate splits (Bonferroni), and the split is kept when
// that is below Alpha; both halves are then searched again. Buckets
// without trials (idle) are skipped: they neither split nor count towards
// MinSegment. Bad buckets (NaN, negative, successes > trials) are treated
// as empty. The change points come back sorted by bucket, with the rates
// of the final segments on either side.
//
// References: E. S. Page's and D. V. Hinkley's likelihood-ratio
// change-point tests; binary segmentation as in A. J. Scott and M. Knott,
// Biometrics 30 (1974) 507-512.
func ChangePoints(successes, trials []float64, o ChangeOptions) []ChangePoint {
	if o.Alpha <= 0 || o.Alpha >= 1 || !finite(o.Alpha) {
		o.Alpha = DefaultChangeAlpha
	}
	if o.MinSegment < 1 {
		o.MinSegment = DefaultMinSegment
	}
	if o.Dispersion <= 0 || !finite(o.Dispersion) {
		o.Dispersion = 1
	}
	n := min(len(successes), len(trials))
	// idx are the usable buckets; x, t their counts; prefix sums.
	var idx []int
	var xs, ns []float64
	for j := 0; j < n; j++ {
		x, t := successes[j], trials[j]
		if !finite(x) || !finite(t) || x < 0 || t <= 0 || greater(x, t) {
			continue
		}
		idx = append(idx, j)
		xs = append(xs, math.Min(x, t))
		ns = append(ns, t)
	}
	m := len(idx)
	px, pn := make([]float64, m+1), make([]float64, m+1)
	for i := range m {
		px[i+1] = px[i] + xs[i]
		pn[i+1] = pn[i] + ns[i]
	}
	type split struct {
		at       int // index into idx of the first bucket after the change
		stat, pv float64
	}
	var found []split
	var search func(lo, hi int)
	search = func(lo, hi int) {
		cands := hi - lo - 2*o.MinSegment + 1
		if cands < 1 {
			return
		}
		l0 := binomLL(px[hi]-px[lo], pn[hi]-pn[lo])
		best, bestAt := -1.0, -1
		for s := lo + o.MinSegment; s <= hi-o.MinSegment; s++ {
			lr := 2 * (binomLL(px[s]-px[lo], pn[s]-pn[lo]) + binomLL(px[hi]-px[s], pn[hi]-pn[s]) - l0)
			if lr > best {
				best, bestAt = lr, s
			}
		}
		stat := math.Max(0, best) / o.Dispersion
		pv := math.Min(1, ChiSquareSurvival(stat, 1)*float64(cands))
		if bestAt < 0 || math.IsNaN(pv) || pv >= o.Alpha {
			return
		}
		found = append(found, split{at: bestAt, stat: stat, pv: pv})
		search(lo, bestAt)
		search(bestAt, hi)
	}
	search(0, m)
	slices.SortFunc(found, func(a, b split) int { return a.at - b.at })
	out := make([]ChangePoint, len(found))
	for i, f := range found {
		lo, hi := 0, m
		if i > 0 {
			lo = found[i-1].at
		}
		if i+1 < len(found) {
			hi = found[i+1].at
		}
		before := Wilson(px[f.at]-px[lo], pn[f.at]-pn[lo], o.Z)
		after := Wilson(px[hi]-px[f.at], pn[hi]-pn[f.at], o.Z)
		out[i] = ChangePoint{
			Bucket: idx[f.at], Before: before, After: after,
			Difference: after.Estimate.V - before.Estimate.V,
			Statistic:  f.stat, PValue: f.pv, Confidence: 1 - f.pv,
		}
	}
	return out
}

// AcceptanceDispersion estimates how much more the accepted tokens of a
// draft vary than k independent tokens would (the quasi-binomial
// dispersion of the acceptance rate): accepted tokens form a prefix, so
// with A the accepted tokens of one draft and r[i] the per-position rate,
//
//	Var(A) = sum_i (2i+1) r[i] - (sum_i r[i])²,
//	dispersion = Var(A) / (k p (1-p)), p = acceptance rate,
//
// at least 1. Without per-position data (or with mixed k or variable draft
// lengths, where r[i] are not the rates of one k) it returns the draft
// tokens per draft (the worst case, all-or-nothing drafts), or 1 without
// drafts.
func AcceptanceDispersion(c Counts) float64 {
	k := len(c.AcceptedPerPosition)
	worst := 1.0
	if c.Drafts > 0 && c.DraftTokens > c.Drafts {
		worst = c.DraftTokens / c.Drafts
	}
	if k == 0 || c.Drafts <= 0 || c.DraftsAtPosition != nil || math.Abs(c.DraftTokens-float64(k)*c.Drafts) > 0.5 {
		return worst
	}
	var ea, ea2 float64
	for i, v := range c.AcceptedPerPosition {
		r := v / c.Drafts
		ea += r
		ea2 += float64(2*i+1) * r
	}
	p := ea / float64(k)
	den := float64(k) * p * (1 - p)
	if den <= 0 || !finite(den) {
		return worst
	}
	d := (ea2 - ea*ea) / den
	if !finite(d) || d < 1 {
		return 1
	}
	return d
}

// AcceptanceChangePoints finds changes of the acceptance rate (accepted of
// draft tokens) over buckets (e.g. Group.Buckets) with ChangePoints. When
// o.Dispersion is 0 it uses AcceptanceDispersion of the buckets' sum, so
// that the correlation of a draft's tokens does not make noise look like a
// change.
func AcceptanceChangePoints(buckets []Counts, o ChangeOptions) []ChangePoint {
	xs := make([]float64, len(buckets))
	ns := make([]float64, len(buckets))
	var total Counts
	for j, b := range buckets {
		xs[j], ns[j] = b.AcceptedTokens, b.DraftTokens
		total = total.Add(b)
	}
	if o.Dispersion <= 0 {
		o.Dispersion = AcceptanceDispersion(total)
	}
	return ChangePoints(xs, ns, o)
}
