package app

import (
	"encoding/json"
	"html"
	"math"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"specdash/compute"
)

// Chart names (the data-chart attribute).
const (
	ChartPerPosition      = "per-position"
	ChartAcceptanceRate   = "acceptance-rate"
	ChartAcceptanceLength = "acceptance-length"
)

// Colours of the light theme.
const (
	colorBar    = "#2563eb"
	colorRate   = "#2563eb"
	colorLength = "#0d9488"
	colorAxis   = "#6b7280"
	colorGrid   = "#e5e7eb"
)

// gap is ECharts' marker for a missing data point (drawn as a gap).
const gap = "-"

// PositionLabel is the 1-based label of a 0-based draft position: "pos 1".
func PositionLabel(i int) string { return "pos " + strconv.Itoa(i+1) }

// round keeps d decimals (chart data only; the exact numbers are in the
// data-value attributes).
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// marshal encodes an option; callers Validate the chart first (frontend.md:
// without Validate the axes come out empty).
func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func axisLabel(formatter string) *opts.AxisLabel {
	return &opts.AxisLabel{Formatter: types.FuncStr(formatter), Color: colorAxis}
}

func baseGlobals(tooltip string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas"}),
		charts.WithAnimation(false),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "32", Top: "28", Bottom: "8", ContainLabel: opts.Bool(true)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: types.FuncStr(tooltip)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	}
}

// PerPositionOption is the ECharts option of the per-position acceptance
// bar chart: one bar per position ("pos 1".."pos k"), the rate in percent
// (0..100, 1 decimal; undefined positions are gaps). Empty string when k = 0.
func PerPositionOption(s compute.Stats) string {
	if len(s.PerPositionAcceptanceRate) == 0 {
		return ""
	}
	labels := make([]string, len(s.PerPositionAcceptanceRate))
	data := make([]opts.BarData, len(s.PerPositionAcceptanceRate))
	for i, v := range s.PerPositionAcceptanceRate {
		labels[i] = PositionLabel(i)
		if v.OK {
			data[i] = opts.BarData{Value: round(v.V*100, 1)}
		} else {
			data[i] = opts.BarData{Value: gap}
		}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(baseGlobals("{b}: {c} % of drafts accepted here"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{Color: colorAxis}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Max: 100, AxisLabel: axisLabel("{value} %"),
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: colorGrid}}}),
	)...)
	bar.SetXAxis(labels).AddSeries("acceptance rate", data,
		charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "30%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: colorBar}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{c} %", Color: "#111827"}),
	)
	bar.Validate()
	return marshal(bar.JSON())
}

// bucketLabels are the bucket end times as local clock times.
func bucketLabels(g compute.Grid, n int) []string {
	labels := make([]string, n)
	layout := "15:04:05"
	if g.Step >= 60_000 {
		layout = "15:04"
	}
	for j := range labels {
		labels[j] = time.UnixMilli(g.BucketEnd(j)).Format(layout)
	}
	return labels
}

// lineOption is one time series over the grid's buckets; undefined values
// are gaps (connectNulls off), never zeros.
func lineOption(g compute.Grid, vals []compute.Value, scale float64, decimals int, name, color, unit string, yMin any, yMax any) string {
	if len(vals) == 0 {
		return ""
	}
	data := make([]opts.LineData, len(vals))
	for j, v := range vals {
		if v.OK {
			data[j] = opts.LineData{Value: round(v.V*scale, decimals)}
		} else {
			data[j] = opts.LineData{Value: gap}
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(append(baseGlobals("{b}<br/>"+html.EscapeString(name)+": {c} "+html.EscapeString(unit)),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{Color: colorAxis}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: yMin, Max: yMax, Scale: opts.Bool(yMin == nil), AxisLabel: axisLabel("{value} " + unit),
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: colorGrid}}}),
	)...)
	line.SetXAxis(bucketLabels(g, len(vals))).AddSeries(name, data,
		charts.WithLineChartOpts(opts.LineChart{ConnectNulls: opts.Bool(false), ShowSymbol: opts.Bool(len(vals) <= 60), Symbol: "circle", SymbolSize: 5}),
		charts.WithLineStyleOpts(opts.LineStyle{Color: color, Width: 2}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}),
	)
	line.Validate()
	return marshal(line.JSON())
}

// AcceptanceRateOption is the acceptance rate per bucket over time, in
// percent (0..100); buckets without draft tokens are gaps.
func AcceptanceRateOption(g compute.Grid, buckets []compute.Stats) string {
	vals := make([]compute.Value, len(buckets))
	for j, b := range buckets {
		vals[j] = b.AcceptanceRate
	}
	return lineOption(g, vals, 100, 1, "acceptance rate", colorRate, "%", 0, 100)
}

// AcceptanceLengthOption is the mean acceptance length per bucket over
// time (tokens per draft); buckets without drafts are gaps.
func AcceptanceLengthOption(g compute.Grid, buckets []compute.Stats) string {
	vals := make([]compute.Value, len(buckets))
	for j, b := range buckets {
		vals[j] = b.MeanAcceptanceLength
	}
	return lineOption(g, vals, 1, 3, "mean acceptance length", colorLength, "tokens", nil, nil)
}
