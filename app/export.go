package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
)

// DataTable is the numbers behind one chart or table, for export. Cells are
// string, float64, int or bool; nil is an undefined number (no drafts):
// empty in CSV, null in JSON. Column names carry their unit.
type DataTable struct {
	// Name is the file name stem ("breakdown", "acceptance-rate", ...).
	Name    string
	Columns []string
	Rows    [][]any
}

// CSV writes the table as RFC 4180 CSV with a header row. Numbers are
// plain decimals that parse back to the same float64.
func (t DataTable) CSV() string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(t.Columns)
	rec := make([]string, len(t.Columns))
	for _, row := range t.Rows {
		for i := range rec {
			rec[i] = ""
			if i < len(row) {
				rec[i] = cellText(row[i])
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.String()
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return plain(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// JSON writes the table as {"name", "columns": [...], "rows": [{column:
// value, ...}, ...]}, indented; undefined numbers are null.
func (t DataTable) JSON() string {
	type out struct {
		Name    string           `json:"name"`
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	o := out{Name: t.Name, Columns: t.Columns, Rows: make([]map[string]any, len(t.Rows))}
	for r, row := range t.Rows {
		m := make(map[string]any, len(t.Columns))
		for i, c := range t.Columns {
			if i < len(row) {
				m[c] = row[i]
			} else {
				m[c] = nil
			}
		}
		o.Rows[r] = m
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b) + "\n"
}

// num is a table cell of a Value: its float64, or nil when undefined.
func num(v compute.Value) any {
	if !v.OK {
		return nil
	}
	return v.V
}

// BreakdownTable is the breakdown table's numbers: one row per group (the
// rows as sorted on the page), columns = the group-by labels, then
// acceptance_rate (ratio 0..1), mean_acceptance_length (tokens/draft), k,
// drafts_per_second, accepted_tokens_per_second, drafted_tokens_per_second,
// drafts and accepted_tokens and draft_tokens (counts in the window).
func BreakdownTable(res *Result, groups []GroupResult) DataTable {
	t := DataTable{Name: "breakdown"}
	if res == nil {
		return t
	}
	t.Columns = append(t.Columns, res.Query.GroupBy...)
	t.Columns = append(t.Columns, "acceptance_rate", "mean_acceptance_length_tokens", "k",
		"drafts_per_second", "accepted_tokens_per_second", "drafted_tokens_per_second",
		"drafts", "draft_tokens", "accepted_tokens")
	for _, g := range groups {
		var row []any
		for _, l := range res.Query.GroupBy {
			row = append(row, g.Labels[l])
		}
		s := g.Stats
		row = append(row, num(s.AcceptanceRate), num(s.MeanAcceptanceLength), s.K,
			num(s.DraftsPerSecond), num(s.AcceptedThroughput), num(s.DraftedThroughput),
			s.Drafts, s.DraftTokens, s.AcceptedTokens)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// PerPositionTable is the per-position chart's numbers: position (1-based),
// accepted tokens at the position, drafts, rate (accepted / drafts) and
// conditional rate (accepted / accepted at the previous position).
func PerPositionTable(res *Result) DataTable {
	t := DataTable{Name: "per-position", Columns: []string{"position", "accepted_tokens", "drafts",
		"acceptance_rate", "conditional_acceptance_rate", "reached_drafts"}}
	if res == nil {
		return t
	}
	s := res.Stats
	for i, v := range s.PerPositionAcceptanceRate {
		var cond, reached any
		if i < len(res.Fit.Conditional) {
			cond = num(res.Fit.Conditional[i])
			reached = res.Fit.Reached[i]
		}
		t.Rows = append(t.Rows, []any{i + 1, s.AcceptedPerPosition[i], s.Drafts, num(v), cond, reached})
	}
	return t
}

// timeCols are the leading columns of every time-series export.
var timeCols = []string{"bucket_end", "bucket_end_unix_ms", "complete"}

func timeCells(res *Result, j int) []any {
	end := res.Grid.BucketEnd(j)
	return []any{time.UnixMilli(end).UTC().Format(time.RFC3339), end, j < res.Complete}
}

// LinesTable is a per-group time chart's numbers: one row per bucket, one
// column per line (unit in the column name).
func LinesTable(name string, res *Result, lines []Line, unit string) DataTable {
	t := DataTable{Name: name, Columns: append([]string(nil), timeCols...)}
	if res == nil {
		return t
	}
	for _, l := range lines {
		t.Columns = append(t.Columns, l.Name+" ("+unit+")")
	}
	for j := 0; j < res.Grid.Buckets(); j++ {
		row := timeCells(res, j)
		for _, l := range lines {
			var v any
			if j < len(l.Values) {
				v = num(l.Values[j])
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HeatmapTable is the heatmap's numbers: one row per bucket, one column per
// position (ratio 0..1 of the bucket's drafts).
func HeatmapTable(res *Result) DataTable {
	t := DataTable{Name: "per-position-over-time", Columns: append([]string(nil), timeCols...)}
	if res == nil {
		return t
	}
	t.Columns = append(t.Columns, "drafts")
	for i := 0; i < res.Stats.K; i++ {
		t.Columns = append(t.Columns, "pos_"+strconv.Itoa(i+1)+"_acceptance_rate")
	}
	for j, b := range res.Buckets {
		row := append(timeCells(res, j), b.Drafts)
		for i := 0; i < res.Stats.K; i++ {
			var v any
			if i < len(b.PerPositionAcceptanceRate) {
				v = num(b.PerPositionAcceptanceRate[i])
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// fileName is the download name of an export: specdash-<name>-<window
// end, UTC>.<ext>.
func fileName(res *Result, name, ext string) string {
	stamp := "now"
	if res != nil {
		stamp = time.UnixMilli(res.Grid.End).UTC().Format("20060102T150405Z")
	}
	return "specdash-" + name + "-" + stamp + "." + ext
}

// download hands content to the browser as a file: a Blob URL on a
// temporary <a download>. Browser only; JS errors are returned.
func download(name, mime, content string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = jsError(r)
		}
	}()
	w := app.Window()
	blob := w.Get("Blob").New([]any{content}, map[string]any{"type": mime})
	url := w.Get("URL").Call("createObjectURL", blob)
	clickLink(url.String(), name)
	w.Get("URL").Call("revokeObjectURL", url)
	return nil
}

func clickLink(href, name string) {
	doc := app.Window().Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", href)
	a.Set("download", name)
	a.Get("style").Set("display", "none")
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
}

// downloadPNG saves the chart [data-chart=name] as a PNG (ECharts
// getDataURL at twice the resolution, on the panel colour, without the
// toolbox).
func downloadPNG(chart, file, background string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = jsError(r)
		}
	}()
	w := app.Window()
	el := w.Get("document").Call("querySelector", `[data-chart="`+chart+`"]`)
	if !el.Truthy() || !w.Get("echarts").Truthy() {
		return errString("chart " + chart + " is not drawn")
	}
	inst := w.Get("echarts").Call("getInstanceByDom", el)
	if !inst.Truthy() {
		return errString("chart " + chart + " is not drawn")
	}
	url := inst.Call("getDataURL", map[string]any{"type": "png", "pixelRatio": 2, "backgroundColor": background,
		"excludeComponents": []any{"toolbox"}})
	clickLink(url.String(), file)
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

func jsError(r any) error {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(toString(r), "JavaScript error:"), "js error:"))
	return errString("export failed: " + s)
}

func toString(r any) string {
	switch x := r.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	return "unknown error"
}
