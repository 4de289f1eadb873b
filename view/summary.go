package view

import (
	"fmt"
	"strconv"
	"strings"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
)

// ChartSummaries are the text alternatives of the charts: per chart, the
// numbers it draws in a sentence or two.
func ChartSummaries(r *Result, v *Charts) map[string]string {
	out := map[string]string{}
	if r == nil {
		return out
	}
	out[ChartPerPosition] = PositionSummary(r.Stats)
	out[ChartHeatmap] = heatmapSummary(r)
	out[ChartAcceptanceRate] = linesSummary("Acceptance rate", v.Rate[:v.Drawn], func(x float64) string {
		return compute.FormatPercent(compute.Value{V: x, OK: true}, 1)
	})
	out[ChartAcceptanceLength] = linesSummary("Mean acceptance length", v.Length[:v.Drawn], func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " tokens/draft"
	})
	out[ChartThroughput] = linesSummary("Token throughput", v.Tokens, func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " tokens/s"
	})
	out[ChartDrafts] = linesSummary("Drafts per second", v.Drafts[:v.Drawn], func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " drafts/s"
	})
	return out
}

// PositionSummary lists the per-position rates.
func PositionSummary(s compute.Stats) string {
	if len(s.PerPositionAcceptanceRate) == 0 {
		return "Per-position acceptance: no drafts in the window."
	}
	parts := make([]string, len(s.PerPositionAcceptanceRate))
	for i, v := range s.PerPositionAcceptanceRate {
		parts[i] = chartopt.PositionLabel(i) + " " + compute.FormatPercent(v, 1)
	}
	return "Per-position acceptance (accepted at position / drafts): " + strings.Join(parts, ", ") + "."
}

// heatmapSummary gives, per position, the lowest and highest column rate.
func heatmapSummary(r *Result) string {
	h := r.Heatmap()
	if h.K == 0 || len(h.Stats) == 0 {
		return "Per-position acceptance over time: no drafts in the window."
	}
	parts := make([]string, 0, h.K)
	for i := 0; i < h.K; i++ {
		var vals []compute.Value
		for _, c := range h.Stats {
			if i < len(c.PerPositionAcceptanceRate) {
				vals = append(vals, c.PerPositionAcceptanceRate[i])
			}
		}
		lo, hi, ok := valueRange(vals)
		if !ok {
			parts = append(parts, chartopt.PositionLabel(i)+" no drafts")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s from %s to %s", chartopt.PositionLabel(i),
			compute.FormatPercent(compute.Value{V: lo, OK: true}, 1), compute.FormatPercent(compute.Value{V: hi, OK: true}, 1)))
	}
	return fmt.Sprintf("Per-position acceptance over time, %d columns: %s.", len(h.Stats), strings.Join(parts, "; "))
}

// linesSummary gives, per line, its last value and its range over the
// window.
func linesSummary(title string, lines []model.Line, format func(float64) string) string {
	if len(lines) == 0 {
		return title + ": no data in the window."
	}
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		lo, hi, ok := valueRange(l.Values)
		if !ok {
			parts = append(parts, l.Name+": no data")
			continue
		}
		last := ""
		for j := len(l.Values) - 1; j >= 0; j-- {
			if l.Values[j].OK {
				last = format(l.Values[j].V)
				break
			}
		}
		parts = append(parts, fmt.Sprintf("%s: latest %s, range %s to %s", l.Name, last, format(lo), format(hi)))
	}
	return title + " per bucket; " + strings.Join(parts, "; ") + "."
}

// valueRange is the smallest and largest defined value.
func valueRange(vals []compute.Value) (lo, hi float64, ok bool) {
	for _, v := range vals {
		if !v.OK {
			continue
		}
		if !ok || v.V < lo {
			lo = v.V
		}
		if !ok || v.V > hi {
			hi = v.V
		}
		ok = true
	}
	return lo, hi, ok
}

// FitSummary is the insights fit chart's text alternative: each
// position's rate with its 95 % interval, and the fitted α.
func FitSummary(d model.Estimates) string {
	if len(d.Positions) == 0 {
		return "Per-position acceptance with the geometric fit: no drafts in the window."
	}
	pct := func(v compute.Value) string { return compute.FormatPercent(v, 1) }
	parts := make([]string, len(d.Positions))
	for i, iv := range d.Positions {
		parts[i] = chartopt.PositionLabel(i) + " " + pct(iv.Estimate)
		if iv.Lower.OK && iv.Upper.OK {
			parts[i] += " (95 % interval " + pct(iv.Lower) + " to " + pct(iv.Upper) + ")"
		}
	}
	return "Per-position acceptance with 95 % intervals: " + strings.Join(parts, ", ") +
		"; geometric fit α = " + pct(d.Fit.Alpha) + "."
}

// FitSummaryIf is FitSummary once numbers are loaded, "" before.
func FitSummaryIf(ready bool, d model.Estimates) string {
	if !ready {
		return ""
	}
	return FitSummary(d)
}
