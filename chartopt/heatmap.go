package chartopt

import (
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"specdash/compute"
	"specdash/model"
)

// HeatmapColumns is the heatmap of the model's columns (model.Heatmap):
// each column labelled with the end of its last bucket (of the n-bucket
// grid g, in loc). Nil without per-position data.
func HeatmapColumns(h model.Heatmap, g compute.Grid, n int, loc *time.Location, p Palette) *Option {
	if h.K == 0 {
		return nil
	}
	all := TimeLabels(g, n, loc)
	labels := make([]string, len(h.Last))
	for c, last := range h.Last {
		labels[c] = all[last]
	}
	return heatmap(labels, h.Stats, h.K, h.Complete, p)
}

// Heatmap is the per-position acceptance rate over time, one column per
// bucket: x = bucket end, y = pos 1..k, colour = accepted at position /
// drafts of the bucket (percent). Buckets without drafts are left blank;
// incomplete buckets are drawn at half opacity (their cells are series 1,
// the others series 0). Nil when k = 0 or no buckets.
func Heatmap(g compute.Grid, buckets []compute.Stats, k, complete int, loc *time.Location, p Palette) *Option {
	return heatmap(TimeLabels(g, len(buckets), loc), buckets, k, complete, p)
}

// heatmap is Heatmap with its x labels given (one per column).
func heatmap(labels []string, buckets []compute.Stats, k, complete int, p Palette) *Option {
	n := len(buckets)
	if k == 0 || n == 0 || len(labels) != n {
		return nil
	}
	ys := make([]string, k)
	for i := range ys {
		ys[i] = PositionLabel(i)
	}
	cells := func(from, to int) Cells {
		out := Cells{}
		for j := from; j < to; j++ {
			for i := 0; i < k && i < len(buckets[j].PerPositionAcceptanceRate); i++ {
				if v := pct(buckets[j].PerPositionAcceptanceRate[i]); v.OK {
					out = append(out, Cell{X: j, Y: i, V: v.V})
				}
			}
		}
		return out
	}
	complete = min(max(complete, 0), n)
	final, incomplete := cells(0, complete), cells(complete, n)
	o := base("", false, p)
	o.Tooltip.Trigger, o.Tooltip.Formatter = "item", "{c} % of drafts accepted at this position"
	o.Grid[0].Bottom = "44"
	o.XAxis = []opts.XAxis{{Type: "category", Data: labels, AxisLabel: axisLabel(p, ""), SplitArea: &opts.SplitArea{Show: opts.Bool(false)}}}
	o.YAxis = []opts.YAxis{{Type: "category", Data: ys, AxisLabel: axisLabel(p, "")}}
	o.VisualMap = []opts.VisualMap{{Show: opts.Bool(true), Min: 0, Max: 100, Calculable: opts.Bool(false), Orient: "horizontal", Left: "center", Bottom: "0",
		Text: []string{"100 %", "0 %"}, TextStyle: &opts.TextStyle{Color: p.Muted}, InRange: &opts.VisualMapInRange{Color: p.Heat}}}
	s := Series{SingleSeries: charts.SingleSeries{Name: "per-position acceptance rate", Type: "heatmap", Data: final, Progressive: opts.Int(0)}}
	o.Series = []Series{s}
	if len(incomplete) > 0 {
		// The incomplete buckets' cells: the same series at half opacity.
		s.Data = incomplete
		s.ItemStyle = &opts.ItemStyle{Opacity: opts.Float(0.45)}
		o.Series = append(o.Series, s)
	}
	o.zoomable(p)
	return &o
}
