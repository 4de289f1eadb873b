package chartsvg

import (
	"math"
	"strconv"
	"strings"
)

// visualMap is the part of an ECharts continuous visualMap that
// drawHeatmap reads.
type visualMap struct {
	Min, Max any
	Show     *bool    `json:"show"`
	Text     []string `json:"text"`
	InRange  struct {
		Color []string `json:"color"`
	} `json:"inRange"`
	TextStyle style `json:"textStyle"`
}

// Heatmap layout, in CSS pixels: ECharts' horizontal visualMap bar
// (itemHeight 140 long, itemWidth 20 thick) centred at the bottom.
const (
	mapLength = 140
	mapHeight = 20
)

// drawHeatmap draws a heatmap over two category axes: one rect per data
// item [x, y, value] filling its cell, coloured as the visualMap colours
// it (linear between its inRange colours over min..max), with the series'
// opacity; the y axis' first category at the bottom, as ECharts draws it;
// the visualMap's gradient and texts at the bottom. "" when the option is
// not such a heatmap.
func drawHeatmap(o option) string {
	xs, ok1 := axisLabels(o.XAxis[0])
	ys, ok2 := axisLabels(o.YAxis[0])
	if !ok1 || !ok2 || len(xs) == 0 || len(ys) == 0 || len(o.VisualMap) != 1 {
		return ""
	}
	vm := o.VisualMap[0]
	vmin, okMin := number(vm.Min)
	if !okMin {
		vmin = 0 // ECharts' default
	}
	vmax, okMax := number(vm.Max)
	if !okMax {
		vmax = 200 // ECharts' default (VisualMapModel.defaultOption)
	}
	stops := make([][4]float64, 0, len(vm.InRange.Color))
	for _, c := range vm.InRange.Color {
		if rgba, ok := parseHex(c); ok {
			stops = append(stops, rgba)
		}
	}
	if len(stops) == 0 || len(stops) != len(vm.InRange.Color) || vmax <= vmin {
		return ""
	}
	nx, ny := len(xs), len(ys)
	cw, ch := span/float64(nx), span/float64(ny)

	var cells strings.Builder
	drawn := 0
	for _, s := range o.Series {
		if s.Type != "heatmap" || s.YAxisIndex != 0 {
			return ""
		}
		opacity := 1.0
		if s.ItemStyle.Opacity != nil {
			opacity = math.Min(1, math.Max(0, *s.ItemStyle.Opacity))
		}
		cells.WriteString(`<g data-series="` + attr(s.Name) + `"`)
		if opacity < 1 {
			cells.WriteString(` opacity="` + strconv.FormatFloat(opacity, 'f', -1, 64) + `"`)
		}
		cells.WriteString(`>`)
		for _, item := range s.Data.cells { // gaps ("-") and other shapes have no cell
			i, j, v := int(item[0]), int(item[1]), item[2]
			if i < 0 || i >= nx || j < 0 || j >= ny || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			x0 := float64(i) * cw
			y0 := span - float64(j+1)*ch
			cells.WriteString(`<rect x="` + num(x0) + `" y="` + num(y0) + `" width="` + num(cw) + `" height="` + num(ch) + `" fill="` + lerp(stops, (v-vmin)/(vmax-vmin)) + `"/>`)
			drawn++
		}
		cells.WriteString(`</g>`)
	}
	if drawn == 0 {
		return ""
	}

	widest := 0
	for _, y := range ys {
		widest = max(widest, len([]rune(y)))
	}
	left, right, top, bottom := plotBox(o, widest)
	muted := first(o.XAxis[0].AxisLabel.Color, o.TextStyle.Color, "#6b7280")

	var b strings.Builder
	b.Grow(cells.Len() + 2048)
	b.WriteString(`<div class="chart-static" data-chart-static="" style="position:absolute;inset:0;overflow:hidden;font:12px sans-serif;color:` + css(muted) + `">`)
	b.WriteString(`<div style="position:absolute;left:` + strconv.Itoa(left) + `px;right:` + strconv.Itoa(right) + `px;top:` + strconv.Itoa(top) + `px;bottom:` + strconv.Itoa(bottom) + `px">`)
	for j, y := range ys {
		b.WriteString(`<span style="position:absolute;right:100%;margin-right:` + strconv.Itoa(labelGap) + `px;top:` + pct(span-(float64(j)+0.5)*ch) + `;transform:translateY(-50%);white-space:nowrap">` + esc(y) + `</span>`)
	}
	every := (nx + maxXLabels - 1) / maxXLabels
	for i := 0; i < nx; i += every {
		b.WriteString(`<span style="position:absolute;top:100%;margin-top:` + strconv.Itoa(labelGap) + `px;left:` + pct((float64(i)+0.5)*cw) + `;transform:translateX(-50%);white-space:nowrap">` + esc(xs[i]) + `</span>`)
	}
	b.WriteString(`<svg viewBox="0 0 1000 1000" preserveAspectRatio="none" style="position:absolute;left:0;top:0;width:100%;height:100%;overflow:visible" aria-hidden="true" shape-rendering="crispEdges">`)
	b.WriteString(cells.String())
	// The axis lines: left and bottom.
	b.WriteString(`<path fill="none" stroke="` + css(muted) + `" stroke-width="1" vector-effect="non-scaling-stroke" d="M0 0V1000H1000"/>`)
	b.WriteString(`</svg></div>`)

	// The visualMap: min text, gradient, max text (text[1] and text[0], as
	// ECharts places them on a horizontal map).
	if vm.Show == nil || *vm.Show {
		lo, hi := "", ""
		if len(vm.Text) == 2 {
			hi, lo = vm.Text[0], vm.Text[1]
		}
		grad := make([]string, len(stops))
		for i, st := range stops {
			grad[i] = rgbaString(st)
		}
		tc := first(vm.TextStyle.Color, muted)
		b.WriteString(`<div style="position:absolute;left:0;right:0;bottom:0;height:` + strconv.Itoa(mapHeight) + `px;display:flex;justify-content:center;align-items:center;gap:10px;color:` + css(tc) + `">`)
		b.WriteString(`<span>` + esc(lo) + `</span>`)
		b.WriteString(`<span style="display:inline-block;width:` + strconv.Itoa(mapLength) + `px;height:` + strconv.Itoa(mapHeight) + `px;background:linear-gradient(to right,` + strings.Join(grad, ",") + `)"></span>`)
		b.WriteString(`<span>` + esc(hi) + `</span></div>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

// parseHex reads #rgb or #rrggbb as RGBA (alpha 1).
func parseHex(c string) ([4]float64, bool) {
	c = strings.TrimPrefix(c, "#")
	if len(c) == 3 {
		c = string([]byte{c[0], c[0], c[1], c[1], c[2], c[2]})
	}
	if len(c) != 6 {
		return [4]float64{}, false
	}
	v, err := strconv.ParseUint(c, 16, 32)
	if err != nil {
		return [4]float64{}, false
	}
	return [4]float64{float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff), 1}, true
}

// lerp is the colour at t (0..1, clamped) along evenly spaced stops, each
// channel interpolated linearly and rounded, as ECharts' color.lerp.
func lerp(stops [][4]float64, t float64) string {
	t = math.Min(1, math.Max(0, t))
	if len(stops) == 1 {
		return rgbaString(stops[0])
	}
	pos := t * float64(len(stops)-1)
	i := int(math.Floor(pos))
	if i >= len(stops)-1 {
		return rgbaString(stops[len(stops)-1])
	}
	f := pos - float64(i)
	var c [4]float64
	for k := range 4 {
		c[k] = stops[i][k] + (stops[i+1][k]-stops[i][k])*f
	}
	return rgbaString(c)
}

func rgbaString(c [4]float64) string {
	ch := func(v float64) string { return strconv.Itoa(int(math.Round(math.Min(255, math.Max(0, v))))) }
	return "rgba(" + ch(c[0]) + "," + ch(c[1]) + "," + ch(c[2]) + "," + strconv.FormatFloat(math.Min(1, math.Max(0, c[3])), 'f', -1, 64) + ")"
}
