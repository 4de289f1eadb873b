package compute

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
)

func hb(bounds []float64, counts []float64) []HistogramBucket {
	out := make([]HistogramBucket, len(bounds))
	for i := range bounds {
		out[i] = HistogramBucket{UpperBound: bounds[i], Count: counts[i]}
	}
	return out
}

var inf = math.Inf(1)

func wantValue(t *testing.T, what string, got Value, want float64, ok bool) {
	t.Helper()
	if got.OK != ok || (ok && math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %v, want %v (defined %v)", what, got, want, ok)
	}
}

// TestHistogramQuantileKnownAnswers checks histogram_quantile's rules on
// hand-computed histograms.
func TestHistogramQuantileKnownAnswers(t *testing.T) {
	// le 0.01, 0.025, 0.05, 0.1, +Inf: cumulative 10, 30, 60, 90, 100.
	h := Histogram{Buckets: hb([]float64{0.01, 0.025, 0.05, 0.1, inf}, []float64{10, 30, 60, 90, 100}), Sum: 4.2, Count: 100}
	cases := []struct {
		q    float64
		want float64
		ok   bool
	}{
		// rank 50 in (0.025, 0.05]: 0.025 + 0.025 * (50-30)/(60-30).
		{0.5, 0.025 + 0.025*20.0/30, true},
		// rank 95 and 99 lie in the +Inf bucket: the second-highest bound.
		{0.95, 0.1, true},
		{0.99, 0.1, true},
		{1, 0.1, true},
		// rank 5 in the lowest bucket, which starts at 0: 0.01 * 5/10.
		{0.05, 0.005, true},
		// rank 30 exactly at a bucket's count: that bucket's upper bound.
		{0.3, 0.025, true},
		// rank 90: the first bucket with count >= 90 is le=0.1.
		{0.9, 0.1, true},
		// rank 0: the lowest bucket's start.
		{0, 0, true},
		// outside [0, 1]: Prometheus gives -Inf / +Inf / NaN: undefined.
		{-0.1, 0, false},
		{1.1, 0, false},
		{math.NaN(), 0, false},
	}
	for _, c := range cases {
		wantValue(t, "quantile", h.Quantile(c.q), c.want, c.ok)
	}
	wantValue(t, "mean", h.Mean(), 0.042, true)
	s := h.Summarize()
	wantValue(t, "p50", s.P50, 0.025+0.025*20.0/30, true)
	wantValue(t, "p99", s.P99, 0.1, true)
	if s.Observations != 100 || s.NonMonotonic {
		t.Errorf("summary %+v", s)
	}

	// Unsorted input with a duplicated bound: sorted and merged first.
	u := Histogram{Buckets: hb([]float64{inf, 0.05, 0.01, 0.05}, []float64{100, 40, 10, 20})}
	// Merged: 0.01:10, 0.05:60, +Inf:100. rank 50: 0.01 + 0.04*(40/50).
	wantValue(t, "merged p50", u.Quantile(0.5), 0.01+0.04*40.0/50, true)

	// Lowest bound <= 0: the quantile in the lowest bucket is that bound.
	n := Histogram{Buckets: hb([]float64{-1, 0, 1, inf}, []float64{5, 10, 20, 20})}
	wantValue(t, "negative lowest", n.Quantile(0.1), -1, true)
	// rank 8 in (-1, 0]: -1 + 1 * 3/5.
	wantValue(t, "second bucket", n.Quantile(0.4), -1+3.0/5, true)

	// Non-monotonic counts are raised to the running maximum: 10, 10, 20,
	// 20. rank 10 -> first count >= 10 is le=1: 0 + 1 * 10/10.
	nm := Histogram{Buckets: hb([]float64{1, 2, 4, inf}, []float64{10, 8, 20, 20})}
	if !nm.NonMonotonic() {
		t.Error("NonMonotonic = false for 10, 8, 20")
	}
	wantValue(t, "non-monotonic p50", nm.Quantile(0.5), 1, true)
	// rank 15 in (2, 4] after the fix: 2 + 2 * (15-10)/(20-10).
	wantValue(t, "non-monotonic p75", nm.Quantile(0.75), 3, true)

	// Float noise within 1e-12 is not a decrease.
	fn := Histogram{Buckets: hb([]float64{1, 2, inf}, []float64{1e6, 1e6 - 1e-7, 2e6})}
	if fn.NonMonotonic() {
		t.Error("float noise reported as non-monotonic")
	}

	// Undefined cases.
	for name, u := range map[string]Histogram{
		"no +Inf bucket":   {Buckets: hb([]float64{0.1, 1}, []float64{1, 2})},
		"only +Inf":        {Buckets: hb([]float64{inf}, []float64{5})},
		"no observations":  {Buckets: hb([]float64{0.1, inf}, []float64{0, 0})},
		"no buckets":       {},
		"NaN bound only":   {Buckets: hb([]float64{math.NaN()}, []float64{1})},
		"empty first, q=0": {Buckets: hb([]float64{0.1, 1, inf}, []float64{0, 3, 3})},
	} {
		q := 0.5
		if name == "empty first, q=0" {
			q = 0
		}
		if v := u.Quantile(q); v.OK {
			t.Errorf("%s: quantile %v, want undefined", name, v)
		}
	}
	if v := (Histogram{}).Mean(); v.OK {
		t.Errorf("mean without observations = %v", v)
	}
}

// TestHistogramSeriesIncreases: bucket counters differenced per series with
// a reset, summed across series by bound, per grid bucket and over the
// window.
func TestHistogramSeriesIncreases(t *testing.T) {
	pts := func(vs ...float64) []Point {
		out := make([]Point, len(vs))
		for i, v := range vs {
			out[i] = Point{T: int64(i) * 1000, V: v}
		}
		return out
	}
	// Series a: t=0..4 s. le=0.1: 0, 2, 5, 1 (reset), 3; le=+Inf: 0, 4,
	// 8, 2, 6; sum 0, 0.3, 0.7, 0.1, 0.5; count as +Inf.
	a := HistogramSeries{
		Buckets: []HistogramBucketSeries{
			{UpperBound: inf, Points: pts(0, 4, 8, 2, 6)},
			{UpperBound: 0.1, Points: pts(0, 2, 5, 1, 3)},
		},
		Sum:   pts(0, 0.25, 0.75, 0.125, 0.5),
		Count: pts(0, 4, 8, 2, 6),
	}
	// Series b: other layout (le=0.5 too), no reset.
	b := HistogramSeries{
		Buckets: []HistogramBucketSeries{
			{UpperBound: 0.1, Points: pts(10, 10, 11, 11, 12)},
			{UpperBound: 0.5, Points: pts(20, 21, 22, 23, 24)},
			{UpperBound: inf, Points: pts(30, 31, 32, 33, 34)},
		},
		Sum:   pts(5, 5.5, 6, 6.5, 7),
		Count: pts(30, 31, 32, 33, 34),
	}
	// Window (0, 4 s]: a: le=0.1 2+3+1+2 = 8, +Inf 4+4+2+4 = 14, sum
	// 0.25+0.5+0.125+0.375 = 1.25, count 14. b: 2, 4, 4, sum 2, count 4.
	ha := a.Increase(0, 4000)
	if got := ha.Buckets; len(got) != 2 || got[0] != (HistogramBucket{0.1, 8}) || got[1] != (HistogramBucket{inf, 14}) || ha.Count != 14 || ha.Sum != 1.25 {
		t.Errorf("a over the window: %+v", ha)
	}
	tot := SumHistograms(ha, b.Increase(0, 4000))
	want := []HistogramBucket{{0.1, 10}, {0.5, 4}, {inf, 18}}
	if len(tot.Buckets) != 3 || tot.Buckets[0] != want[0] || tot.Buckets[1] != want[1] || tot.Buckets[2] != want[2] || tot.Count != 18 || tot.Sum != 3.25 {
		t.Errorf("sum by le: %+v, want %v, count 18, sum 3.25", tot, want)
	}
	// A bound that only one series has makes the sum non-monotonic (le=0.5
	// 4 < le=0.1 10), exactly as PromQL's sum by (le) would; the quantile
	// then forces monotonicity.
	if !tot.NonMonotonic() {
		t.Error("mixed layouts: NonMonotonic = false")
	}
	// rank 9 <= 10 in the lowest bucket: 0.1 * 9/10.
	wantValue(t, "p50 mixed", tot.Quantile(0.5), 0.09, true)
	wantValue(t, "mean", tot.Mean(), 3.25/18, true)

	// Per grid bucket of 2 s: (0, 2], (2, 4].
	g := Grid{Start: 0, End: 4000, Step: 2000}
	per := HistogramIncreases([]HistogramSeries{a, b}, g)
	if len(per) != 2 {
		t.Fatalf("%d buckets", len(per))
	}
	// (0,2]: a le=0.1 5, +Inf 8; b le=0.1 1, 0.5 2, +Inf 2. (2,4]: a 3, 6;
	// b 1, 2, 2.
	w0 := []HistogramBucket{{0.1, 6}, {0.5, 2}, {inf, 10}}
	w1 := []HistogramBucket{{0.1, 4}, {0.5, 2}, {inf, 8}}
	for j, w := range [][]HistogramBucket{w0, w1} {
		for i := range w {
			if i >= len(per[j].Buckets) || per[j].Buckets[i] != w[i] {
				t.Errorf("grid bucket %d: %+v, want %v", j, per[j].Buckets, w)
				break
			}
		}
	}
	whole := SumOverBuckets(per)
	if whole.Count != tot.Count || whole.Sum != tot.Sum || len(whole.Buckets) != 3 || whole.Buckets[2] != tot.Buckets[2] {
		t.Errorf("buckets do not tile the window: %+v vs %+v", whole, tot)
	}
	if n := len((HistogramSeries{}).BucketIncreases(Grid{Step: 0})); n != 0 {
		t.Errorf("invalid grid: %d buckets", n)
	}
}

func TestParseUpperBound(t *testing.T) {
	for s, want := range map[string]float64{"0.005": 0.005, "+Inf": inf, "Inf": inf, "1e+01": 10, "-1": -1} {
		if v, ok := ParseUpperBound(s); !ok || v != want {
			t.Errorf("%q -> %v %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "NaN", "x"} {
		if _, ok := ParseUpperBound(s); ok {
			t.Errorf("%q parsed", s)
		}
	}
}

// TestHistogramAddMerge: Add of normalized histograms (merged in one pass)
// equals the normalized concatenation of their buckets (the general path,
// as unnormalized inputs take), bound by bound and count by count, over
// random bound sets that overlap in part; inputs are left unchanged, and
// an unnormalized input (unsorted, a repeated and a NaN bound) is
// normalized first.
func TestHistogramAddMerge(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	bounds := []float64{0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, math.Inf(1)}
	random := func() Histogram {
		h := Histogram{Sum: r.Float64(), Count: float64(r.Intn(100))}
		for _, b := range bounds {
			if r.Intn(3) > 0 {
				h.Buckets = append(h.Buckets, HistogramBucket{UpperBound: b, Count: float64(r.Intn(50)) + r.Float64()})
			}
		}
		return h
	}
	for i := range 500 {
		a, b := random(), random()
		a0, b0 := Histogram{Buckets: append([]HistogramBucket(nil), a.Buckets...)}, Histogram{Buckets: append([]HistogramBucket(nil), b.Buckets...)}
		got := a.Add(b)
		want := Histogram{Sum: a.Sum + b.Sum, Count: a.Count + b.Count, Buckets: append(append([]HistogramBucket{{UpperBound: math.NaN()}}, a.Buckets...), b.Buckets...)}.normalized()
		if len(want.Buckets) == 0 {
			want.Buckets = []HistogramBucket{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: %+v + %+v = %+v, want %+v", i, a, b, got, want)
		}
		if !reflect.DeepEqual(a.Buckets, a0.Buckets) || !reflect.DeepEqual(b.Buckets, b0.Buckets) {
			t.Fatalf("case %d: inputs changed", i)
		}
	}
	messy := Histogram{Buckets: []HistogramBucket{{UpperBound: 1, Count: 2}, {UpperBound: math.NaN(), Count: 9}, {UpperBound: 0.5, Count: 1}, {UpperBound: 1, Count: 3}}}
	got := messy.Add(Histogram{Buckets: []HistogramBucket{{UpperBound: 0.5, Count: 10}}})
	if want := []HistogramBucket{{UpperBound: 0.5, Count: 11}, {UpperBound: 1, Count: 5}}; !reflect.DeepEqual(got.Buckets, want) {
		t.Errorf("unnormalized input: %+v, want %+v", got.Buckets, want)
	}
}
