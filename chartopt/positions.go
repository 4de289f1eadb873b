package chartopt

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"specdash/compute"
	"specdash/model"
)

// barWithLines is the per-position chart's frame: category x axis of
// labels, a 0..100 % y axis, bars and lines over them (lines after the
// bars, drawn on top).
func barWithLines(labels []string, tooltip string, p Palette, bars Series, lines ...Series) *Option {
	o := base(tooltip, true, p)
	o.XAxis = []opts.XAxis{{Type: "category", Data: labels, AxisLabel: axisLabel(p, "")}}
	o.YAxis = []opts.YAxis{{Type: "value", Min: 0, Max: 100, AxisLabel: axisLabel(p, "{value} %"), SplitLine: splitLine(p)}}
	bars.Type, bars.BarCategoryGap = "bar", "30%"
	o.Series = append(o.Series, bars)
	for _, l := range lines {
		l.Type = "line"
		o.Series = append(o.Series, l)
	}
	return &o
}

func line(name string, data Points, color string) Series {
	return Series{SingleSeries: charts.SingleSeries{Name: name, Data: data,
		ItemStyle: &opts.ItemStyle{Color: color}, LineStyle: &opts.LineStyle{Color: color, Width: 2}}}
}

// PerPosition is the per-position acceptance chart: bars of the
// per-position acceptance rate (accepted at position / drafts, in percent
// 0..100, 1 decimal) and a line of the conditional rate (accepted at i /
// accepted at i-1: acceptance at position i given position i-1 was
// accepted; fit.Conditional). Undefined values are gaps. Nil when k = 0.
func PerPosition(s compute.Stats, fit compute.GeometricFit, p Palette) *Option {
	k := len(s.PerPositionAcceptanceRate)
	if k == 0 {
		return nil
	}
	labels := make([]string, k)
	bars := make(Points, k)
	cond := make(Points, k)
	for i, v := range s.PerPositionAcceptanceRate {
		labels[i] = PositionLabel(i)
		bars[i] = pct(v)
		if i < len(fit.Conditional) {
			cond[i] = pct(fit.Conditional[i])
		}
	}
	name := "per-position acceptance rate (of all drafts)"
	if s.DraftsAtPosition != nil {
		name = "per-position acceptance rate (of drafts by series with k ≥ pos)"
	}
	c := line("conditional rate (given previous accepted)", cond, p.Conditional)
	c.Symbol, c.SymbolSize = "circle", 7
	o := barWithLines(labels, "{b}<br/>accepted at this position: {c0} % of drafts<br/>given the previous position accepted: {c1} %", p,
		Series{SingleSeries: charts.SingleSeries{Name: name, Data: bars, ItemStyle: &opts.ItemStyle{Color: p.Bar},
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{c} %", Color: p.Text}}},
		c)
	if lb := lowerBounds(s); lb != nil {
		markLowerBounds(o, labels, bars, lb, p)
	}
	return o
}

// fitColours are the colours of the fitted curve and of the extrapolated
// rates in p's theme (red and amber of its series colours).
func fitColours(p Palette) (fit, extra string) {
	return p.Series[6%len(p.Series)], p.Conditional
}

// ExtrapolatedPositions are the 0-based positions beyond k the insights
// show: up to the best k when it is extrapolated, else two.
func ExtrapolatedPositions(d model.Estimates) []int {
	k := len(d.Positions)
	if !d.BestK.Alpha.OK || k == 0 {
		return nil
	}
	n := k + 2
	if d.BestK.BestExtrapolated && d.BestK.BestK > n {
		n = d.BestK.BestK
	}
	n = min(n, len(d.BestK.Points)-1)
	var out []int
	for i := k; i < n; i++ {
		out = append(out, i)
	}
	return out
}

// ExtrapolatedRate is FindBestK's extrapolation: rate[k-1] × alpha^(i-k+1).
func ExtrapolatedRate(d model.Estimates, i int) compute.Value {
	k := len(d.Positions)
	if k == 0 || i < k || !d.BestK.Alpha.OK || !d.Fit.Observed[k-1].OK {
		return compute.Value{}
	}
	return compute.Defined(d.Fit.Observed[k-1].V * math.Pow(d.BestK.Alpha.V, float64(i-k+1)))
}

// InsightsFit is the per-position chart with the fit: bars of the
// observed per-position acceptance rate (percent of drafts), the fitted
// geometric curve alpha^(i+1) as a line over them, and the extrapolated
// rates beyond k as a dashed line (marked "extrapolated"). Nil when there
// is no fit (no drafts or no per-position counts).
func InsightsFit(d model.Estimates, p Palette) *Option {
	k := len(d.Fit.Observed)
	if k == 0 || !d.Fit.Alpha.OK {
		return nil
	}
	extra := ExtrapolatedPositions(d)
	n := k + len(extra)
	labels := make([]string, n)
	bars, fit, ext := make(Points, n), make(Points, n), make(Points, n)
	for i := range n {
		labels[i] = PositionLabel(i)
		if i < k {
			bars[i], fit[i] = pct(d.Fit.Observed[i]), pct(d.Fit.Curve[i])
		} else {
			labels[i] += " (extrapolated)"
			ext[i] = pct(ExtrapolatedRate(d, i))
		}
	}
	if len(extra) > 0 {
		// Join the dashed line to the last observed bar.
		ext[k-1] = pct(d.Fit.Observed[k-1])
	}
	colorFit, colorExtra := fitColours(p)
	lines := []Series{line(fmt.Sprintf("geometric fit, α = %s", compute.FormatPercent(d.Fit.Alpha, 1)), fit, colorFit)}
	lines[0].ConnectNulls, lines[0].Symbol, lines[0].SymbolSize = opts.Bool(false), "circle", 6
	if len(extra) > 0 {
		e := line("extrapolated", ext, colorExtra)
		e.LineStyle.Type = "dashed"
		e.ConnectNulls, e.Symbol, e.SymbolSize = opts.Bool(false), "emptyCircle", 6
		lines = append(lines, e)
	}
	return barWithLines(labels, "{b}<br/>{a0}: {c0} %<br/>{a1}: {c1} %", p,
		Series{SingleSeries: charts.SingleSeries{Name: "observed (% of drafts)", Data: bars, ItemStyle: &opts.ItemStyle{Color: p.Bar}}},
		lines...)
}
