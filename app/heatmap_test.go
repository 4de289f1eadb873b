package app

import (
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestHeatmapColumns: 6 h at 1 min (360 buckets) draw 90 columns of four
// buckets (the window starts on a 4 min boundary); a column's rate is the
// ratio of its buckets' sums; the columns holding incomplete buckets are
// the second (half-opaque) series; a span of columns selected on the
// heatmap is the span of their buckets.
func TestHeatmapColumns(t *testing.T) {
	const n = 360
	g := compute.Grid{Start: 1_800_000_000_000 - 1_800_000_000_000%240_000, Step: 60_000}
	g.End = g.Start + n*g.Step
	r := &Result{Model: model.Model{Grid: g, Complete: n - 2}, Query: DefaultQuery()}
	r.Total.Buckets = make([]compute.Counts, n)
	for j := range r.Total.Buckets {
		d := float64(10 + j%4*10) // 10, 20, 30, 40 drafts: the mean of ratios differs from the ratio of sums
		r.Total.Buckets[j] = compute.Counts{Drafts: d, DraftTokens: 2 * d, AcceptedTokens: float64(j % 4 * 10), AcceptedPerPosition: []float64{float64(j % 4 * 10), 0}}
	}
	r.Buckets = r.Total.BucketStats(g, compute.WithBonus)
	r.Stats = compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 1, compute.WithBonus)

	first, option := HeatmapColumns(r, time.UTC, PaletteFor(ThemeLight))
	if len(first) != 90 || first[1] != 4 || first[89] != 356 {
		t.Fatalf("%d columns, first %v...", len(first), first[:3])
	}
	o := decodeHeatmap(t, option)
	if len(o.XAxis) != 1 || len(o.XAxis[0].Data) != 90 || o.XAxis[0].Data[89] != time.UnixMilli(g.End).UTC().Format("15:04") {
		t.Fatalf("x labels %d, last %v", len(o.XAxis[0].Data), o.XAxis[0].Data[len(o.XAxis[0].Data)-1:])
	}
	if len(o.Series) != 2 || len(o.Series[1].Data) != 2 || o.Series[1].Data[0][0] != 89 {
		t.Fatalf("series %d; incomplete cells %v, want column 89's two", len(o.Series), o.Series[len(o.Series)-1].Data)
	}
	// Column 0 pos 1: (0 + 10 + 20 + 30) / (10 + 20 + 30 + 40) = 60 %, not
	// the mean of 0 %, 50 %, 66.7 %, 75 %.
	if c := o.Series[0].Data[0]; c[0] != 0 || c[1] != 0 || c[2] != 60 {
		t.Errorf("column 0, pos 1 cell %v, want [0 0 60]", c)
	}
	for _, c := range []struct{ from, to, b, e int }{{0, 0, 0, 3}, {1, 2, 4, 11}, {89, 89, 356, 359}, {88, 200, 352, 359}} {
		if b, e := model.ColumnBuckets(first, n, c.from, c.to); b != c.b || e != c.e {
			t.Errorf("columns %d..%d: buckets %d..%d, want %d..%d", c.from, c.to, b, e, c.b, c.e)
		}
	}
	if b, e := model.ColumnBuckets(first, n, 90, 91); e >= b {
		t.Errorf("columns past the end: buckets %d..%d, want none", b, e)
	}

	// Not aligned: partial first and last columns, still at most
	// HeatmapMaxColumns, for any window of up to a day at any offset.
	for n2 := HeatmapMaxColumns + 1; n2 <= 1440; n2 += 37 {
		for off := int64(0); off < 8; off++ {
			g2 := compute.Grid{Start: g.Start + off*g.Step, Step: g.Step}
			g2.End = g2.Start + int64(n2)*g.Step
			if first, _ := compute.Columns(make([]compute.Counts, n2), g2, model.HeatmapFactor(n2)); len(first) > HeatmapMaxColumns {
				t.Errorf("%d buckets, offset %d steps: %d columns", n2, off, len(first))
			}
		}
	}

	// A short window draws every bucket.
	r2 := *r
	r2.Grid.End = g.Start + 100*g.Step
	r2.Total.Buckets, r2.Buckets = r.Total.Buckets[:100], r.Buckets[:100]
	if first, _ := HeatmapColumns(&r2, time.UTC, PaletteFor(ThemeLight)); len(first) != 100 {
		t.Errorf("100 buckets: %d columns, want 100", len(first))
	}
}
