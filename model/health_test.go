package model

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"specdash/compute"
)

// stepped is a counter sampled every 10 s over g whose increase in each
// 10 s interval is inc(bucket of the interval's end).
func stepped(f compute.Family, labels map[string]string, pos int, g compute.Grid, inc func(bucket int) float64) compute.Series {
	s := compute.Series{Family: f, Labels: labels, Position: pos}
	v := 0.0
	s.Points = append(s.Points, compute.Point{T: g.Start, V: v})
	for t := g.Start + 10_000; t <= g.End; t += 10_000 {
		v += inc(int((t - 1 - g.Start) / g.Step))
		s.Points = append(s.Points, compute.Point{T: t, V: v})
	}
	return s
}

// vllmGroup are the counters of one model with k = 4: per 10 s, 10 drafts
// of 40 draft tokens, and accepted(bucket) tokens at the four positions.
func vllmGroup(name string, g compute.Grid, accepted func(bucket int) [4]float64) []compute.Series {
	l := map[string]string{"model_name": name}
	one := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	out := []compute.Series{
		stepped(compute.Drafts, l, -1, g, one(10)),
		stepped(compute.DraftTokens, l, -1, g, one(40)),
		stepped(compute.AcceptedTokens, l, -1, g, func(j int) float64 {
			a := accepted(j)
			return a[0] + a[1] + a[2] + a[3]
		}),
	}
	for p := range 4 {
		out = append(out, stepped(compute.AcceptedPerPosition, l, p, g, func(j int) float64 { return accepted(j)[p] }))
	}
	return out
}

// healthFixture: 20 one-minute buckets of three models: "good" steady at
// 50 % acceptance, "broken" never accepting (collapsed), "dropped" at
// 50 % for 10 buckets then 10 %.
func healthFixture(groupBy []string) *Model {
	g := compute.Grid{Start: 1_800_000_000_000, End: 1_800_000_000_000 + 1_200_000, Step: 60_000}
	var series []compute.Series
	series = append(series, vllmGroup("good", g, func(int) [4]float64 { return [4]float64{8, 6, 4, 2} })...)
	series = append(series, vllmGroup("broken", g, func(int) [4]float64 { return [4]float64{} })...)
	series = append(series, vllmGroup("dropped", g, func(j int) [4]float64 {
		if j < 10 {
			return [4]float64{8, 6, 4, 2}
		}
		return [4]float64{4, 0, 0, 0}
	})...)
	return FromSeries(series, Request{Grid: g, GroupBy: groupBy})
}

// TestHealthVerdicts: each group's verdict from its counts (exact
// summaries with the numbers), the selection's, and the tiles of the
// health row.
func TestHealthVerdicts(t *testing.T) {
	m := healthFixture([]string{"model_name"})
	byName := map[string]Group{}
	for _, g := range m.Groups {
		byName[g.Name] = g
	}
	want := map[string]struct {
		state   compute.HealthState
		summary string
	}{
		"good":   {compute.Healthy, "acceptance rate 50.0 % over the last 20m, mean acceptance length 3.00"},
		"broken": {compute.Collapsed, "drafts 1/s but mean acceptance length 1.00 over the last 20m: drafted tokens are almost all rejected"},
		// Judged since its change at bucket 10: pos 1 at 40 %, pos 2 never.
		"dropped": {compute.PositionCliff, "position cliff after pos 1: pos 1 accepts 40.0 % of drafts, pos 2 only 0.0 % over the last 10m (mean acceptance length 1.40)"},
	}
	for name, w := range want {
		g, ok := byName[name]
		if !ok || g.Health == nil {
			t.Fatalf("group %s: missing or no verdict (%+v)", name, g)
		}
		if g.Health.State != w.state || g.Health.Summary != w.summary {
			t.Errorf("%s: %s %q\nwant %s %q", name, g.Health.State, g.Health.Summary, w.state, w.summary)
		}
	}
	if b := byName["broken"].Health; b.Cause != compute.CauseCollapsed || len(b.Evidence) != 1 ||
		!strings.HasPrefix(b.Evidence[0], "acceptance rate 0.0 % (95 % interval 0.0 %-0.08 % of 4800 draft tokens)") {
		t.Errorf("broken: cause %q evidence %q", b.Cause, b.Evidence)
	}
	if n := byName["dropped"].Health.Notes; len(n) != 1 || n[0] != "judged since the last change of the acceptance rate (from 50.0 % to 10.0 %, p < 0.001); over the whole window: acceptance rate 30.0 % over the last 20m, mean acceptance length 2.20" {
		t.Errorf("dropped: notes %q", n)
	}
	// The selection changed too (33.3 % to 20.0 %): judged since then,
	// 1200 + 0 + 240 accepted of 7200 draft tokens.
	if m.Health == nil || m.Health.State != compute.Healthy || m.Health.Summary != "acceptance rate 20.0 % over the last 10m, mean acceptance length 1.80" {
		t.Errorf("selection: %+v", m.Health)
	}
	rows := m.HealthRows()
	var names []string
	for _, r := range rows {
		names = append(names, r.Name+"="+string(r.Verdict.State))
	}
	if !slices.Equal(names, []string{"broken=collapsed", "dropped=position_cliff", "good=healthy"}) {
		t.Errorf("health rows %q", names)
	}
	// Not grouped: one tile, the selection.
	if rows := healthFixture(nil).HealthRows(); len(rows) != 1 || rows[0].Name != "all series" || rows[0].Verdict.State != compute.Healthy {
		t.Errorf("ungrouped rows %+v", rows)
	}
}

// TestHealthThresholdsRequest: a collapse threshold of 55 %
// (Request.Health) turns the steady 50 % group collapsed; bad URL
// overrides are named, good ones parsed.
func TestHealthThresholdsRequest(t *testing.T) {
	th, warn := ParseHealthThresholds(url.Values{"health.collapse_rate": {"0.55"}, "health.min_drafts": {"-3"}, "health.loop_rate": {"x"}})
	if th.CollapseRate != 0.55 || th.MinDrafts != 0 || th.LoopRate != 0 || len(warn) != 2 ||
		warn[0] != `health.min_drafts="-3"` || warn[1] != `health.loop_rate="x"` {
		t.Fatalf("parsed %+v, warnings %q", th, warn)
	}
	m := healthFixture([]string{"model_name"})
	m.Request.Health.Thresholds = th
	m.AddHealth()
	for _, g := range m.Groups {
		want := map[string]compute.HealthState{
			"good":    compute.Collapsed,     // 50 %: upper bound below 55 %
			"broken":  compute.Collapsed,     // 0 %
			"dropped": compute.PositionCliff, // since its change: checked before collapse
		}[g.Name]
		if g.Health.State != want {
			t.Errorf("%s at collapse rate 55 %%: %s %q", g.Name, g.Health.State, g.Health.Summary)
		}
	}
}

// TestHealthChanges: the drop of "dropped" at bucket 10 is one change
// point with the before and after rates and windows; the steady groups
// have none; the change text names the numbers and the p-value.
func TestHealthChanges(t *testing.T) {
	m := healthFixture([]string{"model_name"})
	for _, g := range m.Groups {
		if g.Name != "dropped" {
			if len(g.Changes) != 0 {
				t.Errorf("%s: changes %v on steady data", g.Name, g.Changes)
			}
			continue
		}
		if len(g.Changes) != 1 {
			t.Fatalf("dropped: %d changes %v, want 1", len(g.Changes), g.Changes)
		}
		c := m.ChangesOf(g.Changes)[0]
		if c.Bucket != 10 || !closeTo(c.Before.Estimate.V, 0.5) || !closeTo(c.After.Estimate.V, 0.1) {
			t.Errorf("change %v", c.ChangePoint)
		}
		g0 := m.Grid
		if c.At != g0.Start+600_000 || c.BeforeFrom != g0.Start || c.AfterTo != g0.End {
			t.Errorf("windows: at %d before from %d after to %d (grid %+v)", c.At, c.BeforeFrom, c.AfterTo, g0)
		}
		if got := c.Text("14:05"); got != "acceptance rate changed at 14:05 from 50.0 % to 10.0 % (p < 0.001)" {
			t.Errorf("text %q", got)
		}
	}
	if PText(0.0042) != "p = 0.004" {
		t.Errorf("PText(0.0042) = %q", PText(0.0042))
	}
}

// TestHealthIncompleteBuckets: buckets that may still grow are left out
// of the change detection (a drop in the newest bucket only is not yet a
// change); a group whose data starts late is judged over the part of the
// window its data covers; an idle selection is idle, not collapsed.
func TestHealthIncompleteBuckets(t *testing.T) {
	m := healthFixture([]string{"model_name"})
	m.Complete = 10
	m.AddHealth()
	for _, g := range m.Groups {
		if len(g.Changes) != 0 {
			t.Errorf("%s: changes %v within the first 10 buckets", g.Name, g.Changes)
		}
	}
	// Data in the last 5 of 20 buckets only: rates and "over the last"
	// cover those 5m, not the 20m window.
	m.Groups[0].FirstBucket = 15
	m.Groups[0].DataFrom = m.Grid.BucketStart(15)
	m.Request.GroupBy = []string{"model_name"}
	m.AddHealth()
	if v := m.Groups[0].Health; v.Summary != "drafts 4/s but mean acceptance length 1.00 over the last 5m: drafted tokens are almost all rejected" {
		t.Errorf("covered window: %q", v.Summary)
	}
	idle := FromSeries(nil, Request{Grid: compute.Grid{Start: 0, End: 600_000, Step: 60_000}})
	if idle.Health == nil || idle.Health.State != compute.Idle {
		t.Errorf("no series: %+v", idle.Health)
	}
}
