package model

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/logparse"
)

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

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
	// The first point (420 s, no _created) is the base: the counts, and
	// the seconds of data, start there.
	if m.FirstBucket != 6 || m.DataFrom != 420_000 || m.CoveredSeconds() != 180 {
		t.Fatalf("first bucket %d from %d, covered %v s", m.FirstBucket, m.DataFrom, m.CoveredSeconds())
	}
	note := m.CoverageNote()
	if !strings.HasPrefix(note, "Data covers the last 3m of this 10m window") || !slices.Contains(m.Notes, note) {
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
