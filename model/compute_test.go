//go:build !js

package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// The tests here run a real Prometheus: host only (the others run in
// js/wasm too).

// *metricsclient.Client is the Source of the dashboard and the report.
var _ Source = (*metricsclient.Client)(nil)

// TestComputeKnownAnswer: Compute over the known-answer fixture in a real
// Prometheus (promtool backfill) gives the fixture's hand-computed counts
// and ratios per model and in total over its sub-range (which holds a
// counter reset), notes the mixed k (model A drafts k=3, model B k=4),
// and a refresh that continues the first Model's Window (a live window
// slid forward by one step) re-reads only the newest points and gives
// the same numbers as a full read of the same window.
func TestComputeKnownAnswer(t *testing.T) {
	fx := fixtures.KnownAnswer()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	const scrape = 15 * time.Second
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	w := fx.Sub
	r := Request{Grid: w.Grid(), GroupBy: []string{"model_name"}, Labels: true,
		Now: time.UnixMilli(w.Grid().End).Add(time.Hour), Scrape: scrape}
	m, err := Compute(ctx, c, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != len(w.Models) {
		t.Fatalf("%d groups, want %d", len(m.Groups), len(w.Models))
	}
	check := func(what string, got compute.Stats, want fixtures.Expected) {
		t.Helper()
		if got.Drafts != want.Counts.Drafts || got.DraftTokens != want.Counts.DraftTokens || got.AcceptedTokens != want.Counts.AcceptedTokens {
			t.Errorf("%s: counts %v %v %v, want %+v", what, got.Drafts, got.DraftTokens, got.AcceptedTokens, want.Counts)
		}
		if !closeTo(got.AcceptanceRate.V, want.AcceptanceRate) || !closeTo(got.MeanAcceptanceLength.V, want.MeanAcceptanceLength) {
			t.Errorf("%s: rate %v length %v, want %v %v", what, got.AcceptanceRate, got.MeanAcceptanceLength, want.AcceptanceRate, want.MeanAcceptanceLength)
		}
		if !closeTo(got.AcceptedThroughput.V, want.AcceptedPerSecond) {
			t.Errorf("%s: accepted/s %v, want %v", what, got.AcceptedThroughput, want.AcceptedPerSecond)
		}
	}
	for _, g := range m.Groups {
		want, ok := w.Models[g.Labels["model_name"]]
		if !ok {
			t.Fatalf("unexpected group %v", g.Labels)
		}
		check(g.Name, g.Stats, want)
		if g.Key != compute.GroupKey(g.Labels, r.GroupBy) || g.Name != g.Labels["model_name"] {
			t.Errorf("group key %q name %q", g.Key, g.Name)
		}
	}
	check("total", m.Stats, w.Total)
	if m.Complete != w.Grid().Buckets() || m.FirstBucket != 0 || m.Incremental || m.Window == nil {
		t.Errorf("complete %d first %d incremental %v window %v", m.Complete, m.FirstBucket, m.Incremental, m.Window)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.HasPrefix(n, "the selected series mix k = 3 and 4") }) {
		t.Errorf("notes %q lack the mixed-k warning", m.Notes)
	}
	if m.Schema == nil || m.Schema.Schema.ID != metricsclient.VLLMV1.ID || len(m.Schema.Unavailable) != 0 || len(m.Labels["engine"]) != 2 {
		t.Errorf("schema %+v, labels %v", m.Schema, m.Labels)
	}
	if m.Insights != nil {
		t.Error("insights computed without Request.Insights")
	}

	// A live window one step later, continued from m's Window.
	g2 := w.Grid()
	g2.Start += g2.Step
	g2.End += g2.Step
	now := time.UnixMilli(g2.End).Add(time.Hour)
	next := Request{Grid: g2, GroupBy: r.GroupBy, Now: now, Scrape: scrape, Prev: m.Window}
	inc, err := Compute(ctx, c, next)
	if err != nil {
		t.Fatal(err)
	}
	next.Prev = nil
	full, err := Compute(ctx, c, next)
	if err != nil {
		t.Fatal(err)
	}
	if !inc.Incremental || full.Incremental {
		t.Fatalf("incremental %v, full %v", inc.Incremental, full.Incremental)
	}
	if inc.Total.Total.Drafts != full.Total.Total.Drafts || inc.Stats.AcceptanceRate != full.Stats.AcceptanceRate || len(inc.Groups) != len(full.Groups) {
		t.Errorf("incremental %+v, full %+v", inc.Stats, full.Stats)
	}
	for i := range inc.Groups {
		if inc.Groups[i].Stats.AcceptedTokens != full.Groups[i].Stats.AcceptedTokens {
			t.Errorf("group %s: incremental %v, full %v accepted", inc.Groups[i].Name, inc.Groups[i].Stats.AcceptedTokens, full.Groups[i].Stats.AcceptedTokens)
		}
	}

	// Filters that exclude every series: the error, and the label lists
	// of the unfiltered series for the menus.
	none := r
	none.Filters = []metricsclient.Filter{{Name: "model_name", Values: []string{"absent"}}}
	fm, err := Compute(ctx, c, none)
	if err == nil || fm == nil || len(fm.Models) != len(w.Models) {
		t.Errorf("filtered out: err %v, model %+v", err, fm)
	}

	// Insights of every group and the total, at per-model costs; an
	// override that matches nothing is noted.
	r.Insights = true
	r.DraftCost = &CostRatios{Default: 0.05, ByValue: map[string]float64{"absent": 0.1}}
	m, err = Compute(ctx, c, r)
	if err != nil {
		t.Fatal(err)
	}
	want := ComputeInsights(m.Stats.Counts(), 0.05)
	if m.Insights == nil || m.Insights.Speedup == nil || *m.Insights.Speedup != *want.Speedup || m.Groups[0].Insights == nil {
		t.Errorf("insights %+v", m.Insights)
	}
	if !slices.Contains(m.Notes, `draft cost ratio for "absent" matched no group: group by the label holding it (e.g. --group-by=model_name)`) {
		t.Errorf("notes %q", m.Notes)
	}
}
