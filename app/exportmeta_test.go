package app

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/report"
	"specdash/view"
)

// The compare export is disabled, with the reason, when there is no
// comparison; enabled with one.
func TestCompareExportDisabled(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := view.DefaultQuery()
	q.GroupBy = []string{"model_name"}
	res := &view.Result{Query: q}
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	d := &Dashboard{q: q, res: res}
	if r := d.exportReason("compare"); !strings.Contains(r, "comparison off") {
		t.Errorf("compare off: export reason %q, want it disabled because the comparison is off", r)
	}
	if r := d.exportReason("breakdown"); r != "" {
		t.Errorf("breakdown export disabled: %q", r)
	}
	d.q.Compare = view.CompareGroups
	if r := d.exportReason("compare"); r != "" {
		t.Errorf("two groups compared: export disabled: %q", r)
	}
	html := renderHTML(t, (&Dashboard{q: q, res: res}).renderCompare(&view.Charts{}))
	if !strings.Contains(html, `data-export="compare.csv"`) || !strings.Contains(html, "Nothing to export: comparison off") || !strings.Contains(html, "disabled") {
		t.Errorf("compare panel with compare off: want disabled exports saying why:\n%s", html)
	}
	if r := (&Dashboard{}).exportReason("breakdown"); r == "" {
		t.Errorf("nothing loaded: exports enabled")
	}
}

// The exports carry the page's summary line (filters · window · source)
// and the seconds the rates are per; a chart's PNG has them as its title
// lines; a split chart (per-position, heatmap, token flow) exports what it
// shows: the chosen group's own numbers, or the blend, said in "shows".
func TestExportSummaryAndSplit(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	q := view.DefaultQuery()
	q.Range = "15m"
	q.GroupBy = []string{"model_name"}
	q.Filter = map[string][]string{"engine": {"0", "1"}}
	q.TZ = view.TZUTC
	res := &view.Result{Query: q}
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)
	d := &Dashboard{q: q, res: res, source: "http://prom:9090"}

	meta := map[string]string{}
	for _, m := range view.ExportMeta(res, q, d.source, "") {
		meta[m.Key] = m.Value
	}
	if want := "engine = 0, 1 · last 15 min · source http://prom:9090"; meta["summary"] != want {
		t.Errorf("summary meta %q, want %q", meta["summary"], want)
	}
	if want := "drafts/s and tokens/s per second of data: 1m of the 1m window"; meta["rates"] != want {
		t.Errorf("rates meta %q, want %q", meta["rates"], want)
	}
	title := view.PNGTitle(res, q, d.source, d.res.SplitShows(view.ChartPerPosition, d.lay.Split))
	want := []string{
		"engine = 0, 1 · last 15 min · source http://prom:9090",
		"1970-01-01 00:16:40 – 1970-01-01 00:17:40 UTC, step 10 s · with bonus token: mean acceptance length = 1 + accepted / drafts (vLLM PR 17908)",
		"shows all 2 models blended (ratio of sums)",
	}
	if strings.Join(title, "\n") != strings.Join(want, "\n") {
		t.Errorf("PNG title\n%q\nwant\n%q", title, want)
	}
	if s := d.res.SplitShows(view.ChartAcceptanceRate, d.lay.Split); s != "" {
		t.Errorf("acceptance-rate chart (one line per group) shows %q, want no split note", s)
	}

	// Per position, pos 1: model a accepts 6 of 6 drafts (per second),
	// model b 3 of 6; blended 9 / 12.
	pos1 := func(tb report.Table) string {
		recs, err := readMetaCSV(tb)
		if err != nil || len(recs) < 2 {
			t.Fatalf("per-position CSV: %v %v", recs, err)
		}
		return recs[1][3] // position, accepted_tokens, drafts, acceptance_rate
	}
	csvMeta := func(tb report.Table) string {
		for _, m := range tb.Meta {
			if m.Key == "shows" {
				return m.Value
			}
		}
		return ""
	}
	blend := d.exportTableWithMeta(view.ChartPerPosition)
	if got := pos1(blend); got != "0.75" || csvMeta(blend) != "all 2 models blended (ratio of sums)" {
		t.Errorf("blend export: pos 1 %s, shows %q; want 0.75, the blend", got, csvMeta(blend))
	}
	d.lay.Split = res.Groups[1].Key // model b
	d.view = view.Charts{}
	for _, name := range []string{view.ChartPerPosition, view.ChartHeatmap, view.ChartThroughput} {
		tb := d.exportTableWithMeta(name)
		if csvMeta(tb) != "b (1 of 2 models)" {
			t.Errorf("%s export with model b shown: shows %q", name, csvMeta(tb))
		}
	}
	if got := pos1(d.exportTableWithMeta(view.ChartPerPosition)); got != "0.5" {
		t.Errorf("model b's per-position export: pos 1 %s, want 0.5 (3 of 6), not the blend", got)
	}
	heat, err := readMetaCSV(d.exportTableWithMeta(view.ChartHeatmap))
	if err != nil {
		t.Fatal(err)
	}
	// bucket_end, bucket_end_unix_ms, complete, drafts, pos_1, pos_2: the
	// last bucket of model b alone: (2 + 4) drafts/s × 10 s, pos 1 half.
	last := heat[len(heat)-1]
	if last[3] != "60" || last[4] != "0.5" {
		t.Errorf("model b's heatmap export, last bucket %v: want 60 drafts, pos 1 0.5", last)
	}
	tokens, err := readMetaCSV(d.exportTableWithMeta(view.ChartThroughput))
	if err != nil {
		t.Fatal(err)
	}
	// drafted tokens/s of model b: 4 + 8 (the blend: 24).
	if last := tokens[len(tokens)-1]; last[3] != "12" {
		t.Errorf("model b's token flow export, last bucket %v: want 12 drafted tokens/s", last)
	}
}

// readMetaCSV reads an export's CSV past its "# key: value" lines.
func readMetaCSV(tb report.Table) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(tb.CSV()))
	r.Comment = '#'
	return r.ReadAll()
}
