package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

// cell is one numeric table cell with its data-value hook.
func cell(col string, v compute.Value, text string) app.UI {
	return number(app.Td().Class("num").DataSet("cell", col), v, text, false)
}

func (d *Dashboard) renderBreakdown(v *view.Charts) app.UI {
	gb := d.q.Grouping()
	if d.res != nil {
		gb = d.res.Request.GroupBy
	}
	head := d.sortHeader
	var cols []app.UI
	if len(gb) == 0 {
		cols = append(cols, head(view.ColGroup, "group", "All selected series together."))
	}
	for _, l := range gb {
		cols = append(cols, app.Th().Class("label-col").Text(l))
	}
	cols = append(cols,
		head(view.ColRate, "acceptance rate", view.TipRate),
		head(view.ColLength, "mean acceptance length", view.TipLength),
		head(view.ColK, "k", view.TipK),
		head(view.ColDrafts, "drafts/s", view.TipDrafts+view.TipPerData),
		head(view.ColAccepted, "accepted tokens/s", view.TipAccepted+view.TipPerData),
		app.Th().Title(view.TipHealth).Text("health"), // healthCell, health.go
		app.Th().Title("Acceptance rate per bucket over the window (0–100 %).").Text("acceptance rate over time"),
	)
	note := d.res.BreakdownNote(len(gb) > 0)
	rows := v.Groups
	body := app.Range(rows).Slice(func(i int) app.UI {
		g := rows[i]
		var tds []app.UI
		if len(gb) == 0 {
			tds = append(tds, app.Td().Class("label-cell").Text(g.Name))
		}
		for _, l := range gb {
			tds = append(tds, app.Td().Class("label-cell").DataSet("label", l).Text(model.LabelText(g.Labels[l])))
		}
		s := d.res.CoveredStatsOf(g.Stats) // rates per second of data, as the cards
		spark := view.RatesOf(g.Buckets)
		tds = append(tds,
			cell(view.ColRate, s.AcceptanceRate, compute.FormatPercent(s.AcceptanceRate, 1)),
			cell(view.ColLength, s.MeanAcceptanceLength, compute.FormatLength(s.MeanAcceptanceLength)),
			cell(view.ColK, compute.Value{V: float64(s.K), OK: s.K > 0}, view.KText(s.K)),
			cell(view.ColDrafts, s.DraftsPerSecond, compute.FormatRate(s.DraftsPerSecond, "drafts/s")),
			cell(view.ColAccepted, s.AcceptedThroughput, compute.FormatRate(s.AcceptedThroughput, "tokens/s")),
			healthCell(g.Health),
			app.Td().Class("spark-cell").Body(app.Raw(view.Sparkline(spark, d.res.Complete))),
		)
		return app.Tr().DataSet("row", i).DataSet("group", view.EncodeOption(g.Key)).Body(tds...)
	})
	table := app.Div().Class("table-scroll").Body(
		app.Table().Class("breakdown").Body(
			app.THead().Body(app.Tr().Body(cols...)),
			app.TBody().Body(body),
		),
	)
	if d.res == nil {
		table = app.Div().Class("table-empty").Text(d.emptyText())
	}
	return app.Div().Class("row").Body(d.panel("breakdown", "Breakdown", note, false, table))
}
