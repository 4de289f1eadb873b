package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/metricsclient"
)

// loadTimeout bounds one load (all its Prometheus requests).
const loadTimeout = 60 * time.Second

// Register routes "/" to the dashboard. Both the wasm main and the server
// (for pre-rendering) call it.
func Register() {
	app.Route("/", func() app.Composer { return &Dashboard{} })
	app.Route("/logs", func() app.Composer { return &LogsPage{} })
}

// Dashboard is the one page of specdash. Its state is a Query read from the
// URL; selector changes rewrite the URL (ReplaceURL) and reload.
type Dashboard struct {
	app.Compo

	q           Query
	source      string
	scrape      time.Duration
	version     string
	wasmMissing bool

	res     *Result // last successful load for the current query
	err     error   // failure of the latest load, nil after a success
	errAt   time.Time
	loading bool
	models  []string
	engines []string

	// Browser only.
	ctx         context.Context
	cancel      context.CancelFunc
	client      *metricsclient.Client
	clientErr   error
	inflight    context.CancelFunc
	gen         int
	stopRefresh context.CancelFunc
	refreshing  string
}

// OnInit reads the server's settings (Env); it runs on the server and in
// the browser.
func (d *Dashboard) OnInit() {
	d.q = DefaultQuery()
	d.source = app.Getenv(EnvSource)
	d.version = app.Getenv(EnvVersion)
	d.wasmMissing = app.Getenv(EnvWasmMissing) == "1"
	d.scrape = metricsclient.DefaultScrapeInterval
	if s, err := time.ParseDuration(app.Getenv(EnvScrapeInterval)); err == nil && s > 0 {
		d.scrape = s
	}
	d.source, d.scrape = SourceSettings(d.source, d.scrape) // app/source.go: the URL's ?source=
}

// OnPreRender shows the URL's selections in the server-rendered page.
func (d *Dashboard) OnPreRender(ctx app.Context) {
	d.q = ParseQuery(ctx.Page().URL().Query())
}

// OnMount sets up the component's context (cancelled on dismount) and the
// Prometheus client on the same-origin proxy.
func (d *Dashboard) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	d.setup()
}

func (d *Dashboard) setup() {
	if d.ctx != nil {
		return
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	// A plain RoundTripper: client_golang's default one makes Go's js
	// transport skip the browser's fetch (frontend.md).
	d.client, d.clientErr = metricsclient.New(metricsclient.Config{
		Address:        SourceAddress(),
		RoundTripper:   http.DefaultTransport,
		ScrapeInterval: d.scrape,
	})
}

// OnNav reads the query from the URL and loads.
func (d *Dashboard) OnNav(ctx app.Context) {
	if !app.IsClient {
		// go-app's server-side engine navigates too: pre-rendering must
		// neither query nor start a refresh loop (it waits for Async work).
		return
	}
	d.setup()
	d.apply(ctx, ParseQuery(ctx.Page().URL().Query()), false, true)
}

// OnDismount cancels every request and the refresh timer.
func (d *Dashboard) OnDismount() {
	if d.cancel != nil {
		d.cancel()
	}
	d.ctx, d.cancel, d.inflight, d.stopRefresh = nil, nil, nil, nil
	d.refreshing = ""
}

// apply switches to q: rewrites the URL when asked, reloads when the data
// selection changed (or force), and restarts the refresh timer when its
// period changed.
func (d *Dashboard) apply(ctx app.Context, q Query, writeURL, force bool) {
	old := d.q
	d.q = q
	if writeURL {
		func() {
			defer func() { recover() }() // history.replaceState is JS: never let it kill the app
			u := *ctx.Page().URL()
			u.RawQuery = KeepSource(q.Values(), ctx.Page().URL()).Encode()
			ctx.Page().ReplaceURL(&u)
		}()
	}
	if !q.SameData(old) {
		d.res, d.err = nil, nil
	}
	if force || !q.SameData(old) {
		d.load(ctx)
	}
	if q.Refresh != d.refreshing {
		d.startRefresh(ctx)
	}
}

// load starts a load for the current query, cancelling one in flight; only
// the newest load's result is applied.
func (d *Dashboard) load(ctx app.Context) {
	if d.ctx == nil {
		return
	}
	d.startLoad(ctx)
}

// tick is an auto-refresh: it leaves a load in flight alone (a slow
// Prometheus must not make every refresh cancel the previous one).
func (d *Dashboard) tick(ctx app.Context) {
	if d.ctx == nil || d.loading {
		return
	}
	d.startLoad(ctx)
}

func (d *Dashboard) startLoad(ctx app.Context) {
	if d.clientErr != nil {
		d.err, d.errAt = d.clientErr, time.Now()
		return
	}
	if d.inflight != nil {
		d.inflight()
	}
	lctx, cancel := context.WithTimeout(d.ctx, loadTimeout)
	d.inflight = cancel
	d.gen++
	gen, q, client, scrape := d.gen, d.q, d.client, d.scrape
	d.loading = true
	ctx.Async(func() {
		res := Load(lctx, client, q, scrape, time.Now())
		ctx.Dispatch(func(ctx app.Context) {
			cancel()
			if gen != d.gen || d.ctx == nil {
				return // superseded or dismounted
			}
			d.loading = false
			d.inflight = nil
			if res.Err != nil {
				d.err, d.errAt = res.Err, res.At
				return
			}
			d.res, d.err = &res, nil
			if res.Models != nil {
				d.models = res.Models
			}
			if res.Engines != nil {
				d.engines = res.Engines
			}
		})
	})
}

// startRefresh (re)starts the auto-refresh timer for the current period.
func (d *Dashboard) startRefresh(ctx app.Context) {
	if d.stopRefresh != nil {
		d.stopRefresh()
		d.stopRefresh = nil
	}
	d.refreshing = d.q.Refresh
	every := d.q.RefreshDuration()
	if every <= 0 || d.ctx == nil {
		return
	}
	rctx, stop := context.WithCancel(d.ctx)
	d.stopRefresh = stop
	ctx.Async(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				ctx.Dispatch(func(ctx app.Context) {
					if rctx.Err() == nil {
						d.tick(ctx)
					}
				})
			}
		}
	})
}

// state is the root's data-state.
func (d *Dashboard) state() string {
	switch {
	case d.res != nil:
		return "ready"
	case d.err != nil:
		return "error"
	default:
		return "loading"
	}
}

func (d *Dashboard) onSelect(field string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := ctx.JSSrc().Get("value").String()
		q := d.q
		switch field {
		case "range":
			q.Range = v
		case "refresh":
			q.Refresh = v
		case "model":
			q.Model = decodeOption(v)
		case "engine":
			q.Engine = decodeOption(v)
		case "convention":
			q.Convention = compute.WithBonus
			if v == ConventionNoBonus {
				q.Convention = compute.WithoutBonus
			}
		}
		d.apply(ctx, q, true, false)
	}
}

func (d *Dashboard) onRefreshNow(ctx app.Context, e app.Event) {
	d.load(ctx)
}

// valuePrefix starts an encoded label value (the "all" option is plain).
const valuePrefix = "v:"

// encodeOption is the <option value> of a label value: base64url, so that
// no label value (a model name may hold quotes and angle brackets) ever
// lands raw in an HTML attribute. go-app v10.1.11 writes attributes of the
// pre-rendered page with strconv.Quote, which is not HTML escaping, so a
// raw value from the URL would be an injection. It also keeps a model
// called "all" apart from the "all" option.
func encodeOption(v string) string {
	return valuePrefix + base64.RawURLEncoding.EncodeToString([]byte(v))
}

// decodeOption inverts encodeOption; "all" (or anything undecodable) is
// "" (no filter).
func decodeOption(v string) string {
	enc, ok := strings.CutPrefix(v, valuePrefix)
	if !ok {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return ""
	}
	return string(b)
}

// Render draws the page.
func (d *Dashboard) Render() app.UI {
	root := app.Div().Class("dashboard").
		DataSet("dashboard", "specdash").
		DataSet("state", d.state())
	var stats compute.Stats
	var buckets []compute.Stats
	var grid compute.Grid
	if d.res != nil {
		stats, buckets, grid = d.res.Stats, d.res.Buckets, d.res.Grid
		root = root.
			DataSet("window-start", grid.Start).
			DataSet("window-end", grid.End).
			DataSet("step-seconds", strconv.FormatFloat(grid.StepSeconds(), 'f', -1, 64))
		if d.err != nil {
			root = root.DataSet("stale", "true")
		}
	}
	return root.Body(
		d.renderHeader(),
		&SourceStatus{},
		d.renderControls(),
		d.renderMessages(),
		d.renderHeadline(stats),
		app.Div().Class("row").Body(
			app.Section().Class("panel", "panel-wide").Body(
				app.H2().Text("Per-position acceptance rate"),
				app.P().Class("panel-note").Text("Share of drafts whose token at this position was accepted (accepted at position / drafts)."),
				&Chart{Name: ChartPerPosition, Option: PerPositionOption(stats), Height: 280, Empty: d.emptyText()},
				d.renderPositions(stats),
			),
		),
		&InsightsPanel{Stats: stats, Ready: d.res != nil},
		app.Div().Class("row", "row-2").Body(
			app.Section().Class("panel").Body(
				app.H2().Text("Acceptance rate over time"),
				app.P().Class("panel-note").Text(d.bucketNote(grid, "accepted / draft tokens")),
				&Chart{Name: ChartAcceptanceRate, Option: AcceptanceRateOption(grid, buckets), Height: 220, Empty: d.emptyText()},
			),
			app.Section().Class("panel").Body(
				app.H2().Text("Mean acceptance length over time"),
				app.P().Class("panel-note").Text(d.bucketNote(grid, lengthFormula(d.q.Convention))),
				&Chart{Name: ChartAcceptanceLength, Option: AcceptanceLengthOption(grid, buckets), Height: 220, Empty: d.emptyText()},
			),
		),
		d.renderFooter(stats, grid),
	)
}

func (d *Dashboard) emptyText() string {
	switch d.state() {
	case "loading":
		return "Loading…"
	case "error":
		return "No data"
	}
	return "no drafts in window"
}

func (d *Dashboard) bucketNote(g compute.Grid, formula string) string {
	if g.Step <= 0 {
		return formula + ", per step"
	}
	return fmt.Sprintf("%s, per %s step; steps without drafts are gaps", formula, time.Duration(g.Step)*time.Millisecond)
}

func lengthFormula(c compute.Convention) string {
	if c == compute.WithoutBonus {
		return "accepted / drafts (without bonus token)"
	}
	return "1 + accepted / drafts"
}

func (d *Dashboard) renderHeader() app.UI {
	source := d.source
	if source == "" {
		source = "(not configured)"
	}
	return app.Header().Class("top").Body(
		app.Div().Class("brand").Body(
			app.Img().Src("/web/icon.svg").Alt("").Class("logo"),
			app.Div().Body(
				app.H1().Text("specdash"),
				app.Div().Class("tagline").Text("speculative decoding"),
			),
		),
		app.Div().Class("source").Body(
			app.Span().Class("source-label").Text("Source"),
			app.Code().DataSet("source", "upstream").Text(source),
			app.Span().Class("source-scrape").Text("scrape "+d.scrape.String()),
			app.A().Class("nav-link").Href("/logs").Text("Logs"),
		),
	)
}

// selectOpt is one <option>.
type selectOpt struct{ value, label string }

func selectBox(id, label string, current string, options []selectOpt, h app.EventHandler) app.UI {
	return app.Label().Class("control").For(id).Body(
		app.Span().Class("control-label").Text(label),
		app.Select().ID(id).Name(id).OnChange(h).Body(
			app.Range(options).Slice(func(i int) app.UI {
				o := options[i]
				return app.Option().Value(o.value).Selected(o.value == current).Text(o.label)
			}),
		),
	)
}

func labelOptions(values []string, current string) ([]selectOpt, string) {
	opts := []selectOpt{{All, "all"}}
	vals := slices.Clone(values)
	if current != "" && !slices.Contains(vals, current) {
		vals = append(vals, current)
	}
	slices.Sort(vals)
	for _, v := range vals {
		opts = append(opts, selectOpt{encodeOption(v), v})
	}
	if current == "" {
		return opts, All
	}
	return opts, encodeOption(current)
}

func (d *Dashboard) renderControls() app.UI {
	models, curModel := labelOptions(d.models, d.q.Model)
	engines, curEngine := labelOptions(d.engines, d.q.Engine)
	var ranges, refreshes []selectOpt
	for _, r := range Ranges {
		ranges = append(ranges, selectOpt{r, "last " + r})
	}
	for _, r := range Refreshes {
		refreshes = append(refreshes, selectOpt{r, r})
	}
	conv := ConventionBonus
	if d.q.Convention == compute.WithoutBonus {
		conv = ConventionNoBonus
	}
	status := "idle"
	statusText := ""
	switch {
	case d.loading:
		status, statusText = "loading", "Loading…"
	case d.res != nil:
		status, statusText = "updated", "Updated "+d.res.At.Format("15:04:05")
	}
	return app.Nav().Class("controls").Body(
		selectBox("model", "Model", curModel, models, d.onSelect("model")),
		selectBox("engine", "Engine", curEngine, engines, d.onSelect("engine")),
		selectBox("range", "Time range", d.q.Range, ranges, d.onSelect("range")),
		selectBox("refresh", "Auto-refresh", refreshOr(d.q.Refresh), refreshes, d.onSelect("refresh")),
		selectBox("convention", "Mean length", conv, []selectOpt{
			{ConventionBonus, "with bonus token"},
			{ConventionNoBonus, "without bonus token"},
		}, d.onSelect("convention")),
		app.Div().Class("status").Body(
			app.Button().Class("refresh-now").Text("Refresh").OnClick(d.onRefreshNow),
			app.Span().Class("status-text", "status-"+status).DataSet("loading", d.loading).Body(
				app.If(d.loading, func() app.UI { return app.Span().Class("spinner") }),
				app.Text(statusText),
			),
		),
	)
}

func refreshOr(r string) string {
	if r == "" {
		return "off"
	}
	return r
}

func (d *Dashboard) renderMessages() app.UI {
	var msgs []app.UI
	if d.wasmMissing {
		msgs = append(msgs, app.Div().Class("msg", "msg-error").Text("app.wasm not built: run make build"))
	}
	if d.err != nil {
		text := d.err.Error()
		class := "msg-error"
		if d.res != nil {
			text = "Refresh failed at " + d.errAt.Format("15:04:05") + "; showing the numbers from " + d.res.At.Format("15:04:05") + " (stale). " + text
			class = "msg-stale"
		}
		msgs = append(msgs, app.Div().Class("msg", class).DataSet("error", "true").Text(text))
	}
	if d.res != nil {
		for _, n := range d.res.Notes {
			msgs = append(msgs, app.Div().Class("msg", "msg-note").Text(n))
		}
		for _, v := range d.res.Stats.Violations {
			msgs = append(msgs, app.Div().Class("msg", "msg-note").Text("Counter check: "+v))
		}
	}
	return app.Div().Class("messages").Body(msgs...)
}

// plain is the data-value form of a number: a plain decimal that parses
// back to the same float64.
func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// splitUnit splits "2.80 tokens/draft" into the number and its unit, so the
// unit can be set smaller than the number.
func splitUnit(text string) (num, unit string, ok bool) {
	num, unit, ok = strings.Cut(text, " ")
	if !ok || num == "" || strings.Trim(num, "0123456789.-+e") != "" {
		return "", "", false
	}
	return num, unit, true
}

// metric is one headline number.
func metric(name, label string, v compute.Value, text, sub string) app.UI {
	value := ""
	if v.OK {
		value = plain(v.V)
	}
	el := app.Div().Class("metric-value").
		DataSet("metric", name).
		DataSet("value", value)
	if num, unit, ok := splitUnit(text); ok && v.OK {
		el = el.Body(app.Span().Class("num").Text(num), app.Text(" "), app.Span().Class("unit").Text(unit))
	} else {
		el = el.Text(text)
	}
	if !v.OK {
		el = el.DataSet("undefined", "true").Class("undefined")
	}
	return app.Div().Class("card").Body(
		app.Div().Class("card-label").Text(label),
		el,
		app.Div().Class("card-sub").Text(sub),
	)
}

func (d *Dashboard) renderHeadline(s compute.Stats) app.UI {
	if d.res == nil {
		s = compute.Stats{}
	}
	ready := d.res != nil
	show := func(text string) string {
		if !ready {
			return "—"
		}
		return text
	}
	k := compute.Value{V: float64(s.K), OK: ready && s.K > 0}
	kText := "unknown"
	if k.OK {
		kText = strconv.Itoa(s.K)
	}
	lengthLabel := "Mean acceptance length"
	if d.q.Convention == compute.WithoutBonus {
		lengthLabel += " (without bonus token)"
	}
	return app.Div().Class("cards").Body(
		metric("acceptance-rate", "Acceptance rate", s.AcceptanceRate,
			show(compute.FormatPercent(s.AcceptanceRate, 1)), "accepted / draft tokens"),
		metric("mean-acceptance-length", lengthLabel, s.MeanAcceptanceLength,
			show(compute.FormatLength(s.MeanAcceptanceLength)), lengthFormula(d.q.Convention)),
		metric("k", "k (speculative tokens)", k, show(kText), "draft positions"),
		metric("drafts-per-second", "Drafts", s.DraftsPerSecond,
			show(compute.FormatRate(s.DraftsPerSecond, "drafts/s")), show(compute.FormatCount(s.Drafts, "drafts in window"))),
		metric("accepted-throughput", "Accepted throughput", s.AcceptedThroughput,
			show(compute.FormatRate(s.AcceptedThroughput, "tokens/s")), show(compute.FormatCount(s.AcceptedTokens, "tokens accepted"))),
		metric("drafted-throughput", "Drafted throughput", s.DraftedThroughput,
			show(compute.FormatRate(s.DraftedThroughput, "tokens/s")), show(compute.FormatCount(s.DraftTokens, "tokens drafted"))),
	)
}

func (d *Dashboard) renderPositions(s compute.Stats) app.UI {
	return app.Div().Class("positions").Body(
		app.Range(s.PerPositionAcceptanceRate).Slice(func(i int) app.UI {
			v := s.PerPositionAcceptanceRate[i]
			value := ""
			if v.OK {
				value = plain(v.V)
			}
			el := app.Span().Class("position-value").
				DataSet("metric", "per-position-acceptance-rate").
				DataSet("position", i+1).
				DataSet("value", value).
				Text(compute.FormatPercent(v, 1))
			if !v.OK {
				el = el.DataSet("undefined", "true")
			}
			return app.Div().Class("position").Body(
				app.Span().Class("position-label").Text(PositionLabel(i)),
				el,
			)
		}),
	)
}

func (d *Dashboard) renderFooter(s compute.Stats, g compute.Grid) app.UI {
	window := ""
	if d.res != nil {
		window = fmt.Sprintf("Window %s – %s (%s, step %s), %d counter series",
			time.UnixMilli(g.Start).Format("15:04:05"), time.UnixMilli(g.End).Format("15:04:05"),
			time.Duration(g.End-g.Start)*time.Millisecond, time.Duration(g.Step)*time.Millisecond, d.res.Series)
	}
	version := "specdash"
	if d.version != "" {
		version += " " + d.version
	}
	return app.Footer().Class("foot").Body(
		app.Span().Text(window),
		app.Span().Text(version),
	)
}
