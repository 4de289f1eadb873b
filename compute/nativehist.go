package compute

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Native histograms (Prometheus' sparse histograms with exponential
// buckets; client_golang's Histogram with NativeHistogramBucketFactor,
// scraped as protobuf by a Prometheus run with
// --enable-feature=native-histograms). One series holds one histogram
// sample per scrape under the plain metric name (no _bucket, _sum or
// _count series). Prometheus' HTTP API writes each sample as count, sum
// and its non-empty buckets, each [boundaries, lower, upper, count]
// (NativeBucket); the schema is not written, so NativeFromBuckets derives it
// from the bounds.
//
// As for classic histograms, specdash reads the samples at the grid's step
// points and differences them itself (NativeHistogramSeries.Increase,
// counter resets detected as Prometheus' FloatHistogram.DetectReset does),
// sums the increases over series bucket by bucket (NativeHistogram.Add:
// reduced to the coarser schema and the wider zero bucket, as PromQL's sum
// does), and takes quantiles as histogram_quantile does for native
// histograms in Prometheus 2.42 (NativeHistogram.Quantile: linear
// interpolation within the bucket; docs/METRICS.md, "Native histograms").

// NativeBucket is one bucket of a native histogram sample as Prometheus'
// HTTP API writes it (prometheus/common model.HistogramBucket): Count
// observations (not cumulative) between Lower and Upper. Boundaries says
// which bounds are inclusive: 0 (Lower, Upper] (positive buckets), 1
// [Lower, Upper) (negative buckets), 2 (Lower, Upper), 3 [Lower, Upper]
// (the zero bucket).
type NativeBucket struct {
	Boundaries   int32
	Lower, Upper float64
	Count        float64
}

// NativeIndexBucket is one bucket of a native histogram by its index in
// the histogram's schema: a positive bucket with index i holds
// observations in (2^((i-1)/2^schema), 2^(i/2^schema)], a negative one
// those in [-2^(i/2^schema), -2^((i-1)/2^schema)).
type NativeIndexBucket struct {
	Index int32
	Count float64
}

// NativeHistogram is a native histogram (a sample, or an increase summed
// over series and intervals): Schema (-4..8; bucket growth factor
// 2^(2^-Schema)), the zero bucket [-ZeroThreshold, ZeroThreshold] with
// ZeroCount observations, the positive and negative buckets in ascending
// Index (counts not cumulative; buckets with count 0 are left out), and the
// observations' Count (NaN observations included, as Prometheus counts
// them) and Sum.
type NativeHistogram struct {
	Schema        int32
	ZeroThreshold float64
	ZeroCount     float64
	Count, Sum    float64
	Positive      []NativeIndexBucket
	Negative      []NativeIndexBucket
}

// Native histogram schemas Prometheus accepts for exponential buckets.
const (
	NativeMinSchema int32 = -4
	NativeMaxSchema int32 = 8
)

// NativeBound returns the upper bound of the positive bucket index idx in
// schema (2^(idx / 2^schema)), as Prometheus' getBound (up to the last
// binary digit: Prometheus reads the fraction from a table).
func NativeBound(idx, schema int32) float64 {
	if schema <= 0 {
		return math.Ldexp(1, int(idx)<<uint(-schema))
	}
	frac := idx & (1<<uint(schema) - 1)
	exp := idx >> uint(schema)
	return math.Ldexp(math.Exp2(float64(frac)/float64(int32(1)<<uint(schema))), int(exp))
}

// nativeSchemaOf returns the schema whose growth factor is hi/lo (hi > lo
// > 0), false when none fits.
func nativeSchemaOf(lo, hi float64) (int32, bool) {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return 0, false
	}
	s := -math.Log2(math.Log2(hi / lo))
	r := math.Round(s)
	if math.IsNaN(s) || math.Abs(s-r) > 1e-6 || r < float64(NativeMinSchema) || r > float64(NativeMaxSchema) {
		return 0, false
	}
	return int32(r), true
}

// nativeIndexOf returns the index of the bucket whose upper (positive) or
// lower (negative, as magnitude) bound is b in schema, false when b is no
// bound of the schema.
func nativeIndexOf(b float64, schema int32) (int32, bool) {
	if !(b > 0) || math.IsInf(b, 0) {
		return 0, false
	}
	f := math.Round(math.Log2(b) * math.Ldexp(1, int(schema)))
	if math.Abs(f) > math.MaxInt32/2 {
		return 0, false
	}
	idx := int32(f)
	if nb := NativeBound(idx, schema); math.Abs(nb-b) > 1e-9*b {
		return 0, false
	}
	return idx, true
}

// NativeFromBuckets builds a NativeHistogram from a sample as Prometheus'
// HTTP API writes it: count, sum and the non-empty buckets. The zero
// bucket is the one holding 0 (its upper bound is the zero threshold; 0
// when the sample has no zero bucket); the schema is the one whose growth
// factor fits the other buckets' bounds (a bucket cut by the zero
// threshold, as the API writes the first one above it, is not used for
// that). A sample with only a zero bucket (or none) gets NativeMaxSchema:
// it has no bucket a coarser schema would merge. Errors: a bucket with
// bounds no exponential schema has (e.g. Prometheus 3's native histograms
// with custom buckets, schema -53), and buckets of different schemas.
func NativeFromBuckets(count, sum float64, bs []NativeBucket) (NativeHistogram, error) {
	h := NativeHistogram{Count: count, Sum: sum, Schema: NativeMaxSchema}
	zt := 0.0
	for _, b := range bs {
		if b.Lower <= 0 && b.Upper >= 0 {
			zt = math.Max(zt, math.Max(b.Upper, -b.Lower))
		}
	}
	// The schema: the finest that the bounds of an uncut bucket give.
	schema, found := int32(0), false
	for _, b := range bs {
		lo, hi := b.Lower, b.Upper
		if lo < 0 && hi < 0 {
			lo, hi = -hi, -lo
		}
		if lo <= 0 || lo <= zt {
			continue // the zero bucket, or cut by the zero threshold
		}
		s, ok := nativeSchemaOf(lo, hi)
		if !ok {
			return NativeHistogram{}, fmt.Errorf("native histogram bucket [%g, %g] fits no exponential schema (native histograms with custom buckets are not supported)", b.Lower, b.Upper)
		}
		if found && s != schema {
			return NativeHistogram{}, fmt.Errorf("native histogram buckets of schemas %d and %d in one sample", schema, s)
		}
		schema, found = s, true
	}
	if found {
		h.Schema = schema
	}
	h.ZeroThreshold = zt
	for _, b := range bs {
		switch {
		case b.Lower <= 0 && b.Upper >= 0:
			h.ZeroCount += b.Count
		case b.Lower >= 0:
			idx, ok := nativeIndexOf(b.Upper, h.Schema)
			if !ok {
				return NativeHistogram{}, fmt.Errorf("native histogram bucket (%g, %g] is not a bucket of schema %d", b.Lower, b.Upper, h.Schema)
			}
			h.Positive = append(h.Positive, NativeIndexBucket{Index: idx, Count: b.Count})
		default:
			idx, ok := nativeIndexOf(-b.Lower, h.Schema)
			if !ok {
				return NativeHistogram{}, fmt.Errorf("native histogram bucket [%g, %g) is not a bucket of schema %d", b.Lower, b.Upper, h.Schema)
			}
			h.Negative = append(h.Negative, NativeIndexBucket{Index: idx, Count: b.Count})
		}
	}
	h.Positive = mergeIndexBuckets(h.Positive)
	h.Negative = mergeIndexBuckets(h.Negative)
	return h, nil
}

// mergeIndexBuckets sorts buckets by index, sums equal indexes and drops
// buckets with count 0 (Prometheus' Compact(0)). It returns a new slice.
func mergeIndexBuckets(bs []NativeIndexBucket) []NativeIndexBucket {
	s := slices.Clone(bs)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Index < s[j].Index })
	out := s[:0]
	for _, b := range s {
		if n := len(out); n > 0 && out[n-1].Index == b.Index {
			out[n-1].Count += b.Count
			continue
		}
		out = append(out, b)
	}
	kept := out[:0]
	for _, b := range out {
		if b.Count != 0 {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// nativeTargetIndex maps a bucket index of schema from to the index of the
// bucket of the coarser schema to that holds it (Prometheus' targetIdx).
func nativeTargetIndex(idx, from, to int32) int32 {
	return ((idx - 1) >> uint(from-to)) + 1
}

// reduced returns h in the coarser schema s (h itself when s >= h.Schema):
// each bucket merged into the bucket of s that holds it (Prometheus'
// CopyToSchema).
func (h NativeHistogram) reduced(s int32) NativeHistogram {
	if s >= h.Schema {
		return h
	}
	re := func(bs []NativeIndexBucket) []NativeIndexBucket {
		out := make([]NativeIndexBucket, len(bs))
		for i, b := range bs {
			out[i] = NativeIndexBucket{Index: nativeTargetIndex(b.Index, h.Schema, s), Count: b.Count}
		}
		return mergeIndexBuckets(out)
	}
	r := h
	r.Schema = s
	r.Positive, r.Negative = re(h.Positive), re(h.Negative)
	return r
}

// widenedZero returns h with a zero bucket at least as wide as thr: the
// buckets it then covers are merged into it, and when thr falls inside a
// populated bucket the threshold becomes that bucket's outer bound
// (Prometheus' zeroCountForLargerThreshold and trimBucketsInZeroBucket).
func (h NativeHistogram) widenedZero(thr float64) NativeHistogram {
	if thr <= h.ZeroThreshold {
		return h
	}
outer:
	for {
		count := h.ZeroCount
		for _, b := range h.Positive {
			lo, hi := NativeBound(b.Index-1, h.Schema), NativeBound(b.Index, h.Schema)
			if lo >= thr {
				break
			}
			count += b.Count
			if hi > thr {
				thr = hi
				break
			}
		}
		for _, b := range h.Negative { // from the one nearest 0
			lo, hi := NativeBound(b.Index-1, h.Schema), NativeBound(b.Index, h.Schema) // magnitudes
			if lo >= thr {
				break
			}
			count += b.Count
			if hi > thr {
				thr = hi
				continue outer
			}
		}
		r := h
		r.ZeroCount, r.ZeroThreshold = count, thr
		keep := func(bs []NativeIndexBucket) []NativeIndexBucket {
			var out []NativeIndexBucket
			for _, b := range bs {
				if NativeBound(b.Index-1, h.Schema) >= thr {
					out = append(out, b)
				}
			}
			return out
		}
		r.Positive, r.Negative = keep(h.Positive), keep(h.Negative)
		return r
	}
}

// reconcile returns a and b in the coarser of their schemas with the wider
// of their zero buckets (Prometheus' Add and Sub).
func reconcile(a, b NativeHistogram) (NativeHistogram, NativeHistogram) {
	s := min(a.Schema, b.Schema)
	a, b = a.reduced(s), b.reduced(s)
	for a.ZeroThreshold != b.ZeroThreshold {
		if a.ZeroThreshold > b.ZeroThreshold {
			b = b.widenedZero(a.ZeroThreshold)
		} else {
			a = a.widenedZero(b.ZeroThreshold)
		}
	}
	return a, b
}

// combine returns a + sign x b bucket by bucket.
func combine(a, b NativeHistogram, sign float64) NativeHistogram {
	a, b = reconcile(a, b)
	add := func(x, y []NativeIndexBucket) []NativeIndexBucket {
		out := make([]NativeIndexBucket, 0, len(x)+len(y))
		out = append(out, x...)
		for _, v := range y {
			out = append(out, NativeIndexBucket{Index: v.Index, Count: sign * v.Count})
		}
		return mergeIndexBuckets(out)
	}
	return NativeHistogram{
		Schema:        a.Schema,
		ZeroThreshold: a.ZeroThreshold,
		ZeroCount:     a.ZeroCount + sign*b.ZeroCount,
		Count:         a.Count + sign*b.Count,
		Sum:           a.Sum + sign*b.Sum,
		Positive:      add(a.Positive, b.Positive),
		Negative:      add(a.Negative, b.Negative),
	}
}

// Add returns h + o bucket by bucket, in the coarser of the two schemas and
// with the wider zero bucket, as PromQL's sum adds native histograms.
func (h NativeHistogram) Add(o NativeHistogram) NativeHistogram {
	return combine(h, o, 1)
}

// nativeSum accumulates native histograms (nil: nothing added yet, so the
// zero value's schema 0 never coarsens a sum).
type nativeSum struct{ h *NativeHistogram }

func (s *nativeSum) add(x NativeHistogram) {
	if s.h == nil {
		s.h = &x
		return
	}
	r := s.h.Add(x)
	s.h = &r
}

// histogram wraps the sum as a Histogram (Native nil when nothing was
// added).
func (s nativeSum) histogram() Histogram {
	if s.h == nil {
		return Histogram{}
	}
	return nativeHistogram(*s.h)
}

// resetFrom reports whether h (a later sample of a counter histogram) is a
// counter reset after prev, with the rules of Prometheus'
// FloatHistogram.DetectReset: fewer observations, a finer schema, a
// narrower zero bucket, or any bucket (prev in h's schema) with fewer
// observations.
func (h NativeHistogram) resetFrom(prev NativeHistogram) bool {
	switch {
	case h.Count < prev.Count, h.Schema > prev.Schema, h.ZeroThreshold < prev.ZeroThreshold:
		return true
	}
	p := prev.reduced(h.Schema).widenedZero(h.ZeroThreshold)
	if p.ZeroThreshold != h.ZeroThreshold || h.ZeroCount < p.ZeroCount {
		return true
	}
	fewer := func(cur, old []NativeIndexBucket) bool {
		have := make(map[int32]float64, len(cur))
		for _, b := range cur {
			have[b.Index] = b.Count
		}
		for _, b := range old {
			if have[b.Index] < b.Count {
				return true
			}
		}
		return false
	}
	return fewer(h.Positive, p.Positive) || fewer(h.Negative, p.Negative)
}

// usableNative reports whether a sample can be differenced (no NaN or
// infinite count or sum).
func usableNative(h NativeHistogram) bool {
	return usable(h.Count) && !math.IsNaN(h.Sum) && !math.IsInf(h.Sum, 0)
}

// nativeStep returns the increase from prev to cur: cur - prev, or cur
// when cur is a counter reset (resetFrom).
func nativeStep(prev, cur NativeHistogram) NativeHistogram {
	if cur.resetFrom(prev) {
		return cur
	}
	return combine(cur, prev, -1)
}

// NativeSample is one native histogram sample at T (Unix ms).
type NativeSample struct {
	T int64
	H NativeHistogram
}

// NativeHistogramSeries is one native histogram series (one label set):
// its samples in ascending T.
type NativeHistogramSeries struct {
	// Labels are the identifying labels without __name__.
	Labels  map[string]string
	Samples []NativeSample
}

// Increase returns the series' increase over (from, to] (Unix ms) as a
// Histogram (Native set; Count and Sum the increases of the count and
// sum; the zero Histogram when no step lies inside), with Increase's rules for a counter of unknown start: the last
// sample at or before from is the base (without one, the first sample
// inside is, and is not counted), each later step is cur - prev, or cur
// after a counter reset.
func (s NativeHistogramSeries) Increase(from, to int64) Histogram {
	var sum nativeSum
	if to > from {
		var prev NativeHistogram
		havePv := false
		for _, p := range s.Samples {
			if !usableNative(p.H) {
				continue
			}
			if p.T <= from {
				prev, havePv = p.H, true
				continue
			}
			if p.T > to {
				break
			}
			if havePv {
				sum.add(nativeStep(prev, p.H))
			}
			prev, havePv = p.H, true
		}
	}
	return sum.histogram()
}

// nativeHistogram wraps n as a Histogram.
func nativeHistogram(n NativeHistogram) Histogram {
	return Histogram{Native: &n, Sum: n.Sum, Count: n.Count}
}

// BucketIncreases returns the series' increase in each bucket of g
// (element j covers (g.BucketStart(j), g.BucketEnd(j)]); each step between
// consecutive usable samples is counted in the bucket holding its later
// sample, so the buckets tile the grid; a bucket without a step is the
// zero Histogram. g.Buckets() elements.
func (s NativeHistogramSeries) BucketIncreases(g Grid) []Histogram {
	n := g.Buckets()
	out := make([]Histogram, n)
	if n == 0 {
		return out
	}
	sums := make([]nativeSum, n)
	end := g.Start + int64(n)*g.Step
	var prev NativeHistogram
	havePv := false
	for _, p := range s.Samples {
		if !usableNative(p.H) {
			continue
		}
		if p.T <= g.Start {
			prev, havePv = p.H, true
			continue
		}
		if p.T > end {
			break
		}
		if havePv {
			j := (p.T - g.Start - 1) / g.Step
			sums[j].add(nativeStep(prev, p.H))
		}
		prev, havePv = p.H, true
	}
	for j := range out {
		out[j] = sums[j].histogram()
	}
	return out
}

// NativeIncreases sums the increases of native series in each bucket of g
// (NativeHistogram.Add: ratio of sums, coarser schema): element j sums
// every series' BucketIncreases(g)[j]. g.Buckets() elements.
func NativeIncreases(series []NativeHistogramSeries, g Grid) []Histogram {
	return bucketIncreases(series, g)
}

// nativeBucketBounds is one bucket of a native histogram in the order
// Prometheus' AllBucketIterator visits them.
type nativeBucketBounds struct {
	lower, upper, count float64
	zero                bool
}

// buckets lists h's buckets as Prometheus 2.42's AllBucketIterator does:
// negative buckets from the lowest, the zero bucket when it has
// observations, positive buckets ascending; a bucket cut by the zero
// bucket ends at its bound.
func (h NativeHistogram) buckets() []nativeBucketBounds {
	out := make([]nativeBucketBounds, 0, len(h.Negative)+1+len(h.Positive))
	for i := len(h.Negative) - 1; i >= 0; i-- {
		b := h.Negative[i]
		lo, hi := -NativeBound(b.Index, h.Schema), -NativeBound(b.Index-1, h.Schema)
		if hi > -h.ZeroThreshold {
			hi = -h.ZeroThreshold
		}
		out = append(out, nativeBucketBounds{lower: lo, upper: hi, count: b.Count})
	}
	if h.ZeroCount > 0 {
		out = append(out, nativeBucketBounds{lower: -h.ZeroThreshold, upper: h.ZeroThreshold, count: h.ZeroCount, zero: true})
	}
	for _, b := range h.Positive {
		lo, hi := NativeBound(b.Index-1, h.Schema), NativeBound(b.Index, h.Schema)
		if lo < h.ZeroThreshold {
			lo = h.ZeroThreshold
		}
		out = append(out, nativeBucketBounds{lower: lo, upper: hi, count: b.Count})
	}
	return out
}

// Quantile returns the q-quantile of h as Prometheus 2.42's
// histogram_quantile computes it for a native histogram
// (promql/quantile.go, histogramQuantile, v2.42.0):
//   - rank = q x Count; the quantile lies in the first bucket (in
//     AllBucketIterator's order: negative, zero, positive) where the
//     running count reaches the rank;
//   - in the zero bucket: from 0 when the histogram has positive but no
//     negative buckets, to 0 when it has only negative buckets;
//   - the running count is capped at Count (float noise); when it stays
//     below the rank (NaN observations), the upper bound of the last
//     bucket;
//   - else linear interpolation within the bucket: lower + (upper - lower)
//     x (rank - count below) / bucket's count.
//
// Prometheus 3.0 interpolates exponentially within the buckets of
// exponential schemas instead (prometheus/prometheus PR #14677); specdash
// follows the version it is tested against (docs/METRICS.md).
//
// Undefined where Prometheus gives NaN or +-Inf (q outside [0, 1] or NaN,
// no observations) and where it gives 0 for a histogram without buckets (all
// observations NaN): no bucket, no quantile.
func (h NativeHistogram) Quantile(q float64) Value {
	if math.IsNaN(q) || q < 0 || q > 1 || !(h.Count > 0) {
		return Value{}
	}
	bs := h.buckets()
	if len(bs) == 0 {
		return Value{}
	}
	rank := q * h.Count
	var (
		b     nativeBucketBounds
		count float64
	)
	for _, b = range bs {
		count += b.count
		if count >= rank {
			break
		}
	}
	if b.lower < 0 && b.upper > 0 {
		switch {
		case len(h.Negative) == 0 && len(h.Positive) > 0:
			b.lower = 0
		case len(h.Positive) == 0 && len(h.Negative) > 0:
			b.upper = 0
		}
	}
	if count > h.Count {
		count = h.Count
	}
	if count < rank {
		return Defined(b.upper)
	}
	rank -= count - b.count
	return Defined(b.lower + (b.upper-b.lower)*(rank/b.count))
}
