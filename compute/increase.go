package compute

import "math"

// usable reports whether a counter value can be used: finite and >= 0. NaN is
// Prometheus' stale marker; counters are never negative or infinite, so such
// values are skipped as if absent.
func usable(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// step returns the increase of a counter from prev to v: v-prev, or v when the
// counter went down (a decrease means the process restarted and the counter
// counted up again from 0). Never negative.
func step(prev, v float64) float64 {
	if v >= prev {
		return v - prev
	}
	return v
}

// Increase returns the exact increase of one counter over the half-open
// interval (from, to] (Unix ms), in the counter's unit (drafts or tokens).
//
// It sums the differences of consecutive points whose later point lies in
// (from, to], without extrapolation (counts are whole tokens, as in vLLM's log
// line; Prometheus' increase() would extrapolate to the window edges). The
// base is the last point with T <= from. When there is none (the series
// starts inside the window), the first point inside (from, to] is the base and
// its own value is NOT counted: what a counter held when it first appeared
// cannot be told apart from what it counted before the window.
//
// Counter resets: a decrease means the counter restarted from 0, so that
// step's increase is the new value. A restart followed by counting past the
// old value between two points cannot be detected and yields a too small
// increase (Prometheus has the same limit).
//
// Points with NaN (Prometheus stale markers), negative or infinite values are
// skipped. Points must be in ascending T. The result is never negative; it is
// 0 when to <= from or fewer than two usable points exist. It can only be
// +Inf if the values themselves approach the float64 maximum.
func Increase(points []Point, from, to int64) float64 {
	if to <= from {
		return 0
	}
	var (
		sum    float64
		prev   float64
		havePv bool
	)
	for _, p := range points {
		if !usable(p.V) {
			continue
		}
		if p.T <= from {
			prev, havePv = p.V, true
			continue
		}
		if p.T > to {
			break
		}
		if havePv {
			sum += step(prev, p.V)
		}
		prev, havePv = p.V, true
	}
	return sum
}

// BucketIncreases returns the increase of one counter in each bucket of g:
// element j is Increase(points, g.BucketStart(j), g.BucketEnd(j)), with the
// same base, reset and NaN rules as Increase. The buckets tile the grid: their
// sum equals Increase(points, g.Start, g.End), exactly when the values are
// whole numbers below 2^53 (tokens, drafts) and up to float rounding
// otherwise. Each step between consecutive usable points is counted in the
// bucket holding its later point.
//
// The result has g.Buckets() elements (none for an invalid grid). Points must
// be in ascending T. Cost O(len(points) + buckets).
func BucketIncreases(points []Point, g Grid) []float64 {
	n := g.Buckets()
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	end := g.Start + int64(n)*g.Step
	var (
		prev   float64
		havePv bool
	)
	for _, p := range points {
		if !usable(p.V) {
			continue
		}
		if p.T <= g.Start {
			prev, havePv = p.V, true
			continue
		}
		if p.T > end {
			break
		}
		if havePv {
			// g.Start < p.T <= end, so no overflow.
			j := (p.T - g.Start - 1) / g.Step
			out[j] += step(prev, p.V)
		}
		prev, havePv = p.V, true
	}
	return out
}
