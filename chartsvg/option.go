package chartsvg

import (
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/opts"

	"specdash/chartopt"
)

// DrawOption is Draw of a typed option (chartopt: the dashboard's
// charts), read field by field: no JSON in between.
func DrawOption(o *chartopt.Option) string {
	if o == nil {
		return ""
	}
	return draw(fromOption(o))
}

// fromOption is the part of o that Draw reads.
func fromOption(o *chartopt.Option) option {
	out := option{Color: o.Color, TextStyle: style{Color: o.TextStyle.Color}}
	out.Legend = &struct {
		Show      *bool `json:"show"`
		TextStyle style `json:"textStyle"`
	}{Show: o.Legend.Show}
	if ts := o.Legend.TextStyle; ts != nil {
		out.Legend.TextStyle.Color = ts.Color
	}
	for _, g := range o.Grid {
		out.Grid = append(out.Grid, grid{Left: g.Left, Right: g.Right, Top: g.Top, Bottom: g.Bottom})
	}
	for _, x := range o.XAxis {
		out.XAxis = append(out.XAxis, fromAxis(x.Type, x.Data, x.Min, x.Max, x.Scale, x.AxisLabel, x.SplitLine))
	}
	for _, y := range o.YAxis {
		out.YAxis = append(out.YAxis, fromAxis(y.Type, y.Data, y.Min, y.Max, y.Scale, y.AxisLabel, y.SplitLine))
	}
	for _, s := range o.Series {
		out.Series = append(out.Series, fromSeries(s))
	}
	for _, v := range o.VisualMap {
		vm := visualMap{Min: f32(v.Min), Max: f32(v.Max), Show: v.Show, Text: v.Text}
		if v.InRange != nil {
			vm.InRange.Color = v.InRange.Color
		}
		if v.TextStyle != nil {
			vm.TextStyle.Color = v.TextStyle.Color
		}
		out.VisualMap = append(out.VisualMap, vm)
	}
	return out
}

func fromAxis(typ string, data, lo, hi any, scale *bool, label *opts.AxisLabel, split *opts.SplitLine) axis {
	a := axis{Type: typ, Min: asNumber(lo), Max: asNumber(hi), Scale: scale != nil && *scale}
	if labels, ok := data.([]string); ok {
		a.Data = categories{labels: labels, ok: true}
	}
	if label != nil {
		a.AxisLabel.Color = label.Color
		if label.Formatter != "" {
			a.AxisLabel.Formatter = string(label.Formatter)
		}
	}
	if split != nil {
		a.SplitLine = &struct {
			Show      *bool `json:"show"`
			LineStyle style `json:"lineStyle"`
		}{Show: split.Show}
		if split.LineStyle != nil {
			a.SplitLine.LineStyle.Color = split.LineStyle.Color
		}
	}
	return a
}

func fromSeries(s chartopt.Series) series {
	out := series{Type: s.Type, Name: s.Name, YAxisIndex: s.YAxisIndex, ShowSymbol: s.ShowSymbol, Symbol: s.Symbol, BarGap: s.BarGap}
	switch d := s.Data.(type) {
	case chartopt.Points:
		out.Data.points = make([]point, len(d))
		for j, p := range d {
			out.Data.points[j] = point{p.V, p.OK && !math.IsNaN(p.V) && !math.IsInf(p.V, 0)}
		}
	case chartopt.Cells:
		for _, c := range d {
			out.Data.cells = append(out.Data.cells, [3]float64{float64(c.X), float64(c.Y), c.V})
		}
	}
	if f, ok := asNumber(s.SymbolSize).(float64); ok {
		out.SymbolSize = f
	}
	if is := s.ItemStyle; is != nil {
		out.ItemStyle.Color = is.Color
		out.ItemStyle.BorderColor, out.ItemStyle.BorderWidth = is.BorderColor, float64(is.BorderWidth)
		if is.Opacity != nil {
			op := f32(*is.Opacity)
			out.ItemStyle.Opacity = &op
		}
	}
	if ls := s.LineStyle; ls != nil {
		out.LineStyle.Color, out.LineStyle.Width = ls.Color, f32(ls.Width)
	}
	if l := s.Label; l != nil {
		out.Label = &struct {
			Show      *bool  `json:"show"`
			Formatter string `json:"formatter"`
			Color     string `json:"color"`
		}{Show: l.Show, Formatter: string(l.Formatter), Color: l.Color}
	}
	if ml := s.MarkLine; ml != nil {
		for _, d := range ml.Data {
			m := markLine{X: d.XAxis}
			if d.LineStyle != nil {
				m.Color = d.LineStyle.Color
			}
			if l := d.Label; l != nil && (l.Show == nil || *l.Show) {
				m.Label = string(l.Formatter)
			}
			out.MarkLines = append(out.MarkLines, m)
		}
	}
	if ma := s.MarkArea; ma != nil {
		out.MarkArea = &markArea{}
		if ma.ItemStyle != nil {
			out.MarkArea.ItemStyle.Color = ma.ItemStyle.Color
		}
		if l := ma.Label; l != nil {
			out.MarkArea.Label.Show, out.MarkArea.Label.Formatter, out.MarkArea.Label.Color = l.Show, string(l.Formatter), l.Color
		}
		for _, d := range ma.Data {
			pair, ok := d.([]opts.MarkAreaData)
			if !ok {
				continue
			}
			var ends []markAreaEnd
			for _, e := range pair {
				var end markAreaEnd
				if f, ok := asNumber(e.XAxis).(float64); ok {
					end.XAxis = &f
				}
				if e.ItemStyle != nil {
					end.Color = e.ItemStyle.Color
				}
				if l := e.Label; l != nil && (l.Show == nil || *l.Show) {
					end.Label = string(l.Formatter)
				}
				ends = append(ends, end)
			}
			out.MarkArea.Data = append(out.MarkArea.Data, ends)
		}
	}
	return out
}

// asNumber is v as a float64 (as JSON would decode it) when it is a Go
// number, else v.
func asNumber(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case float32:
		return f32(n)
	}
	return v
}

// f32 is the float64 of the shortest decimal of f, as f reads in JSON
// (0.45, not 0.44999998807907104).
func f32(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}
