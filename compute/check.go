package compute

import (
	"fmt"
	"math"
)

// tolerance is the slack allowed when comparing counts: a relative 1e-9
// (float rounding of sums of increases) with an absolute floor of 1e-6.
func tolerance(a, b float64) float64 {
	return 1e-9*math.Max(math.Abs(a), math.Abs(b)) + 1e-6
}

// greater reports a > b beyond the tolerance.
func greater(a, b float64) bool { return a-b > tolerance(a, b) }

// num prints a count compactly: whole numbers without decimals, others with
// up to 6 significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.6g", v)
}

// Check returns the invariants of the speculative-decoding counters that c
// violates, as readable sentences with the numbers, or nil when it holds
// them all. Source: docs/METRICS.md ("Invariants"); accepted tokens of a
// draft form a prefix, so:
//
//   - every count is finite and >= 0;
//   - sum over positions of accepted_per_pos == accepted (when per-position
//     data is present, k = len(AcceptedPerPosition) > 0);
//   - accepted_per_pos is non-increasing by position;
//   - accepted_per_pos[i] <= drafts (of the series that draft position
//     i: PositionDrafts);
//   - accepted <= draft tokens;
//   - draft tokens <= k * drafts (when k > 0).
//
// Comparisons allow a relative slack of 1e-9 plus 1e-6. Positions are shown
// 1-based ("pos 1" is position label "0").
func Check(c Counts) []string {
	var out []string
	bad := false
	for _, f := range []struct {
		name string
		v    float64
	}{{"drafts", c.Drafts}, {"draft tokens", c.DraftTokens}, {"accepted tokens", c.AcceptedTokens}} {
		if !finite(f.v) || f.v < 0 {
			out = append(out, fmt.Sprintf("%s is %s: counts must be finite and >= 0", f.name, describe(f.v)))
			bad = true
		}
	}
	for i, v := range c.AcceptedPerPosition {
		if !finite(v) || v < 0 {
			out = append(out, fmt.Sprintf("accepted tokens at pos %d is %s: counts must be finite and >= 0", i+1, describe(v)))
			bad = true
		}
	}
	if bad {
		return out
	}
	k := len(c.AcceptedPerPosition)
	if k > 0 {
		var sum float64
		for _, v := range c.AcceptedPerPosition {
			sum += v
		}
		if greater(sum, c.AcceptedTokens) || greater(c.AcceptedTokens, sum) {
			out = append(out, fmt.Sprintf("accepted tokens summed over the %d positions (%s) differ from accepted tokens (%s)",
				k, num(sum), num(c.AcceptedTokens)))
		}
		for i := 1; i < k; i++ {
			if greater(c.AcceptedPerPosition[i], c.AcceptedPerPosition[i-1]) {
				out = append(out, fmt.Sprintf("accepted tokens at pos %d (%s) exceed those at pos %d (%s): they must not increase with position",
					i+1, num(c.AcceptedPerPosition[i]), i, num(c.AcceptedPerPosition[i-1])))
			}
		}
		for i, v := range c.AcceptedPerPosition {
			if d := c.PositionDrafts(i); greater(v, d) {
				out = append(out, fmt.Sprintf("accepted tokens at pos %d (%s) exceed the number of drafts (%s)",
					i+1, num(v), num(d)))
			}
		}
	}
	if greater(c.AcceptedTokens, c.DraftTokens) {
		out = append(out, fmt.Sprintf("accepted tokens (%s) exceed draft tokens (%s)", num(c.AcceptedTokens), num(c.DraftTokens)))
	}
	if k > 0 && greater(c.DraftTokens, float64(k)*c.Drafts) {
		out = append(out, fmt.Sprintf("draft tokens (%s) exceed k x drafts = %d x %s = %s",
			num(c.DraftTokens), k, num(c.Drafts), num(float64(k)*c.Drafts)))
	}
	return out
}

// describe prints a bad count for a message.
func describe(v float64) string {
	switch {
	case math.IsNaN(v):
		return "not a number"
	case math.IsInf(v, 0):
		return "infinite"
	}
	return num(v)
}
