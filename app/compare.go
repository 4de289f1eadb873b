package app

import (
	"fmt"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

func (d *Dashboard) comparison() model.Sides { return view.Compare(d.res, d.q) }

func (d *Dashboard) renderCompare(v *view.Charts) app.UI {
	mode := d.q.Compare
	controls := []app.UI{
		selectBoxTip("compare", "Compare", "Compare two time windows (before/after) or two groups of the breakdown, with 95 % intervals.", mode, d.withHrefs("compare", []selectOpt{
			{value: view.CompareOff, label: "off"}, {value: view.CompareWindow, label: "before / after (two windows)"}, {value: view.CompareGroups, label: "two groups"},
		}), d.onSelect("compare")),
	}
	loc := d.q.Location()
	switch mode {
	case view.CompareWindow:
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
	case view.CompareGroups:
		var opts []selectOpt
		if d.res != nil {
			for _, g := range d.res.Groups {
				opts = append(opts, selectOpt{value: view.EncodeOption(g.Key), label: g.Name})
			}
		}
		curA, curB := d.res.ComparedOptions(d.comparison())
		controls = append(controls,
			selectBoxTip("compare-a", "A (baseline)", "The group compared against", curA, d.withHrefs("compare-a", slices.Clone(opts)), d.onSelect("compare-a")),
			selectBoxTip("compare-b", "B", "The group compared with A", curB, d.withHrefs("compare-b", opts), d.onSelect("compare-b")),
		)
	}
	body := []app.UI{app.Div().Class("compare-controls").Body(controls...)}
	if mode != view.CompareOff {
		body = append(body, d.renderCompareTable(d.comparison()))
	}
	note := "Differences of acceptance rates with Newcombe's 95 % interval (hybrid score, from Wilson intervals); significant when the interval excludes 0. Token trials are not independent: confirm on the per-position rows (drafts are the trials there)."
	return app.Div().Class("row").Body(d.panel("compare", "Compare", note, false, body...))
}

func (d *Dashboard) renderCompareTable(c model.Sides) app.UI {
	if c.Reason != "" {
		return app.P().Class("compare-reason").DataSet("compare-reason", "true").Text(c.Reason)
	}
	row := func(key, label string, cmp compute.Comparison, aDrafts, bDrafts bool) app.UI {
		text, sig := view.Verdict(cmp)
		side := func(drafts bool, v compute.Value) string {
			if !drafts {
				return model.NotDrafted
			}
			return compute.FormatPercent(v, 1)
		}
		ci, p := view.IntervalText(cmp), view.PCell(cmp.PValue)
		return app.Tr().DataSet("compare", key).DataSet("significant", sig).Body(
			app.Td().Text(label),
			app.Td().Class("num").Text(side(aDrafts, cmp.A.Estimate)),
			app.Td().Class("num").Text(side(bDrafts, cmp.B.Estimate)),
			app.Td().Class("num").Text(view.SignedPoints(cmp.Difference)),
			app.Td().Class("num").Text(ci),
			app.Td().Class("num").Text(p),
			app.Td().Class("verdict", "verdict-"+sig, view.DirectionClass(cmp)).Text(text),
		)
	}
	lenDiff := compute.Undefined
	if d := c.LengthDifference(); d.OK {
		lenDiff = view.Signed(d.V, 2) + " tokens/draft"
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
		rows = append(rows, row(fmt.Sprintf("pos-%d", i+1), chartopt.PositionLabel(i)+" acceptance rate", p, i < c.AK, i < c.BK))
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
