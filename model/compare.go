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
