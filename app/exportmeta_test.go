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
