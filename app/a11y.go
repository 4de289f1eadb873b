package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/view"
)

// Accessibility: the page's landmarks (banner, main, contentinfo) with a
// skip link, a text summary per chart (the numbers it draws, for screen
// readers), the live region announcing loads and errors, and sortable
// table headers that are buttons. e2e TestAccessibility runs axe-core over
// every page.
//
// Test hooks: a.skip-link; main#main; each chart's summary is
// [data-chart-summary=<name>] (the chart div's aria-labelledby); the live
// region is [data-live] (role=status).

// MainID is the id of the page's <main>, the skip link's target.
const MainID = "main"

// layout places the page's parts in landmarks: the first (the header) as
// the banner, the last (the footer) as contentinfo and the rest in <main>,
// after a skip link to it.
func layout(parts ...app.UI) app.UI {
	if len(parts) < 2 {
		return app.Div().Class("wrap").Body(app.Main().ID(MainID).Body(parts...))
	}
	return app.Div().Class("wrap").Body(
		app.A().Class("skip-link").Href("#"+MainID).OnClick(skipToMain).Text("Skip to the numbers"),
		parts[0],
		app.Main().ID(MainID).TabIndex(-1).Body(parts[1:len(parts)-1]...),
		parts[len(parts)-1],
	)
}

// skipToMain moves the focus into <main>: go-app's own handling of a
// link would navigate (and reload the dashboard) instead.
func skipToMain(ctx app.Context, e app.Event) {
	defer func() { recover() }() // JS: never let it kill the app
	e.PreventDefault()
	e.StopImmediatePropagation()
	if m := app.Window().GetElementByID(MainID); m.Truthy() {
		m.Call("focus")
		m.Call("scrollIntoView")
	}
}

// liveRegion announces the load status and errors to screen readers (a
// polite status region; its text changes only when the status does).
func (d *Dashboard) liveRegion() app.UI {
	return app.Div().Class("sr-only").Aria("live", "polite").Attr("role", "status").DataSet("live", "true").Text(view.LiveText(d.loading, d.res, d.err, d.problem().Title))
}

// sortHeader is a sortable column header: a button (keyboard: Tab, Enter
// or Space) in the th, which carries aria-sort.
func (d *Dashboard) sortHeader(col, label, tip string) app.UI {
	sort, arrow := "none", ""
	switch d.q.Sort {
	case col:
		sort, arrow = "ascending", " ▲"
	case "-" + col:
		sort, arrow = "descending", " ▼"
	}
	b := app.Button().Class("sort-button").Type("button").Title(tip + " Click to sort.").
		OnClick(d.onSort(col)).Text(label + arrow)
	if h := d.href(d.q.SortedBy(col)); h != "" {
		b = b.DataSet("href", h) // the pre-rendered page's (Dashboard.href)
	}
	return app.Th().Class("sortable").DataSet("sort", col).Aria("sort", sort).Body(b)
}

// timeInput is a From/To input: one text field, so one Tab stop (a
// datetime-local input takes one per date and time part: seven each, which
// put To sixteen Tab presses into the page), in textLayout.
func timeInput(id string, ms int64, loc *time.Location, h app.EventHandler) app.UI {
	return app.Input().Type("text").ID(id).Class("time-input").
		Attr("inputmode", "numeric").Attr("autocomplete", "off").Attr("spellcheck", "false").
		Placeholder("YYYY-MM-DD hh:mm:ss").Size(19).
		Value(view.FormatLocalInput(ms, loc)).OnChange(h)
}
