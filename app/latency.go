package app

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

// The latency panel: whether speculation pays, next to acceptance. It
// shows the window's inter-token latency p50/p95/p99 and mean (ms) with
// the caveat that vLLM's ITL is per engine step (model.ITLCaveat), the
// quantiles per bucket as a chart, output tokens/s, the share of output
// from accepted drafts, and the load table: per bin of running requests,
// acceptance rate, mean ITL and the estimated speedup. All numbers come
// from model.Latency; undefined ones show model.Dash with the reason.
//
// Test hooks: [data-panel=inter-token-latency]; [data-latency] elements
// with data-value (plain decimals, seconds for latencies, ratio for the
// share) or data-undefined="true" and data-reason: itl-p50, itl-p95,
// itl-p99, itl-mean, output-per-second, output-share; [data-itl-caveat];
// [data-latency-missing] per missing family; the table
// [data-load-table] with rows [data-load-bin].

// latencyValue is one number of the panel: text when v is defined, else
// model.Dash and the reason.
func latencyValue(name string, v compute.Value, text, reason string) app.UI {
	el := app.Span().Class("insight-value").DataSet("latency", name)
	if v.OK {
		return number(el, v, text, true)
	}
	if reason == "" {
		reason = compute.Undefined
	}
	return app.Span().Body(
		el.Class("undefined").DataSet("undefined", "true").DataSet("reason", reason).Text(model.Dash),
		app.Span().Class("unit").Text(" "+reason),
	)
}

// quantilePair is the p95 / p99 card's value: each quantile as ms shows
// it, and when neither is defined both dashes with their reason said once
// ("– / – no inter-token latency histogram", not the reason twice around
// the slash).
func quantilePair(ms func(string, compute.Value) app.UI, p95, p99 compute.Value, reason string) app.UI {
	if p95.OK || p99.OK {
		// A narrow card breaks the line before the slash, not after it.
		return app.Span().Body(ms("itl-p95", p95), app.Text(" "), app.Span().Class("pair-second").Body(app.Text("/ "), ms("itl-p99", p99)))
	}
	if reason == "" {
		reason = compute.Undefined
	}
	return app.Span().Body(
		app.Span().Class("insight-value", "undefined").DataSet("latency", "itl-p95").DataSet("undefined", "true").DataSet("reason", reason).Text(model.Dash),
		app.Text(" / "),
		ms("itl-p99", p99),
	)
}

// renderLatency is the latency panel; nothing for input without a
// source (log text).
func (d *Dashboard) renderLatency(chart func(name string, h int, zoom bool) app.UI) app.UI {
	m := d.model()
	if m == nil || m.Latency == nil {
		return app.Text("")
	}
	l := m.Latency
	q := l.ITL
	itlReason := l.Reasons["itl"]
	ms := func(name string, v compute.Value) app.UI {
		return latencyValue(name, v, model.FormatMs(v), itlReason)
	}
	itlSub, shareSub := view.ITLSub(l), view.ShareSub(m)
	share := latencyValue("output-share", l.OutputShare, compute.FormatPercent(l.OutputShare, 1), l.Reasons["output_share"])
	perSec := latencyValue("output-per-second", l.OutputPerSecond, compute.FormatRate(l.OutputPerSecond, "tokens/s"), l.Reasons["output_per_second"])
	var missing []app.UI
	for _, s := range l.Missing {
		missing = append(missing, app.Div().Class("msg", "msg-note").DataSet("latency-missing", "true").Text(s))
	}
	if l.Err != nil {
		missing = append(missing, app.Div().Class("msg", "msg-error").DataSet("latency-missing", "true").Text("latency: "+l.Err.Error()))
	}
	body := []app.UI{
		app.P().Class("panel-note").DataSet("itl-caveat", "true").Text("Note: " + model.ITLCaveat + "."),
		app.Div().Class("cards").Body(
			valueCard("Inter-token latency p50", q.P50.OK, ms("itl-p50", q.P50), app.Text(itlSub)),
			valueCard("Inter-token latency p95 / p99", q.P95.OK || q.P99.OK, quantilePair(ms, q.P95, q.P99, itlReason), app.Text("per engine step")),
			valueCard("Inter-token latency mean", q.Mean.OK, ms("itl-mean", q.Mean), app.Text("ITL sum / observations")),
			valueCard("Output tokens/s", l.OutputPerSecond.OK, perSec, app.Text("output tokens / seconds of data")),
			valueCard("Output from accepted drafts", l.OutputShare.OK, share, app.Text(shareSub)),
		),
	}
	if l.ITLMetric != "" {
		body = append(body, chart(view.ChartLatency, 240, true))
	}
	body = append(body, renderLoadTable(l))
	body = append(body, missing...)
	return d.panel(view.ChartLatency, "Latency and output: is speculation paying?",
		"Inter-token latency quantiles (histogram_quantile of the increases summed over series), per window and per "+view.StepText(m.Grid)+" bucket, in ms.",
		true, body...)
}

// renderLoadTable is the table "load (running requests) → acceptance,
// ITL, estimated speedup".
func renderLoadTable(l *model.Latency) app.UI {
	title := app.H3().Text("Load (running requests) → acceptance, ITL, estimated speedup")
	if len(l.Load) == 0 {
		reason := l.Reasons["load"]
		if reason == "" {
			reason = compute.Undefined
		}
		return app.Div().Class("load-table").Body(title, app.P().Class("panel-note").DataSet("load-empty", "true").Text(model.Dash+" "+reason))
	}
	head := app.Tr().Body(app.Th().Text("running requests (per engine, bucket average)"), app.Th().Text("buckets"),
		app.Th().Text("acceptance rate"), app.Th().Text("mean ITL"), app.Th().Text("est. speedup (c = "+strconv.FormatFloat(l.LoadCost, 'g', -1, 64)+")"))
	rows := []app.UI{head}
	for _, b := range l.Load {
		rate, itl, sp := view.LoadBinTexts(b)
		rows = append(rows, app.Tr().DataSet("load-bin", b.Label()).Body(
			app.Td().Text(b.Label()), app.Td().Text(strconv.Itoa(b.Buckets)),
			app.Td().Text(rate), app.Td().Text(itl), app.Td().Text(sp)))
	}
	return app.Div().Class("load-table").Body(title,
		app.P().Class("panel-note").Text("Buckets binned by the average of "+l.LoadMetric+" over the bucket (per engine); each bin sums its buckets' counts and ITL histograms (ratio of sums). Above the load where the speedup falls to 1×, speculation stops paying."),
		app.Div().Class("table-scroll").Body(app.Table().Class("breakdown").DataSet("load-table", "true").Body(rows...)))
}

// measured is the loaded model's measured speedup (nil without one).
func (d *Dashboard) measured() *model.Measured {
	if m := d.model(); m != nil {
		return m.Measured
	}
	return nil
}
