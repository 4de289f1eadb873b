package compute

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simBuckets draws drafts like vLLM's counters see them: each draft of k
// tokens accepts a prefix, position i with conditional probability
// acc(j)[i] in bucket j; drafts(j) drafts per bucket.
func simBuckets(r *rand.Rand, m, k int, drafts func(j int) int, acc func(j int) []float64) []Counts {
	out := make([]Counts, m)
	for j := range out {
		c := Counts{AcceptedPerPosition: make([]float64, k)}
		a := acc(j)
		for range drafts(j) {
			n := 0
			for n < k && r.Float64() < a[n] {
				n++
			}
			c.Drafts++
			c.DraftTokens += float64(k)
			c.AcceptedTokens += float64(n)
			for i := range n {
				c.AcceptedPerPosition[i]++
			}
		}
		out[j] = c
	}
	return out
}

func steadyAcc(j int) []float64 { return []float64{0.8, 0.7, 0.6, 0.5} }

// TestChangePointsSteady: 200 seeds of steady data (60 buckets of 50-250
// drafts, k = 4, some idle buckets) report no change at the default alpha
// 0.001. The quasi-binomial dispersion matters: with Dispersion 1 the
// correlated tokens of a draft make false changes (asserted too, so the
// test would notice if the data stopped being overdispersed).
func TestChangePointsSteady(t *testing.T) {
	falseAlarms, naive := 0, 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 42))
		bs := simBuckets(r, 60, 4, func(j int) int {
			if j%17 == 16 {
				return 0 // idle bucket
			}
			return 50 + r.IntN(201)
		}, steadyAcc)
		if cps := AcceptanceChangePoints(bs, ChangeOptions{}); len(cps) > 0 {
			falseAlarms++
			t.Errorf("seed %d: false change points %v", seed, cps)
		}
		if cps := AcceptanceChangePoints(bs, ChangeOptions{Dispersion: 1, Alpha: 0.05}); len(cps) > 0 {
			naive++
		}
	}
	if falseAlarms != 0 {
		t.Errorf("%d of 200 steady seeds reported a change", falseAlarms)
	}
	if naive < 15 {
		t.Errorf("the token-level test without dispersion (alpha 0.05) reported changes on only %d of 200 seeds: the simulated data lost its per-draft correlation", naive)
	}
}

// TestChangePointsKnown: changes at known buckets are found at the right
// bucket (within 2), with the before/after rates near the truth, for many
// seeds: a drop, two changes, a collapse, and a change next to idle
// buckets.
func TestChangePointsKnown(t *testing.T) {
	// Expected acceptance rate of a conditional model: mean of running products / k.
	rateOf := func(a []float64) float64 {
		s, p := 0.0, 1.0
		for _, v := range a {
			p *= v
			s += p
		}
		return s / float64(len(a))
	}
	drop := []float64{0.6, 0.5, 0.4, 0.3}
	collapse := []float64{0.01, 0.01, 0.01, 0.01}
	cases := []struct {
		name  string
		acc   func(j int) []float64
		idle  func(j int) bool
		at    []int
		rates []float64 // segment rates, len(at)+1
	}{
		{name: "step drop at 30", acc: func(j int) []float64 {
			if j < 30 {
				return steadyAcc(j)
			}
			return drop
		}, at: []int{30}, rates: []float64{rateOf(steadyAcc(0)), rateOf(drop)}},
		{name: "drop at 20, recovery at 45", acc: func(j int) []float64 {
			if j >= 20 && j < 45 {
				return drop
			}
			return steadyAcc(j)
		}, at: []int{20, 45}, rates: []float64{rateOf(steadyAcc(0)), rateOf(drop), rateOf(steadyAcc(0))}},
		{name: "collapse at 50", acc: func(j int) []float64 {
			if j < 50 {
				return steadyAcc(j)
			}
			return collapse
		}, at: []int{50}, rates: []float64{rateOf(steadyAcc(0)), rateOf(collapse)}},
		{name: "drop at 30 after idle buckets 25-29", acc: func(j int) []float64 {
			if j < 30 {
				return steadyAcc(j)
			}
			return drop
		}, idle: func(j int) bool { return j >= 25 && j < 30 }, at: []int{30}, rates: []float64{rateOf(steadyAcc(0)), rateOf(drop)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(50) {
				r := rand.New(rand.NewPCG(seed, 7))
				bs := simBuckets(r, 60, 4, func(j int) int {
					if tc.idle != nil && tc.idle(j) {
						return 0
					}
					return 100 + r.IntN(101)
				}, tc.acc)
				cps := AcceptanceChangePoints(bs, ChangeOptions{})
				if len(cps) != len(tc.at) {
					t.Fatalf("seed %d: %d change points %v, want at %v", seed, len(cps), cps, tc.at)
				}
				for i, cp := range cps {
					if d := cp.Bucket - tc.at[i]; d < -2 || d > 2 {
						t.Errorf("seed %d: change %d at bucket %d, want %d +- 2", seed, i, cp.Bucket, tc.at[i])
					}
					if math.Abs(cp.Before.Estimate.V-tc.rates[i]) > 0.03 || math.Abs(cp.After.Estimate.V-tc.rates[i+1]) > 0.03 {
						t.Errorf("seed %d: change %d rates %.3f -> %.3f, want %.3f -> %.3f", seed, i, cp.Before.Estimate.V, cp.After.Estimate.V, tc.rates[i], tc.rates[i+1])
					}
					if cp.PValue >= DefaultChangeAlpha || math.Abs(cp.Confidence+cp.PValue-1) > 1e-12 || cp.Statistic <= 0 {
						t.Errorf("seed %d: change %d p %v confidence %v statistic %v", seed, i, cp.PValue, cp.Confidence, cp.Statistic)
					}
					if math.Abs(cp.Difference-(cp.After.Estimate.V-cp.Before.Estimate.V)) > 1e-12 {
						t.Errorf("seed %d: difference %v", seed, cp.Difference)
					}
				}
			}
		})
	}
}

// TestChangePointsExact: a hand-computable case and the edge cases.
func TestChangePointsExact(t *testing.T) {
	// 10 buckets of 1000 trials: 500 successes, then 300.
	xs := []float64{500, 500, 500, 500, 500, 300, 300, 300, 300, 300}
	ns := []float64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}
	cps := ChangePoints(xs, ns, ChangeOptions{MinSegment: 2})
	if len(cps) != 1 || cps[0].Bucket != 5 {
		t.Fatalf("got %v, want one change at bucket 5", cps)
	}
	// LR = 2 (l(2500/5000) + l(1500/5000) - l(4000/10000)).
	want := 2 * (binomLL(2500, 5000) + binomLL(1500, 5000) - binomLL(4000, 10000))
	if math.Abs(cps[0].Statistic-want) > 1e-9 || cps[0].Before.Estimate.V != 0.5 || cps[0].After.Estimate.V != 0.3 {
		t.Errorf("got %+v, want statistic %v, 0.5 -> 0.3", cps[0], want)
	}
	if s := cps[0].String(); s != "bucket 5: 50.0 % -> 30.0 % (-20.0 points, confidence > 99.99 %)" {
		t.Errorf("String() = %q", s)
	}
	// Dispersion 2 halves the statistic.
	if c2 := ChangePoints(xs, ns, ChangeOptions{MinSegment: 2, Dispersion: 2}); len(c2) != 1 || math.Abs(c2[0].Statistic-want/2) > 1e-9 {
		t.Errorf("dispersion 2: %v", c2)
	}
	// Too few buckets for two segments of MinSegment, empty and bad input.
	for name, in := range map[string][2][]float64{
		"short":    {xs[:9], ns[:9]},
		"empty":    {nil, nil},
		"all idle": {make([]float64, 20), make([]float64, 20)},
		"bad":      {{math.NaN(), -1, 5, math.Inf(1)}, {10, 10, 1, 10}},
		"mismatch": {xs, ns[:3]},
	} {
		if got := ChangePoints(in[0], in[1], ChangeOptions{MinSegment: 5}); len(got) != 0 {
			t.Errorf("%s: %v, want none", name, got)
		}
	}
}

// TestAcceptanceDispersion: independent tokens give 1; all-or-nothing
// drafts give k; no per-position data gives tokens per draft.
func TestAcceptanceDispersion(t *testing.T) {
	// Independent-looking: impossible with prefixes except k = 1.
	if d := AcceptanceDispersion(Counts{Drafts: 100, DraftTokens: 100, AcceptedTokens: 40, AcceptedPerPosition: []float64{40}}); math.Abs(d-1) > 1e-12 {
		t.Errorf("k=1: %v, want 1", d)
	}
	// All-or-nothing: half the drafts accept all 4, half none.
	if d := AcceptanceDispersion(Counts{Drafts: 100, DraftTokens: 400, AcceptedTokens: 200, AcceptedPerPosition: []float64{50, 50, 50, 50}}); math.Abs(d-4) > 1e-12 {
		t.Errorf("all-or-nothing: %v, want 4", d)
	}
	if d := AcceptanceDispersion(Counts{Drafts: 100, DraftTokens: 300, AcceptedTokens: 100}); d != 3 {
		t.Errorf("no per-position data: %v, want 3", d)
	}
	if d := AcceptanceDispersion(Counts{}); d != 1 {
		t.Errorf("empty: %v, want 1", d)
	}
}
