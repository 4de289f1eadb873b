package app

import (
	"time"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
)

// Chart names (the data-chart attribute).
const (
	ChartPerPosition      = "per-position"
	ChartHeatmap          = "per-position-heatmap"
	ChartAcceptanceRate   = "acceptance-rate"
	ChartAcceptanceLength = "acceptance-length"
	ChartThroughput       = "token-throughput"
	ChartDrafts           = "drafts-per-second"
)

// MaxLines is the most groups drawn as lines in a per-group chart (the
// groups with the most drafts; the table lists all).
const MaxLines = 12

// The charts' options are chartopt's, built from the view model; the
// names below are the dashboard's handles on them (JSON strings, as the
// Chart component and the pre-rendered page carry them).

// Palette is a theme's colours (chartopt.Palette).
type Palette = chartopt.Palette

// Line is one line of a time chart: a name (shown as text: legend on the
// canvas, tooltip escaped) and one value per bucket (model.Line).
type Line struct {
	Name   string
	Values []compute.Value
}

func modelLines(lines []Line) []model.Line {
	out := make([]model.Line, len(lines))
	for i, l := range lines {
		out[i] = model.Line(l)
	}
	return out
}

// HeatmapMaxColumns is the most columns the heatmap draws
// (model.HeatmapMaxColumns); its export keeps every bucket.
const HeatmapMaxColumns = model.HeatmapMaxColumns

// PaletteFor returns the palette of a theme (ThemeLight or ThemeDark).
func PaletteFor(theme string) Palette { return chartopt.PaletteFor(theme) }

// PositionLabel is the 1-based label of a 0-based draft position: "pos 1".
func PositionLabel(i int) string { return chartopt.PositionLabel(i) }

func optionJSON(o *chartopt.Option) string {
	if o == nil {
		return ""
	}
	return o.JSON()
}

// PerPositionChart is chartopt.PerPosition's option; "" when k = 0.
func PerPositionChart(s compute.Stats, fit compute.GeometricFit, p Palette) string {
	return optionJSON(chartopt.PerPosition(s, fit, p))
}

// PerPositionOption is PerPositionChart in the light theme, with the
// conditional rates fitted from s's own counts.
func PerPositionOption(s compute.Stats) string {
	return PerPositionChart(s, compute.FitGeometric(s.Counts()), PaletteFor(ThemeLight))
}

// LinesOption is chartopt.Lines's option; "" without lines or buckets.
func LinesOption(g compute.Grid, lines []Line, complete int, scale float64, decimals int, unit string, yMin, yMax any, loc *time.Location, p Palette) string {
	return optionJSON(chartopt.Lines(g, modelLines(lines), complete, scale, decimals, unit, yMin, yMax, loc, p))
}

// ThroughputOption is chartopt.Throughput's option.
func ThroughputOption(g compute.Grid, buckets []compute.Stats, complete int, loc *time.Location, p Palette) string {
	return optionJSON(chartopt.Throughput(g, buckets, complete, loc, p))
}

// HeatmapOption is chartopt.Heatmap's option (one column per bucket).
func HeatmapOption(g compute.Grid, buckets []compute.Stats, k, complete int, loc *time.Location, p Palette) string {
	return optionJSON(chartopt.Heatmap(g, buckets, k, complete, loc, p))
}

// HeatmapColumns is the heatmap of r in the columns of model.Model.Heatmap
// (at most HeatmapMaxColumns): first[c] is the first bucket of column c
// (for a span selected on the heatmap). nil and "" without per-position
// data.
func HeatmapColumns(r *Result, loc *time.Location, p Palette) (first []int, option string) {
	h := r.Heatmap()
	return h.First, optionJSON(chartopt.HeatmapColumns(h, r.Grid, len(r.Buckets), loc, p))
}

// InsightsChart is chartopt.InsightsFit's option: the per-position chart
// with the geometric fit and the extrapolated rates; "" without a fit.
func InsightsChart(d InsightsData, p Palette) string { return optionJSON(chartopt.InsightsFit(d, p)) }

// InsightsChartOption is InsightsChart in the light theme.
func InsightsChartOption(d InsightsData) string { return InsightsChart(d, PaletteFor(ThemeLight)) }
