package view

import (
	"fmt"
	"slices"
	"time"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"specdash/report"
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

// ChangeSeries maps each drawn line of the acceptance-rate chart to the
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

// MarkRateChanges draws the change points of each drawn line on the
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

// LatencyLines are the ITL quantile lines of m (nil without latency).
func LatencyLines(m *model.Model) []model.Line {
	if m == nil {
		return nil
	}
	return chartopt.ITLLines(m.Latency)
}

// Charts is what the dashboard draws, derived from a result, the query's
// look (theme, time zone, sort order) and the split group: the lines of
// the time charts and every chart's option (Build).
type Charts struct {
	// Key is what the charts were built for (the dashboard's cache key).
	Key    string
	Pal    chartopt.Palette
	Loc    *time.Location
	Groups []model.Group // sorted as the table shows them
	Rate   []model.Line  // per group: acceptance rate (ratio) per bucket
	Length []model.Line  // per group: mean acceptance length (tokens/draft)
	Drafts []model.Line  // per group: drafts/s
	Tokens []model.Line  // total: drafted, accepted, rejected tokens/s
	Drawn  int           // groups drawn as lines (the busiest MaxLines)
	// HeatFirst[c] is the first bucket of heatmap column c
	// (model.Model.Heatmap).
	HeatFirst []int
	// Specs are the charts' typed options (by chart name), Options their
	// JSON.
	Specs   map[string]*chartopt.Option
	Options map[string]string
}

// Set keeps chart name's option.
func (v *Charts) Set(name string, o *chartopt.Option) {
	v.Specs[name], v.Options[name] = o, o.JSON()
}

// Averaged is one row of a gauge schema's time averages: Length in the
// query's convention (model.Group.Stats), with its number of values.
type Averaged struct {
	Name         string
	Length, Rate compute.GaugeAverage
}

// AveragedRow is group g's row of time averages.
func AveragedRow(g model.Group) Averaged {
	a := Averaged{Name: g.Name, Length: g.Averaged.MeanAcceptanceLength, Rate: g.Averaged.AcceptanceRate}
	a.Length.Value = g.Stats.MeanAcceptanceLength
	return a
}

// Build derives the charts of res shown for q, the split charts (per-position,
// heatmap, token flow) showing group split (Result.SplitModel). Without a
// result it holds the palette and time zone only.
func Build(res *Result, q Query, split string) Charts {
	v := Charts{Pal: chartopt.PaletteFor(q.Theme), Loc: q.Location(), Specs: map[string]*chartopt.Option{}, Options: map[string]string{}}
	if r := res; r != nil {
		v.Groups = SortGroups(r.Groups, q.Sort)
		byDrafts := slices.Clone(r.Groups)
		slices.SortStableFunc(byDrafts, func(a, b model.Group) int {
			switch {
			case a.Stats.Drafts > b.Stats.Drafts:
				return -1
			case a.Stats.Drafts < b.Stats.Drafts:
				return 1
			}
			return 0
		})
		single := r.Ungrouped()
		for _, g := range byDrafts {
			l := model.LinesOf(g)
			rn, ln, dn := g.Name, g.Name, g.Name
			if single {
				rn, ln, dn = "acceptance rate", "mean acceptance length", "drafts/s"
			}
			v.Rate = append(v.Rate, model.Line{Name: rn, Values: l.Rate})
			v.Length = append(v.Length, model.Line{Name: ln, Values: l.Length})
			v.Drafts = append(v.Drafts, model.Line{Name: dn, Values: l.DraftsPerSecond})
		}
		v.Drawn = min(len(v.Rate), MaxLines)
		sub := res.SplitModel(split) // per-position, heatmap, token flow: one group or the blend (SplitModel)
		t := sub.TokenRates()
		v.Tokens = []model.Line{{Name: "drafted", Values: t.Drafted}, {Name: "accepted", Values: t.Accepted}, {Name: "rejected", Values: t.Rejected}}

		g, c, p, loc := r.Grid, r.Complete, v.Pal, v.Loc
		v.Set(ChartPerPosition, chartopt.PerPosition(sub.Stats, sub.Fit, p))
		h := sub.Heatmap()
		v.HeatFirst = h.First
		v.Set(ChartHeatmap, chartopt.HeatmapColumns(h, g, len(r.Buckets), loc, p))
		// Gaps and restarts (model.Model.Gaps, Resets) marked on the
		// acceptance-rate and throughput charts.
		marks := chartopt.MarksOf(&r.Model)
		rate := chartopt.Lines(g, v.Rate[:v.Drawn], c, 100, 1, "%", 0, 100, loc, p)
		rate.Mark(marks, len(r.Buckets), p)
		MarkRateChanges(rate, r, v.Rate[:v.Drawn], single)
		v.Set(ChartAcceptanceRate, rate)
		v.Set(ChartAcceptanceLength, chartopt.Lines(g, v.Length[:v.Drawn], c, 1, 3, "tokens", nil, nil, loc, p))
		tput := chartopt.Lines(g, v.Tokens, c, 1, 2, "tokens/s", 0, nil, loc, p)
		tput.Mark(marks, len(r.Buckets), p)
		v.Set(ChartThroughput, tput)
		v.Set(ChartDrafts, chartopt.Lines(g, v.Drafts[:v.Drawn], c, 1, 2, "drafts/s", 0, nil, loc, p))
		v.Set(ChartLatency, chartopt.InterTokenLatency(g, r.Latency, c, loc, p))
	}
	return v
}

// Table is the data behind the dashboard's panel called name (a chart
// name, "breakdown" or "compare"), from the charts c built for res, q and
// split: the split charts export what they show, one group or the blend.
func (c *Charts) Table(name string, res *Result, q Query, split string) report.Table {
	var m *model.Model
	if res != nil {
		m = &res.Model
	}
	switch name {
	case "breakdown":
		return report.BreakdownTable(m, c.Groups)
	case ChartPerPosition:
		return report.PerPositionTable(res.SplitModel(split))
	case ChartHeatmap:
		return report.HeatmapTable(res.SplitModel(split))
	case ChartAcceptanceRate:
		return report.LinesTable(name, m, c.Rate, "ratio")
	case ChartAcceptanceLength:
		return report.LinesTable(name, m, c.Length, "tokens per draft")
	case ChartThroughput:
		return report.LinesTable(name, res.SplitModel(split), c.Tokens, "tokens/s")
	case ChartDrafts:
		return report.LinesTable(name, m, c.Drafts, "drafts/s")
	case ChartLatency:
		return report.LinesTable(name, m, LatencyLines(m), "seconds")
	case "compare":
		return report.CompareTable(Compare(res, q))
	}
	return report.Table{Name: name}
}

// LineNote is added to the per-group time charts' notes when they draw
// fewer groups than the table holds; "" otherwise.
func (c *Charts) LineNote() string {
	if c.Drawn >= len(c.Rate) {
		return ""
	}
	return fmt.Sprintf(" The %d groups with the most drafts are drawn; the table and the export hold all %d.", c.Drawn, len(c.Rate)) +
		" " + chartopt.PaletteNote(len(c.Rate))
}

// RateChange is one change of the acceptance rate listed under its chart.
type RateChange struct {
	At int64 // Unix ms
	// Text is "<group>: acceptance rate changed at 14:05 from 62.0 % to
	// 41.0 % (p < 0.001)" (no group when not grouped).
	Text string
	// Href is the compare view of the windows before and after it.
	Href string
}

// RateChanges are the changes of each drawn line of the acceptance-rate
// chart of res shown for q (model.Model.ChangesOf).
func (c *Charts) RateChanges(res *Result, q Query) []RateChange {
	if res == nil {
		return nil
	}
	single := len(res.Query.GroupBy) == 0
	lines := c.Rate[:c.Drawn]
	var out []RateChange
	for i, cps := range ChangeSeries(res, lines, single) {
		for _, ch := range res.ChangesOf(cps) {
			text := ch.Text(ChangeTime(ch.At, res.Grid, c.Loc))
			if !single {
				text = lines[i].Name + ": " + text
			}
			out = append(out, RateChange{At: ch.At, Text: text, Href: q.CompareHref(ch)})
		}
	}
	return out
}
