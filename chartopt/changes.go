package chartopt

import (
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"specdash/compute"
)

// ChangeMark is a vertical line at the first bucket after a change of the
// acceptance rate (ECharts markLine on a category x axis), labelled with
// the rates before and after: "62.0 % → 41.0 %". Its JSON is one
// markLine data item.
type ChangeMark struct {
	Name      string          `json:"name"`
	XAxis     int             `json:"xAxis"`
	Label     *opts.Label     `json:"label,omitempty"`
	LineStyle *opts.LineStyle `json:"lineStyle,omitempty"`
}

// changeLabel is "62.0 % → 41.0 %" (scale 100, unit %): the rates of the
// segments before and after, as the chart's values are shown.
func changeLabel(c compute.ChangePoint) string {
	return compute.FormatPercent(c.Before.Estimate, 1) + " → " + compute.FormatPercent(c.After.Estimate, 1)
}

// markText escapes ECharts' label template braces ({a}, {b}, ...) in s
// (label text is drawn on the canvas, not HTML).
func markText(s string) string {
	return strings.NewReplacer("{", "(", "}", ")").Replace(s)
}

// MarkChanges draws a dashed vertical line on series i of a time chart of
// acceptance rates (Lines) at each change point, in the series' colour,
// labelled with the rates before and after and named with the series'
// name (legend text) and the change's p-value. Nothing for a nil option,
// a series out of range or no changes.
func MarkChanges(o *Option, i int, changes []compute.ChangePoint, pText func(float64) string) {
	if o == nil || i < 0 || i >= len(o.Series) || len(changes) == 0 {
		return
	}
	s := &o.Series[i]
	color := ""
	if s.LineStyle != nil {
		color = s.LineStyle.Color
	}
	ml := &opts.MarkLines{MarkLineStyle: opts.MarkLineStyle{
		Symbol:    []string{"none", "none"},
		LineStyle: &opts.LineStyle{Color: color, Type: "dashed", Width: 1.5},
	}}
	for _, c := range changes {
		name := s.Name + ": acceptance changed " + changeLabel(c)
		if pText != nil {
			name += " (" + pText(c.PValue) + ")"
		}
		ml.Data = append(ml.Data, ChangeMark{
			Name:  markText(name),
			XAxis: c.Bucket,
			Label: &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Color: color, FontSize: 10,
				Formatter: types.FuncStr(markText(changeLabel(c)))},
		})
	}
	s.MarkLines = ml
}
