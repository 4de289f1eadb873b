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
	conv := "with bonus token: mean acceptance length = 1 + accepted / drafts (vLLM PR 17908)"
	if q.Convention == compute.WithoutBonus {
		conv = "without bonus token: mean acceptance length = accepted / drafts"
	}
	add("convention", conv)
	add("aggregation", "ratio of sums over the selected series")
	v := "specdash"
	if version != "" {
		v += " " + version
	}
	add("exported_by", v)
	return m
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
