package app

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
	"specdash/view"
)

// Differences that round to zero print without a sign: "0.00", not
// "-0.00" (compare groups showed "-0.00 tokens/draft").
func TestSignedZero(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{-0.001, 2, "0.00"}, {math.Copysign(0, -1), 2, "0.00"}, {0.001, 2, "0.00"}, {-0.04, 1, "0.0"},
		{0.05, 2, "+0.05"}, {-0.05, 2, "-0.05"}, {1.5, 1, "+1.5"}, {-12.25, 1, "-12.2"}} {
		if got := view.Signed(c.v, c.d); got != c.want {
			t.Errorf("signed(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
	if got := view.SignedPoints(compute.Defined(-0.0001)); got != "0.0 pp" {
		t.Errorf("signedPoints(-0.0001) = %q, want 0.0 pp", got)
	}
	// Two groups with the same mean acceptance length up to rounding.
	a := compute.Derive(compute.Counts{Drafts: 3, DraftTokens: 9, AcceptedTokens: 4, AcceptedPerPosition: []float64{2, 1, 1}}, 10, compute.WithBonus)
	b := compute.Derive(compute.Counts{Drafts: 3000, DraftTokens: 9000, AcceptedTokens: 3999, AcceptedPerPosition: []float64{2000, 1000, 999}}, 10, compute.WithBonus)
	d := &Dashboard{}
	html := renderHTML(t, d.renderCompareTable(model.Sides{AName: "a", BName: "b", AStats: a, BStats: b}))
	if strings.Contains(html, "-0.00") || !strings.Contains(html, "0.00 tokens/draft") {
		t.Errorf("compare table: want \"0.00 tokens/draft\" without sign:\n%s", html)
	}
}

// renderHTML is ui's HTML as go-app's server renders it.
func renderHTML(t *testing.T, ui app.UI) string {
	t.Helper()
	return app.HTMLString(ui)
}

// /logs: a throughput without a window says so; "no drafts in window" is
// only for no drafts.
func TestLogCardsThroughputWithoutWindow(t *testing.T) {
	s := compute.Derive(compute.Counts{Drafts: 5, DraftTokens: 17620, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 0, compute.WithBonus)
	html := renderHTML(t, logCards(s, true, compute.WithBonus))
	if strings.Contains(html, compute.Undefined) {
		t.Errorf("cards with 17620 draft tokens say %q:\n%s", compute.Undefined, html)
	}
	if strings.Count(html, "throughput n/a (log window unknown)") != 2 || !strings.Contains(html, `data-reason="no-window"`) {
		t.Errorf("want both throughputs \"throughput n/a (log window unknown)\":\n%s", html)
	}
	html = renderHTML(t, logCards(s, false, compute.WithBonus))
	if strings.Count(html, "throughput n/a (a scrape has no window)") != 2 {
		t.Errorf("scrape: want \"throughput n/a (a scrape has no window)\":\n%s", html)
	}
	timed := compute.Derive(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 10, compute.WithBonus)
	if html := renderHTML(t, logCards(timed, true, compute.WithBonus)); !strings.Contains(html, `<span class="num">0.9</span>`) || !strings.Contains(html, `<span class="num">1.5</span>`) || strings.Count(html, `<span class="unit">tokens/s</span>`) != 2 {
		t.Errorf("timed log: want 0.9 and 1.5 tokens/s:\n%s", html)
	}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0}}, 0, compute.WithBonus)
	if html := renderHTML(t, logCards(none, true, compute.WithBonus)); strings.Contains(html, "n/a (log window") {
		t.Errorf("no drafts: want %q, not the window note:\n%s", compute.Undefined, html)
	}
}

// /logs on the log lines of vLLM PR 16665's review thread (seven k = 4
// lines, one k = 3; docs/METRICS.md "Known answers"): a warning about the
// mixed k and one source row per k.
func TestLogsPageMixedK(t *testing.T) {
	b, err := os.ReadFile("../logparse/testdata/seed_000.log")
	if err != nil {
		t.Fatal(err)
	}
	l := &LogsPage{conv: "auto", text: string(b)}
	l.parse()
	if l.rep == nil || len(l.rep.Groups) != 2 {
		t.Fatalf("report %+v, want two groups (k = 3, k = 4)", l.rep)
	}
	html := renderHTML(t, l.renderMessages())
	if !strings.Contains(html, "the log mixes lines with different k (k = 3: 1 line from line 8; k = 4: 7 lines from line 1)") {
		t.Errorf("messages lack the mixed-k warning:\n%s", html)
	}
	html = renderHTML(t, l.renderSources())
	if !strings.Contains(html, "k 3") || !strings.Contains(html, "k 4") || strings.Count(html, "data-source=") != 2 {
		t.Errorf("sources: want rows named k 3 and k 4:\n%s", html)
	}
}

// Absurd absolute windows in the URL are refused with a readable message
// and the relative range is shown; odd refresh values fall back to off.
func TestURLHardening(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		raw, warn string
	}{
		{"from=1&to=99999999999999999", "Time window in the URL ignored (the start 1970-01-01T00:00:00Z is before 2000-01-01): showing the last 15m."},
		{"from=2025-03-01T10:00:00Z&to=99999999999999999", "the end 99999999999999999 ms is more than 1 day in the future"},
		{"from=2025-03-01T10:00:00Z&to=3000-01-01T00:00:00Z", "the end 3000-01-01T00:00:00Z is more than 1 day in the future"},
		{"range=1h&from=2024-01-01T00:00:00Z&to=2025-03-01T00:00:00Z", "the window spans 425.0 days, more than the longest range offered (7d)): showing the last 1h."},
		{"from=2025-03-01T11:00:00Z&to=2025-03-01T10:00:00Z", "the start 2025-03-01T11:00:00Z is not before the end 2025-03-01T10:00:00Z"},
	} {
		v, _ := url.ParseQuery(c.raw)
		q := view.ParseQueryAt(v, now)
		if q.Absolute() || !strings.Contains(q.Warn, c.warn) {
			t.Errorf("%s: absolute %v, warn %q, want it to contain %q", c.raw, q.Absolute(), q.Warn, c.warn)
		}
		if q.Values().Has("from") || q.Values().Has("warn") {
			t.Errorf("%s: refused window written back: %s", c.raw, q.Values().Encode())
		}
	}
	// Within the limits: accepted, no warning (7 days exactly; ending a
	// day ahead).
	v, _ := url.ParseQuery("from=2025-02-22T12:00:00Z&to=2025-03-01T12:00:00Z")
	if q := view.ParseQueryAt(v, now); !q.Absolute() || q.Warn != "" {
		t.Errorf("7-day window refused: %+v", q)
	}
	v, _ = url.ParseQuery("from=2025-03-01T11:00:00Z&to=2025-03-02T12:00:00Z")
	if q := view.ParseQueryAt(v, now); !q.Absolute() || q.Warn != "" {
		t.Errorf("window ending a day ahead refused: %+v", q)
	}
	v, _ = url.ParseQuery("compare=window&base_from=1&base_to=2")
	if q := view.ParseQueryAt(v, now); q.BaseFrom != 0 || !strings.Contains(q.Warn, "Baseline window in the URL ignored") {
		t.Errorf("absurd baseline: %+v", q)
	}
	// Refresh: only the offered periods; 0s, negative, tiny or garbage is off.
	for _, r := range []string{"0s", "0", "-5s", "1ms", "1ns", "abc", "5", "1h", "999999h"} {
		v := url.Values{"refresh": {r}}
		if q := view.ParseQueryAt(v, now); q.Refresh != "off" || q.RefreshDuration() != 0 {
			t.Errorf("refresh=%s gives %q (%v), want off", r, q.Refresh, q.RefreshDuration())
		}
	}
	if q := view.ParseQueryAt(url.Values{"refresh": {"5s"}}, now); q.RefreshDuration() != 5*time.Second {
		t.Errorf("refresh=5s: %v", q.RefreshDuration())
	}
	// The message is shown on the page.
	d := &Dashboard{q: view.ParseQueryAt(url.Values{"from": {"1"}, "to": {"99999999999999999"}}, now)}
	if html := renderHTML(t, d.renderMessages()); !strings.Contains(html, `data-url-warning`) || !strings.Contains(html, "Time window in the URL ignored") {
		t.Errorf("messages:\n%s", html)
	}
}

// A 15 min window whose series start 65 s before its end (step 15 s):
// buckets before the first point are gaps in the throughput and drafts/s
// charts and empty in their CSV; the page says the data covers only the
// last 1m 05s (from the first points, the counts' base) and that the
// rates of the cards and the breakdown table are per second of those 65 s.
func TestPartialWindow(t *testing.T) {
	g := compute.Grid{Start: 1_000_000_000, End: 1_000_900_000, Step: 15_000}
	q := view.DefaultQuery()
	q.GroupBy = []string{"model_name"}
	first := g.End - 65_000 // 999_835_000 + ...: inside bucket 55 (825 s, 840 s]
	res := &view.Result{Query: q}
	res.FromSeries(fixtures.Fleet(first, g.End, 5_000), q, g, time.UnixMilli(g.End+time.Hour.Milliseconds()), time.Second)
	if res.FirstBucket != 55 || res.DataFrom != first {
		t.Fatalf("first bucket %d from %d, want 55 from %d", res.FirstBucket, res.DataFrom, first)
	}
	for _, gr := range res.Groups {
		if gr.FirstBucket != 55 {
			t.Errorf("group %s: first bucket %d, want 55", gr.Name, gr.FirstBucket)
		}
	}
	// Cards: increase / window seconds (900 s), as before.
	if !res.Stats.DraftsPerSecond.OK || math.Abs(res.Stats.DraftsPerSecond.V-res.Total.Total.Drafts/900) > 1e-12 {
		t.Errorf("drafts/s %v, want drafts %v / 900 s", res.Stats.DraftsPerSecond, res.Total.Total.Drafts)
	}
	want := "Data covers the last 1m 05s of this 15m window; the rates (drafts/s, tokens/s) on the cards and in the breakdown table are per second of data (1m 05s)"
	if note := view.CoverageNote(res); !strings.HasPrefix(note, want) {
		t.Errorf("note %q, want it to start with %q", note, want)
	}
	d := &Dashboard{q: q, res: res}
	if html := renderHTML(t, d.renderMessages()); !strings.Contains(html, want) || !strings.Contains(html, `data-coverage-seconds="65"`) {
		t.Errorf("messages lack the coverage note:\n%s", html)
	}
	v := d.prepare()
	// The breakdown table: drafts/s per second of data (65 s), as the
	// cards (model.Model.CoveredStatsOf), the seconds said in its note.
	table := renderHTML(t, d.renderBreakdown(v))
	for _, gr := range res.Groups {
		want := strconv.FormatFloat(gr.Stats.Drafts/65, 'f', -1, 64)
		if !strings.Contains(table, `data-cell="drafts-per-second" data-value="`+want+`"`) {
			t.Errorf("table row %s: want drafts/s %s (%v drafts / 65 s):\n%s", gr.Name, want, gr.Stats.Drafts, table)
		}
	}
	if !strings.Contains(table, "per second of data, as on the cards (1m 05s of the 15m window)") {
		t.Errorf("table note does not say the rates' seconds:\n%s", table)
	}
	for _, name := range []string{view.ChartThroughput, view.ChartDrafts} {
		var o echartsOption
		if err := json.Unmarshal([]byte(v.Options[name]), &o); err != nil {
			t.Fatal(err)
		}
		for si, s := range o.Series {
			for j, p := range s.Data {
				if gapWant := j < 55; (p.Value == "-") != gapWant {
					t.Errorf("%s series %d bucket %d = %v, want gap %v", name, si, j, p.Value, gapWant)
				}
			}
		}
		recs, err := csv.NewReader(strings.NewReader(d.exportTable(name).CSV())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 61 || recs[1][3] != "" || recs[55][3] != "" || recs[56][3] == "" {
			t.Errorf("%s CSV: rows %d, bucket 0 %q, bucket 54 %q, bucket 55 %q: want empty before the data", name, len(recs), recs[1][3], recs[55][3], recs[56][3])
		}
	}
	// Data over the whole window: no note.
	full := &view.Result{Query: q}
	full.FromSeries(fixtures.Fleet(g.Start-g.Step, g.End, 5_000), q, g, time.UnixMilli(g.End), time.Second)
	if full.FirstBucket != 0 || view.CoverageNote(full) != "" {
		t.Errorf("full window: first bucket %d, note %q", full.FirstBucket, view.CoverageNote(full))
	}
	for _, c := range []struct {
		ms   int64
		want string
	}{{65_000, "1m 05s"}, {900_000, "15m"}, {45_000, "45s"}, {3_780_000, "1h 03m"}, {7 * 86_400_000, "7d"}, {93_600_000, "1d 2h"}} {
		if got := compute.SpanText(c.ms); got != c.want {
			t.Errorf("SpanText(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}

// Before any load was shown (loading, or the source failed), the insights
// cards give the state, not "no drafts in window" or reasons that only
// hold for loaded counts (an unreachable Prometheus read "no drafts in
// window" and "no per-position counts").
func TestInsightsCardsBeforeData(t *testing.T) {
	for _, empty := range []string{"Loading…", "No data"} {
		p := &InsightsPanel{Ready: false, Empty: empty}
		p.cost = compute.DefaultDraftCostRatio
		html := renderHTML(t, p.Render())
		if strings.Contains(html, compute.Undefined) || strings.Contains(html, "no per-position counts") {
			t.Errorf("%s: cards say %q or give a reason:\n%s", empty, compute.Undefined, html)
		}
		if strings.Count(html, `data-waiting`) != 4 || strings.Count(html, empty) < 4 {
			t.Errorf("%s: want 4 waiting cards saying %q:\n%s", empty, empty, html)
		}
	}
	// Loaded: the numbers (here none: no drafts).
	p := &InsightsPanel{Ready: true}
	p.cost = compute.DefaultDraftCostRatio
	if html := renderHTML(t, p.Render()); !strings.Contains(html, compute.Undefined) || strings.Contains(html, `data-waiting`) {
		t.Errorf("loaded without drafts: want %q, no waiting cards:\n%s", compute.Undefined, html)
	}
}
