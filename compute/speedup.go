package compute

import (
	"fmt"
	"math"
)

// DefaultDraftCostRatio is the default draft cost ratio c = (time of one
// drafter step) / (time of one target forward pass): 0.05.
//
// Why 0.05: decoding is memory-bound, so a step's time scales roughly with
// the weight bytes read. A drafter of one twentieth of the target's cost is
// typical of the drafters used with vLLM: an EAGLE head is one decoder layer
// plus the LM head next to a 32-layer 8B target (about 1/32 of the layers,
// more with the head), and a 0.5B draft model for an 8B target is 1/16 of
// the weights. These are estimates from weight sizes, not measurements: set
// c = 0 for drafting without a model (n-gram, prompt lookup) and larger
// (0.1..0.3) for a big draft model; it is a user setting per group.
const DefaultDraftCostRatio = 0.05

// Speedup is the estimated speedup of speculative decoding for one interval,
// with its inputs.
type Speedup struct {
	// K is the draft length used in the cost: k = len(AcceptedPerPosition),
	// or draft tokens / drafts (tokens per draft, possibly fractional) when
	// there are no per-position counts (KFromDraftTokens).
	K                float64 `json:"k"`
	KFromDraftTokens bool    `json:"k_from_draft_tokens,omitempty"`
	// DraftCostRatio is c, draft step time / target step time (ratio; 0
	// when the given c was NaN or Inf).
	DraftCostRatio float64 `json:"draft_cost_ratio"`
	// TokensPerTargetPass is the mean acceptance length with the bonus
	// token, 1 + accepted / drafts (tokens per target forward pass).
	TokensPerTargetPass Value `json:"tokens_per_target_pass"`
	// Speedup is TokensPerTargetPass / (1 + c k): the ratio of decoding
	// throughput with speculation to without (> 1 pays off).
	Speedup Value `json:"speedup"`
	// Reason says why Speedup is undefined ("" when defined).
	Reason string `json:"reason,omitempty"`
}

// checkCost returns "" or why c is not a usable draft cost ratio.
func checkCost(c float64) string {
	if !finite(c) || c < 0 {
		return fmt.Sprintf("draft cost ratio must be a finite number >= 0, got %v", c)
	}
	return ""
}

// SpeedupFromLength returns meanLength / (1 + c k): the estimated speedup
// (ratio) for sequential drafting of k tokens per draft at draft cost ratio
// c, given the mean acceptance length with the bonus token (tokens per
// target forward pass). Undefined when an input is not finite, meanLength,
// k or c is negative.
//
// Source: Leviathan, Kalman and Matias, "Fast Inference from Transformers
// via Speculative Decoding", ICML 2023, Theorem 3.8: the expected walltime
// improvement is (1 - alpha^(k+1)) / ((1 - alpha)(c k + 1)), whose numerator
// is the expected number of tokens per target pass under their i.i.d.
// model; here the measured mean acceptance length replaces it, so no
// acceptance model is assumed. Like theirs, this estimate ignores the extra
// cost of verifying k+1 tokens in one target pass instead of 1 (small while
// decoding is memory-bound) and all other overheads.
func SpeedupFromLength(meanLength, k, c float64) Value {
	if !finite(meanLength) || !finite(k) || meanLength < 0 || k < 0 || checkCost(c) != "" {
		return Value{}
	}
	return ratio(meanLength, 1+c*k)
}

// EstimateSpeedup estimates the speedup of the interval's counts c at draft
// cost ratio cost (DefaultDraftCostRatio when the user gave none):
// tokens per target pass L = 1 + accepted / drafts (with bonus, vLLM PR
// 17908) and speedup = L / (1 + cost k) (see SpeedupFromLength). Undefined
// (Reason set) when there are no drafts, counts are bad, or cost is
// negative or not finite.
func EstimateSpeedup(c Counts, cost float64) Speedup {
	s := Speedup{DraftCostRatio: clean(cost)}
	if r := checkCost(cost); r != "" {
		s.Reason = r
		return s
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"drafts", c.Drafts}, {"draft tokens", c.DraftTokens}, {"accepted tokens", c.AcceptedTokens}} {
		if !finite(f.v) || f.v < 0 {
			s.Reason = fmt.Sprintf("%s is %s: counts must be finite and >= 0", f.name, describe(f.v))
			return s
		}
	}
	if c.Drafts == 0 {
		s.Reason = Undefined
		return s
	}
	if k := len(c.AcceptedPerPosition); k > 0 {
		s.K = float64(k)
	} else {
		s.K = c.DraftTokens / c.Drafts
		s.KFromDraftTokens = true
	}
	s.TokensPerTargetPass = Defined(1 + c.AcceptedTokens/c.Drafts)
	s.Speedup = SpeedupFromLength(s.TokensPerTargetPass.V, s.K, cost)
	if !s.Speedup.OK {
		s.Reason = "speedup not finite"
	}
	return s
}

// KEstimate is the estimated outcome of running with K draft tokens.
type KEstimate struct {
	K int `json:"k"`
	// MeanAcceptanceLength is 1 + sum_{i<K} rate[i] (tokens per target
	// pass, with bonus).
	MeanAcceptanceLength Value `json:"mean_acceptance_length"`
	// Speedup is MeanAcceptanceLength / (1 + c K) (ratio).
	Speedup Value `json:"speedup"`
	// Extrapolated is true when K exceeds the observed k: the rates of
	// positions k..K-1 come from the fitted decay, not from counts.
	Extrapolated bool `json:"extrapolated"`
}

// BestK is the draft length that maximises the estimated speedup.
type BestK struct {
	// CurrentK is the observed k (len(AcceptedPerPosition)).
	CurrentK int `json:"current_k"`
	// BestK is the K of Points with the largest Speedup (the smallest such
	// K on ties); 0 means speculation does not pay off at this cost.
	BestK          int     `json:"best_k"`
	DraftCostRatio float64 `json:"draft_cost_ratio"`
	// Current and Best are the estimated speedups at CurrentK and BestK.
	Current Value `json:"current"`
	Best    Value `json:"best"`
	// BestExtrapolated is Points[BestK].Extrapolated.
	BestExtrapolated bool `json:"best_extrapolated"`
	// AtSearchLimit is true when BestK is the largest K searched: the
	// optimum may lie further out.
	AtSearchLimit bool `json:"at_search_limit"`
	// Alpha is the fitted conditional acceptance (FitGeometric) used for
	// the extrapolation; undefined when there is none (Points then stop at
	// CurrentK).
	Alpha Value `json:"alpha"`
	// Points holds K = 0, 1, ..., max K searched (index = K).
	Points []KEstimate `json:"points"`
	// Reason says why nothing could be estimated ("" otherwise).
	Reason string `json:"reason,omitempty"`
}

// ExtrapolatedKs returns the K of the Points that are extrapolated.
func (b BestK) ExtrapolatedKs() []int {
	var out []int
	for _, p := range b.Points {
		if p.Extrapolated {
			out = append(out, p.K)
		}
	}
	return out
}

// FindBestK estimates the speedup for every draft length K = 0..maxK and
// returns the best one next to the current k = len(c.AcceptedPerPosition),
// at draft cost ratio cost (see DefaultDraftCostRatio).
//
// The marginal value of position i is its per-position acceptance rate
// rate[i] = accepted_per_pos[i] / drafts, since the mean acceptance length
// is 1 + sum_i rate[i] (docs/METRICS.md, "Formulas"). For K <= k the
// observed rates are used: a token's acceptance does not depend on draft
// tokens after it, so a shorter draft keeps the first K rates. For K > k
// the rates are extrapolated with the fitted decay alpha (FitGeometric):
// rate[i] = rate[k-1] × alpha^(i-k+1), and those points are marked
// Extrapolated. Each K gets L(K) = 1 + sum_{i<K} rate[i] and speedup
// L(K) / (1 + cost K) (SpeedupFromLength); K = 0 is decoding without
// speculation, speedup 1.
//
// maxK <= 0 searches up to max(2k, 8); maxK is capped at MaxPosition+1.
// Undefined (Reason set, no Points) without per-position counts, without
// drafts, or with bad counts or cost.
func FindBestK(c Counts, cost float64, maxK int) BestK {
	k := len(c.AcceptedPerPosition)
	b := BestK{CurrentK: k, DraftCostRatio: clean(cost)}
	if r := checkCost(cost); r != "" {
		b.Reason = r
		return b
	}
	fit := FitGeometric(c)
	if !fit.Alpha.OK {
		b.Reason = fit.Reason
		return b
	}
	b.Alpha = fit.Alpha
	if maxK <= 0 {
		maxK = max(2*k, 8)
	}
	maxK = min(maxK, MaxPosition+1)
	rate := func(i int) float64 {
		if i < k {
			return fit.Observed[i].V
		}
		return fit.Observed[k-1].V * math.Pow(fit.Alpha.V, float64(i-k+1))
	}
	b.Points = make([]KEstimate, 0, maxK+1)
	length := 1.0
	best := 0
	for K := 0; K <= maxK; K++ {
		if K > 0 {
			length += rate(K - 1)
		}
		p := KEstimate{K: K, MeanAcceptanceLength: Defined(length), Speedup: SpeedupFromLength(length, float64(K), cost), Extrapolated: K > k}
		b.Points = append(b.Points, p)
		if p.Speedup.V > b.Points[best].Speedup.V*(1+1e-12) {
			best = K
		}
	}
	b.BestK = best
	b.Best = b.Points[best].Speedup
	b.BestExtrapolated = b.Points[best].Extrapolated
	b.AtSearchLimit = best == maxK && maxK > 0
	if k <= maxK {
		b.Current = b.Points[k].Speedup
	} else {
		b.Current = SpeedupFromLength(1+sumRates(fit.Observed), float64(k), cost)
	}
	return b
}

// Gain is how much the best k's estimated speedup exceeds the current k's,
// as a ratio: Best / Current - 1 (0 when BestK is the current k;
// undefined when either speedup is).
func (b BestK) Gain() Value {
	if !b.Best.OK || !b.Current.OK || b.Current.V <= 0 {
		return Value{}
	}
	if b.BestK == b.CurrentK {
		return Defined(0)
	}
	return Defined(b.Best.V/b.Current.V - 1)
}

// FormatGain prints b.Gain() for the line that compares the best and the
// current k's speedups: "+3.2 %", "+<0.1 %" when it would round to
// "+0.0 %", "" when the best k is the current k or either speedup is
// undefined.
func (b BestK) FormatGain() string {
	g := b.Gain()
	switch {
	case !g.OK || b.BestK == b.CurrentK:
		return ""
	case g.V < 0.0005:
		return "+<0.1 %"
	}
	return "+" + FormatPercent(g, 1)
}

func sumRates(vs []Value) float64 {
	var s float64
	for _, v := range vs {
		s += v.V
	}
	return s
}
