package model

import (
	"fmt"
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

// Estimates are the insights of one set of counts at one draft cost
// ratio, every part as specdash/compute returns it (an undefined part
// carries its Reason): what the dashboard's insights panel draws.
// Insights is their report form.
type Estimates struct {
	Counts    compute.Counts
	Cost      float64
	Speedup   compute.Speedup
	BestK     compute.BestK
	Fit       compute.GeometricFit
	Rate      compute.Interval
	Positions []compute.Interval
}

// Estimate computes the insights of counts c at draft cost ratio cost
// (compute.DefaultDraftCostRatio is the usual default): the one place
// where speedup, best k, fit and intervals are computed.
func Estimate(c compute.Counts, cost float64) Estimates {
	return Estimates{
		Counts:    c,
		Cost:      cost,
		Speedup:   compute.EstimateSpeedup(c, cost),
		BestK:     compute.FindBestK(c, cost, 0),
		Fit:       compute.FitGeometric(c),
		Rate:      compute.AcceptanceRateInterval(c, 0),
		Positions: compute.PerPositionIntervals(c, 0),
	}
}

// Insights returns the report form of e: undefined parts nil with their
// reason in Reasons.
func (e Estimates) Insights() *Insights {
	in := &Insights{Reasons: map[string]string{}}
	if s := e.Speedup; s.Speedup.OK {
		in.Speedup = &s
	} else {
		in.Reasons["speedup"] = s.Reason
	}
	if b := e.BestK; b.Reason == "" && len(b.Points) > 0 {
		in.BestK = &b
	} else {
		in.Reasons["best_k"] = b.Reason
	}
	if f := e.Fit; f.Alpha.OK {
		in.Fit = &f
	} else {
		in.Reasons["fit"] = f.Reason
	}
	if ar := e.Rate; ar.Estimate.OK {
		in.Intervals = &Intervals{AcceptanceRate: ar, PerPosition: e.Positions}
	} else {
		in.Reasons["intervals"] = ar.Reason
	}
	if !math.IsNaN(e.Cost) && !math.IsInf(e.Cost, 0) {
		in.DraftCostRatio = e.Cost
	}
	if len(in.Reasons) == 0 {
		in.Reasons = nil
	}
	return in
}

// ComputeInsights computes the insights of counts c at draft cost ratio
// cost: Estimate(c, cost).Insights(). It never panics; undefined parts are
// nil with their reason in Reasons.
func ComputeInsights(c compute.Counts, cost float64) *Insights {
	return Estimate(c, cost).Insights()
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

// ValidCost reports whether c is a draft cost ratio: finite and >= 0
// (draft step time / target step time).
func ValidCost(c float64) bool { return !math.IsNaN(c) && !math.IsInf(c, 0) && c >= 0 }

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
		if err != nil || !ValidCost(v) {
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

// AddInsights computes the insights of every group (the gauge groups for
// a gauge schema) and of the total at the cost ratios Request.DraftCost
// (nil: compute.DefaultDraftCostRatio), and notes overrides that matched
// no group.
func (m *Model) AddInsights() {
	costs := m.Request.DraftCost
	used := map[string]bool{}
	add := func(groups []Group) {
		for i := range groups {
			g := &groups[i]
			g.Insights = ComputeInsights(g.Stats.Counts(), costs.For(g.Labels))
			if costs != nil {
				for _, v := range g.Labels {
					if _, ok := costs.ByValue[v]; ok {
						used[v] = true
					}
				}
			}
		}
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	if sn := m.Schema; sn != nil && sn.Averaged != nil {
		add(sn.Averaged.Groups)
		sn.Averaged.Total.Insights = ComputeInsights(sn.Averaged.Total.Stats.Counts(), total)
	} else {
		add(m.Groups)
	}
	m.Insights = ComputeInsights(m.Stats.Counts(), total)
	if costs != nil {
		keys := make([]string, 0, len(costs.ByValue))
		for k := range costs.ByValue {
			if !used[k] {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			m.Notes = append(m.Notes, fmt.Sprintf("draft cost ratio for %q matched no group: group by the label holding it (e.g. --group-by=model_name)", k))
		}
	}
}
