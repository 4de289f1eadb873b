package view

import (
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
)

// TestChangeSeries: the change points follow the drawn lines by group
// name (the chart's order, by drafts), the selection's when not grouped.
func TestChangeSeries(t *testing.T) {
	a := []compute.ChangePoint{{Bucket: 3}}
	b := []compute.ChangePoint{{Bucket: 7}, {Bucket: 12}}
	r := &Result{}
	r.Groups = []model.Group{{Name: "a", Changes: a}, {Name: "b", Changes: b}}
	r.Changes = []compute.ChangePoint{{Bucket: 9}}
	got := ChangeSeries(r, []model.Line{{Name: "b"}, {Name: "a"}}, false)
	if len(got) != 2 || len(got[0]) != 2 || got[0][1].Bucket != 12 || len(got[1]) != 1 || got[1][0].Bucket != 3 {
		t.Errorf("grouped: %v", got)
	}
	got = ChangeSeries(r, []model.Line{{Name: "acceptance rate"}}, true)
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].Bucket != 9 {
		t.Errorf("single: %v", got)
	}
	if ChangeTime(time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC).UnixMilli(), compute.Grid{Start: 0, End: 3_600_000}, time.UTC) != "14:05" {
		t.Errorf("change time")
	}
}

// TestBuild: the charts of a load of two models: one line per model on
// the per-group charts (the busiest first), the token flow of the split
// model, an option per chart, and the export of each panel.
func TestBuild(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	q := DefaultQuery()
	var res Result
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)
	c := Build(&res, q, "")
	if len(c.Groups) != 2 || len(c.Rate) != 2 || c.Drawn != 2 || c.Rate[0].Name != "a" || c.LineNote() != "" {
		t.Fatalf("lines: %d groups, %d rate lines, %d drawn, first %q, note %q", len(c.Groups), len(c.Rate), c.Drawn, c.Rate[0].Name, c.LineNote())
	}
	if len(c.Tokens) != 3 || c.Tokens[2].Name != "rejected" {
		t.Errorf("token lines %+v", c.Tokens)
	}
	for _, name := range []string{ChartPerPosition, ChartHeatmap, ChartAcceptanceRate, ChartAcceptanceLength, ChartThroughput, ChartDrafts} {
		if c.Options[name] == "" || c.Specs[name] == nil {
			t.Errorf("no option for %s", name)
		}
	}
	if tbl := c.Table("breakdown", &res, q, ""); len(tbl.Rows) != 2 {
		t.Errorf("breakdown export: %d rows", len(tbl.Rows))
	}
	if tbl := c.Table("bogus", &res, q, ""); tbl.Name != "bogus" || len(tbl.Rows) != 0 {
		t.Errorf("unknown panel: %+v", tbl)
	}
	// Model b alone in the split charts: only they change.
	sub := Build(&res, q, res.Groups[1].Key)
	if sub.Options[ChartPerPosition] == c.Options[ChartPerPosition] || sub.Options[ChartAcceptanceRate] != c.Options[ChartAcceptanceRate] {
		t.Error("the split group changed the wrong charts")
	}
	if empty := Build(nil, Query{Theme: ThemeDark}, ""); empty.Pal.Name != ThemeDark || len(empty.Options) != 0 {
		t.Errorf("no load: %+v", empty)
	}
}

// TestSparkRuns: a card's sparkline in a 100 x 20 box: gaps split runs, a
// ratio spans 0..1, other values 0..their largest.
func TestSparkRuns(t *testing.T) {
	runs := SparkRuns([]compute.Value{compute.Defined(0), {}, compute.Defined(1)}, true)
	if len(runs) != 2 || runs[0][0] != "1.0,19.0" || runs[1][0] != "99.0,1.0" {
		t.Errorf("ratio runs %v", runs)
	}
	runs = SparkRuns([]compute.Value{compute.Defined(2), compute.Defined(4)}, false)
	if len(runs) != 1 || len(runs[0]) != 2 || runs[0][0] != "1.0,10.0" || runs[0][1] != "99.0,1.0" {
		t.Errorf("rate runs %v", runs)
	}
	if SparkRuns(nil, false) != nil {
		t.Error("runs without values")
	}
}

// TestWindowCards: before a load every card shows "—"; a gauge schema's
// cards say the counters are not available.
func TestWindowCards(t *testing.T) {
	cards := WindowCards(nil, DefaultQuery(), compute.Stats{K: 3})
	if len(cards) != 6 {
		t.Fatalf("%d cards", len(cards))
	}
	for _, c := range cards {
		if c.WindowText != "—" || c.Window.OK {
			t.Errorf("%s before a load: %q %+v", c.Name, c.WindowText, c.Window)
		}
	}
	s := compute.Derive(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 10, compute.WithBonus)
	cards = WindowCards(&Result{}, Query{Convention: compute.WithoutBonus}, s)
	if cards[0].WindowText != "60.0 %" || cards[2].WindowText != "3" || cards[3].Sub != "5 drafts in window" || cards[1].Label != "Mean acceptance length (without bonus token)" {
		t.Errorf("cards %+v", cards)
	}
}
