package chartopt

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"specdash/compute"
	"specdash/model"
)

// Marks are the irregularities of a window that the time charts mark
// (model.Model's Gaps and Resets; docs/RELIABILITY.md, "Resets and
// outages").
type Marks struct {
	// Gaps are runs of buckets without any sample of the selection;
	// Starts the runs in which engines that started inside the window
	// counted before their first sample (model.Model.StartGaps).
	Gaps, Starts []compute.Gap
	// Restarts are the buckets holding a counter restart, Backwards those
	// of series that go backwards more often than restarts explain
	// (ascending, distinct).
	Restarts, Backwards []int
}

// MarksOf returns the marks of m (nil m: none).
func MarksOf(m *model.Model) Marks {
	if m == nil {
		return Marks{}
	}
	r, b := m.RestartBuckets()
	var starts []compute.Gap
	for _, sg := range m.StartGaps {
		starts = append(starts, sg.Gap)
	}
	return Marks{Gaps: m.Gaps, Starts: starts, Restarts: r, Backwards: b}
}

// Mark labels (the charts' words for the marks).
const (
	MarkGapLabel        = "no data"
	MarkAfterGapLabel   = "holds the gap's counts"
	MarkStartLabel      = "not sampled yet"
	MarkAfterStartLabel = "holds counts since start"
	MarkRestartLabel    = "restart"
	MarkRestartsLabel   = "restarts"
	MarkBackwardsLabel  = "goes backwards"
)

// markRuns splits the buckets js (ascending) within 0..n-1 into runs whose
// neighbours lie at most max(1, n/12) buckets apart: the labels of lines
// closer than that (about 25 px on a phone's chart) overlap, so an engine
// in a restart loop would pile up a dashed line and a label per restart.
func markRuns(js []int, n int) [][2]int {
	near := max(1, n/12)
	var out [][2]int
	for _, j := range js {
		if j < 0 || j >= n {
			continue
		}
		if k := len(out) - 1; k >= 0 && j-out[k][1] <= near {
			out[k][1] = j
			continue
		}
		out = append(out, [2]int{j, j})
	}
	return out
}

// markColors are the colours of the marks in palette p: gap band, band of
// the bucket after a gap, restart line, backwards line.
func markColors(p Palette) (gap, after, restart, backwards string) {
	if p.Name == ThemeDark {
		return "rgba(148,163,184,0.22)", "rgba(251,191,36,0.22)", "#fb923c", "#f87171"
	}
	return "rgba(107,114,128,0.18)", "rgba(217,119,6,0.16)", "#ea580c", "#dc2626"
}

// markBandColors are the colours of the bands of runs of restarts and of
// backwards buckets in palette p (markRuns): the lines' colours, faint.
func markBandColors(p Palette) (restart, backwards string) {
	if p.Name == ThemeDark {
		return "rgba(251,146,60,0.18)", "rgba(248,113,113,0.18)"
	}
	return "rgba(234,88,12,0.12)", "rgba(220,38,38,0.12)"
}

// MarkLine is a series' mark lines: ECharts' markLine with its silent and
// symbol fields.
type MarkLine struct {
	Silent bool         `json:"silent,omitempty"`
	Symbol []string     `json:"symbol,omitempty"`
	Data   []MarkLineAt `json:"data"`
}

// MarkLineAt is one vertical mark line at category index XAxis, with its
// own style and label.
type MarkLineAt struct {
	Name      string          `json:"name,omitempty"`
	XAxis     int             `json:"xAxis"`
	LineStyle *opts.LineStyle `json:"lineStyle,omitempty"`
	Label     *opts.Label     `json:"label,omitempty"`
}

// Mark draws mk on series 0 of a time chart over n buckets (bucket j
// drawn at category j, its end): each gap (buckets From..To-1, from the
// point before it to its last point) as a band labelled "no data", the
// bucket after it (whose counts include the gap's) as a band labelled
// "holds the gap's counts", each start gap (engines counted before
// their first sample) the same way, labelled "not sampled yet" and
// "holds counts since start", and each restart and backwards bucket as a
// labelled vertical line at its point; restart (or backwards) buckets
// close together (markRuns) are one band from the first to the last,
// labelled "restarts" (or "goes backwards"). Marks outside 0..n-1 are left
// out. Nothing on a nil option or one without series.
func (o *Option) Mark(mk Marks, n int, p Palette) {
	if o == nil || len(o.Series) == 0 || n == 0 {
		return
	}
	gapC, afterC, restartC, backC := markColors(p)
	restartBand, backBand := markBandColors(p)
	band := func(a, z int, color, label string) []opts.MarkAreaData {
		return []opts.MarkAreaData{{Name: label, XAxis: a, MarkAreaStyle: opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: color},
			Label:     &opts.Label{Show: opts.Bool(true), Position: "insideTop", Color: p.Muted, FontSize: 10, Formatter: types.FuncStr(label)},
		}}, {XAxis: z}}
	}
	var areas []any
	for _, gp := range mk.Gaps {
		if gp.From < 0 || gp.To >= n || gp.From >= gp.To {
			continue
		}
		areas = append(areas, band(max(gp.From-1, 0), gp.To-1, gapC, MarkGapLabel), band(gp.To-1, gp.To, afterC, MarkAfterGapLabel))
	}
	for _, gp := range mk.Starts {
		if gp.From < 0 || gp.To >= n || gp.From >= gp.To {
			continue
		}
		areas = append(areas, band(max(gp.From-1, 0), gp.To-1, gapC, MarkStartLabel), band(gp.To-1, gp.To, afterC, MarkAfterStartLabel))
	}
	var lines []MarkLineAt
	line := func(js []int, color, band, label, runLabel string) {
		for _, r := range markRuns(js, n) {
			if r[0] < r[1] {
				areas = append(areas, []opts.MarkAreaData{{Name: runLabel, XAxis: r[0], MarkAreaStyle: opts.MarkAreaStyle{
					ItemStyle: &opts.ItemStyle{Color: band},
					Label:     &opts.Label{Show: opts.Bool(true), Position: "insideTop", Color: color, FontSize: 10, Formatter: types.FuncStr(runLabel)},
				}}, {XAxis: r[1]}})
				continue
			}
			lines = append(lines, MarkLineAt{Name: label, XAxis: r[0],
				LineStyle: &opts.LineStyle{Color: color, Width: 1.5, Type: "dashed"},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Color: color, FontSize: 10, Formatter: types.FuncStr(label)}})
		}
	}
	line(mk.Restarts, restartC, restartBand, MarkRestartLabel, MarkRestartsLabel)
	line(mk.Backwards, backC, backBand, MarkBackwardsLabel, MarkBackwardsLabel)
	if len(areas) > 0 {
		s := &o.Series[0]
		if s.MarkArea == nil {
			s.MarkArea = &MarkArea{Silent: true}
		}
		s.MarkArea.Data = append(s.MarkArea.Data, areas...)
	}
	if len(lines) > 0 {
		s := &o.Series[0]
		if s.MarkLine == nil {
			s.MarkLine = &MarkLine{Silent: true, Symbol: []string{"none", "none"}}
		}
		s.MarkLine.Data = append(s.MarkLine.Data, lines...)
	}
}
