package view

import "specdash/model"

// Compare builds the comparison of q.Compare from a result: the baseline
// window against the current one (CompareWindow), or groups q.CompareA and
// q.CompareB of the breakdown (CompareGroups; the first two groups when
// unset).
func Compare(res *Result, q Query) model.Sides {
	var out model.Sides
	switch {
	case res == nil:
		out.Reason = "no data loaded yet"
	case q.Compare == CompareWindow:
		out = res.CompareBaseline()
		if out.Reason == "" {
			loc := q.Location()
			out.AName = "before: " + windowText(res.Baseline.Grid.Start, res.Baseline.Grid.End, loc)
			out.BName = "after: " + windowText(res.Grid.Start, res.Grid.End, loc)
		}
	case q.Compare == CompareGroups && len(res.Query.Grouping()) == 0:
		out.Reason = "choose a group-by label with at least two groups to compare groups"
	case q.Compare == CompareGroups:
		out = res.CompareGroups(q.CompareA, q.CompareB)
	default:
		out.Reason = "comparison off"
	}
	out.Mode = q.Compare
	return out
}
