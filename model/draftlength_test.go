package model

import (
	"strings"
	"testing"

	"specdash/compute"
)

// TestDraftLengthNote: drafts shorter than k (k = 3, 10 drafts, 25 draft
// tokens per 10 s: 5 short) put a note in Model.Notes naming pos 2 and 3
// as lower bounds; fixed-length drafts, and more draft tokens than k x
// drafts (compute.Check's violation), add none.
func TestDraftLengthNote(t *testing.T) {
	g := compute.Grid{Start: 0, End: 60_000, Step: 10_000}
	l := map[string]string{"model_name": "a"}
	series := func(draftTokens float64) []compute.Series {
		return []compute.Series{
			counter(compute.Drafts, l, -1, 0, g.End, 10_000, 10),
			counter(compute.DraftTokens, l, -1, 0, g.End, 10_000, draftTokens),
			counter(compute.AcceptedTokens, l, -1, 0, g.End, 10_000, 9),
			counter(compute.AcceptedPerPosition, l, 0, 0, g.End, 10_000, 6),
			counter(compute.AcceptedPerPosition, l, 1, 0, g.End, 10_000, 2),
			counter(compute.AcceptedPerPosition, l, 2, 0, g.End, 10_000, 1),
		}
	}
	has := func(m *Model) string {
		for _, n := range m.Notes {
			if strings.HasPrefix(n, "drafts were shorter than k") || strings.HasPrefix(n, "draft tokens (") {
				return n
			}
		}
		return ""
	}
	n := has(FromSeries(series(25), Request{Grid: g}))
	if !strings.Contains(n, "drafts were shorter than k = 3: 150 draft tokens, 30 short of k x drafts") || !strings.Contains(n, "per-position rates at pos 2, 3 count drafts that did not draft that position") {
		t.Errorf("variable lengths: note %q", n)
	}
	if n := has(FromSeries(series(30), Request{Grid: g})); n != "" {
		t.Errorf("fixed lengths: note %q", n)
	}
	if n := has(FromSeries(series(35), Request{Grid: g})); n != "" {
		t.Errorf("more than k per draft: note %q (compute.Check reports it)", n)
	}
}
