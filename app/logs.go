package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/report"
	"specdash/view"
)

// maxLogFileBytes bounds a log file read in the browser (64 MiB).
const maxLogFileBytes = 64 << 20

// LogsPage is the /logs page: paste or upload vLLM log text (every form of
// the "SpecDecoding metrics:" / "Speculative metrics:" line, any prefix) or
// a raw /metrics scrape, and get the numbers, the per-position chart and
// the insights without Prometheus. Parsing runs in the browser with
// specdash/logparse and specdash/report (report.FromLog, report.FromScrape:
// the numbers `specdash report --from-log` prints).
//
// Test hooks: the root [data-logs] carries data-state
// ("empty"|"ready"|"error"); the total's numbers are [data-metric] inside
// [data-scope=total] (acceptance-rate, mean-acceptance-length, k, drafts
// with data-derived="true" for logs, accepted-tokens, draft-tokens,
// accepted-throughput, drafted-throughput, per-position-acceptance-rate
// with data-position); each source is a row [data-source=<index>] with
// the same names; problems are [data-problem] with data-line; the
// textarea is #log-text, the file input #log-file, the button #parse.
type LogsPage struct {
	app.Compo

	text    string
	file    string
	conv    string // "auto", ConventionBonus, ConventionNoBonus
	rep     *report.LogReport
	usedCon compute.Convention
	err     string
}

// OnInit sets the defaults.
func (l *LogsPage) OnInit() {
	l.conv = "auto"
}

func (l *LogsPage) onText(ctx app.Context, e app.Event) {
	l.text = ctx.JSSrc().Get("value").String()
	l.file = ""
}

func (l *LogsPage) onParse(ctx app.Context, e app.Event) {
	l.parse()
}

func (l *LogsPage) onConv(ctx app.Context, e app.Event) {
	l.conv = ctx.JSSrc().Get("value").String()
	if l.rep != nil || l.err != "" {
		l.parse()
	}
}

// onFile reads the chosen file with the browser's File.text() and parses
// it. Every JS call is recovered: a JS exception must not kill the app.
func (l *LogsPage) onFile(ctx app.Context, e app.Event) {
	defer func() {
		if r := recover(); r != nil {
			l.err = fmt.Sprintf("could not read the file: %v", r)
		}
	}()
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Get("length").Int() == 0 {
		return
	}
	f := files.Index(0)
	name := f.Get("name").String()
	if size := f.Get("size").Int(); size > maxLogFileBytes {
		l.err = fmt.Sprintf("%s is %d MiB, more than %d MiB: cut it first (e.g. grep 'SpecDecoding metrics')", name, size>>20, maxLogFileBytes>>20)
		return
	}
	var then, fail app.Func
	release := func() {
		then.Release()
		fail.Release()
	}
	then = app.FuncOf(func(this app.Value, args []app.Value) any {
		text := ""
		if len(args) > 0 {
			text = args[0].String()
		}
		ctx.Dispatch(func(ctx app.Context) {
			l.text, l.file = text, name
			l.parse()
		})
		release()
		return nil
	})
	fail = app.FuncOf(func(this app.Value, args []app.Value) any {
		msg := "unknown error"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ctx.Dispatch(func(ctx app.Context) { l.err = "could not read " + name + ": " + msg })
		release()
		return nil
	})
	f.Call("text").Call("then", then, fail)
}

// parse turns the text into the report (view.ParseLogs).
func (l *LogsPage) parse() {
	l.rep, l.usedCon, l.err = view.ParseLogs(l.file, l.text, l.conv)
}

func (l *LogsPage) state() string {
	switch {
	case l.rep != nil && l.rep.Usable():
		return "ready"
	case l.err != "":
		return "error"
	}
	return "empty"
}

// Render draws the page.
func (l *LogsPage) Render() app.UI {
	root := app.Div().Class("dashboard", "logs", "theme-light").DataSet("logs", "specdash").DataSet("state", l.state())
	return root.Body(layout(
		app.Header().Class("top").Body(
			app.Div().Class("brand").Body(
				app.Img().Src("/web/icon.svg").Alt("specdash logo").Class("logo"),
				app.Div().Body(
					app.H1().Text("specdash"),
					app.Div().Class("tagline").Text("numbers from vLLM logs, without Prometheus"),
				),
			),
			app.Div().Class("source").Body(
				app.A().Class("nav-link").Href("/").Text("Live dashboard"),
			),
		),
		l.renderInput(),
		l.renderMessages(),
		l.renderResult(),
		app.Footer().Class("foot"),
	))
}

func (l *LogsPage) renderInput() app.UI {
	return app.Section().Class("panel", "panel-wide", "logs-input").Body(
		app.H2().Text("Paste or upload"),
		app.P().Class("panel-note").Text("vLLM log lines containing \"SpecDecoding metrics:\" (any version, V0's \"Speculative metrics:\" too, with any prefix such as a container name), or a raw /metrics scrape. Everything stays in this browser."),
		app.Textarea().ID("log-text").Class("log-text").Rows(10).
			Placeholder("INFO 04-16 09:49:04 [metrics.py:82] SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, ...").
			OnInput(l.onText),
		app.Div().Class("controls").Body(
			app.Label().Class("control").For("log-file").Body(
				app.Span().Class("control-label").Text("Or a file"),
				app.Input().ID("log-file").Type("file").Accept(".log,.txt,text/plain").OnChange(l.onFile),
			),
			selectBox("log-convention", "Mean length", l.conv, []selectOpt{
				{value: "auto", label: "as the log printed it"},
				{value: view.ConventionBonus, label: "with bonus token"},
				{value: view.ConventionNoBonus, label: "without bonus token"},
			}, l.onConv),
			app.Button().ID("parse").Class("refresh-now").Text("Show numbers").OnClick(l.onParse),
		),
	)
}

func (l *LogsPage) renderMessages() app.UI {
	var msgs []app.UI
	if l.err != "" {
		msgs = append(msgs, app.Div().Class("msg", "msg-error").DataSet("error", "true").Text(l.err))
	}
	if l.rep != nil {
		for _, w := range l.rep.Warnings {
			msgs = append(msgs, app.Div().Class("msg", "msg-note").DataSet("warning", "true").Text(w))
		}
	}
	return app.Div().Class("messages").Body(msgs...)
}

func (l *LogsPage) renderResult() app.UI {
	r := l.rep
	if r == nil {
		return app.Div()
	}
	var body []app.UI
	if r.Usable() {
		total := r.TotalStats()
		derived := r.Input == "log"
		summary := view.LogSummary(r, l.usedCon)
		body = append(body,
			app.P().Class("panel-note").DataSet("summary", "true").Text(summary),
			app.Div().DataSet("scope", "total").Body(
				logCards(total, derived, l.usedCon),
				app.Section().Class("panel", "panel-wide").Body(
					app.H2().Text("Per-position acceptance rate"),
					app.P().Class("panel-note").Text("Share of drafts whose token at this position was accepted (accepted at position / drafts)."),
					&Chart{Name: view.ChartPerPosition, Option: chartopt.PerPosition(total, compute.FitGeometric(total.Counts()), chartopt.PaletteFor(view.ThemeLight)).JSON(), Height: 260, Empty: compute.Undefined, Summary: view.PositionSummary(total)},
					positionsList(total),
				),
			),
			&InsightsPanel{Stats: total, Ready: true, NoURL: true},
			l.renderSources(),
		)
	}
	body = append(body, l.renderProblems())
	return app.Div().Class("logs-result").Body(body...)
}

// logMetric is one number with its test hook (undefined: data-undefined
// and "no drafts in window").
func logMetric(name string, v compute.Value, text string) app.HTMLSpan {
	if !v.OK {
		text = compute.Undefined
	}
	return number(app.Span().Class("metric-number").DataSet("metric", name), v, text, true)
}

func logCards(s compute.Stats, derived bool, conv compute.Convention) app.UI {
	drafts := logMetric("drafts", compute.Defined(s.Drafts), compute.FormatCount(s.Drafts, "drafts"))
	draftsSub, window := view.LogDraftTexts(derived)
	if derived {
		drafts = drafts.DataSet("derived", "true")
	}
	k := compute.Value{V: float64(s.K), OK: s.K > 0}
	kText := strconv.Itoa(s.K) + " positions"
	return app.Div().Class("cards").Body(
		card("Acceptance rate", logMetric("acceptance-rate", s.AcceptanceRate, compute.FormatPercent(s.AcceptanceRate, 1)), app.Text("accepted / draft tokens")),
		card("Mean acceptance length", logMetric("mean-acceptance-length", s.MeanAcceptanceLength, compute.FormatLength(s.MeanAcceptanceLength)), app.Text(view.LengthFormula(conv))),
		card("k (speculative tokens)", logMetric("k", k, kText), app.Text("draft positions")),
		card("Drafts", drafts, app.Text(draftsSub)),
		card("Accepted", logMetric("accepted-tokens", compute.Defined(s.AcceptedTokens), compute.FormatCount(s.AcceptedTokens, "tokens")),
			throughputMetric("accepted-throughput", s.AcceptedThroughput, s.DraftTokens, window)),
		card("Drafted", logMetric("draft-tokens", compute.Defined(s.DraftTokens), compute.FormatCount(s.DraftTokens, "tokens")),
			throughputMetric("drafted-throughput", s.DraftedThroughput, s.DraftTokens, window)),
	)
}

// throughputMetric is a throughput (tokens/s) of the logs page. Log lines
// carry no window unless vLLM printed throughputs on every line, and a
// scrape has none: then the number is undefined for want of a window, not
// for want of drafts, and says so ("throughput n/a (log window unknown)",
// data-reason="no-window"); compute.Undefined only when nothing was
// drafted.
func throughputMetric(name string, v compute.Value, draftTokens float64, why string) app.HTMLSpan {
	if v.OK || draftTokens == 0 {
		return logMetric(name, v, compute.FormatRate(v, "tokens/s"))
	}
	return app.Span().Class("metric-number", "undefined").DataSet("metric", name).
		DataSet("undefined", "true").DataSet("reason", "no-window").Text("throughput n/a (" + why + ")")
}

func positionsList(s compute.Stats) app.UI {
	items := make([]app.UI, len(s.PerPositionAcceptanceRate))
	for i, v := range s.PerPositionAcceptanceRate {
		items[i] = app.Div().Class("position").Body(
			app.Span().Class("position-label").Text(chartopt.PositionLabel(i)),
			logMetric("per-position-acceptance-rate", v, compute.FormatPercent(v, 1)).DataSet("position", i+1),
		)
	}
	return app.Div().Class("positions").Body(items...)
}

func (l *LogsPage) renderSources() app.UI {
	r := l.rep
	rows := make([]app.UI, len(r.Groups))
	anyDerived := false
	for i, g := range r.Groups {
		perText, speed := view.PerPositionText(g.PerPositionAcceptanceRate), view.LogSpeedup(g)
		drafts := logMetric("drafts", compute.Defined(g.Drafts), compute.FormatCount(g.Drafts, ""))
		if g.Insights != nil && len(g.Insights.Derived) > 0 && g.Insights.Derived[0] == "drafts" {
			drafts = drafts.DataSet("derived", "true").Title("derived: drafted / k")
			anyDerived = true
		}
		rows[i] = app.Tr().DataSet("source", i).Body(
			app.Td().Text(view.SourceName(g.Labels)),
			app.Td().Body(logMetric("k", compute.Value{V: float64(g.K), OK: g.K > 0}, strconv.Itoa(g.K))),
			app.Td().Body(drafts),
			app.Td().Body(logMetric("accepted-tokens", compute.Defined(g.AcceptedTokens), compute.FormatCount(g.AcceptedTokens, ""))),
			app.Td().Body(logMetric("draft-tokens", compute.Defined(g.DraftTokens), compute.FormatCount(g.DraftTokens, ""))),
			app.Td().Body(logMetric("acceptance-rate", g.AcceptanceRate, compute.FormatPercent(g.AcceptanceRate, 1))),
			app.Td().Body(logMetric("mean-acceptance-length", g.MeanAcceptanceLength, compute.FormatLength(g.MeanAcceptanceLength))),
			app.Td().Text(perText),
			app.Td().Body(logMetric("speedup", speed, view.Times(speed))),
		)
	}
	note, draftsHeader := view.LogSourcesTexts(r.Input, anyDerived, compute.DefaultDraftCostRatio)
	return app.Section().Class("panel", "panel-wide").Body(
		app.H2().Text("Per source"),
		app.P().Class("panel-note").Text(note),
		app.Table().Class("insights-table", "sources").Body(
			app.THead().Body(app.Tr().Body(
				app.Th().Text("Source"), app.Th().Text("k"), app.Th().Text(draftsHeader),
				app.Th().Text("Accepted (tokens)"), app.Th().Text("Drafted (tokens)"),
				app.Th().Text("Acceptance rate"), app.Th().Text("Mean acceptance length"),
				app.Th().Text("Per-position rates (of drafts)"), app.Th().Text("Est. speedup"),
			)),
			app.TBody().Body(rows...),
		),
	)
}

func (l *LogsPage) renderProblems() app.UI {
	ps := l.rep.Problems
	if len(ps) == 0 {
		return app.Div()
	}
	items := make([]app.UI, len(ps))
	for i, p := range ps {
		where := "input"
		if p.Line > 0 {
			where = "line " + strconv.Itoa(p.Line)
		}
		li := app.Li().DataSet("problem", "true").DataSet("line", p.Line).Body(
			app.Strong().Text(where+": "),
			app.Text(p.Reason),
		)
		if p.Text != "" {
			li = app.Li().DataSet("problem", "true").DataSet("line", p.Line).Body(
				app.Strong().Text(where+": "),
				app.Text(p.Reason),
				app.Br(),
				app.Code().Text(p.Text),
			)
		}
		items[i] = li
	}
	return app.Section().Class("panel", "panel-wide", "problems").Body(
		app.H2().Text(fmt.Sprintf("Problems (%d lines not used)", len(ps))),
		app.Ul().Body(items...),
	)
}
