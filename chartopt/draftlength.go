package chartopt

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"specdash/compute"
)

// LowerBoundMark is appended to the category label of a position whose
// per-position rate, read as the acceptance rate of that position, is a
// lower bound (drafts shorter than k: compute.CheckDraftLengths).
const LowerBoundMark = " (≥ lower bound)"

// lowerBounds returns compute.CheckDraftLengths of s's counts when some
// drafts were shorter than k and some position is a lower bound; nil
// otherwise.
func lowerBounds(s compute.Stats) []bool {
	d := compute.CheckDraftLengths(compute.Counts{Drafts: s.Drafts, DraftTokens: s.DraftTokens, AcceptedTokens: s.AcceptedTokens,
		AcceptedPerPosition: s.AcceptedPerPosition, DraftsAtPosition: s.DraftsAtPosition})
	if d.Shortfall <= 0 {
		return nil
	}
	for _, b := range d.LowerBound {
		if b {
			return d.LowerBound
		}
	}
	return nil
}

// markLowerBounds labels the lower-bound positions of the per-position
// chart o (labels in place) and draws an outlined bar over each of them:
// a series "lower bound (drafts shorter than k)" on top of the bars.
func markLowerBounds(o *Option, labels []string, bars Points, lb []bool, p Palette) {
	over := make(Points, len(bars))
	for i := range labels {
		if i < len(lb) && lb[i] {
			labels[i] += LowerBoundMark
			over[i] = bars[i]
		}
	}
	_, amber := fitColours(p)
	o.Series = append(o.Series, Series{SingleSeries: charts.SingleSeries{
		Name: "lower bound (drafts shorter than k)", Type: "bar", Data: over, BarGap: "-100%",
		ItemStyle: &opts.ItemStyle{Color: "transparent", BorderColor: amber, BorderWidth: 2},
	}})
	if len(o.XAxis) > 0 {
		o.XAxis[0].Data = labels
	}
}
