package app

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/view"
)

// renderCards is the headline row (replaces renderHeadline): every card
// gives the window's value and now's, the speedup estimate included.
//
// Test hooks: each card is [data-card=<name>]; its window value is
// [data-metric=<name>] (data-value as before; rates per second of data:
// data-covered-seconds on .cards), its now value [data-now=<name>] with
// data-value (or data-undefined) and data-now-state (live, stopped, stale,
// none), data-now-from and data-now-to (Unix ms); the speedup card's
// numbers are [data-metric=headline-speedup] and [data-now=headline-speedup].
func (d *Dashboard) renderCards() app.UI {
	if d.res == nil {
		return d.renderHeadline(compute.Stats{})
	}
	m := &d.res.Model
	gauges := m.Schema != nil && m.Schema.Averaged != nil
	if gauges || m.Log != nil {
		return d.renderHeadline(m.Stats) // gauges and log input: no buckets to read "now" from
	}
	h := view.HeadlineOf(m, d.q, d.lay.CostOr())
	out := make([]app.UI, len(h.Cards))
	for i, c := range h.Cards {
		out[i] = renderCard(c, h)
	}
	return app.Div().Class("cards", "cards-now").
		DataSet("covered-seconds", view.Plain(h.Covered)).
		DataSet("now-state", string(h.Now.State)).
		Body(out...)
}

// renderCard is one card of the headline row.
func renderCard(c view.Card, h view.Headline) app.UI {
	n, nowLabel, nowTip := h.Now, h.NowLabel, h.NowTip
	win := number(app.Div().Class("metric-value").DataSet("metric", c.Name), c.Window, c.WindowText, true)
	nowEl := app.Span().Class("now-value").DataSet("now", c.Name).DataSet("now-state", string(n.State)).
		DataSet("now-from", n.From).DataSet("now-to", n.To)
	text := c.NowText
	if !c.Window.OK {
		// Undefined over the window (the schema lacks the family, or no
		// drafts): never a number for now.
		c.Now, text = compute.Value{}, ""
	}
	if c.Now.OK && text != "" {
		nowEl = nowEl.DataSet("value", view.Plain(c.Now.V))
	} else {
		nowEl = nowEl.DataSet("undefined", "true")
		if text == "" {
			text = "—"
		}
	}
	nowEl = nowEl.Text(text)
	state := "now-" + string(n.State)
	return app.Div().Class("card", "card-headline", state).DataSet("card", c.Name).Title(c.Tip).Body(
		app.Div().Class("card-label").Text(c.Label),
		win,
		app.Div().Class("card-sub").Title("window: "+c.Sub).Text("window: "+c.Sub),
		app.Div().Class("card-now").Title(nowTip).Body(
			app.Span().Class("now-label").Text(nowLabel+": "),
			nowEl,
			sparkline(c.Spark, c.Ratio),
		),
	)
}

// sparkline draws values as a small inline SVG built element by element
// (no HTML strings): one polyline per run of defined values.
func sparkline(vals []compute.Value, ratio bool) app.UI {
	svg := "http://www.w3.org/2000/svg"
	var lines []app.UI
	for _, pts := range view.SparkRuns(vals, ratio) {
		if len(pts) > 1 {
			lines = append(lines, app.Elem("polyline").XMLNS(svg).Attr("points", strings.Join(pts, " ")).Class("spark-line"))
		} else {
			x, y, _ := strings.Cut(pts[0], ",")
			lines = append(lines, app.Elem("circle").XMLNS(svg).Attr("cx", x).Attr("cy", y).Attr("r", "1.5").Class("spark-line"))
		}
	}
	return app.Elem("svg").XMLNS(svg).Class("spark", "card-spark").
		Attr("viewBox", "0 0 100 20").Attr("preserveAspectRatio", "none").Attr("aria-hidden", "true").
		Body(lines...)
}
