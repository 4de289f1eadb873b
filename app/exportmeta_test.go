package app

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/report"
)

// Exports say what they hold: window, filters, group-by, source and
// convention, as leading CSV comment lines (the data still parses with
// Comment '#') and as the JSON meta object; a value with a line break
// cannot end its comment line early.
func TestExportMetadata(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	q.Range = "5m"
	q.GroupBy = []string{"model_name"}
	q.Filter = map[string][]string{"engine": {"0", "1"}, "model_name": {"a\nb"}}
	q.Convention = compute.WithoutBonus
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)

	tbl := report.BreakdownTable(&res.Model, res.Groups)
	tbl.Meta = ExportMeta(res, q, "http://prom:9090", "v1.2")
	text := tbl.CSV()
	for _, want := range []string{
		"# window_start: 1970-01-01T00:16:40Z\n",
		"# window_end: 1970-01-01T00:17:10Z\n",
		"# step_seconds: 10\n",
		"# window: last 5m (live)\n",
		"# filters: engine in [0, 1]; model_name in [a b]\n",
		"# group_by: model_name\n",
		"# source: http://prom:9090\n",
		"# convention: without bonus token: mean acceptance length = accepted / drafts\n",
		"# exported_by: specdash v1.2\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("CSV lacks %q:\n%s", want, text)
		}
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("CSV with metadata does not parse: %v\n%s", err, text)
	}
	if len(recs) != 1+len(res.Groups) || recs[0][0] != "model_name" {
		t.Errorf("CSV records %v, want the header and %d rows after the metadata", recs, len(res.Groups))
	}

	var js struct {
		Name string            `json:"name"`
		Meta map[string]string `json:"meta"`
		Rows []map[string]any  `json:"rows"`
	}
	if err := json.Unmarshal([]byte(tbl.JSON()), &js); err != nil {
		t.Fatal(err)
	}
	if js.Meta["window_end"] != "1970-01-01T00:17:10Z" || js.Meta["group_by"] != "model_name" ||
		js.Meta["filters"] != "engine in [0, 1]; model_name in [a\nb]" || !strings.HasPrefix(js.Meta["convention"], "without bonus token") ||
		js.Meta["source"] != "http://prom:9090" || len(js.Rows) != len(res.Groups) {
		t.Errorf("JSON meta %v (%d rows)", js.Meta, len(js.Rows))
	}

	// No metadata: no comment lines and no meta key (report's own use).
	tbl.Meta = nil
	if strings.Contains(tbl.CSV(), "#") || strings.Contains(tbl.JSON(), `"meta"`) {
		t.Errorf("a table without Meta writes metadata")
	}
}

// The compare export is disabled, with the reason, when there is no
// comparison; enabled with one.
func TestCompareExportDisabled(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{"model_name"}
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	d := &Dashboard{q: q, res: res}
	if r := d.exportReason("compare"); !strings.Contains(r, "comparison off") {
		t.Errorf("compare off: export reason %q, want it disabled because the comparison is off", r)
	}
	if r := d.exportReason("breakdown"); r != "" {
		t.Errorf("breakdown export disabled: %q", r)
	}
	d.q.Compare = CompareGroups
	if r := d.exportReason("compare"); r != "" {
		t.Errorf("two groups compared: export disabled: %q", r)
	}
	html := renderHTML(t, (&Dashboard{q: q, res: res}).renderCompare(&view{}))
	if !strings.Contains(html, `data-export="compare.csv"`) || !strings.Contains(html, "Nothing to export: comparison off") || !strings.Contains(html, "disabled") {
		t.Errorf("compare panel with compare off: want disabled exports saying why:\n%s", html)
	}
	if r := (&Dashboard{}).exportReason("breakdown"); r == "" {
		t.Errorf("nothing loaded: exports enabled")
	}
}

// "Copy link" copies the view's canonical URL: the parameters the page
// read (normalised), the other panels' ones, and none it ignored.
func TestCanonicalURL(t *testing.T) {
	cur, err := url.Parse("http://host:8080/?range=bogus&model=a&utm_source=x&cost=0.2&theme=dark&group=model_name&f.job=vllm&junk=1#frag")
	if err != nil {
		t.Fatal(err)
	}
	q := ParseQuery(cur.Query())
	got, err := url.Parse(CanonicalURL(cur, q))
	if err != nil {
		t.Fatal(err)
	}
	v := got.Query()
	for _, k := range []string{"utm_source", "junk"} {
		if v.Has(k) {
			t.Errorf("canonical link %s keeps the ignored parameter %s", got, k)
		}
	}
	if v.Get("range") != DefaultQuery().Range || v.Get("model") != "a" || v.Get("cost") != "0.2" || v.Get("theme") != "dark" ||
		v.Get("group") != "model_name" || v.Get("f.job") != "vllm" {
		t.Errorf("canonical link %s: want range=%s (the refused value replaced), model, cost, theme, group and the job filter kept", got, DefaultQuery().Range)
	}
	if got.Host != "host:8080" || got.Path != "/" || got.Fragment != "" {
		t.Errorf("canonical link %s: want the same page without fragment", got)
	}
	if CanonicalURL(nil, q) != "" {
		t.Errorf("nil URL: want an empty link")
	}
}

// Significant differences are coloured by direction: lower acceptance in B
// is worse, not green.
func TestCompareDirectionClass(t *testing.T) {
	for _, c := range []struct {
		cmp  compute.Comparison
		want string
	}{
		{compute.Comparison{Significant: true, Difference: compute.Defined(0.05)}, "compare-better"},
		{compute.Comparison{Significant: true, Difference: compute.Defined(-0.05)}, "compare-worse"},
		{compute.Comparison{Significant: false, Difference: compute.Defined(-0.05)}, ""},
		{compute.Comparison{Reason: "no drafts", Significant: true, Difference: compute.Defined(-0.05)}, ""},
	} {
		if got := directionClass(c.cmp); got != c.want {
			t.Errorf("%+v: class %q, want %q", c.cmp, got, c.want)
		}
	}
}

// The exports carry the page's summary line (filters · window · source)
// and the seconds the rates are per; a chart's PNG has them as its title
// lines; a split chart (per-position, heatmap, token flow) exports what it
// shows: the chosen group's own numbers, or the blend, said in "shows".
func TestExportSummaryAndSplit(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	q := DefaultQuery()
	q.Range = "15m"
	q.GroupBy = []string{"model_name"}
	q.Filter = map[string][]string{"engine": {"0", "1"}}
	q.TZ = TZUTC
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)
	d := &Dashboard{q: q, res: res, source: "http://prom:9090"}

	meta := map[string]string{}
	for _, m := range ExportMeta(res, q, d.source, "") {
		meta[m.Key] = m.Value
	}
	if want := "engine = 0, 1 · last 15 min · source http://prom:9090"; meta["summary"] != want {
		t.Errorf("summary meta %q, want %q", meta["summary"], want)
	}
	if want := "drafts/s and tokens/s per second of data: 1m of the 1m window"; meta["rates"] != want {
		t.Errorf("rates meta %q, want %q", meta["rates"], want)
	}
	title := PNGTitle(res, q, d.source, d.splitShows(ChartPerPosition))
	want := []string{
		"engine = 0, 1 · last 15 min · source http://prom:9090",
		"1970-01-01 00:16:40 – 1970-01-01 00:17:40 UTC, step 10 s · with bonus token: mean acceptance length = 1 + accepted / drafts (vLLM PR 17908)",
		"shows all 2 models blended (ratio of sums)",
	}
	if strings.Join(title, "\n") != strings.Join(want, "\n") {
		t.Errorf("PNG title\n%q\nwant\n%q", title, want)
	}
	if s := d.splitShows(ChartAcceptanceRate); s != "" {
		t.Errorf("acceptance-rate chart (one line per group) shows %q, want no split note", s)
	}

	// Per position, pos 1: model a accepts 6 of 6 drafts (per second),
	// model b 3 of 6; blended 9 / 12.
	pos1 := func(tb DataTable) string {
		recs, err := readMetaCSV(tb)
		if err != nil || len(recs) < 2 {
			t.Fatalf("per-position CSV: %v %v", recs, err)
		}
		return recs[1][3] // position, accepted_tokens, drafts, acceptance_rate
	}
	csvMeta := func(tb DataTable) string {
		for _, m := range tb.Meta {
			if m.Key == "shows" {
				return m.Value
			}
		}
		return ""
	}
	blend := d.exportTableWithMeta(ChartPerPosition)
	if got := pos1(blend); got != "0.75" || csvMeta(blend) != "all 2 models blended (ratio of sums)" {
		t.Errorf("blend export: pos 1 %s, shows %q; want 0.75, the blend", got, csvMeta(blend))
	}
	d.lay.split = res.Groups[1].Key // model b
	d.view = view{}
	for _, name := range []string{ChartPerPosition, ChartHeatmap, ChartThroughput} {
		tb := d.exportTableWithMeta(name)
		if csvMeta(tb) != "b (1 of 2 models)" {
			t.Errorf("%s export with model b shown: shows %q", name, csvMeta(tb))
		}
	}
	if got := pos1(d.exportTableWithMeta(ChartPerPosition)); got != "0.5" {
		t.Errorf("model b's per-position export: pos 1 %s, want 0.5 (3 of 6), not the blend", got)
	}
	heat, err := readMetaCSV(d.exportTableWithMeta(ChartHeatmap))
	if err != nil {
		t.Fatal(err)
	}
	// bucket_end, bucket_end_unix_ms, complete, drafts, pos_1, pos_2: the
	// last bucket of model b alone: (2 + 4) drafts/s × 10 s, pos 1 half.
	last := heat[len(heat)-1]
	if last[3] != "60" || last[4] != "0.5" {
		t.Errorf("model b's heatmap export, last bucket %v: want 60 drafts, pos 1 0.5", last)
	}
	tokens, err := readMetaCSV(d.exportTableWithMeta(ChartThroughput))
	if err != nil {
		t.Fatal(err)
	}
	// drafted tokens/s of model b: 4 + 8 (the blend: 24).
	if last := tokens[len(tokens)-1]; last[3] != "12" {
		t.Errorf("model b's token flow export, last bucket %v: want 12 drafted tokens/s", last)
	}
}

// readMetaCSV reads an export's CSV past its "# key: value" lines.
func readMetaCSV(tb DataTable) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(tb.CSV()))
	r.Comment = '#'
	return r.ReadAll()
}
