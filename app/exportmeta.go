package app

import (
	"strconv"

	"specdash/report"
	"specdash/view"
)

// What an export says about itself (window, filters, source, convention),
// when an export button is disabled, and the link "Copy link" copies.

// splitShows is what a split chart (per-position, heatmap, token flow:
// splitModel) shows, for its export: "model-a (1 of 2 models)" or "all 2
// models blended (ratio of sums)"; "" for the other panels and when
// there is one group.
func (d *Dashboard) splitShows(name string) string {
	switch name {
	case view.ChartPerPosition, view.ChartHeatmap, view.ChartThroughput:
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
func (d *Dashboard) exportTableWithMeta(name string) report.Table {
	t := d.exportTable(name)
	t.Meta = view.ExportMeta(d.res, d.q, d.source, d.version)
	if shows := d.splitShows(name); shows != "" {
		t.Meta = append(t.Meta, report.Meta{Key: "shows", Value: shows})
	}
	return t
}
