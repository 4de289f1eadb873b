package compute

import "testing"

func TestBucketAt(t *testing.T) {
	g := Grid{Start: 0, End: 60000, Step: 15000} // buckets (0,15], (15,30], (30,45], (45,60] s
	for _, c := range []struct {
		t    int64
		want int
	}{{0, 4}, {-5000, 0}, {1, 0}, {15000, 0}, {15001, 1}, {45000, 2}, {60000, 3}, {60001, 4}} {
		if got := g.BucketAt(c.t); got != c.want {
			t.Errorf("BucketAt(%d) = %d, want %d", c.t, got, c.want)
		}
	}
}

// TestCoverageNote: a first point at 570 s of a 10 min window at 15 s
// steps lies in the bucket (555 s, 570 s]: the data covers the last 45 s.
func TestCoverageNote(t *testing.T) {
	g := Grid{Start: 0, End: 600000, Step: 15000}
	late := []Series{
		{Family: Drafts, Points: []Point{{T: 570000, V: 1}, {T: 600000, V: 3}}},
		{Family: DraftTokens, Points: []Point{{T: 580000, V: 2}}},
	}
	c := CoverageOf(late, g)
	if c.FirstBucket != 37 || c.DataFrom != 555000 {
		t.Fatalf("coverage %+v, want bucket 37 from 555000 ms", c)
	}
	if got, want := c.Note(g), "Data covers the last 45s of this 10m window; rates (drafts/s, tokens/s) are per second of data (45s)"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	// A window that ends in the future: its data ends at now (DataTo), and
	// the note names the seconds up to then, as the rates are per.
	c.DataTo = 590000
	if got, want := c.Note(g), "Data covers the last 35s of this 10m window; rates (drafts/s, tokens/s) are per second of data (35s)"; got != want {
		t.Errorf("note to %d: %q, want %q", c.DataTo, got, want)
	}
	// Data over (almost) the whole window, or none: no note.
	whole := []Series{{Family: Drafts, Points: []Point{{T: 30000, V: 1}}}}
	if c := CoverageOf(whole, g); c.FirstBucket != 1 || c.Note(g) != "" {
		t.Errorf("whole window: %+v note %q", c, c.Note(g))
	}
	if c := CoverageOf(nil, g); c.FirstBucket != g.Buckets() || c.Note(g) != "" {
		t.Errorf("no data: %+v note %q", c, c.Note(g))
	}
}

// TestSpanTextRounds: a span prints rounded to the nearest second, so the
// coverage note ("Data covers the last 1m 08s") names the same seconds as
// the cards' "per s of data, 68 s" and the report's rates line for 67.853 s
// of data (it printed "1m 07s" beside "1m8s" before).
func TestSpanTextRounds(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{67_853, "1m 08s"}, {67_499, "1m 07s"}, {17_840, "18s"}, {499, "0s"}, {500, "1s"},
		{59_600, "1m"}, {3_599_500, "1h"}, {900_000, "15m"}, {65_000, "1m 05s"}, {-1_600, "-2s"},
	} {
		if got := SpanText(c.ms); got != c.want {
			t.Errorf("SpanText(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
	g := Grid{Start: 0, End: 900_000, Step: 5_000}
	c := Coverage{FirstBucket: 166, DataFrom: 900_000 - 67_853}
	if got, want := c.Note(g), "Data covers the last 1m 08s of this 15m window; rates (drafts/s, tokens/s) are per second of data (1m 08s)"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}
