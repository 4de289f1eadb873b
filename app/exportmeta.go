package app

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"specdash/compute"
	"specdash/report"
)

// What an export says about itself (window, filters, source, convention),
// when an export button is disabled, and the link "Copy link" copies.

// PanelParams are URL parameters that panels other than Query read (the
// insights panel's draft cost): a canonical link keeps them, and drops
// every other parameter Query did not read.
var PanelParams = []string{CostParam}

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

// splitShows is what a split chart (per-position, heatmap, token flow:
// splitModel) shows, for its export: "model-a (1 of 2 models)" or "all 2
// models blended (ratio of sums)"; "" for the other panels and when
// there is one group.
func (d *Dashboard) splitShows(name string) string {
	switch name {
	case ChartPerPosition, ChartHeatmap, ChartThroughput:
	default:
		return ""
	}
	if d.res == nil || d.res.Ungrouped() || len(d.res.Groups) < 2 {
		return ""
	}
	n := strconv.Itoa(len(d.res.Groups)) + " " + d.groupNoun()
	if g := d.splitGroup(); g != nil {
		return g.Name + " (1 of " + n + ")"
	}
	return "all " + n + " blended (ratio of sums)"
}

// exportReason is why the panel's exports are disabled, "" when they are
// enabled: nothing loaded yet, or (compare) no comparison to export.
func (d *Dashboard) exportReason(name string) string {
	if d.res == nil {
		return "Nothing to export yet: no numbers loaded"
	}
	if name == "compare" {
		if c := d.comparison(); c.Reason != "" {
			return "Nothing to export: " + c.Reason
		}
	}
	return ""
}

// exportTableWithMeta is exportTable with ExportMeta.
func (d *Dashboard) exportTableWithMeta(name string) DataTable {
	t := d.exportTable(name)
	t.Meta = ExportMeta(d.res, d.q, d.source, d.version)
	if shows := d.splitShows(name); shows != "" {
		t.Meta = append(t.Meta, report.Meta{Key: "shows", Value: shows})
	}
	return t
}

// CanonicalURL is the link to the view q: cur's address with only the
// parameters q was read from (Query.Values, the source included) and
// those other panels read (PanelParams); parameters the page ignored
// (unknown, or refused: see Query.Warn) are dropped.
func CanonicalURL(cur *url.URL, q Query) string {
	if cur == nil {
		return ""
	}
	v := q.Values()
	for k, vs := range cur.Query() {
		if slices.Contains(PanelParams, k) {
			v[k] = slices.Clone(vs)
		}
	}
	u := *cur
	u.RawQuery = v.Encode()
	u.Fragment = ""
	return u.String()
}
