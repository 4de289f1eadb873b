package compute

import (
	"fmt"
	"math"
)

// GeometricFit is a per-token acceptance model fitted to one interval's
// counts: every draft token is accepted with the same conditional
// probability Alpha given that all earlier tokens of its draft were
// accepted, so the per-position acceptance rate is rate[i] = Alpha^(i+1)
// (0-based position i). See FitGeometric.
type GeometricFit struct {
	// K is the number of positions fitted, len(c.AcceptedPerPosition).
	K int `json:"k"`
	// Alpha is the maximum-likelihood conditional acceptance (ratio 0..1).
	Alpha Value `json:"alpha"`
	// Reached[i] is the number of drafts that reached position i (all
	// earlier tokens accepted): drafts for i = 0, accepted_per_pos[i-1]
	// otherwise. Accepted[i] is accepted_per_pos[i]. Units: drafts.
	Reached  []float64 `json:"reached"`
	Accepted []float64 `json:"accepted"`
	// Observed[i] is the per-position acceptance rate accepted_per_pos[i] /
	// drafts, Curve[i] the fitted Alpha^(i+1) (ratios 0..1).
	Observed []Value `json:"observed"`
	Curve    []Value `json:"curve"`
	// Conditional[i] is accepted_per_pos[i] / Reached[i]: the observed
	// acceptance at position i given all earlier positions were accepted;
	// undefined where no draft reached position i.
	Conditional []Value `json:"conditional"`
	// ChiSquare is Pearson's statistic of the fit over the positions
	// reached by at least one draft, with DegreesOfFreedom = those
	// positions - 1 and PValue = P(chi² >= ChiSquare). A small PValue (say
	// < 0.05) means acceptance is not constant across positions.
	ChiSquare        Value `json:"chi_square"`
	DegreesOfFreedom int   `json:"degrees_of_freedom"`
	PValue           Value `json:"p_value"`
	// RSquared is 1 - SS_res / SS_tot of Curve against Observed; undefined
	// when the observed rates do not vary (k = 1 included).
	RSquared Value `json:"r_squared"`
	// Reason says why Alpha is undefined ("" when defined).
	Reason string `json:"reason,omitempty"`
	// Notes are caveats about the input (for example drafts shorter than k).
	Notes []string `json:"notes,omitempty"`
}

// FitGeometric fits the geometric acceptance model rate[i] = alpha^(i+1) to
// the per-position counts of c by maximum likelihood.
//
// Model: a draft reaches position i only when positions 0..i-1 were all
// accepted; there it is accepted with probability alpha. Position i is
// reached by n_i drafts (n_0 = drafts, n_i = accepted_per_pos[i-1]) and
// accepted by x_i = accepted_per_pos[i]. The likelihood is a product of
// binomials, prod_i alpha^x_i (1-alpha)^(n_i - x_i), maximised by
//
//	alpha = sum_i x_i / sum_i n_i.
//
// This is the constant-acceptance model of Leviathan, Kalman and Matias,
// "Fast Inference from Transformers via Speculative Decoding" (ICML 2023,
// section 3.1: acceptance rate alpha, per-token i.i.d. assumption), and the
// counts are vLLM's per-position counter (docs/METRICS.md, "vLLM V1").
//
// Goodness of fit: Pearson's chi² = sum_i (x_i - n_i alpha)² / (n_i alpha
// (1-alpha)) over positions with n_i > 0 (each binomial's success and
// failure cells together), df = that number of positions - 1, p-value from
// the chi² distribution; chi² = 0 when alpha is 0 or 1 (then every x_i =
// n_i alpha exactly). R² compares Curve with Observed.
//
// It assumes every draft has k tokens (draft tokens = k × drafts); when
// draft tokens < k × drafts some drafts were shorter, later positions were
// reached by fewer drafts than counted, and Notes says so. Alpha is
// undefined (Reason set) without per-position data, without drafts, or
// when the counts are inconsistent (not finite, negative, or accepted at a
// position above the drafts reaching it).
func FitGeometric(c Counts) GeometricFit {
	k := len(c.AcceptedPerPosition)
	f := GeometricFit{
		K:           k,
		Reached:     make([]float64, k),
		Accepted:    make([]float64, k),
		Observed:    make([]Value, k),
		Curve:       make([]Value, k),
		Conditional: make([]Value, k),
	}
	switch {
	case k == 0:
		f.Reason = "no per-position counts (vllm:spec_decode_num_accepted_tokens_per_pos_total)"
		return f
	case !finite(c.Drafts) || c.Drafts < 0:
		f.Reason = fmt.Sprintf("drafts is %s: counts must be finite and >= 0", describe(c.Drafts))
		return f
	case c.Drafts == 0:
		f.Reason = Undefined
		return f
	}
	var sumX, sumN float64
	prev := c.Drafts
	for i, x := range c.AcceptedPerPosition {
		if !finite(x) || x < 0 {
			f.Reason = fmt.Sprintf("accepted tokens at pos %d is %s: counts must be finite and >= 0", i+1, describe(x))
			return f
		}
		if greater(x, prev) {
			f.Reason = fmt.Sprintf("accepted tokens at pos %d (%s) exceed the drafts reaching it (%s): the counts are inconsistent", i+1, num(x), num(prev))
			return f
		}
		f.Reached[i], f.Accepted[i] = prev, x
		f.Observed[i] = ratio(x, c.Drafts)
		f.Conditional[i] = ratio(x, prev)
		sumX += x
		sumN += prev
		prev = x
	}
	if finite(c.DraftTokens) && greater(float64(k)*c.Drafts, c.DraftTokens) {
		f.Notes = append(f.Notes, fmt.Sprintf("draft tokens (%s) < k x drafts = %d x %s: some drafts were shorter than k, so later positions were reached by fewer drafts than the fit assumes",
			num(c.DraftTokens), k, num(c.Drafts)))
	}
	alpha := math.Min(sumX/sumN, 1) // sumN >= drafts > 0
	f.Alpha = Defined(alpha)
	for i := range f.Curve {
		f.Curve[i] = Defined(math.Pow(alpha, float64(i+1)))
	}
	// Pearson chi-square over reached positions.
	var chi float64
	m := 0
	for i := range k {
		n, x := f.Reached[i], f.Accepted[i]
		if n <= 0 {
			continue
		}
		m++
		if v := n * alpha * (1 - alpha); v > 0 {
			d := x - n*alpha
			chi += d * d / v
		}
	}
	f.ChiSquare = Defined(chi)
	f.DegreesOfFreedom = m - 1
	if f.DegreesOfFreedom >= 1 {
		f.PValue = Defined(ChiSquareSurvival(chi, f.DegreesOfFreedom))
	}
	// R² on the rates.
	var mean float64
	for _, o := range f.Observed {
		mean += o.V
	}
	mean /= float64(k)
	var ssRes, ssTot float64
	for i, o := range f.Observed {
		ssRes += (o.V - f.Curve[i].V) * (o.V - f.Curve[i].V)
		ssTot += (o.V - mean) * (o.V - mean)
	}
	if ssTot > 0 {
		f.RSquared = Defined(1 - ssRes/ssTot)
	}
	return f
}

// Rate returns the model's per-position acceptance rate at 0-based position
// i, Alpha^(i+1) (ratio 0..1), for any i >= 0, also beyond K (an
// extrapolation). Undefined when Alpha is undefined or i < 0.
func (f GeometricFit) Rate(i int) Value {
	if !f.Alpha.OK || i < 0 {
		return Value{}
	}
	return Defined(math.Pow(f.Alpha.V, float64(i+1)))
}

// ChiSquareSurvival returns P(X >= x) for X chi²-distributed with df degrees
// of freedom: the regularized upper incomplete gamma function Q(df/2, x/2),
// computed by its series (x < a+1) or continued fraction (Numerical Recipes,
// 3rd ed., section 6.2). Returns 1 for x <= 0, NaN for df < 1 or x NaN.
func ChiSquareSurvival(x float64, df int) float64 {
	if df < 1 || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return gammaQ(float64(df)/2, x/2)
}

// gammaQ is the regularized upper incomplete gamma function Q(a, x), a > 0,
// x > 0.
func gammaQ(a, x float64) float64 {
	const (
		eps   = 1e-15
		tiny  = 1e-300
		maxIt = 1000
	)
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		// P(a, x) by its series; Q = 1 - P.
		sum, term, ap := 1/a, 1/a, a
		for range maxIt {
			ap++
			term *= x / ap
			sum += term
			if math.Abs(term) < math.Abs(sum)*eps {
				break
			}
		}
		return math.Max(0, math.Min(1, 1-sum*front))
	}
	// Q(a, x) by Lentz's continued fraction.
	b := x + 1 - a
	cc := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i <= maxIt; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		cc = b + an/cc
		if math.Abs(cc) < tiny {
			cc = tiny
		}
		d = 1 / d
		del := d * cc
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return math.Max(0, math.Min(1, front*h))
}
