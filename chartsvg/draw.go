// Package chartsvg draws a dashboard chart's ECharts option as static HTML
// and SVG for the server's pre-rendered page (app/prerender.go): the chart
// is on screen with the page's first paint, before ECharts (some 700 kB of
// script, docs/PERFORMANCE.md) has arrived, compiled and drawn.
// web/static/preview.js replaces each drawing with the ECharts chart of the
// same option as soon as ECharts has run; the drawing is never interactive.
//
// It draws what package app's time and per-position charts use: a category
// x axis, one value y axis (fixed min/max, or fitted as ECharts fits them:
// see Ticks), bar and line series with gaps, bar labels, the legend, and
// the shaded "incomplete" band (markArea); and the per-position heatmap (a
// category y axis, heatmap series coloured by a continuous visualMap). Any
// other option (a time axis, a second y axis, a series type it does not
// know) is not drawn: Draw returns "" and the chart waits for ECharts.
//
// Server only: the wasm never links it (package server hands DrawOption
// to app.SetPreRenderChart).
package chartsvg

import (
	"encoding/json"
	"html"
	"math"
	"strconv"
	"strings"
)

// Layout, in CSS pixels, as app's options lay their charts out (grid left
// 8, right 40, bottom 8, top 28 or 40 with a legend; labels contained).
const (
	labelGap   = 8  // between an axis label and the plot area (ECharts' axisLabel.margin)
	charWidth  = 7  // estimated width of a 12 px label character
	labelLine  = 12 // height of an x axis label line (12 px font)
	maxXLabels = 8  // the most x axis labels drawn (evenly spaced)
	span       = 1000
)

// option is the part of an ECharts option that Draw reads.
type option struct {
	Color     []string `json:"color"`
	TextStyle style    `json:"textStyle"`
	Legend    *struct {
		Show      *bool `json:"show"`
		TextStyle style `json:"textStyle"`
	} `json:"legend"`
	Grid      []grid      `json:"grid"`
	XAxis     []axis      `json:"xAxis"`
	YAxis     []axis      `json:"yAxis"`
	Series    []series    `json:"series"`
	VisualMap []visualMap `json:"visualMap"`
}

type style struct {
	Color string `json:"color"`
}

type grid struct {
	Left, Right, Top, Bottom any
}

type axis struct {
	Type      string     `json:"type"`
	Data      categories `json:"data"`
	Min, Max  any
	Scale     bool `json:"scale"`
	AxisLabel struct {
		Color     string `json:"color"`
		Formatter any    `json:"formatter"`
	} `json:"axisLabel"`
	SplitLine *struct {
		Show      *bool `json:"show"`
		LineStyle style `json:"lineStyle"`
	} `json:"splitLine"`
}

type series struct {
	Type       string     `json:"type"`
	Name       string     `json:"name"`
	Data       seriesData `json:"data"`
	YAxisIndex int        `json:"yAxisIndex"`
	ItemStyle  struct {
		Color       string   `json:"color"`
		Opacity     *float64 `json:"opacity"`
		BorderColor string   `json:"borderColor"`
		BorderWidth float64  `json:"borderWidth"`
	} `json:"itemStyle"`
	// BarGap "-100%" draws a bar series over the previous one (the
	// per-position chart's outlined lower bounds).
	BarGap    string `json:"barGap"`
	LineStyle struct {
		Color string  `json:"color"`
		Width float64 `json:"width"`
	} `json:"lineStyle"`
	ShowSymbol *bool   `json:"showSymbol"`
	Symbol     string  `json:"symbol"`
	SymbolSize float64 `json:"symbolSize"`
	Label      *struct {
		Show      *bool  `json:"show"`
		Formatter string `json:"formatter"`
		Color     string `json:"color"`
	} `json:"label"`
	MarkArea *markArea `json:"markArea"`
	// MarkLines are the vertical mark lines (category index, colour,
	// label: chartopt's restart marks).
	MarkLines []markLine `json:"-"`
}

// markLine is one vertical mark line of a series.
type markLine struct {
	X            int
	Color, Label string
}

// markArea is a series' mark area: the shaded "incomplete" band.
type markArea struct {
	ItemStyle style `json:"itemStyle"`
	Label     struct {
		Show      *bool  `json:"show"`
		Formatter string `json:"formatter"`
		Color     string `json:"color"`
	} `json:"label"`
	Data [][]markAreaEnd `json:"data"`
}

// markAreaEnd is one end of a mark area.
type markAreaEnd struct {
	XAxis *float64 `json:"xAxis"`
	// Color and Label of the area when set on its first end (a data
	// item's own itemStyle and label: chartopt's gap marks).
	Color string `json:"-"`
	Label string `json:"-"`
}

// point is one value of a series: ok false for a gap ("-", null, missing).
type point struct {
	v  float64
	ok bool
}

// seriesData is a series' data: one point per item (numbers,
// {"value": n}; anything else a gap) and the heatmap cells [x, y, value]
// among the items.
type seriesData struct {
	points []point
	cells  [][3]float64
}

// UnmarshalJSON reads the data of a series in an ECharts option.
func (d *seriesData) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	d.points = make([]point, len(items))
	for j, raw := range items {
		if len(raw) > 0 && raw[0] == '[' {
			var item []float64
			if json.Unmarshal(raw, &item) == nil && len(item) == 3 {
				d.cells = append(d.cells, [3]float64{item[0], item[1], item[2]})
			}
			continue
		}
		var obj struct {
			Value json.RawMessage `json:"value"`
		}
		if len(raw) > 0 && raw[0] == '{' {
			if json.Unmarshal(raw, &obj) != nil {
				continue
			}
			raw = obj.Value
		}
		var f float64
		if json.Unmarshal(raw, &f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			d.points[j] = point{f, true}
		}
	}
	return nil
}

// categories are a category axis' labels (strings, or numbers written as
// ECharts writes them); ok false when an item is anything else.
type categories struct {
	labels []string
	ok     bool
}

// UnmarshalJSON reads the data of an axis in an ECharts option.
func (c *categories) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	c.labels, c.ok = make([]string, len(items)), true
	for i, raw := range items {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			var f float64
			if json.Unmarshal(raw, &f) != nil {
				c.labels, c.ok = nil, false
				return nil
			}
			s = jsString(f)
		}
		c.labels[i] = s
	}
	return nil
}

// Draw returns the static drawing of optionJSON, an ECharts option as
// package app builds it, or "" when it is not one Draw draws (see the
// package doc) or holds no defined value. The drawing is one div that
// fills its parent (which must be positioned: position relative or
// absolute) at any width: the plot is an SVG scaled to the plot area
// (preserveAspectRatio none, strokes not scaled), the labels are HTML
// placed in percent of it. Every text (series names, labels) is
// HTML-escaped, without the characters XML does not allow (the drawing is
// well-formed XML); colours are written only when they are colours (css).
// Each series' mark carries data-series (its name), so a test or script
// finds what was drawn.
func Draw(optionJSON string) string {
	var o option
	if err := json.Unmarshal([]byte(optionJSON), &o); err != nil {
		return ""
	}
	return draw(o)
}

// draw is Draw of a read option.
func draw(o option) string {
	if len(o.XAxis) != 1 || o.XAxis[0].Type != "category" || len(o.YAxis) != 1 || len(o.Series) == 0 {
		return ""
	}
	if o.YAxis[0].Type == "category" {
		return drawHeatmap(o)
	}
	if o.YAxis[0].Type != "value" {
		return ""
	}
	x, y := o.XAxis[0], o.YAxis[0]
	cats, ok := axisLabels(x)
	n := len(cats)
	if !ok || n == 0 {
		return ""
	}
	vals := make([][]point, len(o.Series))
	lo, hi, found := math.Inf(1), math.Inf(-1), false
	for i, s := range o.Series {
		if (s.Type != "bar" && s.Type != "line") || s.YAxisIndex != 0 {
			return ""
		}
		vals[i] = s.Data.points
		for _, p := range vals[i] {
			if p.ok {
				lo, hi, found = min(lo, p.v), max(hi, p.v), true
			}
		}
	}
	if !found {
		return ""
	}
	fixedMin, okMin := number(y.Min)
	fixedMax, okMax := number(y.Max)
	ticks := Ticks(lo, hi, fixedMin, okMin, fixedMax, okMax, y.Scale)
	if len(ticks) < 2 {
		return ""
	}
	ymin, ymax := ticks[0], ticks[len(ticks)-1]
	yPos := func(v float64) float64 { // 0 (top) .. span (bottom)
		return span * (1 - (v-ymin)/(ymax-ymin))
	}
	xPos := func(j int) float64 { return span * (float64(j) + 0.5) / float64(n) } // boundaryGap: band centres

	// Labels of the y axis, and the left margin that holds them.
	yLabels := make([]string, len(ticks))
	widest := 0
	for i, t := range ticks {
		// As ECharts' IntervalScale.getLabel: the value rounded to the
		// interval's precision, shortest form, digits grouped.
		yLabels[i] = format(y.AxisLabel.Formatter, commas(fixed(t)))
		widest = max(widest, len([]rune(yLabels[i])))
	}
	showLegend := o.Legend != nil && (o.Legend.Show == nil || *o.Legend.Show)
	left, right, top, bottom := plotBox(o, widest)

	muted := first(y.AxisLabel.Color, o.TextStyle.Color, "#6b7280")
	text := first(o.TextStyle.Color, "#111827")
	var b strings.Builder
	b.Grow(4096)
	b.WriteString(`<div class="chart-static" data-chart-static="" style="position:absolute;inset:0;overflow:hidden;font:12px sans-serif;color:` + css(muted) + `">`)

	// Legend: a marker and the name of each series, left to right.
	if showLegend {
		lc := first(o.Legend.TextStyle.Color, muted)
		b.WriteString(`<div style="position:absolute;top:2px;left:8px;right:60px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:` + css(lc) + `">`)
		for i, s := range o.Series {
			c := seriesColor(o, i)
			mark := `width:25px;height:14px;border-radius:4px;background:` + css(c)
			if s.Type == "line" {
				mark = `width:25px;height:2px;background:` + css(c)
			}
			b.WriteString(`<span style="display:inline-flex;align-items:center;margin-right:10px"><span style="display:inline-block;margin-right:5px;` + mark + `"></span>` + esc(s.Name) + `</span>`)
		}
		b.WriteString(`</div>`)
	}

	// The plot area: labels in percent of it, the SVG filling it.
	b.WriteString(`<div style="position:absolute;left:` + strconv.Itoa(left) + `px;right:` + strconv.Itoa(right) + `px;top:` + strconv.Itoa(top) + `px;bottom:` + strconv.Itoa(bottom) + `px">`)
	for i, t := range ticks {
		b.WriteString(`<span style="position:absolute;right:100%;margin-right:` + strconv.Itoa(labelGap) + `px;top:` + pct(yPos(t)) + `;transform:translateY(-50%);white-space:nowrap">` + esc(yLabels[i]) + `</span>`)
	}
	every := (n + maxXLabels - 1) / maxXLabels
	for j := 0; j < n; j += every {
		b.WriteString(`<span style="position:absolute;top:100%;margin-top:` + strconv.Itoa(labelGap) + `px;left:` + pct(xPos(j)) + `;transform:translateX(-50%);white-space:nowrap">` + esc(cats[j]) + `</span>`)
	}
	var over strings.Builder // bar labels and the band's label: HTML over the SVG
	b.WriteString(`<svg viewBox="0 0 1000 1000" preserveAspectRatio="none" style="position:absolute;left:0;top:0;width:100%;height:100%;overflow:visible" aria-hidden="true">`)

	// The incomplete band (markArea of series 0), under the grid lines.
	if ma := o.Series[0].MarkArea; ma != nil {
		for _, d := range ma.Data {
			if len(d) != 2 || d[0].XAxis == nil || d[1].XAxis == nil {
				continue
			}
			a, z := int(*d[0].XAxis), int(*d[1].XAxis)
			if a < 0 || z >= n || a > z {
				continue
			}
			x0, x1 := xPos(a), xPos(z)
			label := ""
			if ma.Label.Show != nil && *ma.Label.Show {
				label = ma.Label.Formatter
			}
			b.WriteString(`<rect x="` + num(x0) + `" y="0" width="` + num(x1-x0) + `" height="1000" fill="` + css(first(d[0].Color, ma.ItemStyle.Color)) + `"/>`)
			if label = first(d[0].Label, label); label != "" {
				over.WriteString(`<span style="position:absolute;top:4px;left:` + pct((x0+x1)/2) + `;transform:translateX(-50%);font-size:10px;white-space:nowrap;color:` + css(first(ma.Label.Color, muted)) + `">` + esc(label) + `</span>`)
			}
		}
	}
	// Mark lines of series 0 (restarts), dashed, with their labels.
	for _, ml := range o.Series[0].MarkLines {
		if ml.X < 0 || ml.X >= n {
			continue
		}
		x := xPos(ml.X)
		b.WriteString(`<path fill="none" stroke="` + css(first(ml.Color, muted)) + `" stroke-width="1.5" stroke-dasharray="4 3" vector-effect="non-scaling-stroke" d="M` + num(x) + ` 0V1000"/>`)
		if ml.Label != "" {
			over.WriteString(`<span style="position:absolute;top:16px;left:` + pct(x) + `;transform:translateX(-50%);font-size:10px;white-space:nowrap;color:` + css(first(ml.Color, muted)) + `">` + esc(ml.Label) + `</span>`)
		}
	}
	// Grid lines at the ticks, and the x axis line.
	gridColor := "#e5e7eb"
	if y.SplitLine != nil && y.SplitLine.LineStyle.Color != "" {
		gridColor = y.SplitLine.LineStyle.Color
	}
	if y.SplitLine == nil || y.SplitLine.Show == nil || *y.SplitLine.Show {
		b.WriteString(`<path fill="none" stroke="` + css(gridColor) + `" stroke-width="1" vector-effect="non-scaling-stroke" d="`)
		for _, t := range ticks {
			b.WriteString("M0 " + num(yPos(t)) + "H1000")
		}
		b.WriteString(`"/>`)
	}
	base := min(max(0, ymin), ymax) // bars grow from 0, or from the axis' end nearest to it
	b.WriteString(`<path fill="none" stroke="` + css(muted) + `" stroke-width="1" vector-effect="non-scaling-stroke" d="M0 ` + num(yPos(base)) + `H1000"/>`)

	// Bars: the bar series share 70 % of each band (barCategoryGap 30 %).
	var bars []int
	for i, s := range o.Series {
		if s.Type == "bar" {
			bars = append(bars, i)
		}
	}
	band := span / float64(n)
	// Each bar series takes a slot of the band; one with barGap -100 %
	// lies over the previous series' slot.
	slot, slots := map[int]int{}, 0
	for _, i := range bars {
		if o.Series[i].BarGap == "-100%" && slots > 0 {
			slot[i] = slots - 1
		} else {
			slot[i] = slots
			slots++
		}
	}
	for _, i := range bars {
		s, k := o.Series[i], slot[i]
		w := band * 0.7 / float64(slots)
		c := seriesColor(o, i)
		if c == "transparent" {
			c = "none"
		}
		g, rectExtra := `<g fill="`+css(c)+`"`, ""
		if bc := css(s.ItemStyle.BorderColor); bc != "" && s.ItemStyle.BorderWidth > 0 {
			g += ` stroke="` + bc + `" stroke-width="` + num(s.ItemStyle.BorderWidth) + `"`
			rectExtra = ` vector-effect="non-scaling-stroke"`
		}
		b.WriteString(g + ` data-series="` + attr(s.Name) + `">`)
		showLabel := s.Label != nil && s.Label.Show != nil && *s.Label.Show
		for j, p := range vals[i] {
			if j >= n || !p.ok {
				continue
			}
			x0 := float64(j)*band + band*0.15 + float64(k)*w
			y0, y1 := yPos(clamp(p.v, ymin, ymax)), yPos(base)
			b.WriteString(`<rect x="` + num(x0) + `" y="` + num(min(y0, y1)) + `" width="` + num(w) + `" height="` + num(math.Abs(y1-y0)) + `"` + rectExtra + `/>`)
			if showLabel {
				lbl := strings.ReplaceAll(first(s.Label.Formatter, "{c}"), "{c}", jsString(p.v))
				over.WriteString(`<span style="position:absolute;left:` + pct(x0+w/2) + `;top:` + pct(min(y0, y1)) + `;transform:translate(-50%,-100%);padding-bottom:3px;white-space:nowrap;color:` + css(first(s.Label.Color, text)) + `">` + esc(lbl) + `</span>`)
			}
		}
		b.WriteString(`</g>`)
	}
	// Lines: one path per series, a new segment after each gap; dots where
	// ECharts shows symbols.
	for i, s := range o.Series {
		if s.Type != "line" {
			continue
		}
		c := first(s.LineStyle.Color, seriesColor(o, i))
		w := s.LineStyle.Width
		if w <= 0 {
			w = 2
		}
		var d, dots strings.Builder
		pen := false
		for j, p := range vals[i] {
			if j >= n {
				break
			}
			if !p.ok {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			pt := num(xPos(j)) + " " + num(yPos(clamp(p.v, ymin, ymax)))
			d.WriteString(cmd + pt)
			dots.WriteString("M" + pt + "h0")
			pen = true
		}
		b.WriteString(`<g data-series="` + attr(s.Name) + `"><path fill="none" stroke="` + css(c) + `" stroke-width="` + num(w) + `" stroke-linejoin="round" vector-effect="non-scaling-stroke" d="` + d.String() + `"/>`)
		if symbols(s, n) {
			size := s.SymbolSize
			if size <= 0 {
				size = 4
			}
			b.WriteString(`<path fill="none" stroke="` + css(first(s.ItemStyle.Color, c)) + `" stroke-width="` + num(size) + `" stroke-linecap="round" vector-effect="non-scaling-stroke" d="` + dots.String() + `"/>`)
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	b.WriteString(over.String())
	b.WriteString(`</div></div>`)
	return b.String()
}

// plotBox is the plot area's inset from the chart's edges, in CSS pixels:
// the option's grid (package app's defaults when it has none) with room
// for y labels of widest characters and one line of x labels, as ECharts'
// containLabel lays it out.
func plotBox(o option, widest int) (left, right, top, bottom int) {
	g := grid{Left: "8", Right: "40", Top: "28", Bottom: "8"}
	if len(o.Grid) > 0 {
		g = o.Grid[0]
	}
	return px(g.Left, 8) + widest*charWidth + labelGap, px(g.Right, 40), px(g.Top, 28), px(g.Bottom, 8) + labelLine + labelGap
}

// axisLabels are a category axis' labels; ok false when it has an item
// that is neither a string nor a number.
func axisLabels(a axis) ([]string, bool) { return a.Data.labels, a.Data.ok || a.Data.labels != nil }

// symbols reports whether ECharts draws the symbols of line series s over
// n categories: showSymbol if set (and a symbol other than "none"),
// otherwise ECharts' default, which hides them when the points are dense
// (taken here as more than 60, the threshold app's options use).
func symbols(s series, n int) bool {
	if s.Symbol == "none" {
		return false
	}
	if s.ShowSymbol != nil {
		return *s.ShowSymbol
	}
	return n <= 60
}

// Ticks returns the y axis' tick values from bottom to top, as ECharts'
// value axis (splitNumber 5) places them: the interval is "nice" (1, 2, 3
// or 5 times a power of ten, numberUtil.nice with rounding) near a fifth
// of the span, and the ends not fixed by min/max are rounded out to
// multiples of it. lo..hi is the data's extent; a fitted axis (scale
// false) includes zero. A span of zero is widened as ECharts does (half the
// value each way, or 0..1). A fixed end off the interval's multiples is
// still the end. nil when there is no such axis in float64: an end or the
// span not finite, or an interval lost in the values' precision (1e17 ..
// 1e17+32, 1 .. 1+1e-15, 0 .. 1e-300); Draw then leaves the chart to
// ECharts. Checked against ECharts 5.6 itself (TestTicksMatchECharts):
// like it, 0.3 / 0.1 floors to 2 in floating point, so 0.3..0.71 starts at
// 0.2.
func Ticks(lo, hi, fixedMin float64, okMin bool, fixedMax float64, okMax bool, scale bool) []float64 {
	if !scale {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	if okMin {
		lo = fixedMin
	}
	if okMax {
		hi = fixedMax
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		if lo != 0 {
			d := math.Abs(lo) / 2
			if !okMin {
				lo -= d
			}
			if !okMax {
				hi += d
			}
		} else if !okMax {
			hi = 1
		}
	}
	if !(lo < hi) || !finite(hi-lo) {
		return nil
	}
	step := nice((hi - lo) / 5)
	if !finite(step) || step <= 0 {
		return nil
	}
	if !okMin {
		lo = roundTo(math.Floor(lo/step)*step, step)
	}
	if !okMax {
		hi = roundTo(math.Ceil(hi/step)*step, step)
	}
	if !(lo < hi) || !finite(hi-lo) {
		return nil
	}
	ticks := []float64{lo}
	for t := roundTo(math.Floor(lo/step)*step+step, step); t < hi-step*1e-9; {
		if t > lo+step*1e-9 {
			ticks = append(ticks, t)
		}
		next := roundTo(t+step, step)
		if !(next > t) || len(ticks) > maxTicks {
			return nil // the step is lost in the values' precision
		}
		t = next
	}
	return append(ticks, hi)
}

// maxTicks bounds Ticks' loop: ECharts' splitNumber 5 gives at most 8 or
// so; more means rounding went wrong.
const maxTicks = 50

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// nice is ECharts' numberUtil.nice(v, true): v rounded to 1, 2, 3, 5 or 10
// times its power of ten, then to that power's decimals as ECharts does
// (3 * 0.1 is 0.30000000000000004 in floating point; its multiples
// printed as labels read "1.8000000000000003").
func nice(v float64) float64 {
	e := math.Floor(math.Log10(v))
	p := math.Pow10(int(e)) // exact, as JavaScript's Math.pow(10, e) for the exponents tested (math.Pow(10, 299) is not 1e299)
	f := v / p
	switch {
	case f < 1.5:
		f = 1
	case f < 2.5:
		f = 2
	case f < 4:
		f = 3
	case f < 7:
		f = 5
	default:
		f = 10
	}
	if e < -20 {
		return f * p // beyond toFixed's 20 decimals, as ECharts
	}
	return roundDecimals(f*p, int(max(0, -e)))
}

// roundDecimals is v rounded to d decimals, as JavaScript's +v.toFixed(d).
func roundDecimals(v float64, d int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', d, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// roundTo removes the float noise of v, a multiple of step.
func roundTo(v, step float64) float64 {
	return roundDecimals(v, decimalsOf(step))
}

// decimalsOf is the number of decimals that step's multiples need: those
// of step's shortest form, as ECharts' numberUtil.getPrecision (2e-13: 13;
// 0.05: 2), at most 20 as its round.
func decimalsOf(step float64) int {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(math.Abs(step), 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	d := 0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		d = len(frac)
	}
	return min(max(0, d-e), 20)
}

// jsString is v as JavaScript's String writes it (the shortest form;
// exponential from 1e21 and below 1e-6: "1e+21", "1.5e-7"), as ECharts
// writes a category's or a label's number.
func jsString(v float64) string {
	if a := math.Abs(v); a != 0 && a < 1e-6 {
		return jsExp(v)
	}
	return fixed(v)
}

// fixed is v as ECharts writes a value axis' label before grouping
// (Number's toFixed): plain decimals, exponential from 1e21 on; no "-0".
func fixed(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 1e21 {
		return jsExp(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// jsExp is v in JavaScript's exponential form: "1e+300", "-2.5e-7".
func jsExp(v float64) string {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	return mant + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
}

// commas groups an integer part's digits by three, as ECharts' addCommas
// (which leaves an exponential form as it is).
func commas(s string) string {
	if strings.ContainsRune(s, 'e') {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// format applies an axis label formatter: a "{value}" template, or the
// value itself for anything else (ECharts' function formatters).
func format(f any, v string) string {
	s, ok := f.(string)
	if !ok || !strings.Contains(s, "{value}") {
		return v
	}
	return strings.ReplaceAll(s, "{value}", v)
}

// number reads an axis min/max: a JSON number (not "dataMin" and the like).
func number(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// px reads a grid length in pixels ("8", 8); percentages and the rest give def.
func px(v any, def int) int {
	switch t := v.(type) {
	case float64:
		return int(t)
	case string:
		if n, err := strconv.Atoi(strings.TrimSuffix(t, "px")); err == nil {
			return n
		}
	}
	return def
}

func seriesColor(o option, i int) string {
	s := o.Series[i]
	if s.ItemStyle.Color != "" {
		return s.ItemStyle.Color
	}
	if s.LineStyle.Color != "" {
		return s.LineStyle.Color
	}
	if len(o.Color) > 0 {
		return o.Color[i%len(o.Color)]
	}
	return "#2563eb"
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// num is a coordinate in the 0..1000 box, to a tenth.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// pct is a position 0..1000 as a CSS percentage.
func pct(v float64) string { return strconv.FormatFloat(math.Round(v)/10, 'f', -1, 64) + "%" }

// attr escapes a value for a double-quoted attribute.
func attr(s string) string { return esc(s) }

// esc escapes a text (an element's content or a double-quoted attribute)
// and drops the characters XML does not allow (controls other than tab,
// newline and return; U+FFFE, U+FFFF), which a label value can hold: the
// drawing stays well-formed XML, and HTML would not show them either.
func esc(s string) string {
	return html.EscapeString(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			return r
		}
		return -1
	}, s))
}

// css is a colour for a style or a fill: s when it is a CSS colour's
// syntax (#hex; rgb(a)/hsl(a) of numbers; a name such as red or
// transparent), else "" (the default colour). No other CSS function
// (url(), var(), expression()) and no other declaration gets through.
func css(s string) string {
	switch {
	case strings.HasPrefix(s, "#"):
		if n := len(s) - 1; n != 3 && n != 4 && n != 6 && n != 8 {
			return ""
		}
		for _, r := range s[1:] {
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
				return ""
			}
		}
		return s
	case strings.ContainsRune(s, '('):
		fn, args, ok := strings.Cut(s, "(")
		if !ok || !strings.HasSuffix(args, ")") {
			return ""
		}
		switch strings.ToLower(fn) {
		case "rgb", "rgba", "hsl", "hsla":
		default:
			return ""
		}
		for _, r := range strings.TrimSuffix(args, ")") {
			if !(r >= '0' && r <= '9' || strings.ContainsRune("., %-+/", r) || r == 'd' || r == 'e' || r == 'g' || r == 'E') {
				return ""
			}
		}
		return s
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return ""
		}
	}
	return s
}
