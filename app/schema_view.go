package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/view"
)

// averagedCard is one time-averaged gauge number; data-samples holds the
// number of values averaged.
func averagedCard(name, label, tip string, a compute.GaugeAverage, text, sub string) app.UI {
	el := number(app.Div().Class("metric-value").DataSet("metric", name).DataSet("samples", a.Samples), a.Value, text, true)
	return app.Div().Class("card").Title(tip).Body(
		app.Div().Class("card-label").Text(label), el, app.Div().Class("card-sub").Text(sub))
}

// renderSchema shows the detected schema's limits as notes and its own
// numbers: SGLang's gauges averaged over time (total, and per group when
// grouped), vLLM V0's emitted tokens and lifetime ratios.
func (d *Dashboard) renderSchema() app.UI {
	root := app.Div().Class("schema-view")
	if d.res == nil || d.res.Schema == nil {
		return root
	}
	sv := d.res.Schema
	var body []app.UI
	for _, l := range sv.Schema.Limits {
		body = append(body, app.Div().Class("msg", "msg-note").DataSet("schema-limit", "true").Text("Schema limit: "+l))
	}
	lengthUnit := view.AveragedLengthUnit(d.q.Convention)
	if av := sv.Averaged; av != nil {
		t := view.AveragedRow(av.Total)
		body = append(body, app.Div().Class("cards").Body(
			averagedCard("averaged-acceptance-rate", "Acceptance rate (averaged over time)",
				"Mean of sglang:spec_accept_rate at the step points in the window, all series together: each value covers one SGLang decode-log window; averaged over time, never rate(), never a ratio of sums.",
				t.Rate, compute.FormatPercent(t.Rate.Value, 1), fmt.Sprintf("averaged over time: %d values of sglang:spec_accept_rate", t.Rate.Samples)),
			averagedCard("averaged-mean-acceptance-length", "Mean acceptance length (averaged over time)",
				"Mean of sglang:spec_accept_length at the step points in the window, all series together ("+lengthUnit+").",
				t.Length, compute.FormatLength(t.Length.Value), fmt.Sprintf("averaged over time: %d values of sglang:spec_accept_length", t.Length.Samples)),
		))
		if len(av.Groups) > 0 {
			rows := make([]view.Averaged, len(av.Groups))
			for i, g := range av.Groups {
				rows[i] = view.AveragedRow(g)
			}
			body = append(body, app.Table().Class("breakdown", "averaged-groups").Body(
				app.THead().Body(app.Tr().Body(
					app.Th().Text("group"),
					app.Th().Text("acceptance rate (averaged over time)"),
					app.Th().Text("mean acceptance length (averaged over time)"),
					app.Th().Text("values"),
				)),
				app.TBody().Body(app.Range(rows).Slice(func(i int) app.UI {
					a := rows[i]
					cell := func(name string, v compute.Value, text string) app.UI {
						value := ""
						if v.OK {
							value = view.Plain(v.V)
						}
						c := app.Td().DataSet("metric", name).DataSet("value", value).Text(text)
						if !v.OK {
							c = c.DataSet("undefined", "true")
						}
						return c
					}
					return app.Tr().DataSet("averaged-row", "true").Body(
						app.Td().Class("group-name").Text(a.Name),
						cell("averaged-acceptance-rate", a.Rate.Value, compute.FormatPercent(a.Rate.Value, 1)),
						cell("averaged-mean-acceptance-length", a.Length.Value, compute.FormatLength(a.Length.Value)),
						app.Td().Text(strconv.Itoa(a.Rate.Samples)+" / "+strconv.Itoa(a.Length.Samples)),
					)
				})),
			))
		}
	}
	if v := sv.V0; v != nil {
		body = append(body, app.Div().Class("cards").Body(
			metric("emitted-throughput", "Emitted throughput", "Emitted tokens / window seconds: increase of vllm:spec_decode_num_emitted_tokens_total (vLLM V0).",
				v.EmittedThroughput, compute.FormatRate(v.EmittedThroughput, "tokens/s"), compute.FormatCount(v.EmittedTokens, "tokens emitted")),
			metric("system-efficiency", "System efficiency (window)", "emitted / ((draft tokens / k) × (k + 1)): needs k (num_speculative_tokens), which vLLM V0 does not export.",
				compute.Value{}, "needs k (not exported by vLLM V0)", "emitted / ((draft / k) × (k + 1))"),
			metric("lifetime-acceptance-rate", "Lifetime acceptance rate", "Last value in the window of vllm:spec_decode_draft_acceptance_rate: accepted / draft tokens since the server started, not windowed (one series only).",
				v.LifetimeAcceptanceRate, view.LifetimeText(v.LifetimeAcceptanceRate), "since server start, not windowed"),
			metric("lifetime-system-efficiency", "Lifetime system efficiency", "Last value in the window of vllm:spec_decode_efficiency: system efficiency since the server started, not windowed (one series only).",
				v.LifetimeSystemEfficiency, view.LifetimeText(v.LifetimeSystemEfficiency), "since server start, not windowed"),
		))
	}
	return root.DataSet("schema-id", sv.Schema.ID).Body(body...)
}
