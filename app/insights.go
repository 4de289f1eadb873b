package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

// InsightsPanel shows, for one window's counts (Stats), the estimated
// speedup with its inputs, the best k next to the current k (extrapolated
// values marked), the geometric acceptance fit drawn over the per-position
// bars, and Wilson 95 % intervals of the acceptance rate and of each
// per-position rate. The draft cost ratio is editable and kept in the URL
// (?cost=).
//
// Test hooks: [data-insights] holds [data-metric] elements with
// data-value (plain decimals) or data-undefined="true": speedup (ratio),
// best-k, best-k-speedup, current-k-speedup (ratios), best-k-gain (ratio:
// best / current - 1; only when the best k is not the current), fit-alpha (ratio
// 0..1), fit-chi-square, fit-p-value, acceptance-rate-lower and -upper
// (ratio 0..1), per-position-lower and -upper with data-position (1-based);
// best-k carries data-extrapolated="true" when it lies beyond the observed
// k; the input #draft-cost-ratio; the chart [data-chart=insights-fit].
type InsightsPanel struct {
	app.Compo

	// Stats of the window (its counts are used).
	Stats compute.Stats
	// Ready is false while nothing is loaded.
	Ready bool
	// Empty is the text over the chart when it has nothing to draw (the
	// dashboard's "Loading…", "No data" after a failed load, ...); ""
	// means "Loading…" until Ready, compute.Undefined after.
	Empty string
	// NoURL keeps the cost out of the URL (for pages with their own URL
	// state).
	NoURL bool
	// Theme is ThemeLight (default) or ThemeDark: the chart's colours.
	Theme string
	// Measured is the speedup measured against a baseline window without
	// drafts (model.Model.Measured); nil or undefined: the card shows the
	// estimate, labelled so.
	Measured *model.Measured
	// Caption says which group the numbers are for ("" : say nothing).
	Caption string

	cost    float64
	costSet bool
	costErr string
}

// OnInit starts with the default cost.
func (p *InsightsPanel) OnInit() {
	p.cost = compute.DefaultDraftCostRatio
}

// OnPreRender reads the cost from the URL (server-side rendering).
func (p *InsightsPanel) OnPreRender(ctx app.Context) { p.readURL(ctx) }

// OnMount reads the cost from the URL.
func (p *InsightsPanel) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.readURL(ctx)
}

// OnNav re-reads the cost when the URL changes.
func (p *InsightsPanel) OnNav(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.readURL(ctx)
}

// OnUpdate puts a non-default cost back into the URL when the page
// rewrote it without (the dashboard rewrites its query on selector
// changes).
func (p *InsightsPanel) OnUpdate(ctx app.Context) {
	if !app.IsClient || p.NoURL || !p.costSet {
		return
	}
	if u := ctx.Page().URL(); u != nil && u.Query().Get(view.CostParam) == "" {
		p.writeURL(ctx)
	}
}

func (p *InsightsPanel) readURL(ctx app.Context) {
	if p.NoURL {
		return
	}
	defer func() { recover() }()
	u := ctx.Page().URL()
	if u == nil {
		return
	}
	if raw := u.Query().Get(view.CostParam); raw != "" {
		p.cost, p.costSet, p.costErr = view.CostOf(raw, p.cost, p.costSet)
	}
}

func (p *InsightsPanel) writeURL(ctx app.Context) {
	if p.NoURL {
		return
	}
	defer func() { recover() }() // history.replaceState is JS: never let it kill the app
	u := *ctx.Page().URL()
	q := u.Query()
	if p.costSet {
		q.Set(view.CostParam, strconv.FormatFloat(p.cost, 'g', -1, 64))
	} else {
		q.Del(view.CostParam)
	}
	u.RawQuery = q.Encode()
	ctx.Page().ReplaceURL(&u)
}

func (p *InsightsPanel) onCost(ctx app.Context, e app.Event) {
	raw := ctx.JSSrc().Get("value").String()
	if strings.TrimSpace(raw) == "" {
		p.cost, p.costSet, p.costErr = compute.DefaultDraftCostRatio, false, ""
		p.writeURL(ctx)
		return
	}
	v, err := view.ParseCost(raw)
	if err != nil {
		p.costErr = err.Error()
		return
	}
	p.cost, p.costSet, p.costErr = v, true, ""
	p.writeURL(ctx)
}

// Render draws the panel.
func (p *InsightsPanel) Render() app.UI {
	d := model.Estimate(p.Stats.Counts(), p.cost)
	if !p.Ready {
		d = model.Estimate(compute.Stats{}.Counts(), p.cost)
	}
	fit := chartopt.InsightsFit(d, chartopt.PaletteFor(p.Theme))
	costText := strconv.FormatFloat(p.cost, 'g', -1, 64)
	empty := p.Empty
	if empty == "" && !p.Ready {
		empty = "Loading…"
	} else if empty == "" {
		empty = compute.Undefined
	}
	return app.Section().Class("panel", "panel-wide", "insights").DataSet("insights", "specdash").
		DataSet("cost", costText).Body(
		app.H2().Text("Is speculation paying off?"),
		app.If(p.Caption != "", func() app.UI {
			return app.P().Class("panel-note", "split-note").DataSet("split-note", "insights").Text(p.Caption)
		}),
		app.P().Class("panel-note").Text("Estimated speedup for sequential drafting = mean acceptance length / (1 + c × k), c = draft step time / target step time (Leviathan et al., ICML 2023). The estimate ignores the extra cost of verifying k+1 tokens and other overheads."),
		app.Div().Class("controls", "insights-controls").Body(
			app.Label().Class("control").For("draft-cost-ratio").Body(
				app.Span().Class("control-label").Text("Draft cost ratio c"),
				app.Input().ID("draft-cost-ratio").Type("number").Min(0).Step(0.01).
					Value(costText).OnChange(p.onCost),
			),
			app.Span().Class("panel-note").Text("0 for n-gram / prompt lookup; ~0.05 for an EAGLE head; 0.1–0.3 for a draft model"),
			app.If(p.costErr != "", func() app.UI {
				return app.Div().Class("msg", "msg-error").DataSet("cost-error", "true").Text(p.costErr)
			}),
		),
		app.If(p.Ready, func() app.UI { return p.renderCards(d) }).
			Else(func() app.UI { return waitingCards(empty) }),
		&Chart{Name: view.ChartInsightsFit, Option: fit.JSON(), Spec: fit, Height: 260, Empty: empty, Summary: view.FitSummaryIf(p.Ready, d)},
		renderIntervalTable(d),
	)
}

// waitingCards are the panel's cards before any load was shown (loading,
// or the source failed): the state's text (empty: "Loading…", "No data"),
// not "no drafts in window" or reasons that only hold for loaded counts.
func waitingCards(empty string) app.UI {
	cards := make([]app.UI, 0, 4)
	for _, label := range []string{"Estimated speedup", "Best k (speculative tokens)", "Per-token acceptance α (geometric fit)", "Acceptance rate, 95 % interval (Wilson)"} {
		cards = append(cards, card(label, app.Span().Class("insight-value", "undefined").DataSet("waiting", "true").Text("—"), app.Text(empty)))
	}
	return app.Div().Class("cards").Body(cards...)
}

// insightMetric is one number of the panel with its test hook.
func insightMetric(name string, v compute.Value, text string) app.HTMLSpan {
	if !v.OK {
		text = compute.Undefined
	}
	return number(app.Span().Class("insight-value").DataSet("metric", name), v, text, false)
}

func card(label string, value app.UI, sub ...app.UI) app.UI {
	return valueCard(label, true, value, sub...)
}

// valueCard is card, with the value line set small and muted when its
// numbers are undefined (defined false): a dash and its reason read as
// the top cards' undefined values do, not as a number in the large font.
func valueCard(label string, defined bool, value app.UI, sub ...app.UI) app.UI {
	v := app.Div().Class("metric-value").Body(value)
	if !defined {
		v = v.Class("undefined")
	}
	return app.Div().Class("card").Body(
		app.Div().Class("card-label").Text(label),
		v,
		app.Div().Class("card-sub").Body(sub...),
	)
}

func (p *InsightsPanel) renderCards(d model.Estimates) app.UI {
	s := d.Speedup
	speedSub := app.Text(view.SpeedupSub(d))
	b := d.BestK
	var bestK, bestSub app.UI
	if b.Reason == "" && len(b.Points) > 0 {
		el := app.Span().Class("insight-value").DataSet("metric", "best-k").DataSet("value", b.BestK).
			Text(fmt.Sprintf("k = %d", b.BestK))
		if b.BestExtrapolated {
			el = el.DataSet("extrapolated", "true")
		}
		bestK = app.Span().Body(el, app.Span().Class("unit").Text(view.BestKNote(b)))
		bestSub = app.Span().Body(
			app.Text("est. "),
			insightMetric("best-k-speedup", b.Best, view.Times(b.Best)),
			app.If(b.FormatGain() != "", func() app.UI {
				return app.Span().Body(app.Text(" ("), insightMetric("best-k-gain", b.Gain(), b.FormatGain()), app.Text(")"))
			}),
			app.Text(fmt.Sprintf(" vs current k = %d: ", b.CurrentK)),
			insightMetric("current-k-speedup", b.Current, view.Times(b.Current)),
		)
	} else {
		bestK = insightMetric("best-k", compute.Value{}, "")
		bestSub = app.Text(view.ReasonText(b.Reason))
	}
	f := d.Fit
	fitSub := app.Text(view.ReasonText(f.Reason))
	if f.Alpha.OK {
		parts := []app.UI{app.Text("chi² "), insightMetric("fit-chi-square", f.ChiSquare, strconv.FormatFloat(f.ChiSquare.V, 'f', 2, 64)),
			app.Text(fmt.Sprintf(" on %d df", f.DegreesOfFreedom))}
		if f.PValue.OK {
			parts = append(parts, app.Text(", p "), insightMetric("fit-p-value", f.PValue, compute.FormatPValue(f.PValue)))
		}
		if f.RSquared.OK {
			parts = append(parts, app.Text("; R² "+strconv.FormatFloat(f.RSquared.V, 'f', 3, 64)))
		}
		fitSub = app.Span().Body(parts...)
	}
	r := d.Rate
	var rateUI app.UI = insightMetric("acceptance-rate-lower", compute.Value{}, "")
	rateSub := app.Text("")
	if r.Estimate.OK {
		rateUI = app.Span().Body(
			insightMetric("acceptance-rate-lower", r.Lower, compute.FormatPercent(r.Lower, 1)),
			app.Text(" – "),
			insightMetric("acceptance-rate-upper", r.Upper, compute.FormatPercent(r.Upper, 1)),
		)
		rateSub = app.Text(view.RateIntervalSub(r))
	}
	speedCard := card("Estimated speedup", insightMetric("speedup", s.Speedup, view.Times(s.Speedup)),
		app.Div().DataSet("speedup-kind", "estimated").Text((&model.Model{}).SpeedupShown(s).Label), speedSub)
	if sh := (&model.Model{Measured: p.Measured}).SpeedupShown(s); sh.Measured {
		speedCard = card("Measured speedup", insightMetric("speedup-measured", sh.Value, view.Times(sh.Value)),
			app.Div().DataSet("speedup-kind", "measured").Text(sh.Label),
			app.Span().Body(app.Text("estimate: "), insightMetric("speedup", s.Speedup, view.Times(s.Speedup))))
	}
	return app.Div().Class("cards").Body(
		speedCard,
		card("Best k (speculative tokens)", bestK, bestSub),
		card("Per-token acceptance α (geometric fit)", insightMetric("fit-alpha", f.Alpha, compute.FormatPercent(f.Alpha, 1)), fitSub),
		card("Acceptance rate, 95 % interval (Wilson)", rateUI, rateSub),
	)
}

// renderIntervalTable lists per position: observed rate, its Wilson 95 %
// interval, the fitted rate; then the extrapolated positions up to the
// best k.
func renderIntervalTable(d model.Estimates) app.UI {
	k := len(d.Positions)
	if k == 0 {
		return app.Div().Class("insights-table")
	}
	rows := make([]app.UI, 0, k+4)
	for i, iv := range d.Positions {
		fit := view.Fitted(d.Fit, i)
		rows = append(rows, app.Tr().Body(
			app.Td().Text(chartopt.PositionLabel(i)),
			app.Td().Text(compute.FormatPercent(iv.Estimate, 1)),
			app.Td().Body(
				insightMetric("per-position-lower", iv.Lower, compute.FormatPercent(iv.Lower, 1)).DataSet("position", i+1),
				app.Text(" – "),
				insightMetric("per-position-upper", iv.Upper, compute.FormatPercent(iv.Upper, 1)).DataSet("position", i+1),
			),
			app.Td().Text(compute.FormatPercent(fit, 1)),
		))
	}
	for _, i := range chartopt.ExtrapolatedPositions(d) {
		rows = append(rows, app.Tr().Class("extrapolated").DataSet("extrapolated", "true").Body(
			app.Td().Text(chartopt.PositionLabel(i)),
			app.Td().Text("not drafted"),
			app.Td().Text("—"),
			app.Td().Text(compute.FormatPercent(chartopt.ExtrapolatedRate(d, i), 1)+" (extrapolated)"),
		))
	}
	// In a scrolling box: on a narrow screen the table scrolls instead of
	// overflowing the panel.
	return app.Div().Class("table-scroll").Body(app.Table().Class("insights-table").Body(
		app.THead().Body(app.Tr().Body(
			app.Th().Text("Position"),
			app.Th().Text("Acceptance rate (of drafts)"),
			app.Th().Text("95 % interval (Wilson)"),
			app.Th().Text("Fitted"),
		)),
		app.TBody().Body(rows...),
	))
}
