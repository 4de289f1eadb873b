package app

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
)

func TestQueryURL(t *testing.T) {
	v, _ := url.ParseQuery("range=1h&refresh=10s&model=" + url.QueryEscape(`Llama "8B" x`) + "&engine=1&convention=nobonus")
	q := ParseQuery(v)
	want := DefaultQuery()
	want.Range, want.Refresh, want.Convention = "1h", "10s", compute.WithoutBonus
	want.Filter = map[string][]string{"model_name": {`Llama "8B" x`}, "engine": {"1"}}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("ParseQuery = %+v, want %+v", q, want)
	}
	if back := ParseQuery(q.Values()); !reflect.DeepEqual(back, q) {
		t.Errorf("round trip %+v -> %q -> %+v", q, q.Values().Encode(), back)
	}
	if q.RangeDuration() != time.Hour || q.RefreshDuration() != 10*time.Second {
		t.Errorf("durations %v %v", q.RangeDuration(), q.RefreshDuration())
	}
	// The CLI's spelling of the convention works in the URL too.
	if c := ParseQuery(url.Values{"convention": {"no-bonus"}}); c.Convention != compute.WithoutBonus || c.Warn != "" {
		t.Errorf("convention=no-bonus: %v, warn %q", c.Convention, c.Warn)
	}

	// Invalid values fall back to the defaults; "all" is no filter.
	v, _ = url.ParseQuery("range=7m&refresh=1s&model=all&engine=all&convention=bogus&theme=pink&tz=mars&sort=x&compare=y&group=bad-label,__name__,position&f.bad-name=1&from=yesterday&to=1")
	q = ParseQuery(v)
	// ... and Warn names each one (shown on the page) instead of dropping it silently.
	for _, want := range []string{`range="7m"`, `refresh="1s"`, `convention="bogus"`, `theme="pink"`, `tz="mars"`, `sort="x"`, `compare="y"`, `group="bad-label"`, `f.bad-name="1"`, `from="yesterday"`} {
		if !strings.Contains(q.Warn, want) {
			t.Errorf("Warn %q does not name %s", q.Warn, want)
		}
	}
	if strings.Contains(q.Warn, "engine") || strings.Contains(q.Warn, "model") {
		t.Errorf("Warn %q names the valid \"all\" filters", q.Warn)
	}
	q.Warn = ""
	if !reflect.DeepEqual(q, DefaultQuery()) {
		t.Errorf("ParseQuery(invalid) = %+v, want the default %+v", q, DefaultQuery())
	}
	if d := (Query{Range: "24h"}).RangeDuration(); d != 24*time.Hour {
		t.Errorf("24h = %v", d)
	}
	if d := (Query{Range: "7d"}).RangeDuration(); d != 7*24*time.Hour {
		t.Errorf("7d = %v", d)
	}
	if (Query{Refresh: "off"}).RefreshDuration() != 0 {
		t.Errorf("refresh off is not 0")
	}
	if !(Query{Range: "5m", Refresh: "off"}).SameData(Query{Range: "5m", Refresh: "5s", Theme: ThemeDark, TZ: TZUTC, Sort: "-k"}) {
		t.Errorf("refresh period or look changes the data selection")
	}
	a, b := DefaultQuery(), DefaultQuery()
	b.setFilter("job", []string{"x"})
	if a.SameData(b) {
		t.Errorf("a filter does not change the data selection")
	}
}

// Every parameter set: parsing gives exactly the view, and Values gives it
// back (the shared link reproduces the view).
func TestQueryURLEveryParameter(t *testing.T) {
	raw := url.Values{
		"source":     {"prod eu"},
		"from":       {"2025-03-01T10:00:00Z"},
		"to":         {"2025-03-01T11:30:00Z"},
		"range":      {"6h"},
		"refresh":    {"30s"},
		"model":      {"b-model", `a "model" <x>`},
		"engine":     {"0"},
		"f.instance": {"10.0.0.1:8000", "10.0.0.2:8000"},
		"f.job":      {""},
		"group":      {"model_name,instance"},
		"convention": {"nobonus"},
		"theme":      {"dark"},
		"tz":         {"utc"},
		"sort":       {"-drafts-per-second"},
		"compare":    {"window"},
		"base_from":  {"2025-03-01T08:00:00Z"},
		"base_to":    {"2025-03-01T09:30:00Z"},
	}
	q := ParseQuery(raw)
	want := Query{
		Source: "prod eu", Range: "6h",
		From: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC).UnixMilli(), To: time.Date(2025, 3, 1, 11, 30, 0, 0, time.UTC).UnixMilli(),
		Refresh: "30s",
		Filter: map[string][]string{"model_name": {`a "model" <x>`, "b-model"}, "engine": {"0"},
			"instance": {"10.0.0.1:8000", "10.0.0.2:8000"}, "job": {""}},
		GroupBy: []string{"model_name", "instance"}, Convention: compute.WithoutBonus,
		Theme: ThemeDark, TZ: TZUTC, Sort: "-drafts-per-second", Compare: CompareWindow,
		BaseFrom: time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC).UnixMilli(), BaseTo: time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC).UnixMilli(),
	}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("ParseQuery =\n%+v\nwant\n%+v", q, want)
	}
	out := q.Values()
	if back := ParseQuery(out); !reflect.DeepEqual(back, q) {
		t.Errorf("round trip changed the view: %q -> %+v", out.Encode(), back)
	}
	// An absolute window wins over the range, and the URL says so.
	if out.Get("range") != "6h" || out.Get("from") != "2025-03-01T10:00:00Z" || out.Get("to") != "2025-03-01T11:30:00Z" {
		t.Errorf("window params %q", out.Encode())
	}
	if q.RangeDuration() != 90*time.Minute {
		t.Errorf("absolute window length %v, want 1h30m", q.RangeDuration())
	}
	// The grid of an absolute window ends at To and is aligned to its step.
	g := q.Grid(15*time.Second, time.Now())
	if g.End != q.To || g.Start != q.From || (g.End-g.Start)%g.Step != 0 || g.End%g.Step != 0 {
		t.Errorf("grid %+v for window %d..%d", g, q.From, q.To)
	}
	// Unix ms are accepted too.
	v2 := url.Values{"from": {strconv.FormatInt(q.From, 10)}, "to": {strconv.FormatInt(q.To, 10)}}
	if p := ParseQuery(v2); p.From != q.From || p.To != q.To {
		t.Errorf("Unix ms window: %d..%d", p.From, p.To)
	}
	// Groups compare mode keeps its keys.
	g2 := ParseQuery(url.Values{"compare": {"groups"}, "a": {`["x"]`}, "b": {`["y"]`}, "group": {"model_name"}})
	if g2.Compare != CompareGroups || g2.CompareA != `["x"]` || g2.CompareB != `["y"]` {
		t.Errorf("compare groups: %+v", g2)
	}
	if back := ParseQuery(g2.Values()); !reflect.DeepEqual(back, g2) {
		t.Errorf("compare groups round trip: %+v", back)
	}
}

// Rewriting the URL keeps parameters other panels own (the insights panel's
// cost) and drops stale own ones.
func TestMergeValues(t *testing.T) {
	cur := url.Values{"cost": {"0.1"}, "model": {"old"}, "f.job": {"x"}, "range": {"5m"}}
	q := DefaultQuery()
	q.setFilter("engine", []string{"1"})
	got := MergeValues(cur, q.Values())
	want := url.Values{"cost": {"0.1"}, "engine": {"1"}, "range": {"15m"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeValues = %v, want %v", got, want)
	}
}

func TestOptionEncoding(t *testing.T) {
	for _, v := range []string{"all", `"><img src=x onerror=alert(1)>`, "qwen/Qwen2.5-7B", "ü ß", ""} {
		enc := encodeOption(v)
		if strings.ContainsAny(enc, `"<>&' `) {
			t.Errorf("encodeOption(%q) = %q holds HTML-special characters", v, enc)
		}
		if got := decodeOption(enc); got != v {
			t.Errorf("decodeOption(encodeOption(%q)) = %q", v, got)
		}
	}
	if decodeOption(All) != "" || decodeOption("v:!!") != "" {
		t.Errorf(`"all" and garbage must decode to no filter`)
	}
}

// seedStats are the worked example of vLLM PR 16665's review thread
// (docs/METRICS.md, "Formulas"): 5 drafts, k = 3, 9 of 15 draft tokens
// accepted, per position [5, 3, 1] (over a 10 s window).
func seedStats() compute.Stats {
	return compute.Derive(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 10, compute.WithBonus)
}

type echartsOption struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis  []map[string]any `json:"yAxis"`
	Series []struct {
		Type string `json:"type"`
		Data []struct {
			Value any `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

func TestPerPositionOption(t *testing.T) {
	var o echartsOption
	if err := json.Unmarshal([]byte(PerPositionOption(seedStats())), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.XAxis) != 1 || strings.Join(o.XAxis[0].Data, ",") != "pos 1,pos 2,pos 3" {
		t.Fatalf("x axis %+v, want pos 1..pos 3", o.XAxis)
	}
	if len(o.YAxis) != 1 || len(o.Series) != 2 || o.Series[0].Type != "bar" || o.Series[1].Type != "line" {
		t.Fatalf("want one y axis, a bar series and a line series: %+v", o)
	}
	// Conditional rate: per_pos[i] / per_pos[i-1]: 5/5, 3/5, 1/3.
	var cond []float64
	for _, d := range o.Series[1].Data {
		cond = append(cond, d.Value.(float64))
	}
	if len(cond) != 3 || cond[0] != 100 || cond[1] != 60 || cond[2] != 33.3 {
		t.Errorf("conditional %v, want [100 60 33.3]", cond)
	}
	var got []float64
	for _, d := range o.Series[0].Data {
		got = append(got, d.Value.(float64))
	}
	// per-position [1.0, 0.6, 0.2] in percent
	if len(got) != 3 || got[0] != 100 || got[1] != 60 || got[2] != 20 {
		t.Errorf("bars %v, want [100 60 20]", got)
	}
	if PerPositionOption(compute.Stats{}) != "" {
		t.Errorf("k = 0 must give no chart")
	}
}

func TestTimeOptionsHaveGaps(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	buckets := []compute.Stats{seedStats(), none, seedStats()}
	rate, length := make([]compute.Value, 3), make([]compute.Value, 3)
	for j, b := range buckets {
		rate[j], length[j] = b.AcceptanceRate, b.MeanAcceptanceLength
	}
	p := PaletteFor(ThemeLight)
	for name, js := range map[string]string{
		"rate":   LinesOption(g, []Line{{"acceptance rate", rate}}, 3, 100, 1, "%", 0, 100, time.UTC, p),
		"length": LinesOption(g, []Line{{"mean acceptance length", length}}, 3, 1, 3, "tokens", nil, nil, time.UTC, p),
	} {
		if strings.Contains(js, "NaN") || strings.Contains(js, "Inf") {
			t.Errorf("%s option holds NaN/Inf: %s", name, js)
		}
		var o echartsOption
		if err := json.Unmarshal([]byte(js), &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := o.Series[0].Data
		if len(d) != 3 || d[1].Value != "-" {
			t.Errorf("%s: bucket without drafts is %v, want the gap marker \"-\"", name, d[1].Value)
		}
		if got := strings.Join(o.XAxis[0].Data, ","); got != "00:00:10,00:00:20,00:00:30" {
			t.Errorf("%s: x labels %q, want the bucket ends in UTC", name, got)
		}
	}
	var o echartsOption
	json.Unmarshal([]byte(LinesOption(g, []Line{{"r", rate}}, 3, 100, 1, "%", 0, 100, time.UTC, p)), &o)
	if o.Series[0].Data[0].Value != 60.0 {
		t.Errorf("acceptance rate bucket 0 = %v %%, want 60", o.Series[0].Data[0].Value)
	}
	json.Unmarshal([]byte(LinesOption(g, []Line{{"l", length}}, 3, 1, 3, "tokens", nil, nil, time.UTC, p)), &o)
	if o.Series[0].Data[0].Value != 1.8+1 {
		t.Errorf("mean acceptance length bucket 0 = %v, want 2.8 (bonus token included)", o.Series[0].Data[0].Value)
	}
}

// Label values reach ECharts tooltips only HTML-escaped (and with template
// braces escaped); the legend gets the raw text (drawn on the canvas).
func TestTooltipEscapesLabels(t *testing.T) {
	g := compute.Grid{Start: 0, End: 20_000, Step: 10_000}
	evil := `<img src=x onerror=alert(1)>{c0}&`
	js := LinesOption(g, []Line{{evil, []compute.Value{compute.Defined(0.5), compute.Defined(0.6)}}, {"b", []compute.Value{{}, {}}}},
		1, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeDark))
	var o struct {
		Tooltip struct {
			Formatter string `json:"formatter"`
		} `json:"tooltip"`
		Series []struct {
			Name     string         `json:"name"`
			MarkArea map[string]any `json:"markArea"`
		} `json:"series"`
		Brush map[string]any `json:"brush"`
	}
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	f := o.Tooltip.Formatter
	if strings.Contains(f, "<img") || strings.Contains(f, "{c0}&") || !strings.Contains(f, "&lt;img src=x onerror=alert(1)&gt;&#123;c0&#125;&amp;: {c0} %") {
		t.Errorf("tooltip formatter %q does not escape the label", f)
	}
	if o.Series[0].Name != evil {
		t.Errorf("series name %q, want the raw label (canvas text)", o.Series[0].Name)
	}
	// Bucket 1 is incomplete: a mark area covers it; the chart can be brushed.
	if o.Series[0].MarkArea == nil || o.Brush == nil {
		t.Errorf("incomplete mark area %v, brush %v", o.Series[0].MarkArea, o.Brush)
	}
	if js := LinesOption(g, []Line{{"x", []compute.Value{{}, {}}}}, 2, 1, 1, "", nil, nil, time.UTC, PaletteFor(ThemeLight)); strings.Contains(js, "markArea") {
		t.Errorf("all buckets complete but a mark area is drawn")
	}
}

// heatmapJSON is the part of a heatmap option the tests read: x labels
// and, per series, its [x, y, percent] cells and item style.
type heatmapJSON struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	Series []struct {
		Data      [][]float64    `json:"data"`
		ItemStyle map[string]any `json:"itemStyle"`
	} `json:"series"`
}

func decodeHeatmap(t *testing.T, js string) heatmapJSON {
	t.Helper()
	var o heatmapJSON
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestHeatmapOption(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	js := HeatmapOption(g, []compute.Stats{seedStats(), none, seedStats()}, 3, 2, time.UTC, PaletteFor(ThemeLight))
	o := decodeHeatmap(t, js)
	if len(o.XAxis) == 0 || len(o.XAxis[0].Data) != 3 {
		t.Fatalf("x axis %+v, want 3 bucket labels", o.XAxis)
	}
	// 2 buckets with drafts x 3 positions; the empty bucket has no cells;
	// the incomplete bucket's cells are series 1, at half opacity.
	if len(o.Series) != 2 || o.Series[0].ItemStyle != nil || o.Series[1].ItemStyle["opacity"] != 0.45 {
		t.Fatalf("series %+v, want the complete cells and the incomplete ones (opacity 0.45)", o.Series)
	}
	d := append(o.Series[0].Data, o.Series[1].Data...)
	if len(d) != 6 || len(o.Series[1].Data) != 3 {
		t.Fatalf("%d cells (%d incomplete), want 6 (3)", len(d), len(o.Series[1].Data))
	}
	wantVals := [][]float64{{0, 0, 100}, {0, 1, 60}, {0, 2, 20}, {2, 0, 100}, {2, 1, 60}, {2, 2, 20}}
	for i, c := range d {
		if !reflect.DeepEqual(c, wantVals[i]) {
			t.Errorf("cell %d = %v, want %v", i, c, wantVals[i])
		}
	}
}

func TestSplitUnit(t *testing.T) {
	for in, want := range map[string][2]string{
		"60.0 %":              {"60.0", "%"},
		"2.80 tokens/draft":   {"2.80", "tokens/draft"},
		"0.042 drafts/s":      {"0.042", "drafts/s"},
		compute.Undefined:     {"", ""},
		"unknown":             {"", ""},
		"12.3 tokens/s extra": {"12.3", "tokens/s extra"},
	} {
		num, unit, _ := splitUnit(in)
		if num != want[0] || unit != want[1] {
			t.Errorf("splitUnit(%q) = %q, %q", in, num, unit)
		}
	}
}

// The headline numbers and their hooks, rendered by go-app's test engine
// (no browser: OnMount does not run).
func TestRenderHeadline(t *testing.T) {
	d := &Dashboard{}
	e := app.NewTestEngine()
	if err := e.Load(d); err != nil {
		t.Fatal(err)
	}
	s := seedStats()
	d.res = &Result{Model: model.Model{Stats: s, Grid: compute.Grid{Start: 0, End: 10_000, Step: 10_000}}, At: time.Unix(0, 0)}
	ui := d.renderHeadline(s)
	cases := []struct {
		path      []int
		name, val string
	}{
		{[]int{0, 1}, "acceptance-rate", "0.6"},
		{[]int{1, 1}, "mean-acceptance-length", "2.8"},
		{[]int{2, 1}, "k", "3"},
		{[]int{3, 1}, "drafts-per-second", "0.5"},
		{[]int{4, 1}, "accepted-throughput", "0.9"},
		{[]int{5, 1}, "drafted-throughput", "1.5"},
	}
	for _, c := range cases {
		want := app.Div().Class("metric-value").DataSet("metric", c.name).DataSet("value", c.val)
		if err := app.Match(want, ui, c.path...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	// No drafts: no data-value, "no drafts in window", never NaN.
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 60, compute.WithBonus)
	ui = d.renderHeadline(none)
	want := app.Div().Class("metric-value", "undefined").DataSet("metric", "acceptance-rate").DataSet("undefined", "true").Text(compute.Undefined)
	if err := app.Match(want, ui, 0, 1); err != nil {
		t.Errorf("undefined acceptance rate: %v", err)
	}
}
