package view

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"specdash/compute"
	"specdash/model"
	"specdash/report"
)

// FileName is the download name of an export: specdash-<name>-<window
// end, UTC>.<ext>.
func FileName(res *Result, name, ext string) string {
	stamp := "now"
	if res != nil {
		stamp = time.UnixMilli(res.Grid.End).UTC().Format("20060102T150405Z")
	}
	return "specdash-" + name + "-" + stamp + "." + ext
}

// ExportMeta is the metadata of an export of res shown for q: the window
// (UTC, with its step), filters, group-by labels, source and the mean
// length convention. res nil: the query's settings only.
func ExportMeta(res *Result, q Query, source, version string) []report.Meta {
	var m []report.Meta
	add := func(k, v string) { m = append(m, report.Meta{Key: k, Value: v}) }
	if res != nil {
		g := res.Grid
		add("window_start", time.UnixMilli(g.Start).UTC().Format(time.RFC3339))
		add("window_end", time.UnixMilli(g.End).UTC().Format(time.RFC3339))
		add("step_seconds", strconv.FormatFloat(g.StepSeconds(), 'f', -1, 64))
	}
	window := "last " + q.Range + " (live)"
	if q.Absolute() {
		window = "fixed"
	}
	add("window", window)
	if res != nil {
		add("rates", ratesText(res))
	}
	var filters []string
	for _, l := range q.FilterLabels() {
		filters = append(filters, l+" in ["+strings.Join(q.Filter[l], ", ")+"]")
	}
	if len(filters) == 0 {
		filters = []string{"none"}
	}
	add("filters", strings.Join(filters, "; "))
	gb := q.GroupBy
	if res != nil {
		gb = res.Query.GroupBy
	}
	if len(gb) == 0 {
		add("group_by", "none")
	} else {
		add("group_by", strings.Join(gb, ", "))
	}
	if source == "" {
		source = "(not configured)"
	}
	add("source", source)
	if q.Source != "" {
		add("source_name", q.Source)
	}
	if res != nil && res.SchemaName() != "" {
		add("schema", res.SchemaName())
	}
	add("convention", conventionText(q.Convention))
	add("aggregation", "ratio of sums over the selected series")
	// The page's summary line (filters · window · source), as shown above
	// the numbers.
	summarySource := source
	if q.Source != "" {
		summarySource = q.Source
	}
	add("summary", FilterSummary(q, summarySource, q.Location()))
	v := "specdash"
	if version != "" {
		v += " " + version
	}
	add("exported_by", v)
	return m
}

// ratesText says which seconds the export's rates are per: seconds of
// data (model.Model.CoveredSeconds), as on the cards.
func ratesText(res *Result) string {
	g := res.Grid
	return "drafts/s and tokens/s per second of data: " + compute.SpanText(int64(res.CoveredSeconds()*1000)) +
		" of the " + compute.SpanText(g.End-g.Start) + " window"
}

// conventionText is the mean acceptance length convention, in words.
func conventionText(c compute.Convention) string {
	if c == compute.WithoutBonus {
		return "without bonus token: mean acceptance length = accepted / drafts"
	}
	return "with bonus token: mean acceptance length = 1 + accepted / drafts (vLLM PR 17908)"
}

// PNGTitle are the lines a chart's PNG export carries above the chart:
// the page's summary line (filters · window · source), the window's UTC
// times and step with the convention, and for a split chart the group it
// shows (shows, "" for other charts). res nil: the query's settings only.
func PNGTitle(res *Result, q Query, source, shows string) []string {
	src := source
	if q.Source != "" {
		src = q.Source
	}
	if src == "" {
		src = "(not configured)"
	}
	lines := []string{FilterSummary(q, src, q.Location())}
	second := conventionText(q.Convention)
	if res != nil {
		g := res.Grid
		second = time.UnixMilli(g.Start).UTC().Format("2006-01-02 15:04:05") + " – " +
			time.UnixMilli(g.End).UTC().Format("2006-01-02 15:04:05") + " UTC, step " +
			strconv.FormatFloat(g.StepSeconds(), 'f', -1, 64) + " s · " + second
	}
	lines = append(lines, second)
	if shows != "" {
		lines = append(lines, "shows "+shows)
	}
	return lines
}

// filterName is how the summary names a label: "model" and "engine" for
// the two vLLM labels (as in the URL), else the label.
func filterName(label string) string {
	if label == "model_name" {
		return "model"
	}
	return label
}

func filterRank(l string) int {
	switch l {
	case "model_name":
		return 0
	case "engine":
		return 1
	}
	return 2
}

// FilterSummary is the summary line of a view: the active filters, the
// window and the source, e.g. "model = A, B · engine = 3 · last 6 h ·
// source prom"; without filters it starts "all series".
func FilterSummary(q Query, source string, loc *time.Location) string {
	var parts []string
	labels := q.FilterLabels()
	// model_name and engine first, as the menus list them.
	slices.SortStableFunc(labels, func(a, b string) int { return filterRank(a) - filterRank(b) })
	for _, l := range labels {
		texts := make([]string, len(q.Filter[l]))
		for i, v := range q.Filter[l] {
			texts[i] = model.LabelText(v)
		}
		parts = append(parts, filterName(l)+" = "+strings.Join(texts, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "all series")
	}
	parts = append(parts, summaryWindow(q, loc))
	if source != "" {
		parts = append(parts, "source "+source)
	}
	return strings.Join(parts, " · ")
}

// summaryWindow is "last 6 h" (relative) or "2026-12-01 10:00 – 11:00 UTC"
// (absolute, in loc).
func summaryWindow(q Query, loc *time.Location) string {
	if q.Absolute() {
		from, to := time.UnixMilli(q.From).In(loc), time.UnixMilli(q.To).In(loc)
		layout := "15:04"
		if to.Format("2006-01-02") != from.Format("2006-01-02") {
			layout = "2006-01-02 15:04"
		}
		return from.Format("2006-01-02 15:04") + " – " + to.Format(layout) + " " + to.Format("MST")
	}
	r := q.Range
	for _, u := range []struct{ suffix, text string }{{"m", " min"}, {"h", " h"}, {"d", " d"}} {
		if n, ok := strings.CutSuffix(r, u.suffix); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return "last " + n + u.text
		}
	}
	return "last " + r
}
