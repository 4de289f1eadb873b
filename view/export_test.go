package view

import (
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
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
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)

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

func TestExportCSVAndJSON(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{"model_name"}
	res := &Result{Query: q}
	series := fixtures.Fleet(g.Start, g.End, g.Step)
	// A third model without drafts: undefined ratios.
	idle := map[string]string{"model_name": `idle, "quoted"`}
	series = append(series, fixtures.Counter(compute.Drafts, idle, -1, g.Start, g.End, g.Step, 0),
		fixtures.Counter(compute.DraftTokens, idle, -1, g.Start, g.End, g.Step, 0),
		fixtures.Counter(compute.AcceptedTokens, idle, -1, g.Start, g.End, g.Step, 0))
	res.FromSeries(series, q, g, time.UnixMilli(g.End), time.Second)

	tbl := report.BreakdownTable(&res.Model, res.Groups)
	text := tbl.CSV()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v\n%s", err, text)
	}
	wantHead := "model_name,acceptance_rate,mean_acceptance_length_tokens,k,drafts_per_second,accepted_tokens_per_second,drafted_tokens_per_second,drafts,draft_tokens,accepted_tokens"
	if strings.Join(recs[0], ",") != wantHead {
		t.Errorf("header %q", strings.Join(recs[0], ","))
	}
	want := [][]string{
		{"a", "0.75", "2.5", "2", "6", "9", "12", "180", "360", "270"},
		{"b", "0.25", "1.5", "2", "6", "3", "12", "180", "360", "90"},
		{`idle, "quoted"`, "", "", "0", "0", "0", "0", "0", "0", "0"},
	}
	if !reflect.DeepEqual(recs[1:], want) {
		t.Errorf("rows\n%v\nwant\n%v", recs[1:], want)
	}

	var js struct {
		Name    string           `json:"name"`
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(tbl.JSON()), &js); err != nil {
		t.Fatal(err)
	}
	if js.Name != "breakdown" || len(js.Rows) != 3 || js.Rows[0]["acceptance_rate"] != 0.75 || js.Rows[2]["acceptance_rate"] != nil ||
		js.Rows[2]["model_name"] != `idle, "quoted"` {
		t.Errorf("JSON %+v", js)
	}
	if _, ok := js.Rows[2]["acceptance_rate"]; !ok {
		t.Errorf("undefined number left out of the JSON instead of null")
	}

	// Time series: one row per bucket with its end time and completeness.
	lt := report.LinesTable("acceptance-rate", &res.Model, []model.Line{{Name: "a", Values: []compute.Value{compute.Defined(0.5), {}, compute.Defined(1)}}}, "ratio")
	recs, _ = csv.NewReader(strings.NewReader(lt.CSV())).ReadAll()
	if strings.Join(recs[0], ",") != "bucket_end,bucket_end_unix_ms,complete,a (ratio)" || len(recs) != 4 {
		t.Fatalf("lines CSV %v", recs)
	}
	if strings.Join(recs[1], ",") != "1970-01-01T00:16:50Z,1010000,true,0.5" || recs[2][3] != "" {
		t.Errorf("lines rows %v", recs[1:])
	}
	// Per position: rate and conditional rate.
	pt := report.PerPositionTable(&res.Model)
	recs, _ = csv.NewReader(strings.NewReader(pt.CSV())).ReadAll()
	// pos 1: (2+4+1+2)*30 = 270 of 360 drafts = 0.75; pos 2: 90 of 270 reached.
	if len(recs) != 3 || strings.Join(recs[1], ",") != "1,270,360,0.75,0.75,360" || strings.Join(recs[2], ",") != "2,90,360,0.25,0.3333333333333333,270" {
		t.Errorf("per-position CSV %v", recs)
	}
	ht := report.HeatmapTable(&res.Model)
	if len(ht.Rows) != 3 || len(ht.Columns) != 6 {
		t.Errorf("heatmap table %d rows %v", len(ht.Rows), ht.Columns)
	}
}
