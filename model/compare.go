package model

import "specdash/compute"

// NotDrafted is the reason of a compared position that one side never
// drafts (at or beyond its k): no rate, no test.
const NotDrafted = "not drafted"

// Comparison compares two sides' counts, A (baseline) and B, with
// compute.CompareAcceptanceRate and compute.ComparePerPosition (Wilson
// intervals, Newcombe's interval of the difference, 95 %).
type Comparison struct {
	// Rate compares the acceptance rates (accepted of draft tokens).
	Rate compute.Comparison
	// Positions compare the per-position rates (accepted at i of drafts),
	// for i in 0..max(AK, BK)-1. A position at or beyond one side's k is
	// not drafted by that side: its row has that side's interval, the
	// difference, interval and p-value undefined, Significant false and
	// Reason NotDrafted (no test).
	Positions []compute.Comparison
	// AK and BK are the sides' k: the number of draft positions of their
	// per-position counts (0 without per-position data).
	AK, BK int
}

// Compare compares counts a (baseline) and b.
func Compare(a, b compute.Counts) Comparison {
	out := Comparison{Rate: compute.CompareAcceptanceRate(a, b, 0), Positions: compute.ComparePerPosition(a, b, 0),
		AK: len(a.AcceptedPerPosition), BK: len(b.AcceptedPerPosition)}
	for i := range out.Positions {
		if !out.Drafted(i) {
			p := compute.Comparison{Reason: NotDrafted}
			if i < out.AK {
				p.A = out.Positions[i].A
			}
			if i < out.BK {
				p.B = out.Positions[i].B
			}
			out.Positions[i] = p
		}
	}
	return out
}

// Drafted reports whether both sides draft 0-based position i.
func (c Comparison) Drafted(i int) bool { return i < c.AK && i < c.BK }

// Sides is a comparison of two sides of a Model, A (the baseline window or
// the first group) and B: their names, numbers, and Compare of their counts.
type Sides struct {
	// Mode is the kind of comparison (the caller's name for it).
	Mode string
	// AName and BName describe the sides (a window or a group name).
	AName, BName string
	// AStats and BStats are the sides' numbers over their windows.
	AStats, BStats compute.Stats
	Comparison
	// Reason says why there is nothing to compare ("" when there is).
	Reason string
}

// LengthDifference is B's mean acceptance length minus A's
// (tokens/draft; a difference only, no test); undefined unless both are.
func (s Sides) LengthDifference() compute.Value {
	if s.AStats.MeanAcceptanceLength.OK && s.BStats.MeanAcceptanceLength.OK {
		return compute.Defined(s.BStats.MeanAcceptanceLength.V - s.AStats.MeanAcceptanceLength.V)
	}
	return compute.Value{}
}

// CompareBaseline compares the baseline window (A, Request.Baseline) with
// the window (B); the caller names the sides.
func (m *Model) CompareBaseline() Sides {
	var out Sides
	bl := m.Baseline
	switch {
	case bl == nil:
		out.Reason = "the baseline window is not loaded yet"
	case bl.Err != nil:
		out.Reason = "baseline window: " + bl.Err.Error()
	default:
		out.AStats, out.BStats = bl.Stats, m.Stats
		out.Comparison = Compare(bl.Total.Total, m.Total.Total)
	}
	return out
}

// CompareGroups compares the groups with keys keyA and keyB
// (compute.GroupKey); a key that matches no group picks the first group
// (A) or the second, or the first when that is A (B).
func (m *Model) CompareGroups(keyA, keyB string) Sides {
	var out Sides
	if len(m.Groups) < 2 {
		out.Reason = "choose a group-by label with at least two groups to compare groups"
		return out
	}
	find := func(key string) *Group {
		for i := range m.Groups {
			if key != "" && m.Groups[i].Key == key {
				return &m.Groups[i]
			}
		}
		return nil
	}
	ga, gb := find(keyA), find(keyB)
	if ga == nil {
		ga = &m.Groups[0]
	}
	if gb == nil {
		gb = &m.Groups[1]
		if gb.Key == ga.Key {
			gb = &m.Groups[0]
		}
	}
	out.AName, out.BName = ga.Name, gb.Name
	out.AStats, out.BStats = ga.Stats, gb.Stats
	out.Comparison = Compare(ga.Counts.Total, gb.Counts.Total)
	return out
}
