package app

import (
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

// Each chart has a text summary of the numbers it draws; a hostile group
// name is text (escaped), never markup.
func TestChartSummaries(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{} // group=none: the fleet's two models summed
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	d := &Dashboard{q: q, res: res}
	v := d.prepare()
	s := chartSummaries(res, v)
	for _, name := range []string{ChartPerPosition, ChartHeatmap, ChartAcceptanceRate, ChartAcceptanceLength, ChartThroughput, ChartDrafts} {
		if s[name] == "" || strings.Contains(s[name], "NaN") {
			t.Errorf("%s: summary %q", name, s[name])
		}
	}
	// Fleet: pos 1 270/360 = 75 %, pos 2 90/360 = 25 %.
	if want := "pos 1 75.0 %, pos 2 25.0 %"; !strings.Contains(s[ChartPerPosition], want) {
		t.Errorf("per-position summary %q, want %q", s[ChartPerPosition], want)
	}
	if !strings.Contains(s[ChartAcceptanceRate], "acceptance rate: latest 50.0 %") {
		t.Errorf("acceptance rate summary %q, want the latest 50.0 %% (1080 of 2160 draft tokens per bucket)", s[ChartAcceptanceRate])
	}
	html := renderHTML(t, &Chart{Name: ChartDrafts, Summary: `<img src=x onerror=alert(1)> drafts`})
	if strings.Contains(html, "<img") || !strings.Contains(html, `aria-labelledby="summary-`+ChartDrafts+`"`) {
		t.Errorf("chart summary not escaped or not linked:\n%s", html)
	}
}

// The insights fit chart's summary gives each position's rate with its
// interval and the fitted alpha.
func TestFitSummary(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	s := fitSummary(ComputeInsightsData(res.Stats, compute.DefaultDraftCostRatio))
	if !strings.HasPrefix(s, "Per-position acceptance with 95 % intervals: pos 1 75.0 % (95 % interval ") ||
		!strings.Contains(s, "pos 2 25.0 %") || !strings.Contains(s, "geometric fit α = ") || strings.Contains(s, "NaN") {
		t.Errorf("fit summary %q", s)
	}
	if fitSummaryIf(false, ComputeInsightsData(res.Stats, 0)) != "" {
		t.Errorf("a summary before the numbers are loaded")
	}
}

// The live region announces the problem, and stays constant while
// refreshes succeed (no announcement at every auto-refresh).
func TestLiveText(t *testing.T) {
	d := &Dashboard{q: DefaultQuery(), loading: true}
	if got := d.liveText(); got != "Loading the numbers…" {
		t.Errorf("first load: %q", got)
	}
	d.loading, d.err = false, errString("boom")
	if got := d.liveText(); got != "Loading the numbers failed" {
		t.Errorf("failed first load: %q", got)
	}
	d.res = &Result{}
	if got := d.liveText(); !strings.HasPrefix(got, "Refresh failed; the numbers shown are stale.") {
		t.Errorf("failed refresh: %q", got)
	}
	d.err = nil
	a := d.liveText()
	d.res = &Result{}
	if b := d.liveText(); a != b || a != "Numbers loaded." {
		t.Errorf("successful refreshes: %q then %q, want one constant text", a, b)
	}
}
