package compute

import (
	"math"
	"testing"
)

// Two samples of a custom-bucket histogram with bounds 0.01, 0.05, 0.1 as
// the API writes them (empty buckets left out): the classic series has
// cumulative counts at every bound and +Inf; its increase's quantiles are
// hand-computed with linear interpolation (the first bucket from 0).
func TestClassicFromCustom(t *testing.T) {
	inf := math.Inf(1)
	s, err := ClassicFromCustom(map[string]string{"engine": "0"}, []CustomSample{
		{T: 1000, Count: 10, Sum: 0.3, Buckets: []NativeBucket{
			{Boundaries: 3, Lower: math.Inf(-1), Upper: 0.01, Count: 4},
			{Lower: 0.01, Upper: 0.05, Count: 6},
		}},
		{T: 2000, Count: 30, Sum: 1.3, Buckets: []NativeBucket{
			{Boundaries: 3, Lower: math.Inf(-1), Upper: 0.01, Count: 4},
			{Lower: 0.01, Upper: 0.05, Count: 16},
			{Lower: 0.05, Upper: 0.1, Count: 8},
			{Lower: 0.1, Upper: inf, Count: 2},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[float64][2]float64{0.01: {4, 4}, 0.05: {10, 20}, 0.1: {10, 28}, inf: {10, 30}}
	if len(s.Buckets) != len(want) {
		t.Fatalf("%d buckets, want %d: %+v", len(s.Buckets), len(want), s.Buckets)
	}
	for _, b := range s.Buckets {
		w := want[b.UpperBound]
		if len(b.Points) != 2 || b.Points[0].V != w[0] || b.Points[1].V != w[1] {
			t.Errorf("le %g: %+v, want %v", b.UpperBound, b.Points, w)
		}
	}
	h := s.Increase(1000, 2000) // buckets: le 0.01: 0, 0.05: 10, 0.1: 18, +Inf: 20
	if h.Count != 20 || math.Abs(h.Sum-1.0) > 1e-12 {
		t.Errorf("increase count %v sum %v, want 20 and 1.0", h.Count, h.Sum)
	}
	// p50: rank 10 of 20, in (0.01, 0.05] holding ranks 1..10: 0.05.
	// p75: rank 15, in (0.05, 0.1] holding 11..18: 0.05 + 0.05 x 5/8.
	for q, w := range map[float64]float64{0.5: 0.05, 0.75: 0.05 + 0.05*5.0/8} {
		if got := h.Quantile(q); !got.OK || math.Abs(got.V-w) > 1e-12 {
			t.Errorf("q %v = %v, want %v", q, got, w)
		}
	}
	if _, err := ClassicFromCustom(nil, []CustomSample{{Buckets: []NativeBucket{{Lower: 1, Upper: 1}}}}); err == nil {
		t.Error("an empty interval converted")
	}
}
