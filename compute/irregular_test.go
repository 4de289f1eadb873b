package compute

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestResets(t *testing.T) {
	g := Grid{Start: 0, End: 60_000, Step: 10_000}
	series := []Series{
		// Steady: no reset.
		{Family: Drafts, Labels: map[string]string{"engine": "0"}, Position: -1,
			Points: []Point{{0, 10}, {10_000, 20}, {20_000, 30}, {30_000, 40}}},
		// One restart in bucket 2 (20 s < t <= 30 s).
		{Family: Drafts, Labels: map[string]string{"engine": "1"}, Position: -1,
			Points: []Point{{0, 100}, {10_000, 110}, {25_000, 3}, {30_000, 9}}},
		// Backwards every step: 5 decreases. A decrease at or before
		// g.Start is outside the window and not counted.
		{Family: AcceptedPerPosition, Labels: map[string]string{"engine": "2"}, Position: 2,
			Points: []Point{{-10_000, 90}, {0, 80}, {10_000, 70}, {20_000, 60}, {30_000, 50}, {40_000, 40}, {50_000, 30}}},
	}
	got := Resets(series, g)
	want := []Reset{
		{Labels: map[string]string{"engine": "2"}, Family: AcceptedPerPosition, Position: 2, Count: 5, Buckets: []int{0, 1, 2, 3, 4}, Steps: 5},
		{Labels: map[string]string{"engine": "1"}, Family: Drafts, Position: -1, Count: 1, Buckets: []int{2}, Steps: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Resets = %+v, want %+v", got, want)
	}
	if !got[0].Backwards() || got[1].Backwards() {
		t.Fatalf("Backwards: %v %v, want true false", got[0].Backwards(), got[1].Backwards())
	}
	notes := ResetNotes(got, 5)
	if len(notes) != 2 {
		t.Fatalf("notes = %q", notes)
	}
	if !strings.Contains(notes[0], `series {engine="2"} (accepted tokens at pos 3) went backwards 5 times`) ||
		!strings.Contains(notes[0], "probably not a counter") {
		t.Errorf("note 0 = %q", notes[0])
	}
	if !strings.HasPrefix(notes[1], "1 counter restart(s) in 1 engine(s)") {
		t.Errorf("note 1 = %q", notes[1])
	}
	if n := ResetNotes(nil, 5); n != nil {
		t.Errorf("no resets: notes %q", n)
	}
}

// TestResetsCrashLoop: an engine that restarts every 5 steps (8 times in 40
// steps, its counters growing in between) is a counter that restarts, not
// "not a counter", and its restarts are counted in the note; a series that
// falls at every other step is not a counter however long the window; the
// restarts a changed _created explains (the shaped read) never make a
// series "not a counter".
func TestResetsCrashLoop(t *testing.T) {
	g := Grid{Start: 0, End: 400_000, Step: 10_000}
	var loop, flip []Point
	for i := int64(0); i <= 40; i++ {
		loop = append(loop, Point{T: i * 10_000, V: float64(10 * (i%5 + 1))})
		flip = append(flip, Point{T: i * 10_000, V: float64(100*i + 5000*(i%2))})
	}
	got := Resets([]Series{
		{Family: Drafts, Labels: map[string]string{"engine": "loop"}, Position: -1, Points: loop},
		{Family: Drafts, Labels: map[string]string{"engine": "flip"}, Position: -1, Points: flip},
	}, g)
	if len(got) != 2 || got[0].Count != 20 || got[0].Steps != 40 || got[1].Count != 8 || got[1].Steps != 40 {
		t.Fatalf("Resets = %+v", got)
	}
	if !got[0].Backwards() || got[1].Backwards() {
		t.Errorf("Backwards: flip %v, loop %v; want true, false", got[0].Backwards(), got[1].Backwards())
	}
	notes := ResetNotes(got, 5)
	if len(notes) != 2 || !strings.Contains(notes[0], `{engine="flip"}`) || !strings.Contains(notes[0], "probably not a counter") ||
		!strings.HasPrefix(notes[1], "8 counter restart(s) in 1 engine(s)") {
		t.Errorf("notes = %q", notes)
	}
	// Shaped: 20 decreases at samples, 16 of them with a new _created.
	r := Reset{Count: 20, Steps: 40, Explained: 16}
	if r.Backwards() {
		t.Errorf("%+v: backwards, want restarts", r)
	}
	if r.Explained = 0; !r.Backwards() {
		t.Errorf("%+v: restarts, want backwards", r)
	}
	// Steps unknown: the count alone decides, as before.
	if r := (Reset{Count: 4}); !r.Backwards() {
		t.Errorf("%+v: restarts, want backwards", r)
	}
}

func TestFindGaps(t *testing.T) {
	for _, tc := range []struct {
		samples []float64
		want    []Gap
	}{
		{nil, nil},
		{[]float64{0, 0, 0}, nil},
		// Leading and trailing empty buckets are not gaps.
		{[]float64{0, 0, 4, 4, 0}, nil},
		{[]float64{4, 0, 0, 4, 4, 0, 4}, []Gap{{1, 3}, {5, 6}}},
		// An unknown count (negative) is not a gap.
		{[]float64{4, -1, 4}, nil},
	} {
		if got := FindGaps(tc.samples); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FindGaps(%v) = %v, want %v", tc.samples, got, tc.want)
		}
	}
	g := Grid{Start: 1_700_000_000_000, End: 1_700_000_070_000, Step: 10_000}
	notes := GapNotes([]Gap{{1, 3}, {5, 6}}, g, 1, nil)
	want := []string{
		"no samples for 20s from 2023-11-14T22:13:30Z: the source or its targets were down; the bucket after the gap holds the counts of the gap too, so its rates read high (marked on the charts)",
		"and 1 more gaps in the data",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("GapNotes = %q, want %q", notes, want)
	}
	// In the page's time zone: the same instant with its offset.
	if got := GapNotes([]Gap{{1, 3}}, g, 1, time.FixedZone("UTC+2", 2*3600)); len(got) != 1 || !strings.HasPrefix(got[0], "no samples for 20s from 2023-11-15T00:13:30+02:00: ") {
		t.Errorf("GapNotes in UTC+2 = %q", got)
	}
	if (Gap{1, 3}).Next() != 3 {
		t.Error("Next")
	}
}

// TestStartGaps: drafts series started inside the grid whose first sample
// lies buckets after their start give one run per (start bucket, first
// sample bucket), counted per series; the first sample's bucket is the one
// BucketIncreasesSince puts all their counts in. Other families, series
// with a point at or before the grid's start, unknown starts and a first
// sample in the start's own bucket or the next, or within StartGapMin
// of the start, give none.
func TestStartGaps(t *testing.T) {
	g := Grid{Start: 0, End: 600_000, Step: 60_000}
	eng := func(e string) map[string]string { return map[string]string{"engine": e} }
	pts := func(ts ...int64) []Point {
		var out []Point
		for i, t := range ts {
			out = append(out, Point{T: t, V: float64(100 * (i + 1))})
		}
		return out
	}
	series := []Series{
		{Family: Drafts, Labels: eng("a"), Position: -1, Created: 30_000, Points: pts(250_000, 310_000)},
		{Family: AcceptedPerPosition, Labels: eng("a"), Position: 0, Created: 30_000, Points: pts(250_000, 310_000)},
		{Family: Drafts, Labels: eng("b"), Position: -1, Created: 50_000, Points: pts(260_000)},
		{Family: Drafts, Labels: eng("c"), Position: -1, Created: 130_000, Points: pts(170_000)},
		{Family: Drafts, Labels: eng("c2"), Position: -1, Created: 170_000, Points: pts(190_000)},
		{Family: Drafts, Labels: eng("d"), Position: -1, Created: 30_000, Points: pts(0, 250_000)},
		{Family: Drafts, Labels: eng("e"), Position: -1, Created: 0, Points: pts(250_000)},
		{Family: Drafts, Labels: eng("f"), Position: -1, Created: 200_000, Points: pts(590_000)},
	}
	got := StartGaps(series, g)
	want := []StartGap{
		{Gap: Gap{From: 0, To: 4}, Series: 2, Labels: eng("a"), Created: 30_000, First: 250_000},
		{Gap: Gap{From: 3, To: 9}, Series: 1, Labels: eng("f"), Created: 200_000, First: 590_000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("StartGaps = %+v, want %+v", got, want)
	}
	// Buckets of 10 s: a first sample 30 s after the start, three buckets
	// later, is within StartGapMin; 70 s after it is not.
	g10 := Grid{Start: 0, End: 600_000, Step: 10_000}
	short := []Series{
		{Family: Drafts, Labels: eng("s"), Position: -1, Created: 5_000, Points: pts(35_000)},
		{Family: Drafts, Labels: eng("l"), Position: -1, Created: 5_000, Points: pts(75_000)},
	}
	if got := StartGaps(short, g10); len(got) != 1 || got[0].Labels["engine"] != "l" || got[0].Gap != (Gap{From: 0, To: 7}) {
		t.Errorf("10 s buckets: StartGaps = %+v, want engine l's buckets 0..6 only", got)
	}
	if inc := BucketIncreasesSince(series[0].Points, series[0].Created, g); inc[4] != 100 || inc[0] != 0 {
		t.Errorf("BucketIncreasesSince = %v: want the first sample's 100 in bucket %d", inc, want[0].Next())
	}
	notes := StartGapNotes(got, g, 1, nil)
	wantNotes := []string{
		`2 series ({engine="a"} and 1 more) started at 1970-01-01T00:00:30Z but were first sampled at 1970-01-01T00:04:10Z: the bucket ending 1970-01-01T00:05:00Z holds the counts since the start, so its rates read high (marked on the charts)`,
		"and 1 more run of series counted before their first sample",
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("StartGapNotes =\n%q\nwant\n%q", notes, wantNotes)
	}
}
