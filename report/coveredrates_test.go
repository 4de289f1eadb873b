package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// gapCounter is a counter rising by inc per 10 s from start to end (Unix
// ms): no sample before start (the window's data gap).
func gapCounter(f compute.Family, labels map[string]string, pos int, start, end int64, inc float64) compute.Series {
	s := compute.Series{Family: f, Labels: labels, Position: pos}
	v := 0.0
	for t := start; t <= end; t += 10_000 {
		s.Points = append(s.Points, compute.Point{T: t, V: v})
		v += inc
	}
	return s
}

// TestRatesPerSecondOfData: a 900 s window whose data starts late (model
// a at 300 s, model b at 600 s: nothing before). The cards, the breakdown
// table (its export) and the report give drafts/s and tokens/s per second
// of data, the same seconds for every group (one compute:
// model.Model.CoveredStatsOf), so the groups add up to the total.
//
// Hand-computed: 30 s buckets; model a's first point (300 s, no
// _created) is the base its counts start from, so the data covers
// 900 − 300 = 600 s (model a's 2 drafts per 10 s read 0.2/s). Model a: 2
// drafts, 6 draft tokens, 3 accepted per 10 s over 600 s = 120 drafts,
// 360 draft tokens, 180 accepted; model b: 4 drafts, 12 draft tokens, 6
// accepted per 10 s over 300 s = 120, 360, 180.
func TestRatesPerSecondOfData(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	var series []compute.Series
	for _, m := range []struct {
		name  string
		start int64
		n     float64
	}{{"a", 300_000, 1}, {"b", 600_000, 2}} {
		l := map[string]string{"model_name": m.name}
		series = append(series,
			gapCounter(compute.Drafts, l, -1, m.start, g.End, 2*m.n),
			gapCounter(compute.DraftTokens, l, -1, m.start, g.End, 6*m.n),
			gapCounter(compute.AcceptedTokens, l, -1, m.start, g.End, 3*m.n),
			gapCounter(compute.AcceptedPerPosition, l, 0, m.start, g.End, 2*m.n),
			gapCounter(compute.AcceptedPerPosition, l, 1, m.start, g.End, 1*m.n),
			gapCounter(compute.AcceptedPerPosition, l, 2, m.start, g.End, 0),
		)
	}
	m := model.FromSeries(series, model.Request{Grid: g, GroupBy: []string{"model_name"},
		Now: time.UnixMilli(g.End + 60_000), Scrape: 10 * time.Second})
	const covered = 600.0
	if m.CoveredSeconds() != covered {
		t.Fatalf("covered %v s, want %v", m.CoveredSeconds(), covered)
	}
	near := func(what string, got compute.Value, want float64) {
		t.Helper()
		if !got.OK || math.Abs(got.V-want) > 1e-12 {
			t.Errorf("%s = %+v, want %.15g", what, got, want)
		}
	}
	// The cards.
	cs := m.CoveredStats()
	near("cards drafts/s", cs.DraftsPerSecond, 240/covered)
	near("cards accepted tokens/s", cs.AcceptedThroughput, 360/covered)
	near("cards drafted tokens/s", cs.DraftedThroughput, 720/covered)

	// The report: the same numbers, per group and total.
	r := FromModel(m, nil)
	if r.CoveredSeconds != covered || r.WindowSeconds != 900 {
		t.Errorf("report covered %v s of %v s, want %v of 900", r.CoveredSeconds, r.WindowSeconds, covered)
	}
	near("report total drafts/s", r.Total.DraftsPerSecond, 240/covered)
	near("report total drafted tokens/s", r.Total.DraftedThroughput, 720/covered)
	if len(r.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(r.Groups))
	}
	for _, gr := range r.Groups {
		near("report "+gr.Labels["model_name"]+" drafts/s", gr.Stats.DraftsPerSecond, 120/covered)
		near("report "+gr.Labels["model_name"]+" accepted tokens/s", gr.Stats.AcceptedThroughput, 180/covered)
		near("report "+gr.Labels["model_name"]+" acceptance rate", gr.Stats.AcceptanceRate, 0.5)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "rates (drafts/s, tokens/s) per second of data: 10m of the window\n") {
		t.Errorf("report text does not say the rates' seconds:\n%s", b.String())
	}
	// vLLM's log line of the total: 240 drafts / 600 s.
	if !strings.Contains(b.String(), "total: ") {
		t.Errorf("report text lacks the total:\n%s", b.String())
	}

	// The breakdown table's export: per group, the same.
	tab := BreakdownTable(m, m.Groups)
	col := map[string]int{}
	for i, c := range tab.Columns {
		col[c] = i
	}
	for _, row := range tab.Rows {
		for c, want := range map[string]float64{"drafts_per_second": 120 / covered, "accepted_tokens_per_second": 180 / covered,
			"drafted_tokens_per_second": 360 / covered} {
			if got, ok := row[col[c]].(float64); !ok || math.Abs(got-want) > 1e-12 {
				t.Errorf("breakdown %v %s = %v, want %.15g", row[0], c, row[col[c]], want)
			}
		}
	}
	// The coverage note says so.
	if note := m.CoverageNote(); !strings.HasSuffix(note, "rates (drafts/s, tokens/s) are per second of data (10m)") {
		t.Errorf("coverage note %q", note)
	}
}

// TestCoveredSecondsText: the rates line names the seconds of data as the
// coverage warning below it does (compute.SpanText, rounded): 67.853 s of
// a 15 min window printed "1m8s" there and "1m 07s" in the warning.
func TestCoveredSecondsText(t *testing.T) {
	r := seedResult(compute.WithBonus)
	r.WindowSeconds, r.CoveredSeconds = 900, 67.853
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nrates (drafts/s, tokens/s) per second of data: 1m 08s of the window\n") {
		t.Errorf("rates line of 67.853 s of data, want 1m 08s:\n%s", b.String())
	}
	g := compute.Grid{Start: 0, End: 900_000, Step: 5_000}
	note := compute.Coverage{FirstBucket: 166, DataFrom: 900_000 - 67_853}.Note(g)
	if !strings.Contains(note, "per second of data (1m 08s)") {
		t.Errorf("coverage note %q, want the same 1m 08s", note)
	}
}
