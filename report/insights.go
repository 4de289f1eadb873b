package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"specdash/compute"
)

// Insights are the numbers beyond vLLM's log line for one group (or the
// total) of a report: the estimated speedup, the best draft length k, the
// geometric acceptance fit and Wilson 95 % intervals, all from
// specdash/compute (formulas and sources in its docstrings:
// compute.EstimateSpeedup, compute.FindBestK, compute.FitGeometric,
// compute.Wilson).
//
// JSON: {"speedup", "best_k", "fit", "intervals"}, each null when undefined
// (no drafts in the window, no per-position counts); "reasons" then maps
// the field to why, and "derived" lists counts that were recovered rather
// than read (log input: "drafts" = drafted / k).
type Insights struct {
	// DraftCostRatio is the c used (draft step time / target step time,
	// ratio >= 0).
	DraftCostRatio float64 `json:"draft_cost_ratio"`
	// Speedup is compute.EstimateSpeedup at DraftCostRatio; nil when
	// undefined.
	Speedup *compute.Speedup `json:"speedup"`
	// BestK is compute.FindBestK at DraftCostRatio (K = 0..max(2k, 8));
	// nil when undefined (no drafts or no per-position counts).
	BestK *compute.BestK `json:"best_k"`
	// Fit is compute.FitGeometric; nil when undefined.
	Fit *compute.GeometricFit `json:"fit"`
	// Intervals are the Wilson 95 % intervals; nil when there are no draft
	// tokens.
	Intervals *Intervals `json:"intervals"`
	// Reasons maps "speedup", "best_k", "fit", "intervals" to why that
	// field is null.
	Reasons map[string]string `json:"reasons,omitempty"`
	// Derived names the counts that were recovered, not read ("drafts",
	// "accepted_per_position", "window_seconds"): log input.
	Derived []string `json:"derived,omitempty"`
}

// Intervals are Wilson score intervals at 95 % (compute.DefaultZ).
type Intervals struct {
	// AcceptanceRate is accepted tokens of draft tokens
	// (compute.AcceptanceRateInterval; tokens are not independent trials,
	// so it is too narrow by up to sqrt(k)).
	AcceptanceRate compute.Interval `json:"acceptance_rate"`
	// PerPosition[i] is accepted at 0-based position i of drafts
	// (compute.PerPositionIntervals); length k.
	PerPosition []compute.Interval `json:"per_position"`
}

// CountsOf returns the counts a Stats was derived from (drafts, tokens).
func CountsOf(s compute.Stats) compute.Counts {
	return s.Counts()
}

// ComputeInsights computes the insights of counts c at draft cost ratio
// cost (compute.DefaultDraftCostRatio is the usual default). It never
// panics; undefined parts are nil with their reason in Reasons.
func ComputeInsights(c compute.Counts, cost float64) *Insights {
	in := &Insights{DraftCostRatio: cost, Reasons: map[string]string{}}
	if s := compute.EstimateSpeedup(c, cost); s.Speedup.OK {
		in.Speedup = &s
	} else {
		in.Reasons["speedup"] = s.Reason
	}
	if b := compute.FindBestK(c, cost, 0); b.Reason == "" && len(b.Points) > 0 {
		in.BestK = &b
	} else {
		in.Reasons["best_k"] = b.Reason
	}
	if f := compute.FitGeometric(c); f.Alpha.OK {
		in.Fit = &f
	} else {
		in.Reasons["fit"] = f.Reason
	}
	ar := compute.AcceptanceRateInterval(c, 0)
	if ar.Estimate.OK {
		in.Intervals = &Intervals{AcceptanceRate: ar, PerPosition: compute.PerPositionIntervals(c, 0)}
	} else {
		in.Reasons["intervals"] = ar.Reason
	}
	if !math.IsNaN(cost) && !math.IsInf(cost, 0) {
		in.DraftCostRatio = cost
	} else {
		in.DraftCostRatio = 0
	}
	if len(in.Reasons) == 0 {
		in.Reasons = nil
	}
	return in
}

// CostRatios are the draft cost ratios of a report: Default for the total
// and every group, and ByValue for the groups with a label whose value is
// the key (for example a model name). A nil *CostRatios means
// compute.DefaultDraftCostRatio everywhere.
type CostRatios struct {
	Default float64
	ByValue map[string]float64
}

// For returns the cost ratio of a group with the given labels: the
// override of the first label (by name) whose value has one, else Default.
// A nil c gives compute.DefaultDraftCostRatio.
func (c *CostRatios) For(labels map[string]string) float64 {
	if c == nil {
		return compute.DefaultDraftCostRatio
	}
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if v, ok := c.ByValue[labels[n]]; ok {
			return v
		}
	}
	return c.Default
}

// ParseCostRatios parses --draft-cost-ratio arguments: "0.1" sets the
// default, "VALUE=0.1" the ratio of the groups with a label value VALUE
// (split at the last "=", so a value may hold "="). Ratios must be finite
// and >= 0. No arguments give compute.DefaultDraftCostRatio.
func ParseCostRatios(args []string) (*CostRatios, error) {
	c := &CostRatios{Default: compute.DefaultDraftCostRatio}
	for _, a := range args {
		key, num, hasKey := "", a, false
		if i := strings.LastIndex(a, "="); i >= 0 {
			key, num, hasKey = a[:i], a[i+1:], true
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("draft cost ratio %q: want a number >= 0 (draft step time / target step time, e.g. 0.05) or LABELVALUE=number", a)
		}
		if !hasKey {
			c.Default = v
			continue
		}
		if c.ByValue == nil {
			c.ByValue = map[string]float64{}
		}
		c.ByValue[key] = v
	}
	return c, nil
}

// AddInsights computes the insights of every group and of the total at the
// cost ratios costs (nil: compute.DefaultDraftCostRatio), and warns about
// overrides that matched no group.
func (r *Result) AddInsights(costs *CostRatios) {
	used := map[string]bool{}
	for i := range r.Groups {
		g := &r.Groups[i]
		c := costs.For(g.Labels)
		g.Insights = ComputeInsights(CountsOf(g.Stats), c)
		if costs != nil {
			for _, v := range g.Labels {
				if _, ok := costs.ByValue[v]; ok {
					used[v] = true
				}
			}
		}
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	r.TotalInsights = ComputeInsights(CountsOf(r.Total), total)
	if costs != nil {
		keys := make([]string, 0, len(costs.ByValue))
		for k := range costs.ByValue {
			if !used[k] {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			r.Warnings = append(r.Warnings, fmt.Sprintf("draft cost ratio for %q matched no group: group by the label holding it (e.g. --group-by=model_name)", k))
		}
	}
}

// totalJSON is the "total" object with insights.
type totalJSON struct {
	compute.Stats
	*Insights
}

// MarshalJSON encodes r as documented on Result; when TotalInsights is
// set, "total" also carries the insight fields (see Insights).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if r.TotalInsights == nil {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Total totalJSON `json:"total"`
	}{plain(r), totalJSON{r.Total, r.TotalInsights}})
}

// times formats a speedup ratio: "2.43x".
func times(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return strconv.FormatFloat(v.V, 'f', 2, 64) + "x"
}

func pct(v compute.Value) string { return compute.FormatPercent(v, 1) }

// intervalText prints "60.0 % [35.7 %, 80.2 %]".
func intervalText(iv compute.Interval) string {
	if !iv.Estimate.OK {
		return compute.Undefined
	}
	return fmt.Sprintf("%s [%s, %s]", pct(iv.Estimate), pct(iv.Lower), pct(iv.Upper))
}

func reasonOr(in *Insights, field string) string {
	if r := in.Reasons[field]; r != "" {
		return r
	}
	return compute.Undefined
}

func trimNum(v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// WriteInsightsText writes the insight lines of in, each indented by two
// spaces (nothing when in is nil):
//
//	speedup: 2.43x = tokens per target pass 2.80 (1 + accepted/drafts) / (1 + c 0.05 x k 3) (estimate for sequential drafting; c = draft step time / target step time)
//	best k: 4 (2.45x, extrapolated beyond the observed k = 3 with the fitted decay) vs current k = 3 (2.43x)
//	fit: per-token acceptance alpha = 0.692 (geometric, pos i rate = alpha^i); chi-square 0.21 on 2 df, p = 0.9; R² 0.97
//	95% intervals (Wilson): acceptance rate 60.0 % [35.7 %, 80.2 %] of 15 draft tokens; pos 1 100.0 % [56.6 %, 100.0 %], ... of 5 drafts
func WriteInsightsText(w io.Writer, in *Insights) error {
	if in == nil {
		return nil
	}
	var b strings.Builder
	if len(in.Derived) > 0 {
		fmt.Fprintf(&b, "  derived, not printed by vLLM: %s\n", derivedText(in.Derived))
	}
	if s := in.Speedup; s != nil {
		kText := trimNum(s.K, 3)
		if s.KFromDraftTokens {
			kText += " (draft tokens / drafts)"
		}
		fmt.Fprintf(&b, "  speedup: %s = tokens per target pass %s (1 + accepted/drafts) / (1 + c %s x k %s) (estimate for sequential drafting; c = draft step time / target step time)\n",
			times(s.Speedup), strconv.FormatFloat(s.TokensPerTargetPass.V, 'f', 2, 64), trimNum(s.DraftCostRatio, 6), kText)
	} else {
		fmt.Fprintf(&b, "  speedup: %s (c = %s)\n", reasonOr(in, "speedup"), trimNum(in.DraftCostRatio, 6))
	}
	if bk := in.BestK; bk != nil {
		note := ""
		switch {
		case bk.BestK == 0:
			note = ", speculation does not pay off at this draft cost"
		case bk.BestExtrapolated:
			note = fmt.Sprintf(", extrapolated beyond the observed k = %d with the fitted decay", bk.CurrentK)
		}
		if bk.AtSearchLimit {
			note += ", at the search limit"
		}
		fmt.Fprintf(&b, "  best k: %d (%s%s) vs current k = %d (%s)\n", bk.BestK, times(bk.Best), note, bk.CurrentK, times(bk.Current))
	} else {
		fmt.Fprintf(&b, "  best k: %s\n", reasonOr(in, "best_k"))
	}
	if f := in.Fit; f != nil {
		gof := "chi-square " + trimNum(f.ChiSquare.V, 3) + " on " + strconv.Itoa(f.DegreesOfFreedom) + " df"
		if f.PValue.OK {
			gof += ", p " + compute.FormatPValue(f.PValue)
		}
		if f.RSquared.OK {
			gof += "; R² " + strconv.FormatFloat(f.RSquared.V, 'f', 3, 64)
		}
		fmt.Fprintf(&b, "  fit: per-token acceptance alpha = %s (geometric: pos i rate = alpha^i); %s\n", compute.FormatRatio(f.Alpha), gof)
		for _, n := range f.Notes {
			fmt.Fprintf(&b, "    note: %s\n", n)
		}
	} else {
		fmt.Fprintf(&b, "  fit: %s\n", reasonOr(in, "fit"))
	}
	if iv := in.Intervals; iv != nil {
		fmt.Fprintf(&b, "  95%% intervals (Wilson): acceptance rate %s of %s draft tokens", intervalText(iv.AcceptanceRate), compute.FormatCount(iv.AcceptanceRate.Trials, ""))
		if len(iv.PerPosition) > 0 {
			// Series that mix k: a position's rate is over the drafts of
			// the series that reach it (compute.Counts.PositionDrafts), so
			// each position names its own denominator where they differ.
			same := true
			for _, p := range iv.PerPosition {
				same = same && p.Trials == iv.PerPosition[0].Trials
			}
			parts := make([]string, len(iv.PerPosition))
			for i, p := range iv.PerPosition {
				parts[i] = "pos " + strconv.Itoa(i+1) + " " + intervalText(p)
				if !same {
					parts[i] += " of " + compute.FormatCount(p.Trials, "")
				}
			}
			if same {
				fmt.Fprintf(&b, "; %s of %s drafts", strings.Join(parts, ", "), compute.FormatCount(iv.PerPosition[0].Trials, ""))
			} else {
				fmt.Fprintf(&b, "; %s drafts (each position of the drafts that reach it)", strings.Join(parts, ", "))
			}
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "  95%% intervals: %s\n", reasonOr(in, "intervals"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func derivedText(d []string) string {
	parts := make([]string, 0, len(d))
	for _, x := range d {
		switch x {
		case "drafts":
			parts = append(parts, "drafts = drafted / k")
		case "accepted_per_position":
			parts = append(parts, "accepted per position = round(printed rate x drafts)")
		case "window_seconds":
			parts = append(parts, "window = drafted / drafted throughput")
		default:
			parts = append(parts, x)
		}
	}
	return strings.Join(parts, "; ")
}
