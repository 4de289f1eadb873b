package chartsvg

import (
	"testing"
	"time"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
)

// TestDrawOptionEqualsDraw: a typed option (chartopt, as the dashboard
// builds them) is drawn exactly as its JSON is: per-position bars with the
// conditional line and bar labels, time lines with gaps and the incomplete
// band, token throughputs, the heatmap with its incomplete columns, the
// insights fit with its extrapolated line; in both themes.
func TestDrawOptionEqualsDraw(t *testing.T) {
	c := compute.Counts{Drafts: 100, DraftTokens: 300, AcceptedTokens: 150, AcceptedPerPosition: []float64{70, 50, 30}}
	s := compute.Derive(c, 60, compute.WithBonus)
	empty := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 60, compute.WithBonus)
	g := compute.Grid{Start: 1_800_000_000_000, End: 1_800_000_600_000, Step: 60_000}
	buckets := make([]compute.Stats, g.Buckets())
	rate := make([]compute.Value, len(buckets))
	for j := range buckets {
		buckets[j] = s
		if j < 3 {
			buckets[j] = empty // no drafts: gaps
		}
		rate[j] = buckets[j].AcceptanceRate
	}
	for _, theme := range []string{chartopt.ThemeLight, chartopt.ThemeDark} {
		p := chartopt.PaletteFor(theme)
		opts := map[string]*chartopt.Option{
			"per-position": chartopt.PerPosition(s, compute.FitGeometric(c), p),
			"lines":        chartopt.Lines(g, []model.Line{{Name: "a <b>", Values: rate}, {Name: "b", Values: rate[:5]}}, 8, 100, 1, "%", 0, 100, time.UTC, p),
			"fitted":       chartopt.Lines(g, []model.Line{{Name: "length", Values: rate}}, 10, 1, 3, "tokens", nil, nil, time.UTC, p),
			"throughput":   chartopt.Throughput(g, buckets, 9, time.UTC, p),
			"heatmap":      chartopt.Heatmap(g, buckets, 3, 8, time.UTC, p),
			"insights":     chartopt.InsightsFit(model.Estimate(c, 0), p),
		}
		for name, o := range opts {
			if o == nil {
				t.Fatalf("%s %s: no option", theme, name)
			}
			typed, fromJSON := DrawOption(o), Draw(o.JSON())
			if typed == "" || typed != fromJSON {
				t.Errorf("%s %s: typed drawing differs from the JSON's (%d vs %d bytes)", theme, name, len(typed), len(fromJSON))
			}
		}
	}
	if DrawOption(nil) != "" {
		t.Error("nil option drawn")
	}
}
