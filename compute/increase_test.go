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

// TestIncreaseSince: a counter that started at 0 inside the window (created >
// from, no point at or before from) counts its first point in full; an
// unknown start or one before the window keeps Increase's rule.
func TestIncreaseSince(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name              string
		points            []Point
		created, from, to int64
		want              float64
	}{
		// Started at t=10 from 0: 3 (0 -> 3) + 12 (3 -> 15) + 7 (15 -> 22).
		{"started inside", pts(20, 3, 50, 15, 100, 22), 10, 0, 100, 22},
		// Unknown start: the first point (3) is the base: 12 + 7.
		{"unknown start", pts(20, 3, 50, 15, 100, 22), 0, 0, 100, 19},
		// Started before the window, first scraped inside it: 3 may hold
		// counts from before 0, so it is the base: 12 + 7.
		{"started before window", pts(20, 3, 50, 15, 100, 22), -5, 0, 100, 19},
		// The window is (from, to]: a start exactly at from is not inside.
		{"started at from", pts(20, 3, 50, 15, 100, 22), 0, 0, 100, 19},
		{"started at from, nonzero from", pts(20, 3, 50, 15, 100, 22), 10, 10, 100, 19},
		// A short-lived series seen at one point only: all 40 counted.
		{"one point", pts(90, 40), 60, 0, 100, 40},
		{"one point after window", pts(90, 40), 60, 0, 80, 0},
		// Started at 60, before the window (80, 100]: the 40 may partly
		// be from before 80, so nothing is counted.
		{"one point, window after start", pts(90, 40), 60, 80, 100, 0},
		// A point at or before from is the base; created does not matter.
		{"base before window wins", pts(-10, 2, 50, 9), 30, 0, 100, 7},
		// Started at 5: 10, reset 10 -> 4 counts 4, then +2: 16.
		{"start then reset", pts(20, 10, 50, 4, 100, 6), 5, 0, 100, 16},
		// NaN stale marker first: the first usable point (15) counts.
		{"NaN first", pts(20, nan, 50, 15), 10, 0, 100, 15},
		{"start after to (clock skew)", pts(90, 40), 150, 0, 100, 40},
		{"empty window", pts(20, 3), 10, 50, 50, 0},
		{"no points", nil, 10, 0, 100, 0},
	} {
		if got := IncreaseSince(tc.points, tc.created, tc.from, tc.to); got != tc.want {
			t.Errorf("%s: IncreaseSince = %v, want %v", tc.name, got, tc.want)
		}
		if tc.created == 0 {
			if got := Increase(tc.points, tc.from, tc.to); got != tc.want {
				t.Errorf("%s: Increase = %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

func TestBucketIncreasesSince(t *testing.T) {
	g := Grid{Start: 0, End: 40, Step: 10}
	for _, tc := range []struct {
		name    string
		points  []Point
		created int64
		want    []float64
		// exception: the bucket that holds the first point but starts
		// after created counts more than IncreaseSince over it (-1: none).
		exception int
	}{
		// Started at 12 (bucket 1): 100 + 4 in bucket 1, 6 in bucket 3.
		{"started in first point's bucket", pts(15, 100, 20, 104, 40, 110), 12, []float64{0, 104, 0, 6}, -1},
		// Started at 5 (bucket 0), first seen at 15 (bucket 1): the 100 it
		// counted in between go to the first point's bucket.
		{"started in an earlier bucket", pts(15, 100, 20, 104, 40, 110), 5, []float64{0, 104, 0, 6}, 1},
		// Started before the grid: the first point is the base.
		{"started before grid", pts(15, 100, 20, 104, 40, 110), -3, []float64{0, 4, 0, 6}, -1},
		{"unknown start", pts(15, 100, 20, 104, 40, 110), 0, []float64{0, 4, 0, 6}, -1},
		// Lives within bucket 2 only, seen once.
		{"short-lived", pts(30, 25), 21, []float64{0, 0, 25, 0}, -1},
		// A base at the grid start: created is ignored.
		{"base at start", pts(0, 7, 40, 9), 12, []float64{0, 0, 0, 2}, -1},
	} {
		got := BucketIncreasesSince(tc.points, tc.created, g)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d buckets", tc.name, len(got))
		}
		sum := 0.0
		for j := range got {
			if got[j] != tc.want[j] {
				t.Errorf("%s: bucket %d = %v, want %v (all %v)", tc.name, j, got[j], tc.want[j], got)
			}
			inc := IncreaseSince(tc.points, tc.created, g.BucketStart(j), g.BucketEnd(j))
			if (inc == got[j]) == (j == tc.exception) {
				t.Errorf("%s: bucket %d = %v, IncreaseSince over it = %v (exception bucket %d)", tc.name, j, got[j], inc, tc.exception)
			}
			sum += got[j]
		}
		if total := IncreaseSince(tc.points, tc.created, g.Start, g.End); total != sum {
			t.Errorf("%s: buckets sum to %v, IncreaseSince = %v", tc.name, sum, total)
		}
	}
}

// TestTilingSince: with a start time (before, inside or after the grid, or
// unknown) and series that may start inside the grid, the buckets still sum
// exactly to the window's IncreaseSince, and every bucket but the first
// point's equals IncreaseSince over it.
func TestTilingSince(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		step := int64(1 + r.IntN(20_000))
		g := Grid{Start: int64(r.IntN(1e9)) - 5e8, Step: step}
		g.End = g.Start + step*int64(r.IntN(50))
		p := randomCounter(r, g, r.IntN(200))
		if r.IntN(2) == 0 {
			// Drop the points at or before the start: a series that
			// appears inside the grid.
			k := 0
			for k < len(p) && p[k].T <= g.Start {
				k++
			}
			p = p[k:]
		}
		var created int64
		switch r.IntN(4) {
		case 1:
			created = g.Start - int64(r.IntN(int(3*step)))
		case 2, 3:
			created = g.Start + int64(r.IntN(int(step*int64(max(1, g.Buckets()))+1)))
		}
		b := BucketIncreasesSince(p, created, g)
		first := -1 // bucket of the first usable point inside the grid
		for _, q := range p {
			if usable(q.V) && q.T > g.Start {
				if q.T <= g.End {
					first = int((q.T - g.Start - 1) / step)
				}
				break
			}
		}
		sum := 0.0
		for j, v := range b {
			if v < 0 {
				t.Fatalf("case %d: negative bucket %v", i, v)
			}
			if inc := IncreaseSince(p, created, g.BucketStart(j), g.BucketEnd(j)); inc != v && j != first {
				t.Fatalf("case %d bucket %d: %v != IncreaseSince %v", i, j, v, inc)
			}
			sum += v
		}
		if total := IncreaseSince(p, created, g.Start, g.End); total != sum {
			t.Fatalf("case %d: sum of buckets %v != IncreaseSince %v", i, sum, total)
		}
		if created == 0 || created <= g.Start {
			if total, old := IncreaseSince(p, created, g.Start, g.End), Increase(p, g.Start, g.End); total != old {
				t.Fatalf("case %d: start %d before the grid changed the increase: %v != %v", i, created, total, old)
			}
		}
	}
}
