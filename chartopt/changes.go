package chartopt

import (
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"specdash/compute"
)

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

// MarkChanges draws a dashed vertical line (a MarkLineAt, as the marks of
// restarts: one markLine per series) on series i of a time chart of
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
	if s.MarkLine == nil {
		s.MarkLine = &MarkLine{Symbol: []string{"none", "none"}}
	}
	// Change marks are named for their tooltip: the line answers hovers.
	s.MarkLine.Silent = false
	for _, c := range changes {
		name := s.Name + ": acceptance changed " + changeLabel(c)
		if pText != nil {
			name += " (" + pText(c.PValue) + ")"
		}
		s.MarkLine.Data = append(s.MarkLine.Data, MarkLineAt{
			Name:      markText(name),
			XAxis:     c.Bucket,
			LineStyle: &opts.LineStyle{Color: color, Type: "dashed", Width: 1.5},
			Label: &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Color: color, FontSize: 10,
				Formatter: types.FuncStr(markText(changeLabel(c)))},
		})
	}
}
