package compute

import (
	"fmt"
	"math"
)

// DraftLengths says whether the drafts of a window all had k draft tokens,
// and what follows for the per-position numbers when they did not.
//
// With fixed-length drafting every draft carries exactly k draft tokens, so
// draft tokens == k x drafts exactly (whole tokens: no rounding; with mixed k
// the sum over series of k_s x drafts_s, which Counts.DraftsAtPosition
// gives as the sum over positions of the drafts that draft the position).
// Drafters that stop early (vLLM's n-gram proposer, llama.cpp's draft
// p-min, dynamic draft lengths) draft fewer: the shortfall S = k x drafts -
// draft tokens > 0.
//
// vLLM's per-position rate[i] = accepted_at_pos[i] / drafts (the share of
// drafts with at least i+1 tokens accepted) stays exact. But read as "how
// often position i is accepted when it is drafted", its denominator counts
// drafts that never drafted position i, so it is a lower bound. A draft
// counted by vLLM carries at least one draft token (the scheduler counts a
// draft only for a request with scheduled draft tokens), so position 0 is
// drafted by every draft; a draft missing position i >= 1 is at most i
// tokens long and makes up at least k - i of the shortfall, so at most
// floor(S / (k - i)) drafts miss position i. Position i's rate is therefore
// exact when S < k - i and a lower bound otherwise, and the rate among
// drafts that drafted it lies in
// [accepted_i / drafts, accepted_i / max(accepted_i, drafts - floor(S / (k - i)))].
// With mixed k the bound uses, for each position, the smallest k of the
// series that draft it (a conservative bound).
type DraftLengths struct {
	// K is the largest k (len(AcceptedPerPosition)); 0 when unknown (no
	// per-position counts): then nothing can be said.
	K int
	// Expected is k x drafts (sum over series of k_s x drafts_s); Actual
	// the draft tokens.
	Expected, Actual float64
	// Shortfall = Expected - Actual: > 0 when some drafts were shorter than
	// k; < 0 is impossible for an engine (more draft tokens than k per
	// draft: Check reports it).
	Shortfall float64
	// Variable is true when Actual != Expected (exactly).
	Variable bool
	// LowerBound[i] is true when the per-position rate at i, read as the
	// acceptance rate of position i among drafts that drafted it, is only a
	// lower bound (len K; all false when !Variable).
	LowerBound []bool
	// MinDrafted[i] is the fewest drafts that can have drafted position i
	// (PositionDrafts(i) when exact).
	MinDrafted []float64
	// MaxRate[i] is the highest the rate among drafts that drafted
	// position i can be: accepted_i / max(accepted_i, MinDrafted[i]);
	// undefined without drafts.
	MaxRate []Value
}

// CheckDraftLengths compares draft tokens with k x drafts for c (see
// DraftLengths). k is taken from c (len(AcceptedPerPosition)); with no
// per-position counts the result has K 0 and Variable false.
func CheckDraftLengths(c Counts) DraftLengths {
	k := len(c.AcceptedPerPosition)
	d := DraftLengths{K: k, Actual: c.DraftTokens}
	if k == 0 || !finite(c.Drafts) || !finite(c.DraftTokens) {
		return d
	}
	for i := 0; i < k; i++ {
		d.Expected += c.PositionDrafts(i)
	}
	d.Shortfall = d.Expected - d.Actual
	d.Variable = d.Shortfall != 0
	d.LowerBound = make([]bool, k)
	d.MinDrafted = make([]float64, k)
	d.MaxRate = make([]Value, k)
	for i := 0; i < k; i++ {
		n := c.PositionDrafts(i)
		missing := 0.0
		if i > 0 && d.Shortfall > 0 {
			missing = math.Floor(d.Shortfall / float64(smallestKDrafting(c, i)-i))
		}
		missing = math.Min(missing, n)
		d.LowerBound[i] = missing > 0
		d.MinDrafted[i] = n - missing
		acc := c.AcceptedPerPosition[i]
		d.MaxRate[i] = ratio(acc, math.Max(acc, d.MinDrafted[i]))
	}
	return d
}

// smallestKDrafting returns the smallest k among the series that draft
// position i: with one k that k; with mixed k (DraftsAtPosition falls where
// a series' positions end) the first j > i where the drafts fall.
func smallestKDrafting(c Counts, i int) int {
	k := len(c.AcceptedPerPosition)
	if c.DraftsAtPosition == nil {
		return k
	}
	for j := i + 1; j < k; j++ {
		if c.PositionDrafts(j) < c.PositionDrafts(j-1) {
			return j
		}
	}
	return k
}

// Note returns a sentence for the user when the drafts were not all k
// tokens long ("" otherwise).
func (d DraftLengths) Note() string {
	if !d.Variable {
		return ""
	}
	if d.Shortfall < 0 {
		return fmt.Sprintf("draft tokens (%s) exceed k x drafts (%s): more than k tokens per draft", FormatCount(d.Actual, ""), FormatCount(d.Expected, ""))
	}
	var lb []int
	for i, b := range d.LowerBound {
		if b {
			lb = append(lb, i+1)
		}
	}
	s := fmt.Sprintf("drafts were shorter than k = %d: %s draft tokens, %s short of k x drafts", d.K, FormatCount(d.Actual, ""), FormatCount(d.Shortfall, ""))
	if len(lb) > 0 {
		s += fmt.Sprintf("; per-position rates at pos %s count drafts that did not draft that position, so as acceptance rates of the position they are lower bounds", joinInts(lb))
	}
	return s
}

func joinInts(v []int) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// ConditionalPerPosition returns accepted[i] / drafted[i] for engines that
// count draft tokens per position (TensorRT-LLM's
// trtllm_spec_decode_drafted_tokens_total{token_position}): the exact
// acceptance rate of position i among drafts that drafted it, whatever the
// draft lengths. Undefined where nothing was drafted; length
// min(len(accepted), len(drafted)).
func ConditionalPerPosition(accepted, drafted []float64) []Value {
	n := min(len(accepted), len(drafted))
	out := make([]Value, n)
	for i := range n {
		out[i] = ratio(accepted[i], drafted[i])
	}
	return out
}

// OutputShare is the share of output tokens that came from accepted drafts:
// accepted tokens / generation tokens (vllm:generation_tokens_total), over
// the same interval and series. Undefined without generation tokens.
func OutputShare(accepted, generationTokens float64) Value {
	return ratio(accepted, generationTokens)
}

// PerSecond is an increase over seconds (e.g. output tokens/s from the
// increase of vllm:generation_tokens_total); undefined for seconds <= 0.
func PerSecond(increase, seconds float64) Value {
	if seconds <= 0 {
		return Value{}
	}
	return ratio(increase, seconds)
}

// MeanLengthFromVerifyCalls is the mean acceptance length (bonus token
// included) of finished requests from counters an engine adds when a
// request finishes (SGLang: sglang:generation_tokens_total,
// sglang:num_requests_total, sglang:spec_verify_calls_total): each request
// emits its first output token from prefill and then 1 + accepted tokens
// per verification step, so length = (output tokens - requests) / verify
// calls. Undefined without verify calls, or when requests exceed output
// tokens (counters from different requests).
func MeanLengthFromVerifyCalls(generationTokens, requests, verifyCalls float64) Value {
	if requests > generationTokens {
		return Value{}
	}
	return ratio(generationTokens-requests, verifyCalls)
}
