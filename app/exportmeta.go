package app

import (
	"specdash/report"
	"specdash/view"
)

// What an export says about itself (window, filters, source, convention),
// when an export button is disabled, and the link "Copy link" copies.

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
	if shows := d.res.SplitShows(name, d.lay.Split); shows != "" {
		t.Meta = append(t.Meta, report.Meta{Key: "shows", Value: shows})
	}
	return t
}
