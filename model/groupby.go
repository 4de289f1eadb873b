package model

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"specdash/metricsclient"
)

// noteMissingGroupBy notes each group-by label that no group has a value
// for: no series of the selection has it, so it split nothing (every
// series falls in its "(none)" group). The note names the label and the
// labels the schema's series in the window do have: labels, the filter
// menus' lists when the request read them, else src.SchemaLabels.
func (m *Model) noteMissingGroupBy(ctx context.Context, src Source, s metricsclient.Schema, labels map[string][]string) {
	groups := m.Groups
	if sn := m.Schema; sn != nil && sn.Averaged != nil {
		groups = sn.Averaged.Groups
	}
	if len(groups) == 0 {
		return
	}
	var missing []string
	for _, l := range m.Request.GroupBy {
		if !slices.ContainsFunc(groups, func(g Group) bool { return g.Labels[l] != "" }) {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return
	}
	have := "the labels of its series could not be listed"
	if labels == nil && src != nil {
		g := m.Grid
		var err error
		labels, err = src.SchemaLabels(ctx, s, time.UnixMilli(g.Start), time.UnixMilli(g.End))
		if err != nil {
			have += ": " + err.Error()
		}
	}
	if labels != nil {
		names := make([]string, 0, len(labels))
		for n := range labels {
			names = append(names, n)
		}
		slices.Sort(names)
		if len(names) == 0 {
			have = fmt.Sprintf("the %s series in the window have no labels to group by", s.Name)
		} else {
			have = fmt.Sprintf("the %s series in the window have the labels %s", s.Name, strings.Join(names, ", "))
		}
	}
	for _, l := range missing {
		m.Notes = append(m.Notes, fmt.Sprintf("group by label %q: no series of the selection has it, so it splits nothing; %s", l, have))
	}
}
