package compute

import (
	"fmt"
	"strings"
	"testing"
)

func TestCheckDraftLengths(t *testing.T) {
	// Fixed length: PR 16665's worked example, k = 3, 5 drafts, 15 tokens.
	d := CheckDraftLengths(Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}})
	if d.Variable || d.Shortfall != 0 || d.Expected != 15 || d.K != 3 || fmt.Sprint(d.LowerBound) != "[false false false]" || d.Note() != "" {
		t.Errorf("fixed length: %+v", d)
	}

	// k = 4, 10 drafts, 35 draft tokens: 5 short. At most floor(5/3) = 1
	// draft misses pos 1 (index 1), floor(5/2) = 2 miss index 2, 5 miss
	// index 3; index 0 is drafted by every draft.
	d = CheckDraftLengths(Counts{Drafts: 10, DraftTokens: 35, AcceptedTokens: 17, AcceptedPerPosition: []float64{8, 5, 3, 1}})
	if !d.Variable || d.Shortfall != 5 || d.Expected != 40 {
		t.Fatalf("variable: %+v", d)
	}
	if fmt.Sprint(d.LowerBound) != "[false true true true]" || fmt.Sprint(d.MinDrafted) != "[10 9 8 5]" {
		t.Errorf("bounds: %v, min drafted %v", d.LowerBound, d.MinDrafted)
	}
	for i, want := range []float64{0.8, 5.0 / 9, 3.0 / 8, 1.0 / 5} {
		wantValue(t, fmt.Sprintf("max rate %d", i), d.MaxRate[i], want, true)
	}
	if n := d.Note(); !strings.Contains(n, "shorter than k = 4") || !strings.Contains(n, "5 short") || !strings.Contains(n, "pos 2, 3, 4") {
		t.Errorf("note %q", n)
	}

	// One token short: only the last position can be missing (one draft
	// of length 3).
	d = CheckDraftLengths(Counts{Drafts: 10, DraftTokens: 39, AcceptedPerPosition: []float64{8, 5, 3, 1}})
	if fmt.Sprint(d.LowerBound) != "[false false false true]" || fmt.Sprint(d.MinDrafted) != "[10 10 10 9]" {
		t.Errorf("one short: %+v", d)
	}

	// More draft tokens than k x drafts: reported, no bounds.
	d = CheckDraftLengths(Counts{Drafts: 10, DraftTokens: 41, AcceptedPerPosition: []float64{8, 5, 3, 1}})
	if !d.Variable || d.Shortfall != -1 || fmt.Sprint(d.LowerBound) != "[false false false false]" || !strings.Contains(d.Note(), "exceed k x drafts") {
		t.Errorf("excess: %+v %q", d, d.Note())
	}

	// Mixed k: a series with k = 2 and 4 drafts, one with k = 4 and 6:
	// DraftsAtPosition [10, 10, 6, 6], expected 32, 30 drafted: 2 short.
	// Index 1 is drafted by k = 2 series too: up to floor(2/(2-1)) = 2
	// missing; index 2 (smallest k 4): floor(2/2) = 1; index 3: 2.
	d = CheckDraftLengths(Counts{Drafts: 10, DraftTokens: 30, AcceptedPerPosition: []float64{9, 6, 3, 2}, DraftsAtPosition: []float64{10, 10, 6, 6}})
	if d.Expected != 32 || d.Shortfall != 2 || fmt.Sprint(d.MinDrafted) != "[10 8 5 4]" || fmt.Sprint(d.LowerBound) != "[false true true true]" {
		t.Errorf("mixed k: %+v", d)
	}

	// Inconsistent counts: the bound never goes below the accepted count.
	d = CheckDraftLengths(Counts{Drafts: 4, DraftTokens: 5, AcceptedPerPosition: []float64{4, 3}})
	wantValue(t, "capped max rate", d.MaxRate[1], 1, true)

	// No per-position counts: k unknown, nothing said.
	d = CheckDraftLengths(Counts{Drafts: 4, DraftTokens: 5})
	if d.K != 0 || d.Variable || d.LowerBound != nil || d.Note() != "" {
		t.Errorf("no k: %+v", d)
	}
	// No drafts: expected 0, nothing drafted, nothing variable.
	d = CheckDraftLengths(Counts{AcceptedPerPosition: []float64{0, 0}})
	if d.Variable || d.MaxRate[0].OK {
		t.Errorf("empty: %+v", d)
	}
}

func TestConditionalPerPositionAndOutput(t *testing.T) {
	got := ConditionalPerPosition([]float64{8, 5, 0}, []float64{10, 8, 0, 4})
	if len(got) != 3 {
		t.Fatalf("%v", got)
	}
	wantValue(t, "pos 1", got[0], 0.8, true)
	wantValue(t, "pos 2", got[1], 0.625, true)
	wantValue(t, "pos 3", got[2], 0, false)
	wantValue(t, "output share", OutputShare(240, 400), 0.6, true)
	wantValue(t, "output share without output", OutputShare(0, 0), 0, false)
	wantValue(t, "output tokens/s", PerSecond(400, 600), 400.0/600, true)
	wantValue(t, "no time", PerSecond(400, 0), 0, false)
}

func TestMeanLengthFromVerifyCalls(t *testing.T) {
	// 2 requests: 1 prefill token each, then 4 and 6 verify steps emitting
	// [3, 2, 1, 3] and [2, 2, 2, 2, 1, 1] tokens: 9 + 10 = 19 decode
	// tokens over 10 steps = 1.9 per step; 21 output tokens.
	wantValue(t, "length", MeanLengthFromVerifyCalls(21, 2, 10), 1.9, true)
	wantValue(t, "no verify calls", MeanLengthFromVerifyCalls(21, 2, 0), 0, false)
	wantValue(t, "inconsistent", MeanLengthFromVerifyCalls(1, 2, 10), 0, false)
}
