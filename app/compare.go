package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
)

// CompareResult compares two sides, A (baseline: the earlier window or the
// first group) and B (model.Sides).
type CompareResult = model.Sides

// Compare builds the comparison of q.Compare from a result: the baseline
// window against the current one (CompareWindow), or groups q.CompareA and
// q.CompareB of the breakdown (CompareGroups; the first two groups when
// unset).
func Compare(res *Result, q Query) CompareResult {
	var out CompareResult
	switch {
	case res == nil:
		out.Reason = "no data loaded yet"
	case q.Compare == CompareWindow:
		out = res.CompareBaseline()
		if out.Reason == "" {
			loc := q.Location()
			out.AName = "before: " + windowText(res.Baseline.Grid.Start, res.Baseline.Grid.End, loc)
			out.BName = "after: " + windowText(res.Grid.Start, res.Grid.End, loc)
		}
	case q.Compare == CompareGroups && len(res.Query.Grouping()) == 0:
		out.Reason = "choose a group-by label with at least two groups to compare groups"
	case q.Compare == CompareGroups:
		out = res.CompareGroups(q.CompareA, q.CompareB)
	default:
		out.Reason = "comparison off"
	}
	out.Mode = q.Compare
	return out
}

// NotDrafted is the text of a compared position that one side never drafts
// (model.NotDrafted).
const NotDrafted = model.NotDrafted

func windowText(start, end int64, loc *time.Location) string {
	return time.UnixMilli(start).In(loc).Format("01-02 15:04:05") + " – " + time.UnixMilli(end).In(loc).Format("01-02 15:04:05")
}

func (d *Dashboard) comparison() CompareResult { return Compare(d.res, d.q) }

// signedPoints formats a difference of ratios in percentage points
// ("+1.5 pp", "0.0 pp").
func signedPoints(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return signed(v.V*100, 1) + " pp"
}

// signed prints a difference with decimals decimals and an explicit sign,
// except for a value that rounds to zero (and -0): "0.00", never "-0.00"
// or "+0.00".
func signed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-+0.") == "" {
		return strings.TrimPrefix(s, "-")
	}
	if v > 0 {
		return "+" + s
	}
	return s
}

func verdict(c compute.Comparison) (string, string) {
	switch {
	case c.Reason != "":
		return c.Reason, "na"
	case !c.Significant:
		return "no: within chance", "no"
	case c.Difference.V > 0:
		return "yes: B higher", "yes"
	default:
		return "yes: B lower", "yes"
	}
}

// directionClass colours a significant difference by what it means: a
// higher acceptance rate in B is better (green), a lower one worse (red);
// "" when not significant.
func directionClass(c compute.Comparison) string {
	switch {
	case c.Reason != "" || !c.Significant || !c.Difference.OK:
		return ""
	case c.Difference.V > 0:
		return "compare-better"
	case c.Difference.V < 0:
		return "compare-worse"
	}
	return ""
}

func (d *Dashboard) renderCompare(v *view) app.UI {
	mode := d.q.Compare
	controls := []app.UI{
		selectBoxTip("compare", "Compare", "Compare two time windows (before/after) or two groups of the breakdown, with 95 % intervals.", mode, []selectOpt{
			{CompareOff, "off"}, {CompareWindow, "before / after (two windows)"}, {CompareGroups, "two groups"},
		}, d.onSelect("compare")),
	}
	loc := d.q.Location()
	switch mode {
	case CompareWindow:
		var from, to int64
		if d.res != nil && d.res.Baseline != nil {
			from, to = d.res.Baseline.Grid.Start, d.res.Baseline.Grid.End
		}
		controls = append(controls,
			app.Label().Class("control").For("base-from").Title("Baseline (before) window start; empty: the window just before the current one").Body(
				app.Span().Class("control-label").Text("Before: from"),
				timeInput("base-from", from, loc, d.onTime(true)),
			),
			app.Label().Class("control").For("base-to").Body(
				app.Span().Class("control-label").Text("Before: to"),
				timeInput("base-to", to, loc, d.onTime(true)),
			),
			app.Span().Class("control-hint").Text("After = the dashboard's window."),
		)
	case CompareGroups:
		var opts []selectOpt
		if d.res != nil {
			for _, g := range d.res.Groups {
				opts = append(opts, selectOpt{encodeOption(g.Key), g.Name})
			}
		}
		c := d.comparison()
		curA, curB := "", ""
		if d.res != nil {
			for _, g := range d.res.Groups {
				if g.Name == c.AName && curA == "" {
					curA = encodeOption(g.Key)
				}
				if g.Name == c.BName {
					curB = encodeOption(g.Key)
				}
			}
		}
		controls = append(controls,
			selectBoxTip("compare-a", "A (baseline)", "The group compared against", curA, opts, d.onSelect("compare-a")),
			selectBoxTip("compare-b", "B", "The group compared with A", curB, opts, d.onSelect("compare-b")),
		)
	}
	body := []app.UI{app.Div().Class("compare-controls").Body(controls...)}
	if mode != CompareOff {
		body = append(body, d.renderCompareTable(d.comparison()))
	}
	note := "Differences of acceptance rates with Newcombe's 95 % interval (hybrid score, from Wilson intervals); significant when the interval excludes 0. Token trials are not independent: confirm on the per-position rows (drafts are the trials there)."
	return app.Div().Class("row").Body(d.panel("compare", "Compare", note, false, body...))
}

func (d *Dashboard) renderCompareTable(c CompareResult) app.UI {
	if c.Reason != "" {
		return app.P().Class("compare-reason").DataSet("compare-reason", "true").Text(c.Reason)
	}
	row := func(key, label string, cmp compute.Comparison, aDrafts, bDrafts bool) app.UI {
		text, sig := verdict(cmp)
		side := func(drafts bool, v compute.Value) string {
			if !drafts {
				return NotDrafted
			}
			return compute.FormatPercent(v, 1)
		}
		ci := compute.Undefined
		if cmp.Lower.OK && cmp.Upper.OK {
			ci = signed(cmp.Lower.V*100, 1) + " … " + signed(cmp.Upper.V*100, 1) + " pp"
		}
		p := pCell(cmp.PValue)
		return app.Tr().DataSet("compare", key).DataSet("significant", sig).Body(
			app.Td().Text(label),
			app.Td().Class("num").Text(side(aDrafts, cmp.A.Estimate)),
			app.Td().Class("num").Text(side(bDrafts, cmp.B.Estimate)),
			app.Td().Class("num").Text(signedPoints(cmp.Difference)),
			app.Td().Class("num").Text(ci),
			app.Td().Class("num").Text(p),
			app.Td().Class("verdict", "verdict-"+sig, directionClass(cmp)).Text(text),
		)
	}
	lenDiff := compute.Undefined
	if d := c.LengthDifference(); d.OK {
		lenDiff = signed(d.V, 2) + " tokens/draft"
	}
	rows := []app.UI{row("acceptance-rate", "acceptance rate", c.Rate, true, true)}
	rows = append(rows, app.Tr().DataSet("compare", "mean-acceptance-length").Body(
		app.Td().Text("mean acceptance length"),
		app.Td().Class("num").Text(compute.FormatLength(c.AStats.MeanAcceptanceLength)),
		app.Td().Class("num").Text(compute.FormatLength(c.BStats.MeanAcceptanceLength)),
		app.Td().Class("num").Text(lenDiff),
		app.Td().Class("num").Text("—"),
		app.Td().Class("num").Text("—"),
		app.Td().Class("verdict").Text("no test"),
	))
	for i, p := range c.Positions {
		rows = append(rows, row(fmt.Sprintf("pos-%d", i+1), PositionLabel(i)+" acceptance rate", p, i < c.AK, i < c.BK))
	}
	return app.Div().Class("compare-result").Body(
		app.Div().Class("compare-sides").Body(
			app.Span().Class("side").Body(app.B().Text("A "), app.Text(c.AName)),
			app.Span().Class("side").Body(app.B().Text("B "), app.Text(c.BName)),
		),
		app.Div().Class("table-scroll").Body(
			app.Table().Class("breakdown", "compare-table").Body(
				app.THead().Body(app.Tr().Body(
					app.Th().Text("metric"), app.Th().Text("A"), app.Th().Text("B"),
					app.Th().Title("B − A in percentage points").Text("B − A"),
					app.Th().Title("Newcombe's hybrid score interval of the difference, 95 %").Text("95 % interval"),
					app.Th().Title("Two-sided p-value of the pooled two-proportion z-test").Text("p"),
					app.Th().Title("Significant when the interval excludes 0").Text("significant?"),
				)),
				app.TBody().Body(rows...),
			),
		),
	)
}

// pCell is a p-value as the report and the change notes print it
// (model.PText): three decimals, "< 0.001" below that (not "0" or
// "4.87e-297"); compute.Undefined without one.
func pCell(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return strings.TrimPrefix(strings.TrimPrefix(model.PText(v.V), "p = "), "p ")
}
