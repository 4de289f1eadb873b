package model

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/logparse"
	"specdash/metricsclient"
)

// *metricsclient.Client is the Source of the dashboard and the report.
var _ Source = (*metricsclient.Client)(nil)

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

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

// counter is a series rising by inc per step from start to end.
func counter(f compute.Family, labels map[string]string, pos int, start, end, step int64, inc float64) compute.Series {
	s := compute.Series{Family: f, Labels: labels, Position: pos}
	v := 0.0
	for t := start; t <= end; t += step {
		s.Points = append(s.Points, compute.Point{T: t, V: v})
		v += inc
	}
	return s
}

// TestFromSeriesWindow: data that starts in the window's last third gives
// the coverage note (in the notes, where the report warns), gaps before
// its first bucket in the time charts' lines, the buckets younger than
// IncompleteLag as incomplete, rejected tokens/s as drafted - accepted,
// and heatmap columns as ratios of sums.
func TestFromSeriesWindow(t *testing.T) {
	g := compute.Grid{Start: 0, End: 600_000, Step: 60_000} // 10 buckets
	l := map[string]string{"model_name": "a"}
	from := int64(420_000) // first point in bucket 6
	series := []compute.Series{
		counter(compute.Drafts, l, -1, from, g.End, 10_000, 2),
		counter(compute.DraftTokens, l, -1, from, g.End, 10_000, 6),
		counter(compute.AcceptedTokens, l, -1, from, g.End, 10_000, 4),
		counter(compute.AcceptedPerPosition, l, 0, from, g.End, 10_000, 2),
		counter(compute.AcceptedPerPosition, l, 1, from, g.End, 10_000, 1),
		counter(compute.AcceptedPerPosition, l, 2, from, g.End, 10_000, 1),
	}
	now := time.UnixMilli(g.End + 5_000 + 16_000) // the last bucket ended 21 s ago
	m := FromSeries(series, Request{Grid: g, GroupBy: []string{"model_name"}, Now: now, Scrape: 30 * time.Second})
	if m.FirstBucket != 6 || m.DataFrom != 360_000 {
		t.Fatalf("first bucket %d from %d", m.FirstBucket, m.DataFrom)
	}
	note := m.CoverageNote()
	if !strings.HasPrefix(note, "Data covers the last 4m of this 10m window") || !slices.Contains(m.Notes, note) {
		t.Errorf("coverage note %q, notes %q", note, m.Notes)
	}
	if m.Complete != 9 {
		t.Errorf("complete %d, want 9 (the last bucket ended less than 35 s ago)", m.Complete)
	}
	lines := LinesOf(m.Groups[0])
	if lines.DraftsPerSecond[5].OK || !lines.DraftsPerSecond[7].OK || !closeTo(lines.DraftsPerSecond[7].V, 12.0/60) {
		t.Errorf("drafts/s %v", lines.DraftsPerSecond)
	}
	tr := m.TokenRates()
	if tr.Rejected[5].OK || !closeTo(tr.Rejected[7].V, (36.0-24)/60) {
		t.Errorf("rejected %v", tr.Rejected)
	}
	h := m.Heatmap()
	if h.K != 3 || len(h.First) != 10 || h.Complete != 9 || !closeTo(h.Stats[7].PerPositionAcceptanceRate[0].V, 1) {
		t.Errorf("heatmap %+v", h)
	}
}

// TestFromLog: two sources of vLLM's current log line are two groups, the
// total sums them, drafts are marked derived, and the total has no
// throughput (their windows may overlap).
func TestFromLog(t *testing.T) {
	text := `(EngineCore_DP0 pid=1) INFO 06-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 2.00, Accepted throughput: 10.00 tokens/s, Drafted throughput: 30.00 tokens/s, Accepted: 100 tokens, Drafted: 300 tokens, Per-position acceptance rate: 0.500, 0.300, 0.200, Avg Draft acceptance rate: 33.3%
(EngineCore_DP1 pid=2) INFO 06-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 3.00, Accepted throughput: 20.00 tokens/s, Drafted throughput: 30.00 tokens/s, Accepted: 200 tokens, Drafted: 300 tokens, Per-position acceptance rate: 0.800, 0.700, 0.500, Avg Draft acceptance rate: 66.7%
`
	res := logparse.Parse(text)
	if len(res.Entries) != 2 {
		t.Fatalf("log form not recognised by logparse: %+v", res.Problems)
	}
	m := FromLog(res, compute.WithBonus, nil)
	if m.Log == nil || m.Log.Input != "log" || m.Log.Entries != 2 || len(m.Groups) != 2 {
		t.Fatalf("log %+v, %d groups", m.Log, len(m.Groups))
	}
	if m.Stats.AcceptedTokens != 300 || m.Stats.DraftTokens != 600 || m.Stats.AcceptedThroughput.OK || m.WindowSeconds != 0 {
		t.Errorf("total %+v, window %v", m.Stats, m.WindowSeconds)
	}
	if m.Insights == nil || !slices.Contains(m.Insights.Derived, "drafts") {
		t.Errorf("insights %+v", m.Insights)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.HasPrefix(n, "2 sources: the total has no throughput") }) {
		t.Errorf("notes %q", m.Notes)
	}
}
