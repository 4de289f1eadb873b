package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/model"
)

// Insights, Intervals and CostRatios are the view model's (model.Insights):
// the report writes them.
type (
	Insights   = model.Insights
	Intervals  = model.Intervals
	CostRatios = model.CostRatios
)

// ComputeInsights is model.ComputeInsights.
func ComputeInsights(c compute.Counts, cost float64) *Insights { return model.ComputeInsights(c, cost) }

// ParseCostRatios is model.ParseCostRatios (--draft-cost-ratio).
func ParseCostRatios(args []string) (*CostRatios, error) { return model.ParseCostRatios(args) }

// totalJSON is the "total" object with insights.
type totalJSON struct {
	compute.Stats
	*Insights
	Health  *compute.Verdict `json:"health,omitempty"`
	Changes []Change         `json:"changes,omitempty"`
}

// MarshalJSON encodes r as documented on Result; when TotalInsights is
// set, "total" also carries the insight fields (see Insights).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if r.TotalInsights == nil && r.TotalHealth == nil {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Total totalJSON `json:"total"`
	}{plain(r), totalJSON{Stats: r.Total, Insights: r.TotalInsights, Health: r.TotalHealth, Changes: r.TotalChanges}})
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
//	best k: 4 (2.45x, extrapolated beyond the observed k = 3 with the fitted decay, +0.8 % over the current k) vs current k = 3 (2.43x)
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
		if g := bk.FormatGain(); g != "" {
			note += ", " + g + " over the current k"
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

// AddInsights computes the insights of r's groups and total at the cost
// ratios costs (nil: compute.DefaultDraftCostRatio), and warns about
// overrides that matched no group: model.Model.AddInsights.
func (r *Result) AddInsights(costs *CostRatios) {
	m := &model.Model{Request: model.Request{DraftCost: costs}, Stats: r.Total}
	for _, g := range r.Groups {
		m.Groups = append(m.Groups, model.Group{Labels: g.Labels, Stats: g.Stats})
	}
	m.AddInsights()
	for i := range r.Groups {
		r.Groups[i].Insights = m.Groups[i].Insights
	}
	r.TotalInsights = m.Insights
	r.Warnings = append(r.Warnings, m.Notes...)
}

// CountsOf returns the counts a Stats was derived from (drafts, tokens).
func CountsOf(s compute.Stats) compute.Counts { return s.Counts() }
