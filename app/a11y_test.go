package app

import (
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/view"
)

// Each chart has a text summary of the numbers it draws; a hostile group
// name is text (escaped), never markup.
func TestChartSummaries(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := view.DefaultQuery()
	q.GroupBy = []string{} // group=none: the fleet's two models summed
	res := &view.Result{Query: q}
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	d := &Dashboard{q: q, res: res}
	v := d.prepare()
	s := view.ChartSummaries(res, v)
	for _, name := range []string{view.ChartPerPosition, view.ChartHeatmap, view.ChartAcceptanceRate, view.ChartAcceptanceLength, view.ChartThroughput, view.ChartDrafts} {
		if s[name] == "" || strings.Contains(s[name], "NaN") {
			t.Errorf("%s: summary %q", name, s[name])
		}
	}
	// Fleet: pos 1 270/360 = 75 %, pos 2 90/360 = 25 %.
	if want := "pos 1 75.0 %, pos 2 25.0 %"; !strings.Contains(s[view.ChartPerPosition], want) {
		t.Errorf("per-position summary %q, want %q", s[view.ChartPerPosition], want)
	}
	if !strings.Contains(s[view.ChartAcceptanceRate], "acceptance rate: latest 50.0 %") {
		t.Errorf("acceptance rate summary %q, want the latest 50.0 %% (1080 of 2160 draft tokens per bucket)", s[view.ChartAcceptanceRate])
	}
	html := renderHTML(t, &Chart{Name: view.ChartDrafts, Summary: `<img src=x onerror=alert(1)> drafts`})
	if strings.Contains(html, "<img") || !strings.Contains(html, `aria-labelledby="summary-`+view.ChartDrafts+`"`) {
		t.Errorf("chart summary not escaped or not linked:\n%s", html)
	}
}

// The live region announces the problem, and stays constant while
// refreshes succeed (no announcement at every auto-refresh).
func TestLiveText(t *testing.T) {
	d := &Dashboard{q: view.DefaultQuery(), loading: true}
	if got := view.LiveText(d.loading, d.res, d.err, d.problem().Title); got != "Loading the numbers…" {
		t.Errorf("first load: %q", got)
	}
	d.loading, d.err = false, errString("boom")
	if got := view.LiveText(d.loading, d.res, d.err, d.problem().Title); got != "Loading the numbers failed" {
		t.Errorf("failed first load: %q", got)
	}
	d.res = &view.Result{}
	if got := view.LiveText(d.loading, d.res, d.err, d.problem().Title); !strings.HasPrefix(got, "Refresh failed; the numbers shown are stale.") {
		t.Errorf("failed refresh: %q", got)
	}
	d.err = nil
	a := view.LiveText(d.loading, d.res, d.err, d.problem().Title)
	d.res = &view.Result{}
	if b := view.LiveText(d.loading, d.res, d.err, d.problem().Title); a != b || a != "Numbers loaded." {
		t.Errorf("successful refreshes: %q then %q, want one constant text", a, b)
	}
}
