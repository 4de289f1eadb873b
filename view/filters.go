package view

import (
	"slices"
	"strings"

	"specdash/metricsclient"
	"specdash/model"
)

// ChainFilters are the filters of q without label's own: the selection a
// label's menu lists values for (chained menus).
func ChainFilters(q Query, label string) []metricsclient.Filter {
	return slices.DeleteFunc(q.Filters(), func(f metricsclient.Filter) bool { return f.Name == label })
}

// ChainKeyOf is what a set of chained lists depends on: the query's
// filters, source and window (they are read again, like the label lists,
// when older than LabelsMaxAge); "" without filters.
func ChainKeyOf(q Query) string {
	if len(q.Filter) == 0 {
		return ""
	}
	v := q.Values()
	for _, k := range []string{"refresh", "group", "convention", "theme", "tz", "sort", "compare", "base_from", "base_to", "a", "b"} {
		v.Del(k)
	}
	return v.Encode()
}

// ChainSets groups labels by the filters their menus need: labels without
// a filter of their own share q's whole filter set; a filtered label needs
// q's filters without its own. Keys are the sets' selectors' text.
func ChainSets(q Query, labels []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range labels {
		out[filterKey(ChainFilters(q, l))] = append(out[filterKey(ChainFilters(q, l))], l)
	}
	return out
}

func filterKey(fs []metricsclient.Filter) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Name + "=" + strings.Join(f.Values, "\x00") + "\x01")
	}
	return b.String()
}

// MenuValues are the values a label's menu lists: the chained values when
// known (else all known values), plus the chosen ones (always: a chosen
// value absent from the lists must show as chosen), those whose text
// contains search (case-insensitive), sorted.
func MenuValues(known []string, chained []string, chainedOK bool, chosen []string, search string) []string {
	base := known
	if chainedOK {
		base = chained
	}
	vals := slices.Clone(base)
	for _, c := range chosen {
		if !slices.Contains(vals, c) {
			vals = append(vals, c)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	if s := strings.ToLower(strings.TrimSpace(search)); s != "" {
		vals = slices.DeleteFunc(vals, func(v string) bool { return !strings.Contains(strings.ToLower(model.LabelText(v)), s) })
	}
	return vals
}

// MapText is model.LabelText of each value.
func MapText(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = model.LabelText(v)
	}
	return out
}

// FilterID is the id of a label's filter select ("model" and "engine" for
// the two vLLM labels, as before).
func FilterID(label string) string {
	switch label {
	case "model_name":
		return "model"
	case "engine":
		return "engine"
	}
	return "f-" + label
}

// LabelNames are the label names the filter menus offer (labels: the
// names known from the series): known from the series, filtered
// or grouped by; model_name and engine first, then the rest sorted.
func LabelNames(labels map[string][]string, q Query) []string {
	seen := map[string]bool{}
	var rest []string
	add := func(l string) {
		if !seen[l] {
			seen[l] = true
			if l != "model_name" && l != "engine" {
				rest = append(rest, l)
			}
		}
	}
	add("model_name")
	add("engine")
	for l := range labels {
		add(l)
	}
	for l := range q.Filter {
		add(l)
	}
	for _, l := range q.Grouping() {
		add(l)
	}
	slices.Sort(rest)
	return append([]string{"model_name", "engine"}, rest...)
}

// MenuTexts are a label's filter menu's toggle text (the chosen values,
// or "all") and tooltip (chained: it lists the values under the other
// filters).
func MenuTexts(label string, chosen []string, chained bool) (summary, tip string) {
	summary = "all"
	if len(chosen) > 0 {
		summary = strings.Join(MapText(chosen), ", ")
	}
	tip = "Keep only the series whose " + label + " is one of the checked values (none checked: no filter)."
	if chained {
		tip += " Listed: the values of the series the other filters keep."
	}
	return summary, tip
}

// LabelValues are the values known of label: from the label lists of the
// last load that had them (labels), else the model and engine lists.
func LabelValues(labels map[string][]string, models, engines []string, label string) []string {
	switch {
	case labels != nil:
		return labels[label]
	case label == "model_name":
		return models
	case label == "engine":
		return engines
	}
	return nil
}
