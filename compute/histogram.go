package compute

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Latency maths for Prometheus classic histograms, such as vLLM's
// vllm:inter_token_latency_seconds (formerly
// vllm:time_per_output_token_seconds) and vllm:iteration_tokens_total: one
// cumulative counter per bucket (<name>_bucket{le="..."}, observations <=
// le), plus <name>_sum and <name>_count. As for the spec-decode counters,
// specdash reads the raw bucket counters at step points and differences them
// itself (reset-aware, no extrapolation: Increase), sums the increases over
// series bucket by bucket (the ratio of sums: the equivalent of PromQL's
// sum by (le) (...)), then takes quantiles exactly as Prometheus'
// histogram_quantile does (Histogram.Quantile).

// HistogramBucket is one bucket of a classic histogram: Count observations
// were <= UpperBound (cumulative, as the le label says).
type HistogramBucket struct {
	UpperBound float64
	Count      float64
}

// Histogram is a classic histogram's increase over one interval (summed over
// series): cumulative buckets in ascending UpperBound, the last +Inf when the
// source exports it, and the increases of <name>_sum (in the observed unit,
// seconds for latencies) and <name>_count (observations).
//
// A native histogram's increase (NativeHistogramSeries) has Native set and
// no Buckets; Sum and Count are then its sum and count. Add, Quantile,
// Mean, Observations and Summarize take either kind.
type Histogram struct {
	Buckets []HistogramBucket
	Sum     float64
	Count   float64
	// Native is the increase of a native histogram (nil for a classic
	// one). Never modified in place: histograms share it.
	Native *NativeHistogram
}

// HistogramBucketSeries is the counter of one bucket of one histogram series:
// its le bound and its values at ascending times.
type HistogramBucketSeries struct {
	UpperBound float64
	Points     []Point
}

// HistogramSeries is one classic histogram series (one label set): its
// bucket counters and its _sum and _count counters.
type HistogramSeries struct {
	// Labels are the identifying labels without __name__ and le.
	Labels  map[string]string
	Buckets []HistogramBucketSeries
	Sum     []Point
	Count   []Point
	// Created is when the histogram started from 0 (Unix ms; 0 unknown),
	// as Series.Created.
	Created int64
}

// ParseUpperBound parses a le label value ("0.005", "+Inf", "1e+01") as
// Prometheus does (strconv.ParseFloat accepts "+Inf" and "Inf").
func ParseUpperBound(le string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(le), 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// Increase returns the histogram's increase over (from, to] (Unix ms): each
// bucket counter, _sum and _count differenced with IncreaseSince's rules
// (resets, stale markers, no extrapolation; Created as the series' start).
// Buckets with equal bounds are merged (summed) and sorted. The _sum is
// treated as a counter (a decrease is a reset), which holds for latencies
// and token counts (never negative observations).
func (h HistogramSeries) Increase(from, to int64) Histogram {
	out := Histogram{
		Sum:   IncreaseSince(h.Sum, h.Created, from, to),
		Count: IncreaseSince(h.Count, h.Created, from, to),
	}
	for _, b := range h.Buckets {
		out.Buckets = append(out.Buckets, HistogramBucket{UpperBound: b.UpperBound, Count: IncreaseSince(b.Points, h.Created, from, to)})
	}
	return out.normalized()
}

// BucketIncreases returns the histogram's increase in each bucket of g
// (element j covers (g.BucketStart(j), g.BucketEnd(j)]), with the rules of
// BucketIncreasesSince; g.Buckets() elements.
func (h HistogramSeries) BucketIncreases(g Grid) []Histogram {
	n := g.Buckets()
	out := make([]Histogram, n)
	if n == 0 {
		return out
	}
	sum := BucketIncreasesSince(h.Sum, h.Created, g)
	cnt := BucketIncreasesSince(h.Count, h.Created, g)
	per := make([][]float64, len(h.Buckets))
	for i, b := range h.Buckets {
		per[i] = BucketIncreasesSince(b.Points, h.Created, g)
	}
	for j := range out {
		hj := Histogram{Sum: sum[j], Count: cnt[j], Buckets: make([]HistogramBucket, len(h.Buckets))}
		for i, b := range h.Buckets {
			hj.Buckets[i] = HistogramBucket{UpperBound: b.UpperBound, Count: per[i][j]}
		}
		out[j] = hj.normalized()
	}
	return out
}

// normalized sorts the buckets by bound and merges equal bounds (PromQL's
// coalesceBuckets), dropping NaN bounds. Buckets already in that form (as
// every Histogram this package returns) are returned as they are, not
// copied: a caller that changes them clones them first.
func (h Histogram) normalized() Histogram {
	if ascending(h.Buckets) {
		return h
	}
	bs := make([]HistogramBucket, 0, len(h.Buckets))
	for _, b := range h.Buckets {
		if !math.IsNaN(b.UpperBound) {
			bs = append(bs, b)
		}
	}
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].UpperBound < bs[j].UpperBound })
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 && out[n-1].UpperBound == b.UpperBound {
			out[n-1].Count += b.Count
			continue
		}
		out = append(out, b)
	}
	h.Buckets = out
	return h
}

// ascending reports whether bs's bounds strictly increase (so none is NaN
// and none repeats): the normalized form.
func ascending(bs []HistogramBucket) bool {
	for i, b := range bs {
		if math.IsNaN(b.UpperBound) || (i > 0 && !(b.UpperBound > bs[i-1].UpperBound)) {
			return false
		}
	}
	return true
}

// Add returns h + o: bucket counts of equal bounds summed (a bound only one
// of them has keeps its count), Sum and Count summed. It is PromQL's
// sum by (le) over two series. Native histograms are added with
// NativeHistogram.Add (PromQL's sum of native histograms). Normalized
// inputs (every Histogram this package returns) are merged in one pass, in
// the same order of additions as normalized's.
func (h Histogram) Add(o Histogram) Histogram {
	r := Histogram{Sum: h.Sum + o.Sum, Count: h.Count + o.Count}
	switch {
	case h.Native != nil && o.Native != nil:
		n := h.Native.Add(*o.Native)
		r.Native = &n
	case h.Native != nil:
		r.Native = h.Native
	case o.Native != nil:
		r.Native = o.Native
	}
	if !ascending(h.Buckets) || !ascending(o.Buckets) {
		r.Buckets = make([]HistogramBucket, 0, len(h.Buckets)+len(o.Buckets))
		r.Buckets = append(append(r.Buckets, h.Buckets...), o.Buckets...)
		return r.normalized()
	}
	a, b := h.Buckets, o.Buckets
	out := make([]HistogramBucket, 0, max(len(a), len(b)))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0].UpperBound < b[0].UpperBound):
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0].UpperBound < a[0].UpperBound:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, HistogramBucket{UpperBound: a[0].UpperBound, Count: a[0].Count + b[0].Count})
			a, b = a[1:], b[1:]
		}
	}
	r.Buckets = out
	return r
}

// IsNative reports whether h is a native histogram's increase.
func (h Histogram) IsNative() bool { return h.Native != nil }

// SumHistograms sums histograms bucket by bucket (Add): the increases of
// several series combined before any quantile or mean is taken (a ratio of
// sums, never an average of per-series quantiles).
func SumHistograms(hs ...Histogram) Histogram {
	var r Histogram
	for _, h := range hs {
		r = r.Add(h)
	}
	return r
}

// HistogramIncreases sums the increases of series in each bucket of g:
// element j is SumHistograms of every series' BucketIncreases(g)[j].
// g.Buckets() elements.
func HistogramIncreases(series []HistogramSeries, g Grid) []Histogram {
	return bucketIncreases(series, g)
}

// bucketIncreases sums, bucket by bucket of g, the BucketIncreases of
// classic or native histogram series.
func bucketIncreases[S interface{ BucketIncreases(Grid) []Histogram }](series []S, g Grid) []Histogram {
	out := make([]Histogram, g.Buckets())
	for _, s := range series {
		for j, h := range s.BucketIncreases(g) {
			out[j] = out[j].Add(h)
		}
	}
	return out
}

// SumOverBuckets sums a run of per-bucket histograms (a window made of grid
// buckets): the window's histogram, equal to the increase over the whole
// window since increases tile.
func SumOverBuckets(hs []Histogram) Histogram { return SumHistograms(hs...) }

// Mean returns Sum / Count (e.g. the mean inter-token latency in seconds),
// undefined without observations.
func (h Histogram) Mean() Value { return ratio(h.Sum, h.Count) }

// Observations returns the count of the +Inf bucket (the number of
// observations the buckets saw), or Count when there is no +Inf bucket (and
// for a native histogram).
func (h Histogram) Observations() float64 {
	if n := len(h.Buckets); n > 0 && math.IsInf(h.Buckets[n-1].UpperBound, 1) {
		return h.Buckets[n-1].Count
	}
	return h.Count
}

// Quantile returns the q-quantile of the histogram exactly as Prometheus'
// histogram_quantile computes it for classic buckets (promql/quantile.go,
// bucketQuantile):
//   - buckets are sorted by bound and equal bounds merged;
//   - counts within a relative 1e-12 of the previous bucket's are set equal
//     to it (float noise), then any decrease between consecutive buckets is
//     raised to the running maximum (the monotonicity fix; NonMonotonic
//     reports it);
//   - the rank is q x the +Inf bucket's count; the quantile lies in the
//     first bucket whose count >= rank, found among all but the +Inf bucket;
//   - in the +Inf bucket: the upper bound of the second-highest bucket;
//   - in the lowest bucket: when its upper bound is <= 0, that bound;
//     otherwise the bucket starts at 0;
//   - else linear interpolation between the bucket's lower and upper bound:
//     lower + (upper - lower) x (rank - count below) / (bucket's count).
//
// Undefined (where Prometheus gives NaN or +-Inf): q outside [0, 1] or NaN,
// no +Inf bucket, fewer than two buckets, no observations, and a result that
// is not finite (q = 0 with an empty lowest bucket divides 0 by 0).
//
// A native histogram's quantile is NativeHistogram.Quantile; a sum of
// classic and native histograms has none (Prometheus cannot add them
// either).
func (h Histogram) Quantile(q float64) Value {
	if h.Native != nil {
		if len(h.Buckets) > 0 {
			return Value{}
		}
		return h.Native.Quantile(q)
	}
	v, _ := h.quantile(q)
	return v
}

// NonMonotonic reports whether the cumulative bucket counts decrease
// somewhere (beyond Prometheus' float tolerance): Prometheus' quantile then
// forces monotonicity and annotates the answer; specdash notes it.
func (h Histogram) NonMonotonic() bool {
	bs := h.normalized().Buckets
	if len(bs) == 0 {
		return false
	}
	bs = slices.Clone(bs)
	correctPrecision(bs)
	return forceMonotonic(bs)
}

func (h Histogram) quantile(q float64) (Value, bool) {
	if math.IsNaN(q) || q < 0 || q > 1 {
		return Value{}, false
	}
	bs := slices.Clone(h.normalized().Buckets)
	if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].UpperBound, 1) {
		return Value{}, false
	}
	correctPrecision(bs)
	forced := forceMonotonic(bs)
	if len(bs) < 2 {
		return Value{}, forced
	}
	obs := bs[len(bs)-1].Count
	if obs == 0 {
		return Value{}, forced
	}
	rank := q * obs
	b := sort.Search(len(bs)-1, func(i int) bool { return bs[i].Count >= rank })
	if b == len(bs)-1 {
		return Defined(bs[len(bs)-2].UpperBound), forced
	}
	if b == 0 && bs[0].UpperBound <= 0 {
		return Defined(bs[0].UpperBound), forced
	}
	start, end, count := 0.0, bs[b].UpperBound, bs[b].Count
	if b > 0 {
		start = bs[b-1].UpperBound
		count -= bs[b-1].Count
		rank -= bs[b-1].Count
	}
	return Defined(start + (end-start)*(rank/count)), forced
}

// correctPrecision sets a bucket's count to the previous one's when they
// differ by a relative 1e-12 or less (Prometheus' correctPrecisionErrors).
func correctPrecision(bs []HistogramBucket) {
	prev := bs[0].Count
	for i := 1; i < len(bs); i++ {
		cur := bs[i].Count
		d := math.Abs(cur - prev)
		if d == 0 {
			continue
		}
		if d/cur <= 1e-12 {
			bs[i].Count = prev
		} else {
			prev = cur
		}
	}
}

// forceMonotonic raises each count to the running maximum (Prometheus'
// ensureMonotonic) and reports whether it changed anything.
func forceMonotonic(bs []HistogramBucket) bool {
	forced := false
	mx := bs[0].Count
	for i := 1; i < len(bs); i++ {
		switch {
		case bs[i].Count > mx:
			mx = bs[i].Count
		case bs[i].Count < mx:
			bs[i].Count = mx
			forced = true
		}
	}
	return forced
}

// LatencySummary are the numbers vLLM's Grafana dashboard shows for a
// latency histogram over one interval: p50, p95, p99 (histogram_quantile)
// and the mean (sum / count), in the histogram's unit (seconds), and the
// number of observations.
type LatencySummary struct {
	P50, P95, P99, Mean Value
	Observations        float64
	// NonMonotonic is set when the bucket counts had to be made monotonic
	// (inconsistent data at the source).
	NonMonotonic bool
}

// Summarize returns h's LatencySummary.
func (h Histogram) Summarize() LatencySummary {
	return LatencySummary{
		P50:          h.Quantile(0.5),
		P95:          h.Quantile(0.95),
		P99:          h.Quantile(0.99),
		Mean:         h.Mean(),
		Observations: h.Observations(),
		NonMonotonic: h.NonMonotonic(),
	}
}
