package view

import (
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
)

// The insights fit chart's summary gives each position's rate with its
// interval and the fitted alpha.
func TestFitSummary(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	res := &Result{Query: q}
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	s := FitSummary(model.Estimate(res.Stats.Counts(), compute.DefaultDraftCostRatio))
	if !strings.HasPrefix(s, "Per-position acceptance with 95 % intervals: pos 1 75.0 % (95 % interval ") ||
		!strings.Contains(s, "pos 2 25.0 %") || !strings.Contains(s, "geometric fit α = ") || strings.Contains(s, "NaN") {
		t.Errorf("fit summary %q", s)
	}
	if FitSummaryIf(false, model.Estimate(res.Stats.Counts(), 0)) != "" {
		t.Errorf("a summary before the numbers are loaded")
	}
}
