package app

import (
	"encoding/json"
	"testing"
	"time"

	"specdash/compute"
)

// TestHeatmapColumns: 6 h at 1 min (360 buckets) draw 120 columns of three
// buckets (the window starts on a 3 min boundary); a column's rate is the
// ratio of its buckets' sums; the columns holding incomplete buckets are
// the second (half-opaque) series; a span of columns selected on the
// heatmap is the span of their buckets.
func TestHeatmapColumns(t *testing.T) {
	const n = 360
	g := compute.Grid{Start: 1_800_000_000_000 - 1_800_000_000_000%180_000, Step: 60_000}
	g.End = g.Start + n*g.Step
	r := &Result{Grid: g, Complete: n - 2, Query: DefaultQuery()}
	r.Total.Buckets = make([]compute.Counts, n)
	for j := range r.Total.Buckets {
		d := float64(10 + j%3*10) // 10, 20, 30 drafts: the mean of ratios differs from the ratio of sums
		r.Total.Buckets[j] = compute.Counts{Drafts: d, DraftTokens: 2 * d, AcceptedTokens: float64(j % 3 * 10), AcceptedPerPosition: []float64{float64(j % 3 * 10), 0}}
	}
	r.Buckets = r.Total.BucketStats(g, compute.WithBonus)
	r.Stats = compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 1, compute.WithBonus)

	first, option := HeatmapColumns(r, time.UTC, PaletteFor(ThemeLight))
	if len(first) != 120 || first[1] != 3 || first[119] != 357 {
		t.Fatalf("%d columns, first %v...", len(first), first[:3])
	}
	var o struct {
		XAxis []struct {
			Data []string `json:"data"`
		} `json:"xAxis"`
		Series []struct {
			Data [][]float64 `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(option), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.XAxis) != 1 || len(o.XAxis[0].Data) != 120 || o.XAxis[0].Data[119] != time.UnixMilli(g.End).UTC().Format("15:04") {
		t.Fatalf("x labels %d, last %v", len(o.XAxis[0].Data), o.XAxis[0].Data[len(o.XAxis[0].Data)-1:])
	}
	if len(o.Series) != 2 || len(o.Series[1].Data) != 2 || o.Series[1].Data[0][0] != 119 {
		t.Fatalf("series %d; incomplete cells %v, want column 119's two", len(o.Series), o.Series[len(o.Series)-1].Data)
	}
	// Column 0 pos 1: (0 + 10 + 20) / (10 + 20 + 30) = 50 %, not the
	// mean of 0 %, 50 %, 66.7 %.
	if c := o.Series[0].Data[0]; c[0] != 0 || c[1] != 0 || c[2] != 50 {
		t.Errorf("column 0, pos 1 cell %v, want [0 0 50]", c)
	}
	for _, c := range []struct{ from, to, b, e int }{{0, 0, 0, 2}, {1, 2, 3, 8}, {119, 119, 357, 359}, {118, 200, 354, 359}} {
		if b, e := ColumnBuckets(first, n, c.from, c.to); b != c.b || e != c.e {
			t.Errorf("columns %d..%d: buckets %d..%d, want %d..%d", c.from, c.to, b, e, c.b, c.e)
		}
	}
	if b, e := ColumnBuckets(first, n, 120, 121); e >= b {
		t.Errorf("columns past the end: buckets %d..%d, want none", b, e)
	}

	// A short window draws every bucket.
	r2 := *r
	r2.Grid.End = g.Start + 100*g.Step
	r2.Total.Buckets, r2.Buckets = r.Total.Buckets[:100], r.Buckets[:100]
	if first, _ := HeatmapColumns(&r2, time.UTC, PaletteFor(ThemeLight)); len(first) != 100 {
		t.Errorf("100 buckets: %d columns, want 100", len(first))
	}
}
