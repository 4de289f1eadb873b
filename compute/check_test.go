package compute

import (
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if v := Check(workedExample); v != nil {
		t.Errorf("worked example: %q", v)
	}
	if v := Check(Counts{}); v != nil {
		t.Errorf("zero counts: %q", v)
	}
	// No per-position data: only accepted <= draft tokens applies.
	if v := Check(Counts{Drafts: 1, DraftTokens: 100, AcceptedTokens: 50}); v != nil {
		t.Errorf("no per-position data: %q", v)
	}
	// Float noise within the tolerance.
	if v := Check(Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9 + 1e-9, AcceptedPerPosition: []float64{5, 3, 1}}); v != nil {
		t.Errorf("within tolerance: %q", v)
	}
	for _, tc := range []struct {
		name string
		c    Counts
		want string
	}{
		{"sum over positions", Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 0}},
			"accepted tokens summed over the 3 positions (8) differ from accepted tokens (9)"},
		{"non-increasing", Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{4, 1, 4}},
			"accepted tokens at pos 3 (4) exceed those at pos 2 (1): they must not increase with position"},
		{"per position <= drafts", Counts{Drafts: 5, DraftTokens: 10, AcceptedTokens: 9, AcceptedPerPosition: []float64{6, 3}},
			"accepted tokens at pos 1 (6) exceed the number of drafts (5)"},
		{"accepted <= draft tokens", Counts{Drafts: 5, DraftTokens: 8, AcceptedTokens: 9},
			"accepted tokens (9) exceed draft tokens (8)"},
		{"draft tokens <= k x drafts", Counts{Drafts: 4, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{4, 3, 2}},
			"draft tokens (15) exceed k x drafts = 3 x 4 = 12"},
		{"NaN", Counts{Drafts: math.NaN()}, "drafts is not a number: counts must be finite and >= 0"},
		{"negative", Counts{AcceptedPerPosition: []float64{-2}}, "accepted tokens at pos 1 is -2: counts must be finite and >= 0"},
	} {
		v := Check(tc.c)
		if len(v) != 1 || v[0] != tc.want {
			t.Errorf("%s: Check = %q, want [%q]", tc.name, v, tc.want)
		}
	}
	// Several at once are all reported.
	if v := Check(Counts{Drafts: 1, DraftTokens: 1, AcceptedTokens: 5, AcceptedPerPosition: []float64{1, 2}}); len(v) != 4 {
		t.Errorf("want 4 violations, got %q", v)
	} else if !strings.Contains(strings.Join(v, "\n"), "pos 2 (2) exceed the number of drafts (1)") {
		t.Errorf("violations %q", v)
	}
}
