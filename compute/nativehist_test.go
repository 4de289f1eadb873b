package compute

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// nativeClose compares to 1e-12 relative.
func nativeClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func wantNative(t *testing.T, name string, got Value, want float64) {
	t.Helper()
	if !got.OK || !nativeClose(got.V, want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func mustNative(t *testing.T, count, sum float64, bs ...NativeBucket) NativeHistogram {
	t.Helper()
	h, err := NativeFromBuckets(count, sum, bs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestNativeQuantileKnownAnswer: schema 0 (bounds 0.5, 1, 2, 4) with 2, 4
// and 2 observations, as the API writes them: schema and indexes derived
// from the bounds; p50 = 1 + 1 x (4 - 2) / 4 = 1.5, p95 = 2 + 2 x (7.6 -
// 6) / 2 = 3.6, p99 = 2 + 2 x 1.92 / 2 = 3.92, mean 12 / 8.
func TestNativeQuantileKnownAnswer(t *testing.T) {
	h := mustNative(t, 8, 12,
		NativeBucket{Lower: 0.5, Upper: 1, Count: 2},
		NativeBucket{Lower: 1, Upper: 2, Count: 4},
		NativeBucket{Lower: 2, Upper: 4, Count: 2})
	if h.Schema != 0 || len(h.Positive) != 3 || h.Positive[0].Index != 0 || h.Positive[2].Index != 2 || h.ZeroThreshold != 0 {
		t.Fatalf("histogram %+v", h)
	}
	s := nativeHistogram(h).Summarize()
	wantNative(t, "p50", s.P50, 1.5)
	wantNative(t, "p95", s.P95, 3.6)
	wantNative(t, "p99", s.P99, 3.92)
	wantNative(t, "mean", s.Mean, 1.5)
	if s.Observations != 8 || s.NonMonotonic {
		t.Errorf("observations %v nonmonotonic %v", s.Observations, s.NonMonotonic)
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		if v := h.Quantile(q); v.OK {
			t.Errorf("q %v: %v, want undefined", q, v)
		}
	}
}

// TestNativeQuantileZeroBucket: zero bucket [-0.001, 0.001] with 2
// observations and (1, 2] with 2: with positive buckets only the zero
// bucket starts at 0 (Prometheus 2.42): p25 = 0.001 x 1/2, p50 = 0.001,
// p75 = 1 + 1 x 1/2. Only a zero bucket: interpolated from -0.001.
// Negative buckets come first: [-2, -1) and (1, 2] with 2 each: p25 =
// -2 + 1 x 1/2, p75 = 1.5.
func TestNativeQuantileZeroBucket(t *testing.T) {
	h := mustNative(t, 4, 3,
		NativeBucket{Boundaries: 3, Lower: -0.001, Upper: 0.001, Count: 2},
		NativeBucket{Lower: 1, Upper: 2, Count: 2})
	if h.ZeroThreshold != 0.001 || h.ZeroCount != 2 || h.Schema != 0 || len(h.Positive) != 1 || h.Positive[0].Index != 1 {
		t.Fatalf("histogram %+v", h)
	}
	wantNative(t, "p25", h.Quantile(0.25), 0.0005)
	wantNative(t, "p50", h.Quantile(0.5), 0.001)
	wantNative(t, "p75", h.Quantile(0.75), 1.5)

	z := mustNative(t, 2, 0, NativeBucket{Boundaries: 3, Lower: -0.001, Upper: 0.001, Count: 2})
	if z.Schema != NativeMaxSchema {
		t.Errorf("zero-only schema %d", z.Schema)
	}
	wantNative(t, "zero-only p50", z.Quantile(0.5), 0)
	wantNative(t, "zero-only p75", z.Quantile(0.75), 0.0005)

	n := mustNative(t, 4, 0,
		NativeBucket{Boundaries: 1, Lower: -2, Upper: -1, Count: 2},
		NativeBucket{Lower: 1, Upper: 2, Count: 2})
	if len(n.Negative) != 1 || n.Negative[0].Index != 1 {
		t.Fatalf("negative %+v", n)
	}
	wantNative(t, "neg p25", n.Quantile(0.25), -1.5)
	wantNative(t, "neg p75", n.Quantile(0.75), 1.5)
}

// TestNativeSumSchemas: A in schema 1 (factor sqrt 2: (1, 1.414] 3 and
// (1.414, 2] 1) plus B in schema 0 ((1, 2] 4, (2, 4] 4) is reduced to
// schema 0 as PromQL's sum does: (1, 2] 8, (2, 4] 4; p50 = 1 + 6/8 =
// 1.75, p95 = 2 + 2 x (11.4 - 8) / 4 = 3.7; mean (5 + 14) / 12. The
// order of the terms does not matter.
func TestNativeSumSchemas(t *testing.T) {
	a := mustNative(t, 4, 5,
		NativeBucket{Lower: 1, Upper: math.Sqrt2, Count: 3},
		NativeBucket{Lower: math.Sqrt2, Upper: 2, Count: 1})
	b := mustNative(t, 8, 14,
		NativeBucket{Lower: 1, Upper: 2, Count: 4},
		NativeBucket{Lower: 2, Upper: 4, Count: 4})
	if a.Schema != 1 || a.Positive[0].Index != 1 || a.Positive[1].Index != 2 {
		t.Fatalf("a %+v", a)
	}
	for _, s := range []Histogram{
		SumHistograms(nativeHistogram(a), nativeHistogram(b)),
		SumHistograms(nativeHistogram(b), nativeHistogram(a)),
	} {
		n := s.Native
		if n == nil || n.Schema != 0 || len(n.Positive) != 2 || n.Positive[0] != (NativeIndexBucket{1, 8}) || n.Positive[1] != (NativeIndexBucket{2, 4}) {
			t.Fatalf("sum %+v", n)
		}
		wantNative(t, "p50", s.Quantile(0.5), 1.75)
		wantNative(t, "p95", s.Quantile(0.95), 3.7)
		wantNative(t, "mean", s.Mean(), 19.0/12)
		if s.Observations() != 12 {
			t.Errorf("observations %v", s.Observations())
		}
	}
	// The inputs are not changed.
	if a.Schema != 1 || len(a.Positive) != 2 || a.Positive[0].Count != 3 {
		t.Errorf("a changed: %+v", a)
	}
}

// TestNativeSumZeroThresholds: A (zero bucket 0.001 with 1, (1, 2] 1)
// plus B (zero bucket 1.5 with 1, (2, 4] 2): B's threshold falls inside
// A's populated (1, 2], so the sum's zero bucket is [-2, 2] with 3
// observations (Prometheus' zeroCountForLargerThreshold), (2, 4] 2.
// p50: rank 2.5 in the zero bucket, from 0: 2 x 2.5 / 3; p90 = 2 + 2 x
// 1.5 / 2 = 3.5.
func TestNativeSumZeroThresholds(t *testing.T) {
	a := mustNative(t, 2, 1.5,
		NativeBucket{Boundaries: 3, Lower: -0.001, Upper: 0.001, Count: 1},
		NativeBucket{Lower: 1, Upper: 2, Count: 1})
	b := mustNative(t, 3, 6,
		NativeBucket{Boundaries: 3, Lower: -1.5, Upper: 1.5, Count: 1},
		NativeBucket{Lower: 2, Upper: 4, Count: 2})
	s := a.Add(b)
	if s.ZeroThreshold != 2 || s.ZeroCount != 3 || len(s.Positive) != 1 || s.Positive[0] != (NativeIndexBucket{2, 2}) || s.Count != 5 {
		t.Fatalf("sum %+v", s)
	}
	wantNative(t, "p50", s.Quantile(0.5), 2*2.5/3)
	wantNative(t, "p90", s.Quantile(0.9), 3.5)
}

// nh is a schema-0 histogram with counts per positive index from 1.
func nh(count, sum float64, counts ...float64) NativeHistogram {
	h := NativeHistogram{Count: count, Sum: sum}
	for i, c := range counts {
		if c != 0 {
			h.Positive = append(h.Positive, NativeIndexBucket{Index: int32(i + 1), Count: c})
		}
	}
	return h
}

// TestNativeIncreaseReset: samples at 1, 2, 3, 4 s; the one at 3 s is a
// counter reset (fewer observations). Increase over (1 s, 4 s]: (H1 - H0)
// + H2 + (H3 - H2) = (1, 2] 4, (2, 4] 4, count 8, sum 7 + 1.5 + 8.5:
// p50 = 1 + 4/4 = 2, p75 = 2 + 2 x 2/4 = 3, mean 17/8. Per bucket of a
// 1.5 s grid: (1, 2.5 s] holds H1 - H0, (2.5, 4 s] the rest.
func TestNativeIncreaseReset(t *testing.T) {
	s := NativeHistogramSeries{Samples: []NativeSample{
		{T: 1000, H: nh(2, 2, 2)},
		{T: 2000, H: nh(6, 9, 5, 1)},
		{T: 3000, H: nh(1, 1.5, 1)},
		{T: 4000, H: nh(4, 10, 1, 3)},
	}}
	inc := s.Increase(1000, 4000)
	if !inc.IsNative() || inc.Count != 8 || inc.Sum != 17 {
		t.Fatalf("increase %+v %+v", inc, inc.Native)
	}
	wantNative(t, "p50", inc.Quantile(0.5), 2)
	wantNative(t, "p75", inc.Quantile(0.75), 3)
	wantNative(t, "mean", inc.Mean(), 17.0/8)

	g := Grid{Start: 1000, End: 4000, Step: 1500}
	per := s.BucketIncreases(g)
	if len(per) != 2 || per[0].Count != 4 || per[1].Count != 4 || per[0].Sum != 7 || per[1].Sum != 10 {
		t.Fatalf("per bucket %+v", per)
	}
	wantNative(t, "bucket 0 p50", per[0].Quantile(0.5), 1+2.0/3)   // (1, 2] 3, (2, 4] 1: rank 2 of (1, 2]'s 3
	wantNative(t, "bucket 1 p50", per[1].Quantile(0.5), 2+2*1.0/3) // (1, 2] 1, (2, 4] 3: rank 1 of (2, 4]'s 3
	tot := SumOverBuckets(per)
	wantNative(t, "tiled p50", tot.Quantile(0.5), 2)
	// Two series summed per bucket: the same series twice doubles counts,
	// not quantiles.
	two := NativeIncreases([]NativeHistogramSeries{s, s}, g)
	if two[0].Count != 8 || two[1].Sum != 20 {
		t.Errorf("two series %+v", two)
	}
	wantNative(t, "two p50", SumOverBuckets(two).Quantile(0.5), 2)
}

// TestNativeIncreaseSchemaChange: a client that lowers its resolution
// (schema 1 to 0) is no reset: the later sample minus the earlier one
// reduced to schema 0. A finer schema is a reset (Prometheus'
// DetectReset).
func TestNativeIncreaseSchemaChange(t *testing.T) {
	h0 := NativeHistogram{Schema: 1, Count: 4, Sum: 5, Positive: []NativeIndexBucket{{1, 3}, {2, 1}}} // (1, 2] 4 in schema 0
	h1 := NativeHistogram{Schema: 0, Count: 6, Sum: 9, Positive: []NativeIndexBucket{{1, 5}, {2, 1}}}
	inc := NativeHistogramSeries{Samples: []NativeSample{{1000, h0}, {2000, h1}}}.Increase(0, 2000)
	n := inc.Native
	if n == nil || n.Schema != 0 || n.Count != 2 || len(n.Positive) != 2 || n.Positive[0] != (NativeIndexBucket{1, 1}) || n.Positive[1] != (NativeIndexBucket{2, 1}) {
		t.Fatalf("increase %+v", n)
	}
	finer := NativeHistogram{Schema: 1, Count: 7, Sum: 10, Positive: []NativeIndexBucket{{1, 7}}}
	inc = NativeHistogramSeries{Samples: []NativeSample{{1000, h1}, {2000, finer}}}.Increase(1000, 2000)
	if inc.Native == nil || inc.Count != 7 || inc.Native.Schema != 1 {
		t.Fatalf("finer schema: %+v", inc.Native)
	}
}

// TestNativeOddInput: no observations, an empty window, NaN samples,
// custom bucket bounds and classic plus native: undefined or an error,
// never a panic or a non-finite value.
func TestNativeOddInput(t *testing.T) {
	empty := mustNative(t, 0, 0)
	s := nativeHistogram(empty).Summarize()
	if s.P50.OK || s.P99.OK || s.Mean.OK || s.Observations != 0 {
		t.Errorf("empty: %+v", s)
	}
	zero := NativeHistogramSeries{Samples: []NativeSample{{1000, nh(2, 2, 2)}, {2000, nh(2, 2, 2)}}}.Increase(1000, 2000)
	if zero.Native == nil || zero.Quantile(0.5).OK || zero.Mean().OK {
		t.Errorf("zero increase: %+v", zero)
	}
	if none := (NativeHistogramSeries{}).Increase(0, 1000); none.Native != nil || none.Quantile(0.5).OK {
		t.Errorf("no samples: %+v", none)
	}
	nan := NativeHistogramSeries{Samples: []NativeSample{{1000, nh(2, 2, 2)}, {1500, nh(math.NaN(), 0)}, {2000, nh(3, 3, 3)}}}.Increase(1000, 2000)
	if nan.Count != 1 {
		t.Errorf("NaN sample not skipped: %+v", nan)
	}
	// All observations NaN: a count but no bucket.
	if v := mustNative(t, 3, math.NaN()).Quantile(0.5); v.OK {
		t.Errorf("no buckets: %v", v)
	}
	if _, err := NativeFromBuckets(3, 1, []NativeBucket{{Lower: 0.1, Upper: 0.25, Count: 3}}); err == nil || !strings.Contains(err.Error(), "custom buckets") {
		t.Errorf("custom bounds: %v", err)
	}
	mixed := SumHistograms(Histogram{Buckets: []HistogramBucket{{1, 1}, {math.Inf(1), 1}}, Count: 1}, nativeHistogram(nh(2, 2, 2)))
	if mixed.Quantile(0.5).OK {
		t.Errorf("classic + native: %v", mixed.Quantile(0.5))
	}
	// Extreme indexes give infinite bounds: undefined, not Inf.
	huge := NativeHistogram{Schema: 0, Count: 1, Positive: []NativeIndexBucket{{5000, 1}}}
	if v := huge.Quantile(0.5); v.OK {
		t.Errorf("huge: %v", v)
	}
}

// randomNative is a native histogram of a random schema with up to 12
// positive and 4 negative buckets (indexes -50..50) and maybe a zero
// bucket.
func randomNative(r *rand.Rand) NativeHistogram {
	h := NativeHistogram{Schema: int32(r.IntN(13)) - 4}
	pick := func(n int) []NativeIndexBucket {
		var bs []NativeIndexBucket
		for range n {
			bs = append(bs, NativeIndexBucket{Index: int32(r.IntN(101)) - 50, Count: float64(1 + r.IntN(20))})
		}
		return mergeIndexBuckets(bs)
	}
	h.Positive, h.Negative = pick(r.IntN(13)), pick(r.IntN(5))
	if r.IntN(3) == 0 {
		h.ZeroThreshold, h.ZeroCount = 1e-300, float64(r.IntN(5))
	}
	h.Count = h.ZeroCount
	for _, b := range append(append([]NativeIndexBucket(nil), h.Positive...), h.Negative...) {
		h.Count += b.Count
	}
	h.Sum = h.Count
	return h
}

// TestNativeProperties: on random histograms of every schema, writing the
// buckets as the API does and reading them back (NativeFromBuckets) gives
// the same schema, buckets and quantiles; quantiles rise with q and stay
// within the buckets' range; a sum is the same either way round and in the
// coarser schema; nothing is NaN or Inf.
func TestNativeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		h := randomNative(r)
		var api []NativeBucket
		for _, b := range h.buckets() {
			api = append(api, NativeBucket{Lower: b.lower, Upper: b.upper, Count: b.count})
		}
		back, err := NativeFromBuckets(h.Count, h.Sum, api)
		if err != nil {
			t.Fatalf("%d: %+v: %v", i, h, err)
		}
		if len(h.Positive)+len(h.Negative) > 0 && back.Schema != h.Schema {
			t.Fatalf("%d: schema %d, want %d", i, back.Schema, h.Schema)
		}
		if !slices.Equal(back.Positive, h.Positive) || !slices.Equal(back.Negative, h.Negative) || back.ZeroCount != h.ZeroCount {
			t.Fatalf("%d: read back %+v, want %+v", i, back, h)
		}
		bs := h.buckets()
		prev := math.Inf(-1)
		for _, q := range []float64{0.01, 0.25, 0.5, 0.75, 0.95, 0.99, 1} {
			v := h.Quantile(q)
			if h.Count == 0 {
				if v.OK {
					t.Fatalf("%d: empty histogram q %v = %v", i, q, v)
				}
				continue
			}
			if !v.OK || v.V < prev || v.V < bs[0].lower || v.V > bs[len(bs)-1].upper {
				t.Fatalf("%d: q %v = %v (previous %v, range %v..%v): %+v", i, q, v, prev, bs[0].lower, bs[len(bs)-1].upper, h)
			}
			if w := back.Quantile(q); !w.OK || !nativeClose(w.V, v.V) {
				t.Fatalf("%d: q %v read back %v, want %v", i, q, w, v)
			}
			prev = v.V
		}
		o := randomNative(r)
		ab, ba := h.Add(o), o.Add(h)
		if ab.Schema != min(h.Schema, o.Schema) || ab.Count != h.Count+o.Count {
			t.Fatalf("%d: sum schema %d count %v", i, ab.Schema, ab.Count)
		}
		for _, q := range []float64{0.5, 0.99} {
			if x, y := ab.Quantile(q), ba.Quantile(q); x != y || (ab.Count > 0 && !x.OK) {
				t.Fatalf("%d: q %v: %v either way %v", i, q, x, y)
			}
		}
	}
}
