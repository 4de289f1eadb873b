package compute

import (
	"fmt"
	"math"
	"strings"
)

// HealthState is the kind of a health verdict.
type HealthState string

// The health states, in the order Health checks them.
const (
	// Idle: no drafts (and no draft tokens) in the window. Not a collapse:
	// an idle server is not a broken drafter.
	Idle HealthState = "idle"
	// NotEnoughData: some drafts, but fewer than HealthThresholds.MinDrafts
	// (or MinDraftTokens without a drafts counter): too few to judge.
	NotEnoughData HealthState = "not_enough_data"
	// Collapsed: drafts flow but almost every draft token is rejected (the
	// 95 % upper bound of the acceptance rate is below CollapseRate).
	Collapsed HealthState = "collapsed"
	// SuspectedLoop: acceptance at or near 100 % (the lower bound of the
	// acceptance rate is at least LoopRate): usually the target model is
	// repeating itself and the drafter predicts the repetition.
	SuspectedLoop HealthState = "suspected_loop"
	// PositionCliff: an early position is healthy and the next one is
	// (almost) never accepted.
	PositionCliff HealthState = "position_cliff"
	// Degraded: acceptance clearly low (upper bound below DegradedRate), or
	// clearly lower than a baseline (HealthAgainst).
	Degraded HealthState = "degraded"
	// Healthy: none of the above.
	Healthy HealthState = "healthy"
)

// Alarm reports whether the state calls for attention (collapsed, loop,
// cliff, degraded).
func (s HealthState) Alarm() bool {
	switch s {
	case Collapsed, SuspectedLoop, PositionCliff, Degraded:
		return true
	}
	return false
}

// Label is the state in words: "healthy", "not enough data", ...
func (s HealthState) Label() string { return strings.ReplaceAll(string(s), "_", " ") }

// HealthThresholds are the settable limits of Health. Rates are ratios
// 0..1 compared with the Wilson interval bounds at Z (so a handful of drafts
// never crosses them by chance). DefaultHealthThresholds documents the
// defaults; docs/ALERTING.md explains each one.
type HealthThresholds struct {
	// Convention is the mean acceptance length's convention in the
	// verdict's texts and MeanLength (WithBonus, vLLM's 1 + accepted /
	// drafts, by default; WithoutBonus on request, labelled so). Not a
	// threshold: the states do not depend on it.
	Convention Convention `json:"-"`
	// MinDrafts: fewer drafts in the window give NotEnoughData (default 50).
	MinDrafts float64 `json:"min_drafts"`
	// MinDraftTokens replaces MinDrafts for schemas without a drafts
	// counter (vLLM V0, TensorRT-LLM) (default 200).
	MinDraftTokens float64 `json:"min_draft_tokens"`
	// CollapseRate: Collapsed when the upper bound of the acceptance rate
	// is below it (default 0.05: mean acceptance length about 1.0-1.2).
	CollapseRate float64 `json:"collapse_rate"`
	// DegradedRate: Degraded when the upper bound of the acceptance rate is
	// below it (default 0.2).
	DegradedRate float64 `json:"degraded_rate"`
	// LoopRate: SuspectedLoop when the lower bound of the acceptance rate
	// is at least it (default 0.97: mean acceptance length about k+1).
	LoopRate float64 `json:"loop_rate"`
	// CliffHealthy and CliffDead: PositionCliff at position i >= 1 when
	// the lower bound of rate[i-1] is at least CliffHealthy and the upper
	// bound of rate[i] is below CliffDead (defaults 0.2 and 0.02: a
	// conditional acceptance under 10 % right after a healthy position,
	// which a smooth decay does not produce).
	CliffHealthy float64 `json:"cliff_healthy"`
	CliffDead    float64 `json:"cliff_dead"`
	// DropRelative: HealthAgainst calls a drop Degraded when the rate fell
	// by at least this fraction of the baseline's rate and the fall is
	// significant at Z (default 0.25).
	DropRelative float64 `json:"drop_relative"`
	// Z is the normal quantile of the intervals (0: DefaultZ, 95 %).
	Z float64 `json:"z"`
}

// DefaultHealthThresholds are the defaults listed on each field of
// HealthThresholds.
var DefaultHealthThresholds = HealthThresholds{
	MinDrafts:      50,
	MinDraftTokens: 200,
	CollapseRate:   0.05,
	DegradedRate:   0.2,
	LoopRate:       0.97,
	CliffHealthy:   0.2,
	CliffDead:      0.02,
	DropRelative:   0.25,
}

// withDefaults fills zero fields with the defaults.
func (th HealthThresholds) withDefaults() HealthThresholds {
	d := DefaultHealthThresholds
	set := func(v *float64, def float64) {
		if *v <= 0 || !finite(*v) {
			*v = def
		}
	}
	set(&th.MinDrafts, d.MinDrafts)
	set(&th.MinDraftTokens, d.MinDraftTokens)
	set(&th.CollapseRate, d.CollapseRate)
	set(&th.DegradedRate, d.DegradedRate)
	set(&th.LoopRate, d.LoopRate)
	set(&th.CliffHealthy, d.CliffHealthy)
	set(&th.CliffDead, d.CliffDead)
	set(&th.DropRelative, d.DropRelative)
	if th.Z < 0 || !finite(th.Z) {
		th.Z = 0
	}
	return th
}

// Verdict is the health of one group (or the selection) over one window.
type Verdict struct {
	State HealthState `json:"state"`
	// Summary is one sentence with the numbers, e.g. "drafts 412/s but
	// mean acceptance length 1.01 over the last 10m: drafted tokens are
	// almost all rejected".
	Summary string `json:"summary"`
	// Evidence are further sentences with numbers (intervals, counts).
	Evidence []string `json:"evidence,omitempty"`
	// Cause is what usually causes this state ("" for healthy, idle, not
	// enough data).
	Cause string `json:"cause,omitempty"`
	// Notes are caveats that do not change the state (variable draft
	// lengths, mixed k).
	Notes []string `json:"notes,omitempty"`
	// Rate is the acceptance rate's interval (accepted of draft tokens).
	Rate Interval `json:"rate"`
	// MeanLength is the mean acceptance length 1 + accepted / drafts, or
	// accepted / drafts under HealthThresholds.Convention WithoutBonus
	// (tokens per draft; undefined without drafts).
	MeanLength Value `json:"mean_length"`
	// DraftsPerSecond is drafts / window (undefined without a window).
	DraftsPerSecond Value `json:"drafts_per_second"`
	// K is the k used (argument, or the number of positions).
	K int `json:"k"`
	// CliffPosition is the 0-based position of the cliff (its rate is
	// about 0), -1 when there is none.
	CliffPosition int `json:"cliff_position"`
	// VariableLength is set when draft tokens < k x drafts: drafts shorter
	// than k (n-gram, suffix decoding), so per-position rates are lower
	// bounds and no cliff is called.
	VariableLength bool `json:"variable_length"`
}

// Causes of each alarm state: what usually produces it (docs/ALERTING.md
// has the runbook).
const (
	CauseCollapsed = "the drafter's proposals never match the target: drafter weights, KV cache or hidden states not reaching the drafter (e.g. an MTP drafter with prefill/decode disaggregation, vLLM issue 54926), a drafter for another model or tokenizer, or a broken drafter checkpoint"
	CauseLoop      = "the target model is repeating itself (a generation loop) and the drafter predicts the repetition perfectly (the motivation of vLLM PR 44487); check outputs for repetition, max_tokens and stop settings"
	CauseCliff     = "positions beyond the cliff are never accepted: a drafter trained or configured for fewer tokens than num_speculative_tokens (e.g. an MTP/EAGLE head with fewer layers or steps than k), or a drafter bug at later positions; lower k to the healthy positions or fix the drafter"
	CauseDegraded  = "a drafter that fits the traffic poorly: a changed workload (language, task, sampling temperature), an upgrade or config change (drafter, k, quantization), or a drafter for another model version"
)

// windowText prints a window in seconds as "10m", "1h 05m", "45s".
func windowText(seconds float64) string {
	return SpanText(int64(math.Round(seconds * 1000)))
}

// pct prints a ratio as a percentage: 1 decimal, or 2 below 1 %.
func pct(v float64) string {
	if v > 0 && v < 0.01 {
		return fmt.Sprintf("%.2f %%", v*100)
	}
	return fmt.Sprintf("%.1f %%", v*100)
}

// rateText prints a drafts rate per second.
func rateText(v float64) string {
	if v >= 10 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f/s", v)
	}
	return fmt.Sprintf("%.2g/s", v)
}

// levelText is the confidence level of normal quantile z, "95 %" for
// DefaultZ (0 also means DefaultZ).
func levelText(z float64) string {
	if z == 0 {
		z = DefaultZ
	}
	l := math.Erf(z/math.Sqrt2) * 100
	if math.Abs(l-math.Round(l)) < 0.05 {
		return fmt.Sprintf("%.0f %%", l)
	}
	return fmt.Sprintf("%.1f %%", l)
}

// intervalText prints "12.0 % (95 % interval 10.1 %-14.2 % of 5000 draft tokens)".
func intervalText(in Interval, what string) string {
	return fmt.Sprintf("%s (%s interval %s-%s of %s %s)", pct(in.Estimate.V), levelText(in.Z), pct(in.Lower.V), pct(in.Upper.V), num(in.Trials), what)
}

// draftLengths is CheckDraftLengths(c) (the one rule for variable draft
// lengths); without per-position counts (vLLM V0, TensorRT-LLM) it
// compares the draft tokens with k x drafts for the k given.
func draftLengths(c Counts, k int) DraftLengths {
	d := CheckDraftLengths(c)
	if d.K == 0 && k > 0 && finite(c.Drafts) && finite(c.DraftTokens) {
		d.K, d.Expected = k, float64(k)*c.Drafts
		d.Shortfall = d.Expected - d.Actual
		d.Variable = d.Shortfall != 0
	}
	return d
}

// Health judges one window of counts: c summed over the group, window its
// length in seconds (for drafts/s; 0 if unknown), k the
// num_speculative_tokens (0: len(c.AcceptedPerPosition)), th the thresholds
// (zero fields take DefaultHealthThresholds). The checks, in order:
//
//  1. Idle: no drafts and no draft tokens (never a collapse).
//  2. NotEnoughData: drafts < MinDrafts (draft tokens < MinDraftTokens
//     without a drafts counter).
//  3. PositionCliff: the first i >= 1 with lower(rate[i-1]) >=
//     CliffHealthy and upper(rate[i]) < CliffDead; skipped when the
//     drafts are of variable length. Checked before Collapsed: a large k
//     with only pos 1 healthy can have an acceptance rate below
//     CollapseRate, but its drafter works for one token.
//  4. Collapsed: upper bound of the acceptance rate < CollapseRate.
//  5. SuspectedLoop: lower bound of the acceptance rate >= LoopRate.
//  6. Degraded: upper bound of the acceptance rate < DegradedRate.
//  7. Healthy.
//
// Variable draft lengths (draft tokens below the k x drafts that fixed-k
// drafts would carry: CheckDraftLengths) add a note: per-position rates are lower bounds. The
// function is pure and never panics; bad counts (NaN, negative) give
// NotEnoughData with the reason.
func Health(c Counts, window float64, k int, th HealthThresholds) Verdict {
	th = th.withDefaults()
	if k <= 0 {
		k = len(c.AcceptedPerPosition)
	}
	v := Verdict{K: k, CliffPosition: -1}
	v.Rate = AcceptanceRateInterval(c, th.Z)
	v.MeanLength = Value{}
	v.DraftsPerSecond = Value{}
	// The mean acceptance length as the page shows it: "mean acceptance
	// length" is 1 + accepted / drafts; the older form is labelled.
	bonus, lengthName := 1.0, "mean acceptance length"
	if th.Convention == WithoutBonus {
		bonus, lengthName = 0, "mean acceptance length without bonus token"
	}
	if c.Drafts > 0 && finite(c.Drafts) && finite(c.AcceptedTokens) {
		v.MeanLength = Defined(bonus + c.AcceptedTokens/c.Drafts)
		if window > 0 && finite(window) {
			v.DraftsPerSecond = Defined(c.Drafts / window)
		}
	}
	over := ""
	if window > 0 && finite(window) {
		over = " over the last " + windowText(window)
	}
	bad := !finite(c.Drafts) || !finite(c.DraftTokens) || !finite(c.AcceptedTokens) || c.Drafts < 0 || c.DraftTokens < 0 || c.AcceptedTokens < 0
	if bad {
		v.State = NotEnoughData
		v.Summary = fmt.Sprintf("unusable counts: drafts %s, draft tokens %s, accepted tokens %s", describe(c.Drafts), describe(c.DraftTokens), describe(c.AcceptedTokens))
		return v
	}
	if c.Drafts == 0 && c.DraftTokens == 0 {
		v.State = Idle
		v.Summary = "idle: no drafts" + over + " (no traffic, or speculative decoding off): nothing to judge, not a collapse"
		return v
	}
	hasDrafts := c.Drafts > 0
	if hasDrafts && c.Drafts < th.MinDrafts {
		v.State = NotEnoughData
		v.Summary = fmt.Sprintf("only %s drafts%s (fewer than %s): too few to judge", num(c.Drafts), over, num(th.MinDrafts))
		return v
	}
	if !hasDrafts && c.DraftTokens < th.MinDraftTokens {
		v.State = NotEnoughData
		v.Summary = fmt.Sprintf("only %s draft tokens%s (fewer than %s; no drafts counter): too few to judge", num(c.DraftTokens), over, num(th.MinDraftTokens))
		return v
	}
	if hasDrafts && c.DraftTokens == 0 {
		v.State = NotEnoughData
		v.Summary = fmt.Sprintf("%s drafts%s but no draft tokens: the draft-token counter is missing from the selection", num(c.Drafts), over)
		return v
	}
	if v.Rate.Reason != "" {
		v.State = NotEnoughData
		v.Summary = "inconsistent counts: " + v.Rate.Reason
		return v
	}
	if d := draftLengths(c, k); hasDrafts && d.Variable && d.Shortfall > 0 {
		v.VariableLength = true
		v.Notes = append(v.Notes, fmt.Sprintf("variable draft lengths: %s draft tokens in %s drafts, %.2f per draft, below k = %d: the drafter proposes fewer than k tokens at times (n-gram, suffix decoding), so the per-position rates are lower bounds and no position cliff is judged",
			num(c.DraftTokens), num(c.Drafts), c.DraftTokens/c.Drafts, k))
	}
	if c.DraftsAtPosition != nil {
		v.Notes = append(v.Notes, "the group mixes k: each per-position rate is divided by the drafts of the series that draft that far")
	}
	rate := intervalText(v.Rate, "draft tokens")
	lead := ""
	if hasDrafts {
		lead = fmt.Sprintf("drafts %s but %s %.2f%s", num(c.Drafts), lengthName, v.MeanLength.V, over)
		if v.DraftsPerSecond.OK {
			lead = fmt.Sprintf("drafts %s but %s %.2f%s", rateText(v.DraftsPerSecond.V), lengthName, v.MeanLength.V, over)
		}
	} else {
		lead = fmt.Sprintf("%s draft tokens but acceptance rate %s%s", num(c.DraftTokens), pct(v.Rate.Estimate.V), over)
	}
	if !v.VariableLength && hasDrafts {
		pos := PerPositionIntervals(c, th.Z)
		for i := 1; i < len(pos); i++ {
			a, b := pos[i-1], pos[i]
			if a.Reason != "" || b.Reason != "" || c.PositionDrafts(i) < th.MinDrafts {
				continue
			}
			if a.Lower.V >= th.CliffHealthy && b.Upper.V < th.CliffDead {
				v.State = PositionCliff
				v.CliffPosition = i
				v.Summary = fmt.Sprintf("position cliff after pos %d: pos %d accepts %s of drafts, pos %d only %s%s (%s %.2f)",
					i, i, pct(a.Estimate.V), i+1, pct(b.Estimate.V), over, lengthName, v.MeanLength.V)
				v.Evidence = []string{
					fmt.Sprintf("pos %d: %s", i, intervalText(a, "drafts")),
					fmt.Sprintf("pos %d: %s, below the cliff threshold %s right after a position at or above %s", i+1, intervalText(b, "drafts"), pct(th.CliffDead), pct(th.CliffHealthy)),
				}
				v.Cause = CauseCliff
				return v
			}
		}
	}
	switch {
	case v.Rate.Upper.V < th.CollapseRate:
		v.State = Collapsed
		v.Summary = lead + ": drafted tokens are almost all rejected"
		v.Evidence = []string{fmt.Sprintf("acceptance rate %s, below the collapse threshold %s", rate, pct(th.CollapseRate))}
		v.Cause = CauseCollapsed
		return v
	case v.Rate.Lower.V >= th.LoopRate:
		v.State = SuspectedLoop
		if hasDrafts {
			v.Summary = fmt.Sprintf("%s %.2f of at most %d%s: nearly every drafted token is accepted, typical of a repetition loop", lengthName, v.MeanLength.V, k+int(bonus), over)
		} else {
			v.Summary = fmt.Sprintf("acceptance rate %s%s: nearly every drafted token is accepted, typical of a repetition loop", pct(v.Rate.Estimate.V), over)
		}
		v.Evidence = []string{fmt.Sprintf("acceptance rate %s, at or above the loop threshold %s", rate, pct(th.LoopRate))}
		v.Cause = CauseLoop
		return v
	}
	if v.Rate.Upper.V < th.DegradedRate {
		v.State = Degraded
		v.Summary = fmt.Sprintf("acceptance rate %s%s, below %s", pct(v.Rate.Estimate.V), over, pct(th.DegradedRate))
		if hasDrafts {
			v.Summary += fmt.Sprintf(" (%s %.2f)", lengthName, v.MeanLength.V)
		}
		v.Evidence = []string{fmt.Sprintf("acceptance rate %s, below the degraded threshold %s", rate, pct(th.DegradedRate))}
		v.Cause = CauseDegraded
		return v
	}
	v.State = Healthy
	v.Summary = fmt.Sprintf("acceptance rate %s%s", pct(v.Rate.Estimate.V), over)
	if hasDrafts {
		v.Summary += fmt.Sprintf(", %s %.2f", lengthName, v.MeanLength.V)
	}
	v.Evidence = []string{"acceptance rate " + rate}
	return v
}

// HealthAgainst is Health of c, then, when c alone is healthy, a
// comparison with baseline (the same group in an earlier window, e.g. the
// day before or before an upgrade): Degraded when the acceptance rate fell
// by at least th.DropRelative of the baseline's rate and the 95 % interval
// of the difference (Newcombe, CompareAcceptanceRate) lies below 0. A
// baseline with too few drafts (Health of baseline not judged) is ignored
// with a note.
func HealthAgainst(c, baseline Counts, window float64, k int, th HealthThresholds) Verdict {
	th = th.withDefaults()
	v := Health(c, window, k, th)
	if v.State != Healthy {
		return v
	}
	b := Health(baseline, 0, k, th)
	if b.State == Idle || b.State == NotEnoughData {
		v.Notes = append(v.Notes, "no comparison with the baseline: "+b.Summary)
		return v
	}
	cmp := CompareAcceptanceRate(baseline, c, th.Z)
	if cmp.Reason != "" {
		return v
	}
	pa, pb := cmp.A.Estimate.V, cmp.B.Estimate.V
	if pa <= 0 || !cmp.Significant || cmp.Upper.V >= 0 || (pa-pb)/pa < th.DropRelative {
		v.Evidence = append(v.Evidence, fmt.Sprintf("baseline acceptance rate %s: no significant drop", pct(pa)))
		return v
	}
	v.State = Degraded
	v.Summary = fmt.Sprintf("acceptance rate dropped from %s to %s (-%.0f %% relative)", pct(pa), pct(pb), (pa-pb)/pa*100)
	if window > 0 && finite(window) {
		v.Summary += " over the last " + windowText(window)
	}
	v.Evidence = []string{
		"now: acceptance rate " + intervalText(cmp.B, "draft tokens"),
		"baseline: acceptance rate " + intervalText(cmp.A, "draft tokens"),
		fmt.Sprintf("difference %.1f points (%s interval %.1f to %.1f points)", cmp.Difference.V*100, levelText(cmp.A.Z), cmp.Lower.V*100, cmp.Upper.V*100),
	}
	v.Cause = CauseDegraded
	return v
}

// HealthOfGroup is Health of g.Total over grid's window.
func HealthOfGroup(g Group, grid Grid, k int, th HealthThresholds) Verdict {
	return Health(g.Total, grid.Seconds(), k, th)
}

// HealthOfBuckets is Health of each bucket of g (window = grid step), for
// a strip of verdicts over time.
func HealthOfBuckets(g Group, grid Grid, k int, th HealthThresholds) []Verdict {
	out := make([]Verdict, len(g.Buckets))
	for j, b := range g.Buckets {
		out[j] = Health(b, grid.StepSeconds(), k, th)
	}
	return out
}

// GroupChangePoints is AcceptanceChangePoints over g's buckets.
// ChangePoint.Bucket indexes g.Buckets; the change happened between
// grid.BucketStart(Bucket) and grid.BucketEnd(Bucket) (see
// ChangePoint.Start).
func GroupChangePoints(g Group, o ChangeOptions) []ChangePoint {
	return AcceptanceChangePoints(g.Buckets, o)
}
