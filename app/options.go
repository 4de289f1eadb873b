package app

import (
	"encoding/json"
	"html"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

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

// Palette holds a theme's colours (CSS colour strings).
type Palette struct {
	Name                                      string
	Text, Muted, Grid, Panel, TooltipBg, Line string
	Bar, Conditional, Incomplete, Brush       string
	Series                                    []string
	Heat                                      []string
}

// PaletteFor returns the palette of a theme (ThemeLight or ThemeDark).
func PaletteFor(theme string) Palette {
	if theme == ThemeDark {
		return Palette{
			Name: ThemeDark, Text: "#e5e7eb", Muted: "#9ca3af", Grid: "#1f2a3d", Panel: "#111827",
			TooltipBg: "#1f2937", Line: "#374151",
			Bar: "#60a5fa", Conditional: "#fbbf24", Incomplete: "rgba(148,163,184,0.16)", Brush: "rgba(96,165,250,0.25)",
			Series: []string{"#60a5fa", "#2dd4bf", "#fbbf24", "#f472b6", "#a78bfa", "#34d399", "#f87171", "#22d3ee", "#a3e635", "#c084fc", "#fb923c", "#94a3b8"},
			Heat:   []string{"#0f172a", "#1e3a8a", "#3b82f6", "#bfdbfe"},
		}
	}
	return Palette{
		Name: ThemeLight, Text: "#111827", Muted: "#6b7280", Grid: "#e5e7eb", Panel: "#ffffff",
		TooltipBg: "#ffffff", Line: "#d1d5db",
		Bar: "#2563eb", Conditional: "#d97706", Incomplete: "rgba(107,114,128,0.10)", Brush: "rgba(37,99,235,0.15)",
		Series: []string{"#2563eb", "#0d9488", "#d97706", "#db2777", "#7c3aed", "#059669", "#dc2626", "#0891b2", "#65a30d", "#9333ea", "#ea580c", "#475569"},
		Heat:   []string{"#f8fafc", "#bfdbfe", "#3b82f6", "#1e3a8a"},
	}
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

// gap is ECharts' marker for a missing data point (drawn as a gap).
const gap = "-"

// PositionLabel is the 1-based label of a 0-based draft position: "pos 1".
func PositionLabel(i int) string { return "pos " + strconv.Itoa(i+1) }

// round keeps d decimals (chart data only; the exact numbers are in the
// data-value attributes and the exports). It rounds as compute's format
// helpers do (strconv.FormatFloat of the float64, so 34.25 -> 34.2 like
// compute.FormatPercent), so a chart label never differs from the number
// printed next to it; -0 and NaN/Inf give 0.
func round(v float64, d int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', min(max(d, 0), 9), 64), 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r == 0 {
		return 0
	}
	return r
}

// tplText makes s safe as literal text inside an ECharts tooltip template:
// HTML-escaped (tooltips render HTML) and with braces escaped (ECharts
// substitutes {a}, {b0}, ... in the template).
func tplText(s string) string {
	s = html.EscapeString(s)
	s = strings.ReplaceAll(s, "{", "&#123;")
	return strings.ReplaceAll(s, "}", "&#125;")
}

// finish marshals a validated chart and lets patch adjust the option as a
// generic JSON object (for what go-echarts does not model: brush, per-item
// styles, mark areas, theme colours).
func finish(ch interface{ JSON() map[string]interface{} }, p Palette, patch func(m map[string]any)) string {
	b, err := json.Marshal(ch.JSON())
	if err != nil {
		return ""
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return ""
	}
	m["backgroundColor"] = "transparent"
	m["textStyle"] = map[string]any{"color": p.Text}
	m["color"] = p.Series
	if tt, ok := m["tooltip"].(map[string]any); ok {
		tt["backgroundColor"] = p.TooltipBg
		tt["borderColor"] = p.Line
		tt["textStyle"] = map[string]any{"color": p.Text, "fontSize": 12}
		tt["confine"] = true
	}
	if patch != nil {
		patch(m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(out)
}

func series(m map[string]any, i int) map[string]any {
	s, _ := m["series"].([]any)
	if i >= len(s) {
		return map[string]any{}
	}
	r, _ := s[i].(map[string]any)
	if r == nil {
		return map[string]any{}
	}
	return r
}

func axisLabelP(p Palette, formatter string) *opts.AxisLabel {
	l := &opts.AxisLabel{Color: p.Muted}
	if formatter != "" {
		l.Formatter = types.FuncStr(formatter)
	}
	return l
}

func splitLine(p Palette) *opts.SplitLine {
	return &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: p.Grid}}
}

func baseGlobalsP(tooltip string, legend bool, p Palette) []charts.GlobalOpts {
	top := "28"
	if legend {
		top = "40"
	}
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas"}),
		charts.WithAnimation(false),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "40", Top: top, Bottom: "8", ContainLabel: opts.Bool(true)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: types.FuncStr(tooltip)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(legend), Type: "scroll", Top: "0", Left: "8", Right: "60",
			TextStyle: &opts.TextStyle{Color: p.Muted}}),
	}
}

// zoomable adds the brush (select a span on the x axis to zoom: the page
// turns the selection into an absolute from/to) to a time chart.
func zoomable(m map[string]any, p Palette) {
	m["brush"] = map[string]any{
		"xAxisIndex":   0,
		"brushType":    "lineX",
		"brushMode":    "single",
		"throttleType": "debounce",
		"brushStyle":   map[string]any{"color": p.Brush, "borderColor": p.Bar, "borderWidth": 1},
		"outOfBrush":   map[string]any{"colorAlpha": 0.4},
	}
	m["toolbox"] = map[string]any{
		"show": true, "right": 4, "top": 0, "itemSize": 14,
		"iconStyle": map[string]any{"borderColor": p.Muted},
		"feature": map[string]any{
			"brush": map[string]any{"type": []string{"lineX", "clear"},
				"title": map[string]any{"lineX": "Select a span to zoom", "clear": "Clear selection"}},
		},
	}
}

// TimeLabels are the bucket end times of g in loc: "15:04:05" for steps
// under a minute, "15:04" up to a day's window, "01-02 15:04" beyond.
func TimeLabels(g compute.Grid, n int, loc *time.Location) []string {
	labels := make([]string, n)
	layout := "15:04:05"
	switch {
	case g.End-g.Start > 24*3600*1000:
		layout = "01-02 15:04"
	case g.Step >= 60_000:
		layout = "15:04"
	}
	for j := range labels {
		labels[j] = time.UnixMilli(g.BucketEnd(j)).In(loc).Format(layout)
	}
	return labels
}

// markIncomplete shades the buckets from complete on (the newest, still
// changing ones) on series 0 and labels the band "incomplete".
func markIncomplete(m map[string]any, n, complete int, p Palette) {
	if complete >= n || n == 0 {
		return
	}
	from := max(complete-1, 0)
	series(m, 0)["markArea"] = map[string]any{
		"silent":    true,
		"itemStyle": map[string]any{"color": p.Incomplete},
		"label":     map[string]any{"show": true, "position": "insideTop", "color": p.Muted, "fontSize": 10, "formatter": "incomplete"},
		"data":      []any{[]any{map[string]any{"xAxis": from}, map[string]any{"xAxis": n - 1}}},
	}
}

// PerPositionOption is PerPositionChart in the light theme, with the
// conditional rates fitted from s's own counts.
func PerPositionOption(s compute.Stats) string {
	c := s.Counts()
	return PerPositionChart(s, compute.FitGeometric(c), PaletteFor(ThemeLight))
}

// PerPositionChart is the ECharts option of the per-position acceptance
// chart: bars of the per-position acceptance rate (accepted at position /
// drafts, in percent 0..100, 1 decimal) and a line of the conditional rate
// (accepted at i / accepted at i-1: acceptance at position i given
// position i-1 was accepted; fit.Conditional). Undefined values are gaps.
// Empty string when k = 0.
func PerPositionChart(s compute.Stats, fit compute.GeometricFit, p Palette) string {
	k := len(s.PerPositionAcceptanceRate)
	if k == 0 {
		return ""
	}
	labels := make([]string, k)
	bars := make([]opts.BarData, k)
	cond := make([]opts.BarData, k)
	for i, v := range s.PerPositionAcceptanceRate {
		labels[i] = PositionLabel(i)
		bars[i] = opts.BarData{Value: pct(v)}
		cond[i] = opts.BarData{Value: gap}
		if i < len(fit.Conditional) {
			cond[i] = opts.BarData{Value: pct(fit.Conditional[i])}
		}
	}
	tip := "{b}<br/>accepted at this position: {c0} % of drafts<br/>given the previous position accepted: {c1} %"
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(baseGlobalsP(tip, true, p),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: axisLabelP(p, "")}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Max: 100, AxisLabel: axisLabelP(p, "{value} %"), SplitLine: splitLine(p)}),
	)...)
	name := "per-position acceptance rate (of all drafts)"
	if s.DraftsAtPosition != nil {
		name = "per-position acceptance rate (of drafts by series with k ≥ pos)"
	}
	bar.SetXAxis(labels).
		AddSeries(name, bars,
			charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "30%"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: p.Bar}),
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{c} %", Color: p.Text}),
		).
		AddSeries("conditional rate (given previous accepted)", cond,
			charts.WithItemStyleOpts(opts.ItemStyle{Color: p.Conditional}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: p.Conditional, Width: 2}),
		)
	bar.MultiSeries[1].Type = "line"
	bar.MultiSeries[1].Symbol = "circle"
	bar.MultiSeries[1].SymbolSize = 7
	bar.Validate()
	return finish(bar, p, nil)
}

// pct is a ratio as a chart value in percent with one decimal: the number
// compute.FormatPercent(v, 1) prints (one formatting path for bar labels,
// heatmap cells and the chips); the gap marker when undefined.
func pct(v compute.Value) any {
	if !v.OK {
		return gap
	}
	r, err := strconv.ParseFloat(strings.TrimSuffix(compute.FormatPercent(v, 1), " %"), 64)
	if err != nil {
		return gap
	}
	if r == 0 {
		return 0.0 // no -0
	}
	return r
}

// Line is one line of a time chart: a name (shown as text: legend on the
// canvas, tooltip escaped) and one value per bucket.
type Line struct {
	Name   string
	Values []compute.Value
}

// LinesOption is a time chart over g's buckets with one line per Line;
// values are multiplied by scale and rounded to decimals; undefined values
// are gaps (connectNulls off), never zeros. Buckets from complete on are
// shaded as incomplete. unit follows every number; yMin/yMax fix the axis
// (nil: fitted). Empty string without lines or buckets.
func LinesOption(g compute.Grid, lines []Line, complete int, scale float64, decimals int, unit string, yMin, yMax any, loc *time.Location, p Palette) string {
	if len(lines) == 0 || len(lines[0].Values) == 0 {
		return ""
	}
	n := len(lines[0].Values)
	var tip strings.Builder
	tip.WriteString("{b}")
	for i, l := range lines {
		tip.WriteString("<br/>" + tplText(l.Name) + ": {c" + strconv.Itoa(i) + "} " + tplText(unit))
	}
	line := charts.NewLine()
	line.SetGlobalOptions(append(baseGlobalsP(tip.String(), len(lines) > 1, p),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: axisLabelP(p, "")}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: yMin, Max: yMax, Scale: opts.Bool(yMin == nil), AxisLabel: axisLabelP(p, "{value} "+unit), SplitLine: splitLine(p)}),
	)...)
	// The x axis' labels go in after the round trip too (xData).
	xLabels := xData(TimeLabels(g, n, loc))
	line.SetXAxis(nil)
	// The data points are encoded once, by hand (lineData), and put into
	// the option after finish's JSON round trip: through go-echarts and
	// encoding/json's maps they cost most of a refresh's option building
	// in wasm. The JSON is the same ({"value":v} per point).
	data := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		data[i] = lineData(l.Values, n, scale, decimals)
		color := p.Series[i%len(p.Series)]
		line.AddSeries(l.Name, nil,
			charts.WithLineChartOpts(opts.LineChart{ConnectNulls: opts.Bool(false), ShowSymbol: opts.Bool(n <= 60), Symbol: "circle", SymbolSize: 5}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: color, Width: 2}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: color}),
		)
	}
	line.Validate()
	return finish(line, p, func(m map[string]any) {
		if xs, ok := m["xAxis"].([]any); ok && len(xs) > 0 {
			if x, ok := xs[0].(map[string]any); ok {
				x["data"] = xLabels
			}
		}
		for i := range lines {
			series(m, i)["data"] = data[i]
		}
		zoomable(m, p)
		markIncomplete(m, n, complete, p)
	})
}

// xData is the JSON of a category axis' labels.
func xData(labels []string) json.RawMessage {
	b, err := json.Marshal(labels)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// lineData is the JSON of a line's n points, [{"value":v},...]: vals[j]
// times scale rounded to decimals, or the gap marker where undefined or
// missing, exactly as encoding/json writes []opts.LineData.
func lineData(vals []compute.Value, n int, scale float64, decimals int) json.RawMessage {
	b := make([]byte, 0, n*16+2)
	b = append(b, '[')
	for j := range n {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		if j < len(vals) && vals[j].OK {
			b = appendJSONFloat(b, round(vals[j].V*scale, decimals))
		} else {
			b = append(b, `"`+gap+`"`...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONFloat appends f as encoding/json writes a float64 (ES6 number
// form: %f, or %e with a short exponent outside [1e-6, 1e21)). f must be
// finite (round and pct never return NaN or Inf for defined values).
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, `"`+gap+`"`...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// HeatmapMaxColumns is the most columns the dashboard's heatmap draws
// (model.HeatmapMaxColumns); the heatmap's export keeps every bucket.
const HeatmapMaxColumns = model.HeatmapMaxColumns

// HeatmapColumns is the heatmap of r (HeatmapOption) in the columns of
// model.Model.Heatmap: each column's rates are ratios of sums over its
// buckets; a column is incomplete when one of its buckets is; its label is
// the end of its last bucket. first[c] is the first bucket of column c
// (for a span selected on the heatmap). nil and "" without per-position
// data.
func HeatmapColumns(r *Result, loc *time.Location, p Palette) (first []int, option string) {
	h := r.Heatmap()
	if h.K == 0 {
		return nil, ""
	}
	all := TimeLabels(r.Grid, len(r.Buckets), loc)
	labels := make([]string, len(h.Last))
	for c, last := range h.Last {
		labels[c] = all[last]
	}
	return h.First, heatmapOption(labels, h.Stats, h.K, h.Complete, p)
}

// HeatmapOption is the per-position acceptance rate over time: x = bucket
// end, y = pos 1..k, colour = accepted at position / drafts of the bucket
// (percent). Buckets without drafts are left blank; incomplete buckets are
// drawn at half opacity (their cells are series 1, the others series 0;
// cells are [bucket index, position index, percent]). Empty string when
// k = 0 or no buckets.
func HeatmapOption(g compute.Grid, buckets []compute.Stats, k, complete int, loc *time.Location, p Palette) string {
	return heatmapOption(TimeLabels(g, len(buckets), loc), buckets, k, complete, p)
}

// heatmapOption is HeatmapOption with its x labels given (one per column).
func heatmapOption(labels []string, buckets []compute.Stats, k, complete int, p Palette) string {
	n := len(buckets)
	if k == 0 || n == 0 || len(labels) != n {
		return ""
	}
	ys := make([]string, k)
	for i := range ys {
		ys[i] = PositionLabel(i)
	}
	// The cells are plain [x, y, value] arrays, encoded once by hand:
	// thousands of them through reflection cost most of the option's time
	// in wasm, and an object cell ({"value": ..., "itemStyle": ...}) makes
	// ECharts build an item model per cell (a third of its setOption time
	// for the 6 h case). The incomplete buckets' cells are a second series,
	// identical but for its half opacity.
	cells := func(from, to int) []byte {
		b := make([]byte, 0, (to-from)*k*16+2)
		b = append(b, '[')
		for j := from; j < to; j++ {
			for i := 0; i < k && i < len(buckets[j].PerPositionAcceptanceRate); i++ {
				v := buckets[j].PerPositionAcceptanceRate[i]
				if !v.OK {
					continue
				}
				if len(b) > 1 {
					b = append(b, ',')
				}
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(j), 10)
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, ',')
				if f, ok := pct(v).(float64); ok {
					b = appendJSONFloat(b, f)
				} else {
					b = append(b, `"`+gap+`"`...)
				}
				b = append(b, ']')
			}
		}
		return append(b, ']')
	}
	complete = min(max(complete, 0), n)
	final, incomplete := cells(0, complete), cells(complete, n)
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(append(baseGlobalsP("", false, p),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: axisLabelP(p, ""), SplitArea: &opts.SplitArea{Show: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: ys, AxisLabel: axisLabelP(p, "")}),
		charts.WithVisualMapOpts(opts.VisualMap{Show: opts.Bool(true), Min: 0, Max: 100, Calculable: opts.Bool(false), Orient: "horizontal", Left: "center", Bottom: "0",
			Text: []string{"100 %", "0 %"}, TextStyle: &opts.TextStyle{Color: p.Muted}, InRange: &opts.VisualMapInRange{Color: p.Heat}}),
	)...)
	hm.SetXAxis(nil).AddSeries("per-position acceptance rate", nil)
	xLabels := xData(labels)
	hm.Validate()
	return finish(hm, p, func(m map[string]any) {
		if xs, ok := m["xAxis"].([]any); ok && len(xs) > 0 {
			if x, ok := xs[0].(map[string]any); ok {
				x["data"] = xLabels
			}
		}
		s := series(m, 0)
		s["data"] = json.RawMessage(final)
		s["progressive"] = 0
		if len(incomplete) > 2 {
			inc := make(map[string]any, len(s)+1)
			for key, v := range s {
				inc[key] = v
			}
			inc["data"] = json.RawMessage(incomplete)
			inc["itemStyle"] = map[string]any{"opacity": 0.45}
			if all, ok := m["series"].([]any); ok {
				m["series"] = append(all, inc)
			}
		}
		if tt, ok := m["tooltip"].(map[string]any); ok {
			tt["trigger"] = "item"
			tt["formatter"] = "{c} % of drafts accepted at this position"
		}
		if gr, ok := m["grid"].(map[string]any); ok {
			gr["bottom"] = 44
		} else if grs, ok := m["grid"].([]any); ok && len(grs) > 0 {
			if gr, ok := grs[0].(map[string]any); ok {
				gr["bottom"] = 44
			}
		}
		zoomable(m, p)
	})
}

// ThroughputOption is the drafted, accepted and rejected (drafted -
// accepted) token throughput per bucket, tokens/s.
func ThroughputOption(g compute.Grid, buckets []compute.Stats, complete int, loc *time.Location, p Palette) string {
	drafted := make([]compute.Value, len(buckets))
	accepted := make([]compute.Value, len(buckets))
	rejected := make([]compute.Value, len(buckets))
	for j, b := range buckets {
		drafted[j], accepted[j] = b.DraftedThroughput, b.AcceptedThroughput
		if b.DraftedThroughput.OK && b.AcceptedThroughput.OK {
			rejected[j] = compute.Defined(max(0, b.DraftedThroughput.V-b.AcceptedThroughput.V))
		}
	}
	return LinesOption(g, []Line{{"drafted", drafted}, {"accepted", accepted}, {"rejected", rejected}}, complete, 1, 2, "tokens/s", 0, nil, loc, p)
}
