package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"specdash/report"
	"specdash/view"
)

// prepare is the charts Render draws (view.Build), derived from the last
// result and the query's look (theme, time zone, sort order) and the split
// group; rebuilt only when one of them changes.
func (d *Dashboard) prepare() *view.Charts {
	key := fmt.Sprintf("%p|%s|%s|%s|%s", d.res, d.q.Theme, d.q.TZ, d.q.Sort, d.lay.Split)
	if d.view.Key == key && d.view.Options != nil {
		return &d.view
	}
	d.view = view.Build(d.res, d.q, d.lay.Split)
	d.view.Key = key
	return &d.view
}

// model is the view model shown, nil before the first load.
func (d *Dashboard) model() *model.Model {
	if d.res == nil {
		return nil
	}
	return &d.res.Model
}

// exportTable is the data behind the panel called name (Charts.Table).
func (d *Dashboard) exportTable(name string) report.Table {
	return d.prepare().Table(name, d.res, d.q, d.lay.Split)
}

// Render draws the page.
func (d *Dashboard) Render() app.UI {
	v := d.prepare()
	theme := d.themeName(v.Pal) // layout.go: "auto" in a pre-render without theme=
	root := app.Div().Class("dashboard", "theme-"+theme, d.layoutClass()).
		DataSet("dashboard", "specdash").
		DataSet("state", d.state()).
		DataSet("loads", d.gen).
		DataSet("theme", theme)
	var stats compute.Stats
	var grid compute.Grid
	if d.res != nil {
		stats, grid = d.res.SplitModel(d.lay.Split).Stats, d.res.Grid
		root = root.
			DataSet("window-start", grid.Start).
			DataSet("window-end", grid.End).
			DataSet("step-seconds", strconv.FormatFloat(grid.StepSeconds(), 'f', -1, 64)).
			DataSet("buckets", grid.Buckets()).
			DataSet("complete-buckets", d.res.Complete)
		if z := d.zoneOffsets(grid); z != "" {
			root = root.DataSet("zone-offsets", z)
		}
		if d.preview && d.previewAt > 0 {
			root = root.DataSet("load-at", d.previewAt)
		}
		if d.err != nil {
			root = root.DataSet("stale", "true")
		}
	}
	empty := d.emptyText()
	summaries := view.ChartSummaries(d.res, v)
	chart := func(name string, h int, zoom bool) app.UI {
		c := &Chart{Name: name, Option: v.Options[name], Spec: v.Specs[name], Height: h, Empty: empty, Zoom: zoom, Summary: summaries[name]}
		if zoom {
			c.ZoomHref = d.zoomHref(name, v.HeatFirst)
			if name == view.ChartHeatmap {
				c.ZoomFirst = v.HeatFirst
			}
		}
		return c
	}
	lineNote := v.LineNote()
	// The pre-render's answers (previewAnswers) come last: the page's
	// first paint does not wait for their bytes.
	answers := app.If(d.preview && d.answers != "", func() app.UI {
		return app.Div().Hidden(true).DataSet("answers", d.answers)
	})
	return root.Body(
		layout(
			d.renderHeader(),
			d.renderHealth(),
			&SourceStatus{},
			d.viewControls(d.renderControls(v), d.renderFilters()),
			d.liveRegion(),
			d.renderFilterSummary(),
			d.renderMessages(),
			d.renderSchema(),
			d.renderCards(),
			d.renderSplit(),
			app.Div().Class("row", "row-2").Body(
				d.panel(view.ChartPerPosition, "Per-position acceptance",
					"Bars: share of drafts whose token at this position was accepted (accepted at position / drafts). Line: acceptance at a position given the previous one was accepted (accepted at i / accepted at i−1)."+d.res.BlendCaption(d.lay.Split),
					true,
					chart(view.ChartPerPosition, 260, false),
					d.renderPositions(stats),
				),
				d.panel(view.ChartHeatmap, "Per-position acceptance over time",
					view.HeatmapNote(grid)+d.res.BlendCaption(d.lay.Split),
					true,
					chart(view.ChartHeatmap, 290, true),
				),
			),
			&InsightsPanel{Stats: stats, Ready: d.res != nil, Empty: d.emptyText(), Theme: d.q.Theme, Measured: d.measured(), Caption: d.res.BlendCaption(d.lay.Split)},
			d.renderBreakdown(v),
			app.Div().Class("row", "row-2").Body(
				d.panel(view.ChartAcceptanceRate, "Acceptance rate over time",
					view.BucketNote(grid, "accepted / draft tokens")+lineNote, true,
					chart(view.ChartAcceptanceRate, 240, true), d.renderChanges(v)),
				d.panel(view.ChartAcceptanceLength, "Mean acceptance length over time",
					view.BucketNote(grid, view.LengthFormula(d.q.Convention))+lineNote, true,
					chart(view.ChartAcceptanceLength, 240, true)),
			),
			app.Div().Class("row", "row-2").Body(
				d.panel(view.ChartThroughput, "Token throughput",
					"Drafted, accepted and rejected (drafted − accepted) draft tokens per second, "+view.BucketNote(grid, "increase / bucket seconds")+d.res.BlendCaption(d.lay.Split), true,
					chart(view.ChartThroughput, 240, true)),
				d.panel(view.ChartDrafts, "Drafts per second",
					view.BucketNote(grid, "drafts / bucket seconds")+lineNote, true,
					chart(view.ChartDrafts, 240, true)),
			),
			d.renderLatency(chart),
			d.renderCompare(v),
			d.renderFooter(),
		),
		answers,
	)
}

// panel is a titled card with export buttons (CSV, JSON, and PNG for a
// chart) in its header.
func (d *Dashboard) panel(name, title, note string, isChart bool, body ...app.UI) app.UI {
	formats := []string{"csv", "json"}
	if isChart {
		formats = append(formats, "png")
	}
	reason := d.exportReason(name) // exportmeta.go
	tools := app.Div().Class("tools").Body(
		app.Range(formats).Slice(func(i int) app.UI {
			f := formats[i]
			tip := "Download the " + strings.ToUpper(f) + " of this panel"
			if reason != "" {
				tip = reason
			}
			return app.Button().Class("tool").Type("button").
				DataSet("export", name+"."+f).
				Title(tip).Aria("label", strings.ToUpper(f)+" export of "+title).
				Disabled(reason != "").
				Text(strings.ToUpper(f)).
				OnClick(d.onExport(name, f))
		}),
	)
	content := append([]app.UI{
		app.Div().Class("panel-head").Body(app.H2().Text(title), tools),
		app.P().Class("panel-note").Text(note),
	}, body...)
	return app.Section().Class("panel").DataSet("panel", name).Body(content...)
}

// emptyText is what a chart without data says now (view.EmptyText).
func (d *Dashboard) emptyText() string { return view.EmptyText(d.state()) }

func (d *Dashboard) renderHeader() app.UI {
	source := d.source
	if source == "" {
		source = "(not configured)"
	}
	themeBtn := app.Button().ID("theme").Class("btn").Type("button").Title("Switch between the light and dark theme").OnClick(d.onTheme)
	if d.lay.themeAuto {
		// A pre-render without theme= follows the OS, or the choice
		// boot.js put on <html> (layout.go): both labels, of which
		// specdash.css shows the one of the page's theme, as the live
		// page's button then says.
		themeBtn = themeBtn.Body(
			app.Span().Class("theme-label-light").Text(view.ThemeLabel(view.ThemeLight)),
			app.Span().Class("theme-label-dark").Text(view.ThemeLabel(view.ThemeDark)),
		)
	} else {
		themeBtn = themeBtn.Text(view.ThemeLabel(d.q.Theme))
	}
	return app.Header().Class("top").Body(
		app.Div().Class("brand").Body(
			app.Img().Src("/web/icon.svg").Alt("specdash logo").Class("logo"),
			app.Div().Body(
				app.H1().Text("specdash"),
				app.Div().Class("tagline").Text("speculative decoding"),
			),
		),
		app.Div().Class("source").Body(
			app.Span().Class("source-label").Text("Source"),
			app.Code().DataSet("source", "upstream").Text(source),
			app.If(d.q.Source != "" && view.UnknownSource(Sources(), d.q.Source), func() app.UI {
				return app.Span().Class("source-scrape", "source-unknown").DataSet("source-unknown", "true").
					Text("unknown source " + strconv.Quote(d.q.Source) + " (not configured): showing the default source")
			}).ElseIf(d.q.Source != "", func() app.UI {
				return app.Span().Class("source-scrape").Text("view source: " + d.q.Source)
			}),
			app.Span().Class("source-scrape").Text("scrape "+d.scrape.String()),
			app.If(d.schema != "", func() app.UI {
				return app.Span().Class("source-scrape").DataSet("schema", d.schema).Title("Metric schema detected in the window").Text("schema " + d.schema)
			}),
			app.A().Class("nav-link").Href("/logs").Text("Logs"),
		),
		app.Div().Class("top-actions").Body(
			app.Button().ID("copy-link").Class("btn").Type("button").Title("Copy a link that reproduces this view").Text("Copy link").OnClick(d.onCopyLink),
			themeBtn,
		),
	)
}

// selectOpt is one <option>; href is its data-href (selectBoxTip).
type selectOpt struct{ value, label, href string }

func selectBox(id, label string, current string, options []selectOpt, h app.EventHandler) app.UI {
	return selectBoxTip(id, label, "", current, options, h)
}

// selectBoxTip is a labelled <select> with a tooltip. In the
// pre-rendered page, each option of a select that edits the view
// (view.Query.WithSelect) carries where choosing it leads
// (data-href, view.SelectHref): web/static/preview.js follows it when the
// select is changed before the wasm runs.
func selectBoxTip(id, label, tip string, current string, options []selectOpt, h app.EventHandler) app.UI {
	return app.Label().Class("control").For(id).Title(tip).Body(
		app.Span().Class("control-label").Text(label),
		app.Select().ID(id).Name(id).OnChange(h).Body(
			app.Range(options).Slice(func(i int) app.UI {
				o := options[i]
				opt := app.Option().Value(o.value).Selected(o.value == current).Text(o.label)
				if o.href != "" {
					opt = opt.DataSet("href", o.href)
				}
				return opt
			}),
		),
	)
}

// withHrefs gives each option of the dashboard's select field (one that
// view.Query.WithSelect edits) its view.SelectHref on the server (the
// pre-rendered page); the client's options need none. It sets options'
// hrefs in place.
func (d *Dashboard) withHrefs(field string, options []selectOpt) []selectOpt {
	if app.IsClient || d.page == nil {
		return options
	}
	for i := range options {
		options[i].href = view.SelectHref(d.page, d.q, field, options[i].value)
	}
	return options
}

// href is where an edit that leads to q takes the pre-rendered page
// (view.EditHref), for the controls web/static/preview.js makes work
// before the wasm runs (data-href); "" in the browser, whose controls
// need none.
func (d *Dashboard) href(q view.Query) string {
	if app.IsClient {
		return ""
	}
	return view.EditHref(d.page, q)
}

// zoomHref is the page a zoom on the pre-rendered chart leads to (as the
// live page's onZoom), for web/static/preview.js: the zoom on the whole
// window, whose from and to preview.js sets to the span selected, as
// view.Query.Zoom does (data-zoom-href); "" in the browser, or without
// buckets.
func (d *Dashboard) zoomHref(chart string, heatFirst []int) string {
	if app.IsClient || d.res == nil {
		return ""
	}
	q, ok := d.q.Zoom(d.res, chart, heatFirst, 0, d.res.Grid.Buckets()-1)
	if !ok {
		return ""
	}
	return d.href(q)
}

// labelValues are the values known of label (view.LabelValues).
func (d *Dashboard) labelValues(label string) []string {
	return view.LabelValues(d.labels, d.models, d.engines, label)
}

func (d *Dashboard) renderFilters() app.UI {
	names := view.LabelNames(d.labels, d.q)
	d.closeShiftedMenus(names)
	return app.Div().Class("filters").Body(
		app.Span().Class("filters-title").Title("Keep only the series whose label has one of the chosen values. Each menu lists the values of the series the other filters keep, over the whole window.").Text("Filters"),
		app.Range(names).Slice(func(i int) app.UI { return d.renderFilterMenu(names[i]) }),
		app.Div().Class("control", "control-group").Title("Group the breakdown table and the per-group charts by these labels (ratio of sums within each group).").Body(
			app.Span().Class("control-label").Text("Group by"),
			app.Div().Class("checks").Body(
				app.Range(names).Slice(func(i int) app.UI {
					l := names[i]
					id := "group-" + l
					on := slices.Contains(d.grouping(), l)
					box := app.Input().Type("checkbox").ID(id).DataSet("group", l).Checked(on).OnChange(d.onGroup(l))
					if h := d.href(d.q.WithGroup(d.grouping(), l, !on)); h != "" {
						box = box.DataSet("href", h)
					}
					return app.Label().Class("check").For(id).Body(box, app.Span().Text(l))
				}),
			),
		),
	)
}

func (d *Dashboard) renderControls(v *view.Charts) app.UI {
	var ranges, refreshes []selectOpt
	curRange := d.q.Range
	if d.q.Absolute() {
		curRange = "custom"
		ranges = append(ranges, selectOpt{value: "custom", label: "custom window"})
	}
	if !slices.Contains(view.Ranges, d.q.Range) { // a range from the URL (?range=10m)
		ranges = append(ranges, selectOpt{value: d.q.Range, label: "last " + d.q.Range})
	}
	for _, r := range view.Ranges {
		ranges = append(ranges, selectOpt{value: r, label: "last " + r})
	}
	for _, r := range view.Refreshes {
		refreshes = append(refreshes, selectOpt{value: r, label: r})
	}
	conv := view.ConventionBonus
	if d.q.Convention == compute.WithoutBonus {
		conv = view.ConventionNoBonus
	}
	status, statusText := view.Status(d.loading, d.err, d.problem().Title, d.res, v.Loc)
	from, to := d.q.InputWindow(d.res)
	tzName := d.q.TZName()
	return app.Nav().Class("controls").Body(
		selectBoxTip("range", "Time range", "Relative window ending now (live), or the custom window set below or by selecting a span on a chart.", curRange, d.withHrefs("range", ranges), d.onSelect("range")),
		app.Label().Class("control").For("from").Title("Window start ("+tzName+" time)").Body(
			app.Span().Class("control-label").Text("From ("+tzName+")"),
			timeInput("from", from, v.Loc, d.onTime(false)),
		),
		app.Label().Class("control").For("to").Title("Window end ("+tzName+" time)").Body(
			app.Span().Class("control-label").Text("To ("+tzName+")"),
			timeInput("to", to, v.Loc, d.onTime(false)),
		),
		app.If(d.q.Absolute(), func() app.UI {
			live := app.Button().ID("live").Class("btn").Type("button").Title("Back to a relative window ending now").Text("Live").OnClick(d.onLive)
			if h := d.href(d.q.Live()); h != "" {
				live = live.DataSet("href", h)
			}
			return live
		}),
		selectBoxTip("refresh", "Auto-refresh", "Reload period in live mode. Buckets are aligned to the step, so a refresh never moves them.", view.RefreshOr(d.q.Refresh), refreshes, d.onSelect("refresh")), // no href: a preference of the live page (remembered), meaningless before it
		selectBoxTip("tz", "Time zone", "Times on axes, inputs and exports' labels", d.q.TZ, d.withHrefs("tz", []selectOpt{{value: view.TZLocal, label: "local"}, {value: view.TZUTC, label: "UTC"}}), d.onSelect("tz")),
		selectBoxTip("convention", "Mean length", "Mean acceptance length: with the bonus token (1 + accepted / drafts, vLLM since PR 17908) or without (accepted / drafts)", conv, d.withHrefs("convention", []selectOpt{
			{value: view.ConventionBonus, label: "with bonus token"},
			{value: view.ConventionNoBonus, label: "without bonus token"},
		}), d.onSelect("convention")),
		app.Div().Class("status").Body(
			app.Button().Class("refresh-now").Type("button").Text("Refresh").OnClick(d.onRefreshNow),
			app.Span().Class("status-text", "status-"+status).DataSet("loading", d.loading).Body(
				app.If(d.loading, func() app.UI { return app.Span().Class("spinner") }),
				app.Text(statusText),
			),
		),
	)
}

func (d *Dashboard) renderMessages() app.UI {
	var msgs []app.UI
	if d.wasmMissing {
		msgs = append(msgs, app.Div().Class("msg", "msg-error").Text("app.wasm not built: run make build"))
	}
	if d.notice != "" {
		n := app.Div().Class("msg", "msg-note").DataSet("notice", "true").Body(app.Text(d.notice))
		if d.link != "" {
			n = app.Div().Class("msg", "msg-note").DataSet("notice", "true").Body(
				app.Text(d.notice+" "),
				app.Input().Class("link-box").ReadOnly(true).Value(d.link).DataSet("link", "true"),
			)
		}
		msgs = append(msgs, n)
	}
	if d.q.Warn != "" {
		msgs = append(msgs, app.Div().Class("msg", "msg-note").DataSet("url-warning", "true").Text(d.q.Warn))
	}
	if d.err != nil {
		class, text := "msg-error", view.ErrorText(d.err, d.errAt, d.res, d.q.Location())
		if d.res != nil {
			class = "msg-stale"
		}
		if d.stopEmpty != nil {
			text += view.RetryText(d.scrape, d.emptyTries)
		}
		msgs = append(msgs, d.renderProblem(class, text)) // states.go
	}
	if d.res != nil {
		if note := view.CoverageNote(d.res); note != "" {
			msgs = append(msgs, app.Div().Class("msg", "msg-note").DataSet("coverage", "true").
				DataSet("coverage-seconds", strconv.FormatInt((d.res.Grid.End-d.res.DataFrom)/1000, 10)).Text(note))
		}
		for _, n := range d.res.OtherNotes() {
			msgs = append(msgs, app.Div().Class("msg", "msg-note").Text(n))
		}
	}
	return app.Div().Class("messages").Body(msgs...)
}

// metric is one headline number; tip explains it with its formula.
func metric(name, label, tip string, v compute.Value, text, sub string) app.UI {
	return app.Div().Class("card").Title(tip).Body(
		app.Div().Class("card-label").Text(label),
		number(app.Div().Class("metric-value").DataSet("metric", name), v, text, true),
		app.Div().Class("card-sub").Text(sub),
	)
}

func (d *Dashboard) renderHeadline(s compute.Stats) app.UI {
	cards := view.WindowCards(d.res, d.q, s)
	out := make([]app.UI, len(cards))
	for i, c := range cards {
		out[i] = metric(c.Name, c.Label, c.Tip, c.Window, c.WindowText, c.Sub)
	}
	return app.Div().Class("cards").Body(out...)
}

func (d *Dashboard) renderPositions(s compute.Stats) app.UI {
	return app.Div().Class("positions").Body(
		app.Range(s.PerPositionAcceptanceRate).Slice(func(i int) app.UI {
			v := s.PerPositionAcceptanceRate[i]
			value := ""
			if v.OK {
				value = view.Plain(v.V)
			}
			el := app.Span().Class("position-value").
				DataSet("metric", "per-position-acceptance-rate").
				DataSet("position", i+1).
				DataSet("value", value).
				Text(compute.FormatPercent(v, 1))
			if !v.OK {
				el = el.DataSet("undefined", "true")
			}
			return app.Div().Class("position").Title("accepted at "+chartopt.PositionLabel(i)+" / drafts").Body(
				app.Span().Class("position-label").Text(chartopt.PositionLabel(i)),
				el,
			)
		}),
	)
}

func (d *Dashboard) renderFooter() app.UI {
	window := view.FooterWindow(d.res, d.q)
	version := "specdash"
	if d.version != "" {
		version += " " + d.version
	}
	return app.Footer().Class("foot").Body(
		app.Span().Text(window),
		app.Span().Text(version),
	)
}
