package compute

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// seedLines are every "SpecDecoding metrics" line of vLLM PR 16665's review
// thread (docs/METRICS.md "Known answers"; logparse/testdata/seed_000.log),
// after the prefix up to "SpecDecoding metrics:" (vLLM 2025 form, mean
// length without bonus).
var seedLines = []string{
	"SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens, Per-position acceptance probabilities: 0.576, 0.327, 0.159, 0.089",
	"SpecDecoding metrics: Draft acceptance rate: 40.6%, Mean acceptance length: 1.62, Accepted: 2951 tokens, Drafted: 7264 tokens, Per-position acceptance probabilities: 0.695, 0.442, 0.286, 0.202",
	"SpecDecoding metrics: Draft acceptance rate: 30.5%, Mean acceptance length: 1.22, Accepted: 3345 tokens, Drafted: 10984 tokens, Per-position acceptance probabilities: 0.588, 0.336, 0.185, 0.109",
	"SpecDecoding metrics: Draft acceptance rate: 30.9%, Mean acceptance length: 1.24, Accepted: 4029 tokens, Drafted: 13024 tokens, Per-position acceptance probabilities: 0.600, 0.333, 0.189, 0.115",
	"SpecDecoding metrics: Draft acceptance rate: 30.5%, Mean acceptance length: 1.22, Accepted: 3682 tokens, Drafted: 12084 tokens, Per-position acceptance probabilities: 0.575, 0.335, 0.189, 0.119",
	"SpecDecoding metrics: Draft acceptance rate: 32.1%, Mean acceptance length: 1.28, Accepted: 2969 tokens, Drafted: 9260 tokens, Per-position acceptance probabilities: 0.581, 0.346, 0.216, 0.139",
	"SpecDecoding metrics: Draft acceptance rate: 29.4%, Mean acceptance length: 1.18, Accepted: 3545 tokens, Drafted: 12048 tokens, Per-position acceptance probabilities: 0.579, 0.319, 0.176, 0.103",
	"SpecDecoding metrics: Draft acceptance rate: 29.3%, Mean acceptance length: 0.88, Accepted: 754 tokens, Drafted: 2574 tokens, Per-position acceptance probabilities: 0.535, 0.233, 0.111",
}

// field returns the text between after and the next before (or the end).
func field(t *testing.T, line, after, before string) string {
	t.Helper()
	i := strings.Index(line, after)
	if i < 0 {
		t.Fatalf("%q lacks %q", line, after)
	}
	rest := line[i+len(after):]
	if before == "" {
		return rest
	}
	j := strings.Index(rest, before)
	if j < 0 {
		t.Fatalf("%q lacks %q after %q", line, before, after)
	}
	return rest[:j]
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// perPositionCounts searches integer accepted counts per position, each
// printing as the given "%.3f" probability over drafts, summing to accepted
// and non-increasing by position. It returns the first solution.
func perPositionCounts(printed []string, drafts, accepted int) []float64 {
	cands := make([][]int, len(printed))
	for i, p := range printed {
		f, _ := strconv.ParseFloat(p, 64)
		center := int(f * float64(drafts))
		for n := max(center-5, 0); n <= center+5 && n <= drafts; n++ {
			if fmt.Sprintf("%.3f", float64(n)/float64(drafts)) == p {
				cands[i] = append(cands[i], n)
			}
		}
	}
	out := make([]float64, len(printed))
	var rec func(i, left, limit int) bool
	rec = func(i, left, limit int) bool {
		if i == len(printed) {
			return left == 0
		}
		for _, n := range cands[i] {
			if n <= left && n <= limit {
				out[i] = float64(n)
				if rec(i+1, left-n, n) {
					return true
				}
			}
		}
		return false
	}
	if !rec(0, accepted, drafts) {
		return nil
	}
	return out
}

func TestFormatLegacyLogLineSeeds(t *testing.T) {
	for _, line := range seedLines {
		probs := strings.Split(field(t, line, "Per-position acceptance probabilities: ", ""), ", ")
		accepted := atoi(t, field(t, line, "Accepted: ", " tokens"))
		drafted := atoi(t, field(t, line, "Drafted: ", " tokens"))
		k := len(probs)
		if drafted%k != 0 {
			t.Fatalf("%q: drafted %d not a multiple of k=%d", line, drafted, k)
		}
		drafts := drafted / k
		pp := perPositionCounts(probs, drafts, accepted)
		if pp == nil {
			t.Errorf("%q: no per-position counts consistent with the line", line)
			continue
		}
		c := Counts{Drafts: float64(drafts), DraftTokens: float64(drafted), AcceptedTokens: float64(accepted), AcceptedPerPosition: pp}
		s := Derive(c, 10, WithoutBonus)
		if got := FormatLegacyLogLine(s); got != line {
			t.Errorf("counts %+v:\n got %s\nwant %s", c, got, line)
		}
		if len(s.Violations) != 0 {
			t.Errorf("%q: violations %q", line, s.Violations)
		}
	}
}

// TestFormatLogLineKnownAnswers checks the known answers of docs/METRICS.md
// ("Known answers", taken from real public logs), WithBonus, through the
// fields of FormatLogLine.
func TestFormatLogLineKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		k, accepted, drafted int
		mean, perPos, rate   string
	}{
		{2, 419, 434, "2.93", "0.982, 0.949", "96.5%"},
		{2, 69, 104, "2.33", "0.808, 0.519", "66.3%"},
		{4, 464, 828, "3.24", "0.763, 0.623, 0.459, 0.396", "56.0%"},
		{4, 228, 556, "2.64", "0.669, 0.489, 0.273, 0.209", "41.0%"},
	} {
		drafts := tc.drafted / tc.k
		pp := perPositionCounts(strings.Split(tc.perPos, ", "), drafts, tc.accepted)
		if pp == nil {
			t.Fatalf("%+v: no per-position counts found", tc)
		}
		c := Counts{Drafts: float64(drafts), DraftTokens: float64(tc.drafted), AcceptedTokens: float64(tc.accepted), AcceptedPerPosition: pp}
		line := FormatLogLine(Derive(c, 10, WithBonus))
		if got := field(t, line, "Mean acceptance length: ", ","); got != tc.mean {
			t.Errorf("%+v: mean length %s, want %s", tc, got, tc.mean)
		}
		if got := field(t, line, "Per-position acceptance rate: ", ", Avg"); got != tc.perPos {
			t.Errorf("%+v: per-position %s, want %s", tc, got, tc.perPos)
		}
		if got := field(t, line, "Avg Draft acceptance rate: ", ""); got != tc.rate {
			t.Errorf("%+v: rate %s, want %s", tc, got, tc.rate)
		}
		want := fmt.Sprintf("Accepted throughput: %.2f tokens/s, Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens",
			float64(tc.accepted)/10, float64(tc.drafted)/10, tc.accepted, tc.drafted)
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}
