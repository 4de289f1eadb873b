package view

import (
	"strconv"

	"specdash/model"
)

// The split charts (per-position, heatmap, token flow, insights) show one
// group of a grouped load, or the blend of all: the layout parameter
// SplitParam's value split (a group key, SplitAll, or "": the default,
// the blend, captioned "all N models blended"; kiosk mode rotates through
// the groups).

// Splits reports whether res has groups to choose among: grouped, with
// at least two groups.
func (res *Result) Splits() bool {
	return res != nil && !res.Ungrouped() && len(res.Groups) >= 2
}

// SplitGroup is the group the split charts show: nil for the blend (one
// group, SplitAll chosen, or no choice).
func (res *Result) SplitGroup(split string) *model.Group {
	if !res.Splits() || split == SplitAll || split == "" {
		return nil
	}
	for i := range res.Groups {
		if g := &res.Groups[i]; g.Key == split {
			return g
		}
	}
	return nil
}

// SplitModel is the model the per-position, heatmap, token-flow and
// insights charts draw: the split group's, or the whole (blended) one;
// nil when res is.
func (res *Result) SplitModel(split string) *model.Model {
	if res == nil {
		return nil
	}
	if g := res.SplitGroup(split); g != nil {
		if sub, ok := res.Model.ForGroup(g.Key); ok {
			return sub
		}
	}
	return &res.Model
}

// GroupNoun is "models" when grouped by model_name alone, else "groups".
func (res *Result) GroupNoun() string {
	if res != nil && len(res.Request.GroupBy) == 1 && res.Request.GroupBy[0] == "model_name" {
		return "models"
	}
	return "groups"
}

// BlendCaption is added to a split chart's note: which group it shows.
func (res *Result) BlendCaption(split string) string {
	if !res.Splits() {
		return ""
	}
	if g := res.SplitGroup(split); g != nil {
		return " Group: " + g.Name + "."
	}
	return " All " + strconv.Itoa(len(res.Groups)) + " " + res.GroupNoun() + " blended."
}

// SplitShows is what a split chart (per-position, heatmap, token flow:
// SplitModel) shows, for its export: "model-a (1 of 2 models)" or "all 2
// models blended (ratio of sums)"; "" for the other panels and when
// there is one group.
func (res *Result) SplitShows(name, split string) string {
	switch name {
	case ChartPerPosition, ChartHeatmap, ChartThroughput:
	default:
		return ""
	}
	if !res.Splits() {
		return ""
	}
	n := strconv.Itoa(len(res.Groups)) + " " + res.GroupNoun()
	if g := res.SplitGroup(split); g != nil {
		return g.Name + " (1 of " + n + ")"
	}
	return "all " + n + " blended (ratio of sums)"
}

// NextSplit is the group kiosk mode shows after split: the next in the
// table's order (by label values), the first after the blend; split
// itself when there is nothing to rotate through.
func (res *Result) NextSplit(split string) string {
	if !res.Splits() {
		return split
	}
	groups := SortGroups(res.Groups, "")
	cur := res.SplitGroup(split)
	next := 0
	for i, g := range groups {
		if cur != nil && g.Key == cur.Key {
			next = (i + 1) % len(groups)
		}
	}
	return groups[next].Key
}

// SplitCaption says what the split charts show: "showing model-a (1 of 2
// models)", or the blend with a hint to choose one.
func (res *Result) SplitCaption(split string) string {
	n := strconv.Itoa(len(res.Groups)) + " " + res.GroupNoun()
	if g := res.SplitGroup(split); g != nil {
		return "showing " + g.Name + " (1 of " + n + ")"
	}
	return "all " + n + " blended (ratio of sums): choose one to see its own k, fit and speedup"
}
