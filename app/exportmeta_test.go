package app

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
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

// Missing metrics read as a short checklist: the likely cause first, what
// was looked for in one line (the names folded), what was found instead;
// an unreachable server in the browser is specdash, not Prometheus.
func TestDescribeProblem(t *testing.T) {
	miss := &metricsclient.MissingMetricsError{
		Schema: "vLLM V1",
		Wanted: []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
			"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total"},
		EngineMetrics: []string{"vllm:num_requests_running", "vllm:generation_tokens_total"},
		Cause:         metricsclient.CauseSpecDecodingOff,
	}
	p := DescribeProblem(miss, true)
	if p.Kind != ProblemNoMetrics || !strings.Contains(p.Cause, "speculative decoding looks off") {
		t.Errorf("missing metrics: %+v", p)
	}
	if len(p.Facts) != 2 || p.Facts[0] != "Looked for: 4 counters of vLLM V1, e.g. vllm:spec_decode_num_drafts_total" ||
		!strings.Contains(p.Facts[1], "vllm:num_requests_running") {
		t.Errorf("facts %q", p.Facts)
	}
	if len(p.Folded) != 1 || !strings.Contains(p.Folded[0], "vllm:spec_decode_num_accepted_tokens_per_pos_total") {
		t.Errorf("folded %q, want every name looked for", p.Folded)
	}

	down := &metricsclient.APIError{Op: "query_range", Address: "/prom", Kind: metricsclient.Unreachable, Msg: "fetch failed"}
	if p := DescribeProblem(down, true); p.Kind != ProblemServerDown || !strings.Contains(p.Title, "specdash server is unreachable") {
		t.Errorf("browser, no answer: %+v, want the specdash server named", p)
	}
	if p := DescribeProblem(down, false); p.Kind != ProblemPrometheusDown {
		t.Errorf("server side, no answer: %+v, want Prometheus down", p)
	}
	proxy := &metricsclient.APIError{Op: "query_range", Address: "/prom", Kind: metricsclient.Proxy, Msg: "Prometheus is unreachable: connection refused (is it running?)"}
	if p := DescribeProblem(proxy, true); p.Kind != ProblemPrometheusDown || p.Title != "Prometheus is unreachable" {
		t.Errorf("proxy says Prometheus is down: %+v", p)
	}
	if p := DescribeProblem(nil, true); p.Kind != "" {
		t.Errorf("no error: %+v", p)
	}
}

// The error banner: headline, cause and facts visible, the whole message
// in a <details>.
func TestProblemBanner(t *testing.T) {
	miss := &metricsclient.MissingMetricsError{Schema: "vLLM V1", Wanted: []string{"vllm:spec_decode_num_drafts_total", "vllm:b", "vllm:c"},
		SpecLike: []string{"my_spec_drafts"}, Cause: metricsclient.CauseRenamed}
	d := &Dashboard{q: DefaultQuery(), err: miss}
	html := renderHTML(t, d.renderMessages())
	title := strings.Index(html, "No speculative-decoding metrics in this window")
	cause := strings.Index(html, "Likely cause: metrics that look like speculative decoding exist")
	details := strings.Index(html, "<details")
	full := strings.Index(html, "vllm:b, vllm:c")
	if title < 0 || cause < title || details < cause || full < details {
		t.Errorf("banner order: title %d, cause %d, details %d, names %d; want title, cause, then the names folded:\n%s", title, cause, details, full, html)
	}
	if !strings.Contains(html, "Found instead: my_spec_drafts") || !strings.Contains(html, `data-problem="no-metrics"`) {
		t.Errorf("banner lacks what was found instead:\n%s", html)
	}
}

// Each chart has a text summary of the numbers it draws; a hostile group
// name is text (escaped), never markup.
func TestChartSummaries(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	res := &Result{Query: q}
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	d := &Dashboard{q: q, res: res}
	v := d.prepare()
	s := chartSummaries(res, v)
	for _, name := range []string{ChartPerPosition, ChartHeatmap, ChartAcceptanceRate, ChartAcceptanceLength, ChartThroughput, ChartDrafts} {
		if s[name] == "" || strings.Contains(s[name], "NaN") {
			t.Errorf("%s: summary %q", name, s[name])
		}
	}
	// Fleet: pos 1 270/360 = 75 %, pos 2 90/360 = 25 %.
	if want := "pos 1 75.0 %, pos 2 25.0 %"; !strings.Contains(s[ChartPerPosition], want) {
		t.Errorf("per-position summary %q, want %q", s[ChartPerPosition], want)
	}
	if !strings.Contains(s[ChartAcceptanceRate], "acceptance rate: latest 50.0 %") {
		t.Errorf("acceptance rate summary %q, want the latest 50.0 %% (1080 of 2160 draft tokens per bucket)", s[ChartAcceptanceRate])
	}
	html := renderHTML(t, &Chart{Name: ChartDrafts, Summary: `<img src=x onerror=alert(1)> drafts`})
	if strings.Contains(html, "<img") || !strings.Contains(html, `aria-labelledby="summary-`+ChartDrafts+`"`) {
		t.Errorf("chart summary not escaped or not linked:\n%s", html)
	}
}
