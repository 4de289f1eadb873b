package chartopt

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"specdash/compute"
	"specdash/model"
)

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

// Lines is a time chart over g's buckets with one line per model.Line (its
// name shown as text: legend on the canvas, tooltip escaped); values
// are multiplied by scale and rounded to decimals; undefined values are
// gaps (connectNulls off), never zeros. Buckets from complete on are
// shaded as incomplete. unit follows every number; yMin/yMax fix the axis
// (nil: fitted). Nil without lines or buckets.
func Lines(g compute.Grid, lines []model.Line, complete int, scale float64, decimals int, unit string, yMin, yMax any, loc *time.Location, p Palette) *Option {
	if len(lines) == 0 || len(lines[0].Values) == 0 {
		return nil
	}
	n := len(lines[0].Values)
	var tip strings.Builder
	tip.WriteString("{b}")
	for i, l := range lines {
		tip.WriteString("<br/>" + tplText(l.Name) + ": {c" + strconv.Itoa(i) + "} " + tplText(unit))
	}
	o := base(tip.String(), len(lines) > 1, p)
	o.XAxis = []opts.XAxis{{Type: "category", Data: TimeLabels(g, n, loc), AxisLabel: axisLabel(p, "")}}
	o.YAxis = []opts.YAxis{{Type: "value", Min: yMin, Max: yMax, Scale: opts.Bool(yMin == nil), AxisLabel: axisLabel(p, "{value} "+unit), SplitLine: splitLine(p)}}
	for i, l := range lines {
		color := p.Series[i%len(p.Series)]
		o.Series = append(o.Series, Series{SingleSeries: charts.SingleSeries{
			Name: l.Name, Type: "line", Data: points(l.Values, n, scale, decimals),
			Animation: opts.Bool(false), ConnectNulls: opts.Bool(false), ShowSymbol: opts.Bool(n <= 60), Symbol: "circle", SymbolSize: 5,
			LineStyle: &opts.LineStyle{Color: color, Width: 2}, ItemStyle: &opts.ItemStyle{Color: color},
		}})
	}
	o.zoomable(p)
	o.markIncomplete(n, complete, p)
	return &o
}

// Throughput is the drafted, accepted and rejected (drafted - accepted)
// token throughput per bucket, tokens/s (model.TokenRatesOf).
func Throughput(g compute.Grid, buckets []compute.Stats, complete int, loc *time.Location, p Palette) *Option {
	t := model.TokenRatesOf(buckets, 0)
	return Lines(g, []model.Line{{Name: "drafted", Values: t.Drafted}, {Name: "accepted", Values: t.Accepted}, {Name: "rejected", Values: t.Rejected}}, complete, 1, 2, "tokens/s", 0, nil, loc, p)
}
