package compute

import (
	"math"
	"testing"
)

func TestLoadBinWidth(t *testing.T) {
	for _, c := range []struct{ max, want float64 }{{0, 1}, {11.9, 1}, {12, 2}, {23, 2}, {24, 5}, {59, 5}, {60, 10}, {119, 10}, {120, 20}, {500, 50}, {math.NaN(), 1}} {
		if got := LoadBinWidth(c.max); got != c.want {
			t.Errorf("LoadBinWidth(%v) = %v, want %v", c.max, got, c.want)
		}
	}
}

// TestBinByLoad: buckets at loads 1.5, 1.2, 3, 0.4 and one undefined; the
// bins sum counts and histograms (ratio of sums) and estimate the speedup
// of the summed counts.
func TestBinByLoad(t *testing.T) {
	load := []GaugeAverage{{Value: Defined(1.5)}, {Value: Defined(1.2)}, {Value: Defined(3)}, {Value: Defined(0.4)}, {}, {Value: Defined(2)}}
	c := func(d, dt, a float64) Counts {
		return Counts{Drafts: d, DraftTokens: dt, AcceptedTokens: a, AcceptedPerPosition: []float64{a, 0}}
	}
	counts := []Counts{c(10, 20, 10), c(10, 20, 2), c(5, 10, 10), c(4, 8, 8), c(100, 200, 200), {}}
	h := func(sum, n float64) Histogram {
		return Histogram{Buckets: []HistogramBucket{{0.05, n}, {math.Inf(1), n}}, Sum: sum, Count: n}
	}
	itl := []Histogram{h(1, 10), h(3, 10), h(2, 5), h(0.1, 4), h(9, 100), {}}
	bins := BinByLoad(load, counts, itl, 0.05)
	if len(bins) != 3 {
		t.Fatalf("bins %+v", bins)
	}
	want := []struct {
		lo, hi   float64
		buckets  int
		rate, mi float64
		label    string
	}{{0, 1, 1, 1, 0.1 / 4, "0"}, {1, 2, 2, 12.0 / 40, 4.0 / 20, "1"}, {3, 4, 1, 1, 2.0 / 5, "3"}}
	for i, w := range want {
		b := bins[i]
		if b.Lo != w.lo || b.Hi != w.hi || b.Buckets != w.buckets || b.Label() != w.label {
			t.Errorf("bin %d: %v..%v %d buckets %q, want %v..%v %d %q", i, b.Lo, b.Hi, b.Buckets, b.Label(), w.lo, w.hi, w.buckets, w.label)
		}
		if !b.AcceptanceRate.OK || math.Abs(b.AcceptanceRate.V-w.rate) > 1e-15 || !b.MeanITL.OK || math.Abs(b.MeanITL.V-w.mi) > 1e-15 {
			t.Errorf("bin %d: rate %v mean ITL %v, want %v %v", i, b.AcceptanceRate, b.MeanITL, w.rate, w.mi)
		}
	}
	// Bin 1..2: 20 drafts, 12 accepted, k = 2: (1 + 12/20) / (1 + 0.05 x 2).
	if s := bins[1].Speedup.Speedup; !s.OK || math.Abs(s.V-1.6/1.1) > 1e-12 {
		t.Errorf("speedup %v", bins[1].Speedup)
	}
	// Without latency, and with loads that need wider bins.
	wide := BinByLoad([]GaugeAverage{{Value: Defined(30)}, {Value: Defined(4)}}, []Counts{c(1, 2, 1), c(1, 2, 0)}, nil, 0)
	if len(wide) != 2 || wide[0].Label() != "0–5" || wide[1].Label() != "30–35" || wide[1].MeanITL.OK {
		t.Errorf("wide bins %+v", wide)
	}
	if got := BinByLoad(nil, nil, nil, 0); len(got) != 0 {
		t.Errorf("no buckets: %+v", got)
	}
}
