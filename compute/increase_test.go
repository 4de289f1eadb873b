package compute

import (
	"math"
	"math/rand/v2"
	"testing"
)

func pts(tv ...float64) []Point {
	out := make([]Point, 0, len(tv)/2)
	for i := 0; i+1 < len(tv); i += 2 {
		out = append(out, Point{T: int64(tv[i]), V: tv[i+1]})
	}
	return out
}

func TestIncrease(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		points   []Point
		from, to int64
		want     float64
	}{
		{"empty", nil, 0, 100, 0},
		{"single point inside", pts(50, 7), 0, 100, 0},
		{"single point before", pts(0, 7), 0, 100, 0},
		{"base at from", pts(0, 10, 50, 15, 100, 22), 0, 100, 12},
		{"base before from", pts(-30, 4, 50, 15, 100, 22), 0, 100, 18},
		// No point at or before from: the first point inside is the base,
		// its own value (3) is not counted.
		{"no base before window", pts(20, 3, 50, 15, 100, 22), 0, 100, 19},
		{"point at to counted, after to not", pts(0, 1, 100, 5, 101, 50), 0, 100, 4},
		{"points only outside", pts(-20, 1, -10, 2, 200, 9), 0, 100, 0},
		// 10 -> 4 is a reset: the counter restarted from 0 and counted 4.
		{"reset", pts(0, 10, 50, 4, 100, 6), 0, 100, 6},
		{"reset to zero", pts(0, 10, 50, 0, 100, 6), 0, 100, 6},
		// A restart that counted past the old value cannot be told from
		// plain counting: 10 -> 0 -> 12 looks like +2.
		{"undetectable reset", pts(0, 10, 100, 12), 0, 100, 2},
		{"NaN stale markers skipped", pts(0, 10, 25, nan, 50, 15, 75, nan, 100, 22), 0, 100, 12},
		{"NaN base skipped", pts(-10, 5, 0, nan, 100, 8), 0, 100, 3},
		{"negative and Inf skipped", pts(0, 10, 30, -4, 60, math.Inf(1), 100, 13), 0, 100, 3},
		{"empty window", pts(0, 1, 50, 9), 50, 50, 0},
		{"reversed window", pts(0, 1, 50, 9), 100, 0, 0},
		{"flat", pts(0, 5, 50, 5, 100, 5), 0, 100, 0},
	} {
		if got := Increase(tc.points, tc.from, tc.to); got != tc.want {
			t.Errorf("%s: Increase = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGrid(t *testing.T) {
	g := Grid{Start: 1_000_000, End: 1_060_000, Step: 15_000}
	if g.Buckets() != 4 || g.Seconds() != 60 || g.StepSeconds() != 15 || g.BucketEnd(0) != 1_015_000 || g.BucketStart(3) != 1_045_000 || g.BucketEnd(3) != g.End {
		t.Errorf("grid %+v: buckets %d seconds %v end0 %d", g, g.Buckets(), g.Seconds(), g.BucketEnd(0))
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range []Grid{
		{0, 100, 0}, {0, 100, -5}, {100, 0, 10}, {0, 100, 30},
		{math.MinInt64, math.MaxInt64, 1}, {0, (MaxBuckets + 1) * 10, 10},
	} {
		if bad.Validate() == nil || bad.Buckets() != 0 || bad.Seconds() != 0 {
			t.Errorf("grid %+v accepted: buckets %d", bad, bad.Buckets())
		}
		if len(BucketIncreases(pts(0, 1, 50, 9), bad)) != 0 {
			t.Errorf("grid %+v: buckets returned", bad)
		}
	}
	if (Grid{5, 5, 10}).Buckets() != 0 || (Grid{5, 5, 10}).Validate() != nil {
		t.Error("empty grid should be valid with 0 buckets")
	}
}

func TestBucketIncreases(t *testing.T) {
	g := Grid{Start: 0, End: 40, Step: 10}
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		points []Point
		want   []float64
	}{
		{"aligned", pts(0, 1, 10, 3, 20, 3, 30, 8, 40, 9), []float64{2, 0, 5, 1}},
		// The series starts at t=15: its first value is the base.
		{"no base", pts(15, 100, 20, 104, 40, 110), []float64{0, 4, 0, 6}},
		{"between steps", pts(-5, 0, 5, 2, 12, 3, 18, 7, 33, 9, 45, 100), []float64{2, 5, 0, 2}},
		{"reset in bucket", pts(0, 50, 10, 60, 15, 2, 20, 5, 40, 6), []float64{10, 5, 0, 1}},
		{"gap", pts(0, 1, 35, 9), []float64{0, 0, 0, 8}},
		{"stale", pts(0, 1, 10, nan, 20, 4, 30, nan, 40, 5), []float64{0, 3, 0, 1}},
		{"outside", pts(-10, 1, 50, 9), []float64{0, 0, 0, 0}},
		{"empty", nil, []float64{0, 0, 0, 0}},
	} {
		got := BucketIncreases(tc.points, g)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d buckets", tc.name, len(got))
		}
		sum := 0.0
		for j := range got {
			if got[j] != tc.want[j] {
				t.Errorf("%s: bucket %d = %v, want %v (all %v)", tc.name, j, got[j], tc.want[j], got)
			}
			if inc := Increase(tc.points, g.BucketStart(j), g.BucketEnd(j)); inc != got[j] {
				t.Errorf("%s: bucket %d = %v but Increase over it = %v", tc.name, j, got[j], inc)
			}
			sum += got[j]
		}
		if total := Increase(tc.points, g.Start, g.End); total != sum {
			t.Errorf("%s: buckets sum to %v, Increase = %v", tc.name, sum, total)
		}
	}
}

// randomCounter returns a counter with whole values, random gaps, resets
// and stale markers, around the grid g.
func randomCounter(r *rand.Rand, g Grid, n int) []Point {
	out := make([]Point, 0, n)
	t := g.Start - int64(r.IntN(int(3*g.Step)))
	v := float64(r.IntN(1000))
	for range n {
		switch x := r.IntN(20); {
		case x == 0:
			v = float64(r.IntN(50)) // reset
		case x == 1:
			out = append(out, Point{T: t, V: math.NaN()})
			t += 1 + int64(r.IntN(int(g.Step)))
			continue
		default:
			v += float64(r.IntN(100))
		}
		out = append(out, Point{T: t, V: v})
		t += 1 + int64(r.IntN(int(2*g.Step)))
	}
	return out
}

// TestTiling: the buckets' increases sum exactly to the window's increase
// (whole values), and each equals Increase over its own bucket.
func TestTiling(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		step := int64(1 + r.IntN(20_000))
		g := Grid{Start: int64(r.IntN(1e9)) - 5e8, Step: step}
		g.End = g.Start + step*int64(r.IntN(50))
		p := randomCounter(r, g, r.IntN(200))
		b := BucketIncreases(p, g)
		sum := 0.0
		for j, v := range b {
			if v < 0 {
				t.Fatalf("case %d: negative bucket %v", i, v)
			}
			if inc := Increase(p, g.BucketStart(j), g.BucketEnd(j)); inc != v {
				t.Fatalf("case %d bucket %d: %v != Increase %v", i, j, v, inc)
			}
			sum += v
		}
		if total := Increase(p, g.Start, g.End); total != sum {
			t.Fatalf("case %d: sum of buckets %v != Increase %v", i, sum, total)
		}
	}
}
