package app

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/metricsclient"
)

// SchemaView is what the detected schema adds to a load beyond the counter
// panels (metricsclient.Schemas): its limits, shown as notes, and the
// numbers only it has, from FetchAuto's Extra series.
type SchemaView struct {
	// Schema is the detected schema.
	Schema metricsclient.Schema
	// Averaged are a gauge schema's (SGLang) numbers: the total first,
	// then one per group of the query's group-by labels (none without
	// grouping).
	Averaged []AveragedGroup
	// V0 are vLLM V0's numbers over all series; nil for other schemas.
	V0 *V0View
}

// AveragedGroup is the average over time of SGLang's gauges for one group
// of series (compute.AverageGauge of the values at the step points in the
// window): never rate(), never a ratio of sums.
type AveragedGroup struct {
	// Name is the group's display name (GroupName), "all series" for the
	// total.
	Name string
	// Length averages sglang:spec_accept_length (tokens per draft, bonus
	// token included); Rate averages sglang:spec_accept_rate (ratio 0..1).
	Length, Rate compute.GaugeAverage
}

// V0View are vLLM V0's numbers beyond the acceptance rate over the window.
type V0View struct {
	// EmittedTokens is the increase of
	// vllm:spec_decode_num_emitted_tokens_total (tokens); EmittedThroughput
	// is it over the window's seconds (tokens/s), undefined without series.
	EmittedTokens     float64
	EmittedThroughput compute.Value
	// LifetimeRate and LifetimeEfficiency are the last values in the window
	// of vllm:spec_decode_draft_acceptance_rate and vllm:spec_decode_efficiency
	// (ratios 0..1 since the server started); undefined without exactly one
	// series (lifetime ratios of several servers cannot be combined).
	LifetimeRate, LifetimeEfficiency compute.Value
}

// applySchema records the schema's own numbers (SchemaView) and clears the
// derived values the schema cannot give: a rate of a count the engine does
// not export is undefined, not 0 (drafts/s without a drafts counter; every
// throughput of a gauge schema).
func (res *Result) applySchema(f *metricsclient.Fetched, q Query, g compute.Grid) {
	s := f.Schema()
	sv := &SchemaView{Schema: s}
	res.SchemaView = sv
	clearStats := func(st *compute.Stats) {
		if s.Kind == metricsclient.Gauges {
			st.AcceptedThroughput, st.DraftedThroughput, st.DraftsPerSecond = compute.Value{}, compute.Value{}, compute.Value{}
		} else if !s.HasFamily(compute.Drafts) {
			st.DraftsPerSecond = compute.Value{}
		}
	}
	clearStats(&res.Stats)
	for i := range res.Buckets {
		clearStats(&res.Buckets[i])
	}
	for i := range res.Groups {
		clearStats(&res.Groups[i].Stats)
		for j := range res.Groups[i].Buckets {
			clearStats(&res.Groups[i].Buckets[j])
		}
	}

	byRole := func(r metricsclient.Role) []metricsclient.ExtraSeries {
		var out []metricsclient.ExtraSeries
		for _, es := range f.Extra {
			if es.Role == r {
				out = append(out, es)
			}
		}
		return out
	}
	points := func(ss []metricsclient.ExtraSeries) [][]compute.Point {
		out := make([][]compute.Point, len(ss))
		for i, es := range ss {
			out[i] = es.Points
		}
		return out
	}
	switch {
	case s.Kind == metricsclient.Gauges:
		length, rate := byRole(metricsclient.WindowAcceptLength), byRole(metricsclient.WindowAcceptRate)
		avg := func(name string, l, r []metricsclient.ExtraSeries) AveragedGroup {
			a := AveragedGroup{Name: name,
				Length: compute.AverageGauge(points(l), g.Start, g.End),
				Rate:   compute.AverageGauge(points(r), g.Start, g.End)}
			if a.Length.Value.OK && q.Convention == compute.WithoutBonus {
				a.Length.Value = compute.Defined(a.Length.Value.V - 1)
			}
			return a
		}
		sv.Averaged = append(sv.Averaged, avg("all series", length, rate))
		if len(q.GroupBy) > 0 {
			keys := map[string]map[string]string{}
			var order []string
			for _, es := range f.Extra {
				k := GroupKey(es.Labels, q.GroupBy)
				if _, ok := keys[k]; !ok {
					keys[k] = es.Labels
					order = append(order, k)
				}
			}
			slices.Sort(order)
			of := func(ss []metricsclient.ExtraSeries, k string) []metricsclient.ExtraSeries {
				var out []metricsclient.ExtraSeries
				for _, es := range ss {
					if GroupKey(es.Labels, q.GroupBy) == k {
						out = append(out, es)
					}
				}
				return out
			}
			for _, k := range order {
				sv.Averaged = append(sv.Averaged, avg(GroupName(keys[k], q.GroupBy), of(length, k), of(rate, k)))
			}
		}
	case s.ID == metricsclient.VLLMV0.ID:
		v := &V0View{}
		emitted := byRole(metricsclient.EmittedTokens)
		for _, es := range emitted {
			v.EmittedTokens += compute.Increase(es.Points, g.Start, g.End)
		}
		if secs := float64(g.End-g.Start) / 1000; len(emitted) > 0 && secs > 0 {
			v.EmittedThroughput = compute.Defined(v.EmittedTokens / secs)
		}
		last := func(ss []metricsclient.ExtraSeries) compute.Value {
			var out compute.Value
			if len(ss) != 1 {
				return out
			}
			for _, p := range ss[0].Points {
				if p.T > g.Start && p.T <= g.End {
					out = compute.Defined(p.V)
				}
			}
			return out
		}
		v.LifetimeRate = last(byRole(metricsclient.LifetimeAcceptanceRate))
		v.LifetimeEfficiency = last(byRole(metricsclient.LifetimeEfficiency))
		sv.V0 = v
	}
}

// averagedCard is one time-averaged gauge number; data-samples holds the
// number of values averaged.
func averagedCard(name, label, tip string, a compute.GaugeAverage, text, sub string) app.UI {
	value := ""
	if a.Value.OK {
		value = plain(a.Value.V)
	}
	el := app.Div().Class("metric-value").DataSet("metric", name).DataSet("value", value).
		DataSet("samples", a.Samples)
	if num, unit, ok := splitUnit(text); ok && a.Value.OK {
		el = el.Body(app.Span().Class("num").Text(num), app.Text(" "), app.Span().Class("unit").Text(unit))
	} else {
		el = el.Text(text)
	}
	if !a.Value.OK {
		el = el.DataSet("undefined", "true").Class("undefined")
	}
	return app.Div().Class("card").Title(tip).Body(
		app.Div().Class("card-label").Text(label), el, app.Div().Class("card-sub").Text(sub))
}

// renderSchema shows the detected schema's limits as notes and its own
// numbers: SGLang's gauges averaged over time (total, and per group when
// grouped), vLLM V0's emitted tokens and lifetime ratios.
func (d *Dashboard) renderSchema() app.UI {
	root := app.Div().Class("schema-view")
	if d.res == nil || d.res.SchemaView == nil {
		return root
	}
	sv := d.res.SchemaView
	var body []app.UI
	for _, l := range sv.Schema.Limits {
		body = append(body, app.Div().Class("msg", "msg-note").DataSet("schema-limit", "true").Text("Schema limit: "+l))
	}
	lengthUnit := "tokens/draft, bonus token included"
	if d.q.Convention == compute.WithoutBonus {
		lengthUnit = "tokens/draft, without bonus token (SGLang's value − 1)"
	}
	if len(sv.Averaged) > 0 {
		t := sv.Averaged[0]
		body = append(body, app.Div().Class("cards").Body(
			averagedCard("averaged-acceptance-rate", "Acceptance rate (averaged over time)",
				"Mean of sglang:spec_accept_rate at the step points in the window, all series together: each value covers one SGLang decode-log window; averaged over time, never rate(), never a ratio of sums.",
				t.Rate, compute.FormatPercent(t.Rate.Value, 1), fmt.Sprintf("averaged over time: %d values of sglang:spec_accept_rate", t.Rate.Samples)),
			averagedCard("averaged-mean-acceptance-length", "Mean acceptance length (averaged over time)",
				"Mean of sglang:spec_accept_length at the step points in the window, all series together ("+lengthUnit+").",
				t.Length, compute.FormatLength(t.Length.Value), fmt.Sprintf("averaged over time: %d values of sglang:spec_accept_length", t.Length.Samples)),
		))
		if len(sv.Averaged) > 1 {
			rows := sv.Averaged[1:]
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
							value = plain(v.V)
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
				v.LifetimeRate, lifetimeText(v.LifetimeRate), "since server start, not windowed"),
			metric("lifetime-system-efficiency", "Lifetime system efficiency", "Last value in the window of vllm:spec_decode_efficiency: system efficiency since the server started, not windowed (one series only).",
				v.LifetimeEfficiency, lifetimeText(v.LifetimeEfficiency), "since server start, not windowed"),
		))
	}
	return root.DataSet("schema-id", sv.Schema.ID).Body(body...)
}

// lifetimeText prints a lifetime ratio as a percentage, "n/a (one series
// needed)" when undefined (no series, or several servers' ratios).
func lifetimeText(v compute.Value) string {
	if !v.OK {
		return compute.UndefinedShort + " (one series needed)"
	}
	return compute.FormatPercent(v, 1)
}
