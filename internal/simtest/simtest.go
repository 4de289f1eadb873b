// Package simtest compares specdash's numbers with the simulator's true
// counts: the check shared by the live tests of report/ and embedded/.
package simtest

import (
	"math"
	"testing"

	"specdash/compute"
	"specdash/simulate"
)

// CheckCounts compares stats computed over a window of window seconds with
// true counts c: drafts, draft tokens, accepted tokens, k and accepted per
// position exactly; acceptance rate, mean acceptance length (with bonus),
// per-position rates and throughputs (tokens/s) to 1e-12 (relative above
// 1); no invariant violations.
func CheckCounts(t testing.TB, what string, s compute.Stats, c simulate.Counts, window float64) {
	t.Helper()
	CheckCountsAt(t, what, s, c, nil, window)
}

// CheckCountsAt is CheckCounts for a sum of series that mix k: atPos[i] is
// the drafts of the series with k > i, the per-position rates'
// denominators (nil: c.Drafts for every position).
func CheckCountsAt(t testing.TB, what string, s compute.Stats, c simulate.Counts, atPos []int64, window float64) {
	t.Helper()
	if s.Drafts != float64(c.Drafts) || s.DraftTokens != float64(c.DraftTokens) || s.AcceptedTokens != float64(c.AcceptedTokens) {
		t.Errorf("%s: drafts/draft/accepted = %v/%v/%v, want %d/%d/%d", what, s.Drafts, s.DraftTokens, s.AcceptedTokens, c.Drafts, c.DraftTokens, c.AcceptedTokens)
	}
	if s.K != len(c.AcceptedPerPosition) {
		t.Errorf("%s: k = %d, want %d", what, s.K, len(c.AcceptedPerPosition))
		return
	}
	for i, v := range c.AcceptedPerPosition {
		if s.AcceptedPerPosition[i] != float64(v) {
			t.Errorf("%s: accepted at position %d = %v, want %d", what, i, s.AcceptedPerPosition[i], v)
		}
		d := c.Drafts
		if atPos != nil {
			d = atPos[i]
		}
		Near(t, what+" per-position rate", s.PerPositionAcceptanceRate[i], float64(v)/float64(d))
	}
	Near(t, what+" acceptance rate", s.AcceptanceRate, float64(c.AcceptedTokens)/float64(c.DraftTokens))
	Near(t, what+" mean acceptance length", s.MeanAcceptanceLength, 1+float64(c.AcceptedTokens)/float64(c.Drafts))
	Near(t, what+" accepted throughput", s.AcceptedThroughput, float64(c.AcceptedTokens)/window)
	Near(t, what+" drafted throughput", s.DraftedThroughput, float64(c.DraftTokens)/window)
	if len(s.Violations) != 0 {
		t.Errorf("%s: violations %q", what, s.Violations)
	}
}

// Near checks that got is defined and within 1e-12 of want (relative when
// |want| > 1).
func Near(t testing.TB, what string, got compute.Value, want float64) {
	t.Helper()
	if !got.OK || math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %+v, want %.15g", what, got, want)
	}
}
