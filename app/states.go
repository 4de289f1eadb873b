package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/view"
)

// Empty and error states: a short checklist with the likely cause first
// and the details folded away (<details>), instead of the whole error
// message in red; while there are no numbers at all (data-state="error"),
// the charts shrink to a compact placeholder under the one banner (CSS).
//
// Test hooks: the banner is [data-error] (its whole text, details included,
// is the error's), with data-problem=<kind>; its headline is
// [data-problem-title], the likely cause [data-problem-cause], each step
// an li of [data-problem-steps]; the details are a <details>.

// problem is the current load error's Problem.
func (d *Dashboard) problem() view.Problem { return view.DescribeProblem(d.err, app.IsClient) }

// renderProblem is the error banner: headline and likely cause first, the
// checklist, then the whole message (text) folded in a <details>.
func (d *Dashboard) renderProblem(class, text string) app.UI {
	p := d.problem()
	head := p.Title
	if d.res != nil {
		head += ": showing the last numbers (stale)"
	}
	var items []app.UI
	if p.Cause != "" {
		items = append(items, app.Li().Class("problem-cause").DataSet("problem-cause", "true").Text("Likely cause: "+p.Cause))
	}
	for _, f := range p.Facts {
		items = append(items, app.Li().Class("problem-fact").Text(f))
	}
	for _, s := range p.Steps {
		items = append(items, app.Li().Class("problem-step").Text(s))
	}
	if d.stopEmpty != nil {
		items = append(items, app.Li().Class("problem-step").Text(fmt.Sprintf("Retrying every %s until the first numbers arrive.", d.scrape)))
	}
	details := []app.UI{app.Summary().Text("Details")}
	for _, f := range p.Folded {
		details = append(details, app.P().Class("problem-folded").Text(f))
	}
	details = append(details, app.P().Class("problem-message").Text(text))
	return app.Div().Class("msg", class, "problem").DataSet("error", "true").DataSet("problem", p.Kind).Body(
		app.Strong().Class("problem-title").DataSet("problem-title", "true").Text(head),
		app.Ul().Class("problem-steps").DataSet("problem-steps", "true").Body(items...),
		app.Details().Class("problem-details").Body(details...),
	)
}
