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
	return app.Div().Class("sr-only").Aria("live", "polite").Attr("role", "status").DataSet("live", "true").Text(d.liveText())
}

// liveText is what the live region says: loading, the error's headline, or
// that the numbers are loaded.
func (d *Dashboard) liveText() string {
	switch {
	case d.loading && d.res == nil:
		return "Loading the numbers…"
	case d.err != nil && d.res != nil:
		return "Refresh failed; the numbers shown are stale. " + d.problem().Title
	case d.err != nil:
		return d.problem().Title
	case d.res != nil:
		// Constant while refreshes succeed: announced once, and again
		// after a failure, not at every auto-refresh.
		return "Numbers loaded."
	}
	return ""
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
	return app.Th().Class("sortable").DataSet("sort", col).Aria("sort", sort).Body(
		app.Button().Class("sort-button").Type("button").Title(tip + " Click to sort.").
			OnClick(d.onSort(col)).Text(label + arrow),
	)
}

// chartSummaries are the text alternatives of the charts: per chart, the
// numbers it draws in a sentence or two.
func chartSummaries(r *Result, v *view) map[string]string {
	out := map[string]string{}
	if r == nil {
		return out
	}
	out[ChartPerPosition] = positionSummary(r.Stats)
	out[ChartHeatmap] = heatmapSummary(r)
	out[ChartAcceptanceRate] = linesSummary("Acceptance rate", v.rate[:v.drawn], func(x float64) string {
		return compute.FormatPercent(compute.Value{V: x, OK: true}, 1)
	})
	out[ChartAcceptanceLength] = linesSummary("Mean acceptance length", v.length[:v.drawn], func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " tokens/draft"
	})
	out[ChartThroughput] = linesSummary("Token throughput", v.tokens, func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " tokens/s"
	})
	out[ChartDrafts] = linesSummary("Drafts per second", v.drafts[:v.drawn], func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64) + " drafts/s"
	})
	return out
}

// positionSummary lists the per-position rates.
func positionSummary(s compute.Stats) string {
	if len(s.PerPositionAcceptanceRate) == 0 {
		return "Per-position acceptance: no drafts in the window."
	}
	parts := make([]string, len(s.PerPositionAcceptanceRate))
	for i, v := range s.PerPositionAcceptanceRate {
		parts[i] = PositionLabel(i) + " " + compute.FormatPercent(v, 1)
	}
	return "Per-position acceptance (accepted at position / drafts): " + strings.Join(parts, ", ") + "."
}

// heatmapSummary gives, per position, the lowest and highest column rate.
func heatmapSummary(r *Result) string {
	h := r.Heatmap()
	if h.K == 0 || len(h.Stats) == 0 {
		return "Per-position acceptance over time: no drafts in the window."
	}
	parts := make([]string, 0, h.K)
	for i := 0; i < h.K; i++ {
		var vals []compute.Value
		for _, c := range h.Stats {
			if i < len(c.PerPositionAcceptanceRate) {
				vals = append(vals, c.PerPositionAcceptanceRate[i])
			}
		}
		lo, hi, ok := valueRange(vals)
		if !ok {
			parts = append(parts, PositionLabel(i)+" no drafts")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s from %s to %s", PositionLabel(i),
			compute.FormatPercent(compute.Value{V: lo, OK: true}, 1), compute.FormatPercent(compute.Value{V: hi, OK: true}, 1)))
	}
	return fmt.Sprintf("Per-position acceptance over time, %d columns: %s.", len(h.Stats), strings.Join(parts, "; "))
}

// linesSummary gives, per line, its last value and its range over the
// window.
func linesSummary(title string, lines []model.Line, format func(float64) string) string {
	if len(lines) == 0 {
		return title + ": no data in the window."
	}
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		lo, hi, ok := valueRange(l.Values)
		if !ok {
			parts = append(parts, l.Name+": no data")
			continue
		}
		last := ""
		for j := len(l.Values) - 1; j >= 0; j-- {
			if l.Values[j].OK {
				last = format(l.Values[j].V)
				break
			}
		}
		parts = append(parts, fmt.Sprintf("%s: latest %s, range %s to %s", l.Name, last, format(lo), format(hi)))
	}
	return title + " per bucket; " + strings.Join(parts, "; ") + "."
}

// valueRange is the smallest and largest defined value.
func valueRange(vals []compute.Value) (lo, hi float64, ok bool) {
	for _, v := range vals {
		if !v.OK {
			continue
		}
		if !ok || v.V < lo {
			lo = v.V
		}
		if !ok || v.V > hi {
			hi = v.V
		}
		ok = true
	}
	return lo, hi, ok
}

// textLayout is the From/To inputs' format (parseLocalInput also reads
// datetime-local's "T" form).
const textLayout = "2006-01-02 15:04:05"

// timeInput is a From/To input: one text field, so one Tab stop (a
// datetime-local input takes one per date and time part: seven each, which
// put To sixteen Tab presses into the page), in textLayout.
func timeInput(id string, ms int64, loc *time.Location, h app.EventHandler) app.UI {
	return app.Input().Type("text").ID(id).Class("time-input").
		Attr("inputmode", "numeric").Attr("autocomplete", "off").Attr("spellcheck", "false").
		Placeholder("YYYY-MM-DD hh:mm:ss").Size(19).
		Value(formatLocalInput(ms, loc)).OnChange(h)
}

// fitSummary is the insights fit chart's text alternative: each
// position's rate with its 95 % interval, and the fitted α.
func fitSummary(d model.Estimates) string {
	if len(d.Positions) == 0 {
		return "Per-position acceptance with the geometric fit: no drafts in the window."
	}
	pct := func(v compute.Value) string { return compute.FormatPercent(v, 1) }
	parts := make([]string, len(d.Positions))
	for i, iv := range d.Positions {
		parts[i] = PositionLabel(i) + " " + pct(iv.Estimate)
		if iv.Lower.OK && iv.Upper.OK {
			parts[i] += " (95 % interval " + pct(iv.Lower) + " to " + pct(iv.Upper) + ")"
		}
	}
	return "Per-position acceptance with 95 % intervals: " + strings.Join(parts, ", ") +
		"; geometric fit α = " + pct(d.Fit.Alpha) + "."
}

// fitSummaryIf is fitSummary once numbers are loaded, "" before.
func fitSummaryIf(ready bool, d model.Estimates) string {
	if !ready {
		return ""
	}
	return fitSummary(d)
}
