package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

// The health row: one tile per group (the selection when not grouped)
// with the verdict of model.AddHealth (compute.Health, docs/ALERTING.md),
// shown with a sign and a word as well as a colour; and the changes of
// the acceptance rate under its chart, each with a link to the compare
// view of the windows before and after.

// renderHealth is the health row under the header: a tile per verdict
// (model.HealthRows) with its label, its summary (numbers and units) and
// the evidence, usual cause and notes in a disclosure. Nothing before the
// first load or without verdicts (a gauge schema).
func (d *Dashboard) renderHealth() app.UI {
	rows := d.model().HealthRows()
	if len(rows) == 0 {
		return app.Div().Class("health-row", "health-row-empty").DataSet("health-row", "none")
	}
	tiles := make([]app.UI, len(rows))
	for i, r := range rows {
		tiles[i] = healthTile(r)
	}
	return app.Section().Class("health-row").DataSet("health-row", len(rows)).
		Aria("label", "Speculation health").Attr("role", "status").Body(tiles...)
}

// healthTile is one verdict's tile.
func healthTile(r model.HealthRow) app.UI {
	v := r.Verdict
	tone, sign := view.HealthTone(v.State)
	var why []app.UI
	if len(v.Evidence) > 0 {
		why = append(why, app.Ul().Class("health-evidence").Body(
			app.Range(v.Evidence).Slice(func(i int) app.UI { return app.Li().Text(v.Evidence[i]) })))
	}
	if v.Cause != "" {
		why = append(why, app.P().Class("health-cause").Body(app.Strong().Text("Usual cause: "), app.Text(v.Cause)))
	}
	for _, n := range v.Notes {
		why = append(why, app.P().Class("health-note").Text("Note: "+n))
	}
	why = append(why, app.P().Class("health-doc").Text("Verdicts and thresholds: docs/ALERTING.md."))
	return app.Div().Class("health-tile", "health-"+tone).
		DataSet("health-group", view.EncodeOption(r.Key)).
		DataSet("health-state", string(v.State)).
		Body(
			app.Div().Class("health-head").Body(
				app.Span().Class("health-sign").Aria("hidden", "true").Text(sign),
				app.Span().Class("health-name").Text(r.Name),
				app.Span().Class("health-label").Text(v.State.Label()),
				app.P().Class("health-summary").Text(v.Summary),
				app.Details().Class("health-details").Body(
					append([]app.UI{app.Summary().Text("Evidence and usual cause")}, why...)...,
				),
			),
		)
}

// renderChanges lists the changes of the acceptance rate under its chart:
// "<group>: acceptance rate changed at 14:05 from 62.0 % to 41.0 %
// (p < 0.001) — compare before/after", the last part a link to the
// compare view of the two windows.
func (d *Dashboard) renderChanges(v *view.Charts) app.UI {
	changes := v.RateChanges(d.res, d.q)
	if len(changes) == 0 {
		return nil
	}
	items := make([]app.UI, len(changes))
	for i, c := range changes {
		items[i] = app.Li().DataSet("change-at", c.At).Body(
			app.Text(c.Text+" — "),
			app.A().Class("change-compare").Href(c.Href).Text("compare before/after"),
		)
	}
	return app.Ul().Class("rate-changes").DataSet("rate-changes", len(items)).Body(items...)
}

// healthCell is a breakdown row's verdict: sign and label, the summary as
// its title; "—" without a verdict.
func healthCell(v *compute.Verdict) app.UI {
	td := app.Td().DataSet("cell", "health")
	if v == nil {
		return td.Class("undefined").DataSet("undefined", "true").Text("—")
	}
	tone, sign := view.HealthTone(v.State)
	return td.Class("health-cell", "health-"+tone).DataSet("state", string(v.State)).Title(v.Summary).Body(
		app.Span().Class("health-sign").Aria("hidden", "true").Text(sign+" "),
		app.Text(v.State.Label()),
	)
}
