package view

import (
	"specdash/compute"
	"specdash/model"
)

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

// ComparedOptions are the option values (EncodeOption of the group key)
// of the sides of c (CompareGroups) among the groups of res, found by
// name; "" for a side that is no group.
func (res *Result) ComparedOptions(c model.Sides) (a, b string) {
	if res == nil {
		return "", ""
	}
	for _, g := range res.Groups {
		if g.Name == c.AName && a == "" {
			a = EncodeOption(g.Key)
		}
		if g.Name == c.BName {
			b = EncodeOption(g.Key)
		}
	}
	return a, b
}

// IntervalText is the 95 % interval of a compared difference in
// percentage points ("+1.2 … +3.4 pp"), compute.Undefined without one.
func IntervalText(c compute.Comparison) string {
	if !c.Lower.OK || !c.Upper.OK {
		return compute.Undefined
	}
	return Signed(c.Lower.V*100, 1) + " … " + Signed(c.Upper.V*100, 1) + " pp"
}
