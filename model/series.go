package model

import "specdash/compute"

// The time charts' series: values per grid bucket, taken from the
// Model's per-bucket stats, with the buckets before the data starts left
// undefined (gaps, not zeros).

// Line is one line of a time chart: a name and one value per bucket.
type Line struct {
	Name   string
	Values []compute.Value
}

// Lines are the per-bucket values of the time charts for one group (or
// the total): acceptance rate (ratio), mean acceptance length
// (tokens/draft) and drafts/s; drafts/s is undefined before the group's
// first bucket with data.
type Lines struct {
	Rate, Length, DraftsPerSecond []compute.Value
}

// LinesOf returns g's time-chart values.
func LinesOf(g Group) Lines {
	n := len(g.Buckets)
	l := Lines{Rate: make([]compute.Value, n), Length: make([]compute.Value, n), DraftsPerSecond: make([]compute.Value, n)}
	for j, b := range g.Buckets {
		l.Rate[j], l.Length[j], l.DraftsPerSecond[j] = b.AcceptanceRate, b.MeanAcceptanceLength, b.DraftsPerSecond
	}
	GapsBefore(l.DraftsPerSecond, g.FirstBucket)
	return l
}

// TokenRates are the total's token throughputs per bucket (tokens/s):
// drafted, accepted, and rejected = drafted - accepted (never below 0),
// undefined before the first bucket with data.
type TokenRates struct {
	Drafted, Accepted, Rejected []compute.Value
}

// TokenRates returns the total's token throughputs per bucket.
func (m *Model) TokenRates() TokenRates { return TokenRatesOf(m.Buckets, m.FirstBucket) }

// TokenRatesOf returns the token throughputs of buckets, undefined before
// bucket first.
func TokenRatesOf(buckets []compute.Stats, first int) TokenRates {
	n := len(buckets)
	t := TokenRates{Drafted: make([]compute.Value, n), Accepted: make([]compute.Value, n), Rejected: make([]compute.Value, n)}
	for j, b := range buckets {
		t.Drafted[j], t.Accepted[j] = b.DraftedThroughput, b.AcceptedThroughput
		if b.DraftedThroughput.OK && b.AcceptedThroughput.OK {
			t.Rejected[j] = compute.Defined(max(0, b.DraftedThroughput.V-b.AcceptedThroughput.V))
		}
	}
	for _, vals := range [][]compute.Value{t.Drafted, t.Accepted, t.Rejected} {
		GapsBefore(vals, first)
	}
	return t
}

// GapsBefore returns vals with the values before bucket first undefined
// (drawn as gaps, empty in exports): no series existed there.
func GapsBefore(vals []compute.Value, first int) []compute.Value {
	for j := 0; j < first && j < len(vals); j++ {
		vals[j] = compute.Value{}
	}
	return vals
}

// HeatmapMaxColumns is the most columns of the heatmap: longer windows
// merge runs of buckets into one column (compute.Columns), so that a 6 h
// window at 1 min (360 buckets) has 90 or 91 columns of 4 min instead of
// 360 slivers. ECharts' setOption of the heatmap costs in proportion to
// its cells and is most of a live refresh's drawing (docs/PERFORMANCE.md).
// The heatmap's export keeps every bucket.
const HeatmapMaxColumns = 120

// HeatmapFactor is the number of buckets per heatmap column for n
// buckets: 1 up to HeatmapMaxColumns buckets; above, enough that the
// columns (aligned in Unix time, so the first and last may be partial:
// one column more than n / factor) stay within HeatmapMaxColumns.
func HeatmapFactor(n int) int {
	if n <= HeatmapMaxColumns {
		return 1
	}
	return compute.ColumnFactor(n, HeatmapMaxColumns-1)
}

// Heatmap is the per-position acceptance rate over time in at most
// HeatmapMaxColumns columns.
type Heatmap struct {
	// K is the number of positions (rows).
	K int
	// First[c] and Last[c] are the first and last bucket of column c.
	First, Last []int
	// Stats[c] are column c's numbers: ratios of sums over its buckets,
	// rates over its seconds.
	Stats []compute.Stats
	// Complete is the number of leading complete columns: a column is
	// incomplete when one of its buckets is.
	Complete int
}

// Heatmap returns the heatmap's columns (HeatmapFactor buckets each);
// the zero Heatmap without per-position data.
func (m *Model) Heatmap() Heatmap {
	g, n := m.Grid, len(m.Buckets)
	k := m.Stats.K
	if k == 0 || n == 0 || len(m.Total.Buckets) != n {
		return Heatmap{}
	}
	first, counts := compute.Columns(m.Total.Buckets, g, HeatmapFactor(n))
	h := Heatmap{K: k, First: first, Last: make([]int, len(counts)), Stats: make([]compute.Stats, len(counts)), Complete: len(counts)}
	for c := range counts {
		last := n - 1
		if c+1 < len(first) {
			last = first[c+1] - 1
		}
		h.Last[c] = last
		h.Stats[c] = compute.Derive(counts[c], float64(last-first[c]+1)*g.StepSeconds(), m.Request.Convention)
		if last >= m.Complete && h.Complete == len(counts) {
			h.Complete = c
		}
	}
	return h
}

// ColumnBuckets turns the columns from..to (inclusive) of a heatmap whose
// column c starts at bucket first[c] (Heatmap.First) into buckets of the
// n-bucket grid, inclusive; to < from when the span is empty or outside.
func ColumnBuckets(first []int, n, from, to int) (int, int) {
	if from < 0 || to < from || from >= len(first) {
		return 0, -1
	}
	b := first[from]
	e := n - 1
	if to+1 < len(first) {
		e = first[to+1] - 1
	}
	return b, e
}
