package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"specdash/compute"
	"specdash/model"
)

// The dashboard's exports: the numbers behind each chart and table of a
// Model, as CSV or JSON.

// Table is the numbers behind one chart or table, for export. Cells are
// string, float64, int or bool; nil is an undefined number (no drafts):
// empty in CSV, null in JSON. Column names carry their unit.
type Table struct {
	// Name is the file name stem ("breakdown", "acceptance-rate", ...).
	Name    string
	Columns []string
	Rows    [][]any
	// Meta says what the numbers are (window, filters, source,
	// convention), in order: CSV writes each as a leading "# key: value"
	// comment line (read with encoding/csv's Comment = '#'), JSON as the
	// "meta" object. Empty: neither.
	Meta []Meta
}

// Meta is one metadata field of an export.
type Meta struct{ Key, Value string }

// CSV writes the table as RFC 4180 CSV with a header row. Numbers are
// plain decimals that parse back to the same float64.
func (t Table) CSV() string {
	var b bytes.Buffer
	for _, m := range t.Meta {
		// One line each: a line break in a value would end the comment.
		fmt.Fprintf(&b, "# %s: %s\n", oneLine(m.Key), oneLine(m.Value))
	}
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
		return strconv.FormatFloat(x, 'f', -1, 64)
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
func (t Table) JSON() string {
	type out struct {
		Name    string            `json:"name"`
		Meta    map[string]string `json:"meta,omitempty"`
		Columns []string          `json:"columns"`
		Rows    []map[string]any  `json:"rows"`
	}
	o := out{Name: t.Name, Columns: t.Columns, Rows: make([]map[string]any, len(t.Rows))}
	if len(t.Meta) > 0 {
		o.Meta = make(map[string]string, len(t.Meta))
		for _, m := range t.Meta {
			o.Meta[m.Key] = m.Value
		}
	}
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

// oneLine replaces line breaks (and other control characters) by spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// Num is a table cell of a Value: its float64, or nil when undefined.
func Num(v compute.Value) any {
	if !v.OK {
		return nil
	}
	return v.V
}

// BreakdownTable is the breakdown table's numbers: one row per group (the
// rows as sorted on the page), columns = the group-by labels, then
// acceptance_rate (ratio 0..1), mean_acceptance_length (tokens/draft), k,
// drafts_per_second, accepted_tokens_per_second, drafted_tokens_per_second
// (per second of data, model.Model.CoveredStatsOf, as the cards), drafts
// and accepted_tokens and draft_tokens (counts in the window).
func BreakdownTable(res *model.Model, groups []model.Group) Table {
	t := Table{Name: "breakdown"}
	if res == nil {
		return t
	}
	t.Columns = append(t.Columns, res.Request.GroupBy...)
	t.Columns = append(t.Columns, "acceptance_rate", "mean_acceptance_length_tokens", "k",
		"drafts_per_second", "accepted_tokens_per_second", "drafted_tokens_per_second",
		"drafts", "draft_tokens", "accepted_tokens")
	for _, g := range groups {
		var row []any
		for _, l := range res.Request.GroupBy {
			row = append(row, g.Labels[l])
		}
		s := res.CoveredStatsOf(g.Stats)
		row = append(row, Num(s.AcceptanceRate), Num(s.MeanAcceptanceLength), s.K,
			Num(s.DraftsPerSecond), Num(s.AcceptedThroughput), Num(s.DraftedThroughput),
			s.Drafts, s.DraftTokens, s.AcceptedTokens)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// PerPositionTable is the per-position chart's numbers: position (1-based),
// accepted tokens at the position, drafts, rate (accepted / drafts) and
// conditional rate (accepted / accepted at the previous position).
func PerPositionTable(res *model.Model) Table {
	t := Table{Name: "per-position", Columns: []string{"position", "accepted_tokens", "drafts",
		"acceptance_rate", "conditional_acceptance_rate", "reached_drafts"}}
	if res == nil {
		return t
	}
	s := res.Stats
	for i, v := range s.PerPositionAcceptanceRate {
		var cond, reached any
		if i < len(res.Fit.Conditional) {
			cond = Num(res.Fit.Conditional[i])
			reached = res.Fit.Reached[i]
		}
		t.Rows = append(t.Rows, []any{i + 1, s.AcceptedPerPosition[i], s.Drafts, Num(v), cond, reached})
	}
	return t
}

// timeCols are the leading columns of every time-series export.
var timeCols = []string{"bucket_end", "bucket_end_unix_ms", "complete"}

func timeCells(res *model.Model, j int) []any {
	end := res.Grid.BucketEnd(j)
	return []any{time.UnixMilli(end).UTC().Format(time.RFC3339), end, j < res.Complete}
}

// LinesTable is a per-group time chart's numbers: one row per bucket, one
// column per line (unit in the column name).
func LinesTable(name string, res *model.Model, lines []model.Line, unit string) Table {
	t := Table{Name: name, Columns: append([]string(nil), timeCols...)}
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
				v = Num(l.Values[j])
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HeatmapTable is the heatmap's numbers: one row per bucket, one column per
// position (ratio 0..1 of the bucket's drafts).
func HeatmapTable(res *model.Model) Table {
	t := Table{Name: "per-position-over-time", Columns: append([]string(nil), timeCols...)}
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
				v = Num(b.PerPositionAcceptanceRate[i])
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// CompareTable is the comparison's numbers: one row per compared
// proportion (acceptance rate, then pos 1..k) with A, B, B − A and its 95 %
// interval (ratios), the two-sided p-value and whether the difference is
// significant (the interval excludes 0); plus the mean acceptance length
// (tokens/draft; difference only, no test).
func CompareTable(c model.Sides) Table {
	t := Table{Name: "compare", Columns: []string{"metric", "a", "b", "difference_b_minus_a",
		"difference_lower_95", "difference_upper_95", "p_value", "significant", "a_name", "b_name"}}
	if c.Reason != "" {
		return t
	}
	row := func(name string, cmp compute.Comparison) []any {
		return []any{name, Num(cmp.A.Estimate), Num(cmp.B.Estimate), Num(cmp.Difference), Num(cmp.Lower), Num(cmp.Upper),
			Num(cmp.PValue), cmp.Significant, c.AName, c.BName}
	}
	t.Rows = append(t.Rows, row("acceptance_rate", c.Rate))
	diff := c.LengthDifference()
	t.Rows = append(t.Rows, []any{"mean_acceptance_length_tokens", Num(c.AStats.MeanAcceptanceLength), Num(c.BStats.MeanAcceptanceLength),
		Num(diff), nil, nil, nil, nil, c.AName, c.BName})
	for i, p := range c.Positions {
		r := row(fmt.Sprintf("pos_%d_acceptance_rate", i+1), p)
		if !c.Drafted(i) {
			r[7] = nil // not tested
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}
