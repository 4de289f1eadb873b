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
// interval (from, to] (Unix ms), in the counter's unit (drafts or tokens),
// when the counter's start time is unknown: IncreaseSince(points, 0, from,
// to).
//
// It sums the differences of consecutive points whose later point lies in
// (from, to], without extrapolation (counts are whole tokens, as in vLLM's log
// line; Prometheus' increase() would extrapolate to the window edges). The
// base is the last point with T <= from. When there is none (the series
// starts inside the window), the first point inside (from, to] is the base and
// its own value is NOT counted: what a counter held when it first appeared
// cannot be told apart from what it counted before the window. IncreaseSince
// counts it when the counter's start time says it started inside the window.
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
	return IncreaseSince(points, 0, from, to)
}

// startsInside reports whether a counter with start time created (Unix ms,
// 0 = unknown) counted from 0 after from: then, when it has no point at or
// before from, 0 is its base.
func startsInside(created, from int64) bool { return created != 0 && created > from }

// IncreaseSince is Increase for a counter whose start time is known:
// created is when the counter (its process) started from 0, Unix ms (the
// series' <name>_created gauge x 1000; Series.Created), 0 when unknown.
//
// The rules are Increase's, except for a series with no usable point at or
// before from:
//   - created > from (the counter started at 0 inside the window): its base
//     is 0, so its first point inside (from, to] counts in full. Whatever
//     it counted between its start and its first point (a query step apart,
//     up to 30 minutes on long ranges) is kept: clocks (step versus scrape)
//     never make counts vanish.
//   - created unknown (0) or <= from (Prometheus began scraping a process
//     that started earlier, or the source exports no _created): the first
//     point is the base and is not counted, as in Increase; what the
//     counter held then may be partly from before the window, so it cannot
//     be attributed. The loss is at most what the series counted between
//     its start and its first point.
//
// A series with a point at or before from ignores created (the base is that
// point). Result: never negative; 0 when to <= from.
func IncreaseSince(points []Point, created, from, to int64) float64 {
	if to <= from {
		return 0
	}
	var sum float64
	// A counter started inside the window was 0 before its first point;
	// a point at or before from replaces this base.
	prev, havePv := 0.0, startsInside(created, from)
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

// BucketIncreases returns the increase of one counter in each bucket of g
// when its start time is unknown: BucketIncreasesSince(points, 0, g).
// Element j is Increase(points, g.BucketStart(j), g.BucketEnd(j)), with the
// same base, reset and NaN rules as Increase. The buckets tile the grid: their
// sum equals Increase(points, g.Start, g.End), exactly when the values are
// whole numbers below 2^53 (tokens, drafts) and up to float rounding
// otherwise. Each step between consecutive usable points is counted in the
// bucket holding its later point.
//
// The result has g.Buckets() elements (none for an invalid grid). Points must
// be in ascending T. Cost O(len(points) + buckets).
func BucketIncreases(points []Point, g Grid) []float64 {
	return BucketIncreasesSince(points, 0, g)
}

// BucketIncreasesSince returns the increase of one counter in each bucket of
// g, for a counter started from 0 at created (Unix ms, 0 = unknown; see
// IncreaseSince). The buckets tile the grid: their sum equals
// IncreaseSince(points, created, g.Start, g.End) (exactly for whole values
// below 2^53). Each step between consecutive usable points is counted in the
// bucket holding its later point; for a series started inside the grid
// (no point at or before g.Start and created > g.Start) the first point's
// full value is counted in the first point's bucket, even when created lies
// in an earlier bucket (the counts between its start and its first point
// cannot be placed more precisely). Every other bucket j equals
// IncreaseSince(points, created, g.BucketStart(j), g.BucketEnd(j)).
//
// The result has g.Buckets() elements (none for an invalid grid). Points must
// be in ascending T. Cost O(len(points) + buckets).
func BucketIncreasesSince(points []Point, created int64, g Grid) []float64 {
	n := g.Buckets()
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	end := g.Start + int64(n)*g.Step
	prev, havePv := 0.0, startsInside(created, g.Start)
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
