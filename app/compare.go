package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/report"
)

// CompareResult compares two sides, A (baseline: the earlier window or the
// first group) and B: model.Compare of their counts, with their names and
// numbers.
type CompareResult struct {
	// Mode is CompareWindow or CompareGroups.
	Mode string
	// AName and BName describe the sides (a window or a group name).
	AName, BName string
	// AStats and BStats are the sides' numbers over their windows.
	AStats, BStats compute.Stats
	model.Comparison
	// Reason says why there is nothing to compare ("" when there is).
	Reason string
}

// Compare builds the comparison of q.Compare from a result: the baseline
// window against the current one (CompareWindow), or groups q.CompareA and
// q.CompareB of the breakdown (CompareGroups; the first two groups when
// unset).
func Compare(res *Result, q Query) CompareResult {
	out := CompareResult{Mode: q.Compare}
	if res == nil {
		out.Reason = "no data loaded yet"
		return out
	}
	loc := q.Location()
	var a, b compute.Counts
	switch q.Compare {
	case CompareWindow:
		bl := res.Baseline
		switch {
		case bl == nil:
			out.Reason = "the baseline window is not loaded yet"
			return out
		case bl.Err != nil:
			out.Reason = "baseline window: " + bl.Err.Error()
			return out
		}
		out.AName = "before: " + windowText(bl.Grid.Start, bl.Grid.End, loc)
		out.BName = "after: " + windowText(res.Grid.Start, res.Grid.End, loc)
		a, b = bl.Total.Total, res.Total.Total
		out.AStats, out.BStats = bl.Stats, res.Stats
	case CompareGroups:
		if len(res.Query.GroupBy) == 0 || len(res.Groups) < 2 {
			out.Reason = "choose a group-by label with at least two groups to compare groups"
			return out
		}
		ga, gb := findGroup(res.Groups, q.CompareA), findGroup(res.Groups, q.CompareB)
		if ga == nil {
			ga = &res.Groups[0]
		}
		if gb == nil {
			gb = &res.Groups[1]
			if gb.Key == ga.Key {
				gb = &res.Groups[0]
			}
		}
		out.AName, out.BName = ga.Name, gb.Name
		a, b = ga.Counts.Total, gb.Counts.Total
		out.AStats, out.BStats = ga.Stats, gb.Stats
	default:
		out.Reason = "comparison off"
		return out
	}
	out.Comparison = model.Compare(a, b)
	return out
}

// NotDrafted is the text of a compared position that one side never drafts
// (model.NotDrafted).
const NotDrafted = model.NotDrafted

func findGroup(groups []GroupResult, key string) *GroupResult {
	if key == "" {
		return nil
	}
	for i := range groups {
		if groups[i].Key == key {
			return &groups[i]
		}
	}
	return nil
}

func windowText(start, end int64, loc *time.Location) string {
	return time.UnixMilli(start).In(loc).Format("01-02 15:04:05") + " – " + time.UnixMilli(end).In(loc).Format("01-02 15:04:05")
}

func (d *Dashboard) comparison() CompareResult { return Compare(d.res, d.q) }

// CompareTable is the comparison's numbers: one row per compared
// proportion (acceptance rate, then pos 1..k) with A, B, B − A and its 95 %
// interval (ratios), the two-sided p-value and whether the difference is
// significant (the interval excludes 0); plus the mean acceptance length
// (tokens/draft; difference only, no test).
func CompareTable(c CompareResult) DataTable {
	t := DataTable{Name: "compare", Columns: []string{"metric", "a", "b", "difference_b_minus_a",
		"difference_lower_95", "difference_upper_95", "p_value", "significant", "a_name", "b_name"}}
	if c.Reason != "" {
		return t
	}
	row := func(name string, cmp compute.Comparison) []any {
		return []any{name, report.Num(cmp.A.Estimate), report.Num(cmp.B.Estimate), report.Num(cmp.Difference), report.Num(cmp.Lower), report.Num(cmp.Upper),
			report.Num(cmp.PValue), cmp.Significant, c.AName, c.BName}
	}
	t.Rows = append(t.Rows, row("acceptance_rate", c.Rate))
	var diff compute.Value
	if c.AStats.MeanAcceptanceLength.OK && c.BStats.MeanAcceptanceLength.OK {
		diff = compute.Defined(c.BStats.MeanAcceptanceLength.V - c.AStats.MeanAcceptanceLength.V)
	}
	t.Rows = append(t.Rows, []any{"mean_acceptance_length_tokens", report.Num(c.AStats.MeanAcceptanceLength), report.Num(c.BStats.MeanAcceptanceLength),
		report.Num(diff), nil, nil, nil, nil, c.AName, c.BName})
	for i, p := range c.Positions {
		r := row(fmt.Sprintf("pos_%d_acceptance_rate", i+1), p)
		if !c.Drafted(i) {
			r[7] = nil // not tested
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

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
				app.Input().Type("datetime-local").ID("base-from").Step(1).Value(formatLocalInput(from, loc)).OnChange(d.onTime(true)),
			),
			app.Label().Class("control").For("base-to").Body(
				app.Span().Class("control-label").Text("Before: to"),
				app.Input().Type("datetime-local").ID("base-to").Step(1).Value(formatLocalInput(to, loc)).OnChange(d.onTime(true)),
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
		p := compute.Undefined
		if cmp.PValue.OK {
			p = fmt.Sprintf("%.3g", cmp.PValue.V)
		}
		return app.Tr().DataSet("compare", key).DataSet("significant", sig).Body(
			app.Td().Text(label),
			app.Td().Class("num").Text(side(aDrafts, cmp.A.Estimate)),
			app.Td().Class("num").Text(side(bDrafts, cmp.B.Estimate)),
			app.Td().Class("num").Text(signedPoints(cmp.Difference)),
			app.Td().Class("num").Text(ci),
			app.Td().Class("num").Text(p),
			app.Td().Class("verdict", "verdict-"+sig).Text(text),
		)
	}
	lenDiff := compute.Undefined
	if c.AStats.MeanAcceptanceLength.OK && c.BStats.MeanAcceptanceLength.OK {
		lenDiff = signed(c.BStats.MeanAcceptanceLength.V-c.AStats.MeanAcceptanceLength.V, 2) + " tokens/draft"
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
