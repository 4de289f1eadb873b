package view

import (
	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"time"
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
// groups with the most drafts; the table lists all): as many as the
// palette has distinct colours, so no two lines share one.
const MaxLines = chartopt.SeriesColors

// changeSeries maps each drawn line of the acceptance-rate chart to the
// change points of its group (the selection's when not grouped).
func ChangeSeries(r *Result, lines []model.Line, single bool) [][]compute.ChangePoint {
	out := make([][]compute.ChangePoint, len(lines))
	if single {
		if len(lines) > 0 {
			out[0] = r.Changes
		}
		return out
	}
	byName := map[string][]compute.ChangePoint{}
	for _, g := range r.Groups {
		byName[g.Name] = g.Changes
	}
	for i, l := range lines {
		out[i] = byName[l.Name]
	}
	return out
}

// markRateChanges draws the change points of each drawn line on the
// acceptance-rate chart (chartopt.MarkChanges).
func MarkRateChanges(o *chartopt.Option, r *Result, lines []model.Line, single bool) {
	for i, cps := range ChangeSeries(r, lines, single) {
		chartopt.MarkChanges(o, i, cps, model.PText)
	}
}

// ChartInsightsFit is the data-chart name of the insights chart.
const ChartInsightsFit = "insights-fit"

// ChartLatency is the latency panel's chart (inter-token latency
// quantiles per bucket).
const ChartLatency = "inter-token-latency"

// latencyLines are the ITL quantile lines of m (nil without latency).
func LatencyLines(m *model.Model) []model.Line {
	if m == nil {
		return nil
	}
	return chartopt.ITLLines(m.Latency)
}

// view is what Render draws, derived from the last result and the query's
// look (theme, time zone, sort order); recomputed only when one of them
// changes.
type Charts struct {
	Key    string
	Pal    chartopt.Palette
	Loc    *time.Location
	Groups []model.Group // sorted as the table shows them
	Rate   []model.Line  // per group: acceptance rate (ratio) per bucket
	Length []model.Line  // per group: mean acceptance length (tokens/draft)
	Drafts []model.Line  // per group: drafts/s
	Tokens []model.Line  // total: drafted, accepted, rejected tokens/s
	Drawn  int           // groups drawn as lines (the busiest MaxLines)
	// heatFirst[c] is the first bucket of heatmap column c (HeatmapColumns).
	HeatFirst []int
	// specs are the charts' typed options, options their JSON.
	Specs   map[string]*chartopt.Option
	Options map[string]string
}

// set keeps chart name's option.
func (v *Charts) Set(name string, o *chartopt.Option) {
	v.Specs[name], v.Options[name] = o, o.JSON()
}

// averaged is one row of a gauge schema's time averages: Length in the
// query's convention (model.Group.Stats), with its number of values.
type Averaged struct {
	Name         string
	Length, Rate compute.GaugeAverage
}

func AveragedRow(g model.Group) Averaged {
	a := Averaged{Name: g.Name, Length: g.Averaged.MeanAcceptanceLength, Rate: g.Averaged.AcceptanceRate}
	a.Length.Value = g.Stats.MeanAcceptanceLength
	return a
}
