package app

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/metricsclient"
	"specdash/view"
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
// URL; every control rewrites the URL (ReplaceURL) and reloads when the data
// selection changed.
type Dashboard struct {
	app.Compo

	q           view.Query
	page        *url.URL // server only: the pre-rendered page's URL (withHrefs, href)
	source      string
	scrape      time.Duration
	version     string
	wasmMissing bool

	res     *view.Result // last successful load for the current query
	err     error        // failure of the latest load, nil after a success
	errAt   time.Time
	loading bool
	models  []string
	engines []string
	labels  map[string][]string // label name -> values, from the last load that had them
	schema  string              // detected schema name of the last load
	notice  string              // a transient message (link copied, export failed)
	link    string              // the shared link shown after copy-link

	// window is what the last successful load read (Result.Window): the
	// next load continues it when its window slid forward (LoadSince).
	// Kept across changes of the view (it knows its own filters, step and
	// source); nil after a failed load, so the next one reads everything.
	window *metricsclient.Window

	view view.Charts // derived from res and q, see prepare
	lay  layoutState // split group, kiosk, speedup card's cost (layout.go)

	preview   bool  // res was loaded by the server's pre-render (prerender.go)
	previewAt int64 // server only: the pre-render's load time, Unix ms (data-load-at)
	// answers: server only: the pre-render's load's answers
	// (metricsclient.Recorder.Encode, data-answers), which the browser's
	// first load of the page replays (previewAnswers).
	answers string

	// Browser only.
	ctx         context.Context
	cancel      context.CancelFunc
	client      *metricsclient.Client
	clientErr   error
	inflight    context.CancelFunc
	gen         int
	stopRefresh context.CancelFunc
	refreshing  string
	labelsBusy  bool // refreshLabels is reading
	// previewAtAsked: firstLoadAt has looked for the pre-render's time;
	// answersAsked: previewAnswers has looked for its answers.
	previewAtAsked bool
	answersAsked   bool
	stopEmpty      func() // pending retryWhileEmpty timer
	emptyTries     int    // retryWhileEmpty retries since the last success

	// labelsAt is when the menus' label lists were read by a load of the
	// window labelsOf; a load without a previous Window reuses them while
	// younger than LabelsMaxAge (view.LoadWith).
	labelsAt time.Time
	labelsOf string
	flt      filterState // filter menus: search text, chained values (filters.go)
}

// OnInit reads the server's settings (Env); it runs on the server and in
// the browser.
func (d *Dashboard) OnInit() {
	d.q = view.DefaultQuery()
	d.source = app.Getenv(view.EnvSource)
	d.version = app.Getenv(view.EnvVersion)
	d.wasmMissing = app.Getenv(view.EnvWasmMissing) == "1"
	d.scrape = metricsclient.DefaultScrapeInterval
	if s, err := time.ParseDuration(app.Getenv(view.EnvScrapeInterval)); err == nil && s > 0 {
		d.scrape = s
	}
	s, ok := currentSource() // the URL's ?source=
	d.source, d.scrape = view.SourceSettings(s, ok, d.source, d.scrape)
}

// OnPreRender shows the URL's selections in the server-rendered page and,
// when the server provides a client (SetPreRenderClient), the URL's numbers
// (prerender.go).
func (d *Dashboard) OnPreRender(ctx app.Context) {
	var zone *time.Location
	d.page, zone = preRenderPage(ctx.Page().URL())
	d.q = view.ParseQuery(d.page.Query())
	if zone == nil {
		zone = time.Local // the server's: the browser's is not known yet
	}
	// Zones named as the live page names them (UTC-4, not EDT).
	d.q = d.q.InZone(view.BrowserNamed(zone, time.Now()))
	d.readLayout(d.page)
	d.preRenderLoad(ctx)
}

// OnMount sets up the component's context (cancelled on dismount), the
// Prometheus client on the same-origin proxy and the zoom handler.
func (d *Dashboard) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	d.setup()
	d.flt.ui, d.flt.hasUI = ctx, true // filters.go: loads outlive the clicked element
	d.listenMenus()                   // filters.go: outside click and Escape close the menus
	ctx.Handle(ZoomAction, d.onZoom)
}

func (d *Dashboard) setup() {
	if d.ctx != nil {
		return
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	// A plain RoundTripper: client_golang's default one makes Go's js
	// transport skip the browser's fetch (frontend.md).
	d.client, d.clientErr = metricsclient.New(metricsclient.Config{
		Address:        view.SourceAddress(currentSource()),
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
	u := ctx.Page().URL()
	d.apply(ctx, d.withPrefs(ctx, u, view.ParseQuery(u.Query())), false, true)
	d.layoutNav(ctx)
}

// OnDismount cancels every request and the refresh timer.
func (d *Dashboard) OnDismount() {
	d.stopLayout()
	if d.flt.stopMenus != nil {
		d.flt.stopMenus()
		d.flt.stopMenus = nil
	}
	if d.stopRefresh != nil {
		d.stopRefresh()
	}
	if d.stopEmpty != nil {
		d.stopEmpty()
		d.stopEmpty = nil
	}
	if d.cancel != nil {
		d.cancel()
	}
	d.flt.hasUI = false
	d.ctx, d.cancel, d.inflight, d.stopRefresh = nil, nil, nil, nil
	d.refreshing = ""
}

// apply switches to q: rewrites the URL when asked, reloads when the data
// selection changed (or force), and restarts the refresh timer when its
// period changed.
func (d *Dashboard) apply(ctx app.Context, q view.Query, writeURL, force bool) {
	old := d.q
	if writeURL {
		q.Warn = "" // a user's choice replaces the refused URL window
	}
	d.q = q
	d.notice, d.link = "", ""
	if writeURL {
		func() {
			defer func() { recover() }() // history.replaceState is JS: never let it kill the app
			ctx.Page().ReplaceURL(view.PageURL(ctx.Page().URL(), q))
		}()
	}
	if !q.SameData(old) {
		d.res, d.err = nil, nil
		d.emptyTries = 0
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

// startLoad loads the current query. While none of its data is shown (the
// page's first load, another selection), a small live selection is read
// shaped, and the raw read of its Window is left to the next load, a
// refresh (view.LoadOptions.DeferWindow): the numbers show sooner.
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
	gen, q, client, scrape, prev := d.gen, d.q, d.client, d.scrape, d.window
	labels := prev != nil || d.labelsOf != view.LabelsWindow(q) || time.Since(d.labelsAt) >= view.LabelsMaxAge
	deferWindow := d.res == nil
	now := d.firstLoadAt(client.Now())
	if a := d.previewAnswers(client); a != nil {
		lctx = metricsclient.WithAnswers(lctx, a)
	}
	_, clockKnown := client.ClockOffset()
	d.loading = true
	ctx.Async(func() {
		res := view.LoadWith(lctx, client, q, scrape, now, prev, view.LoadOptions{SkipLabels: !labels, Trace: perfMark, DeferWindow: deferWindow})
		ctx.Dispatch(func(ctx app.Context) {
			cancel()
			if gen != d.gen || d.ctx == nil {
				return // superseded or dismounted
			}
			d.loading = false
			d.inflight = nil
			// This load read at this machine's clock before the server's
			// was known, and its answers showed the two apart by more than
			// the tolerance: its window was this machine's, not the
			// server's. Read again at once at the server's time (with the
			// refresh off, the wrong window stayed until the user acted).
			if !clockKnown && client.ClockSkewed() {
				defer d.startLoad(ctx)
			}
			if res.Err != nil {
				d.err, d.errAt = res.Err, res.At
				d.window = nil
				d.adoptLabels(&res) // a filter matching nothing: the values that exist
				d.retryWhileEmpty(ctx, res.Err)
				return
			}
			d.emptyTries = 0
			d.adopt(&res)
			d.window = res.Window
			d.refreshLabels(ctx)
			d.chainLabels(ctx)
			ctx.Defer(func(app.Context) {
				perfMark("rendered")
				whenChartsDrawn(func() { perfMark("rendered-all") })
			})
		})
	})
}

// refreshLabels reads the filter menus' label lists, and the schema
// detection, again in the background when the shown window's are older
// than LabelsMaxAge (metricsclient.Client.RefreshLabels): after the load
// is shown, so that a refresh never waits for them. The result
// goes into the menus and into a copy of the window for the next
// incremental load, unless another load came in between.
func (d *Dashboard) refreshLabels(ctx app.Context) {
	w, client := d.window, d.client
	if w == nil || client == nil || d.labelsBusy || time.Since(w.LabelsAt()) < view.LabelsMaxAge || d.ctx == nil {
		return
	}
	d.labelsBusy = true
	lctx, cancel := context.WithTimeout(d.ctx, loadTimeout)
	ctx.Async(func() {
		defer cancel()
		nw, labels, err := client.RefreshLabels(lctx, w, time.Now())
		ctx.Dispatch(func(ctx app.Context) {
			d.labelsBusy = false
			if err != nil || d.window != w {
				return // the next load reads them, or a newer load has them
			}
			d.window = nw
			var r view.Result
			r.SetLabels(labels)
			d.adoptLabels(&r)
		})
	})
}

// adopt shows res (a successful load) and keeps its label lists; a load
// without them (a failed look-up) leaves the previous ones.
func (d *Dashboard) adopt(res *view.Result) {
	d.res, d.err = res, nil
	d.adoptLabels(res)
	d.schema = res.SchemaName()
}

// adoptLabels keeps res's label lists for the filter menus, when it has
// them (a failed load has them only when its filters matched nothing:
// model.Compute fills them when the filters excluded every series).
func (d *Dashboard) adoptLabels(res *view.Result) {
	if res.Models != nil {
		d.models = res.Models
	}
	if res.Engines != nil {
		d.engines = res.Engines
	}
	if res.Labels != nil {
		d.labels = res.Labels
		d.labelsAt, d.labelsOf = res.At, view.LabelsWindow(res.Query)
	}
}

// perfMark sets the performance mark "specdash:load:"+name in the browser
// (a no-op elsewhere): the timing hooks of one load, read by bench/
// (BenchmarkRefresh): start and fetched around metricsclient.Client.Fetch
// (incremental just before fetched when the load re-read only the newest
// points, LoadSince), computed after compute, end when the load returns,
// rendered once go-app has updated the page with the result (charts in
// view given their new options), rendered-all once no chart is pending
// any more (Chart's lazy redraw: the charts out of view drawn too; at
// once with rendered when none was pending).
func perfMark(name string) {
	if !app.IsClient {
		return
	}
	defer func() { recover() }() // JS: never let it kill the app
	app.Window().Get("performance").Call("mark", "specdash:load:"+name)
}

// retryWhileEmpty reloads a live window without auto-refresh that found no
// speculative-decoding series, once per scrape interval, at most
// view.MaxEmptyRetries times in a row: a source that has just started scraping
// (embedded mode's first seconds) has no sample before the window's end
// (the last step point) yet, and the page must not stay on that error
// until someone clicks Refresh. At most view.MaxEmptyRetries in a row; a
// success or another data selection resets the count. Filters that
// exclude series that exist are not retried: waiting will not help.
func (d *Dashboard) retryWhileEmpty(ctx app.Context, err error) {
	var miss *metricsclient.MissingMetricsError
	if !errors.As(err, &miss) || miss.ExistWithoutFilters || d.q.From != 0 || d.q.RefreshDuration() > 0 ||
		d.emptyTries >= view.MaxEmptyRetries(d.scrape) || d.stopEmpty != nil || d.ctx == nil {
		return
	}
	d.emptyTries++
	rctx := d.ctx
	d.stopEmpty = every(d.scrape, func() {
		ctx.Dispatch(func(ctx app.Context) {
			if d.stopEmpty != nil {
				d.stopEmpty()
				d.stopEmpty = nil
			}
			if rctx.Err() == nil {
				d.tick(ctx)
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
	period := d.q.RefreshDuration()
	if period <= 0 || d.ctx == nil {
		return
	}
	// A browser timer, not a time.Ticker: see every.
	rctx, cancel := context.WithCancel(d.ctx)
	stopTimer := every(period, func() {
		ctx.Dispatch(func(ctx app.Context) {
			if rctx.Err() == nil {
				d.tick(ctx)
			}
		})
	})
	d.stopRefresh = func() { cancel(); stopTimer() }
}

// state is the root's data-state ("preview": numbers pre-rendered by the
// server, before the browser's own first load).
func (d *Dashboard) state() string { return view.PageState(d.res != nil, d.preview, d.err) }

// onSelect handles the single-value selects.
func (d *Dashboard) onSelect(field string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := ctx.JSSrc().Get("value").String()
		field := handlerKey(ctx, "id", field) // go-app may keep another select's closure (layout.go)
		if field == "split" {
			d.onSplit(ctx, e)
			return
		}
		q, ok := d.q.WithSelect(field, v)
		if !ok {
			return
		}
		if field == "refresh" {
			remember(ctx, storeRefresh, v)
		}
		d.apply(ctx, q, true, false)
	}
}

// onGroup toggles a group-by label.
func (d *Dashboard) onGroup(label string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		label := handlerKey(ctx, "data-group", label)
		d.apply(ctx, d.q.WithGroup(d.grouping(), label, ctx.JSSrc().Get("checked").Bool()), true, false)
	}
}

// onTime handles the from/to (and baseline) datetime inputs: both set and
// from < to make the window absolute.
func (d *Dashboard) onTime(base bool) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		doc := app.Window().Get("document")
		fromID, toID := "from", "to"
		if base {
			fromID, toID = "base-from", "base-to"
		}
		read := func(id string) int64 {
			el := doc.Call("getElementById", id)
			if !el.Truthy() {
				return 0
			}
			return view.ParseLocalInput(el.Get("value").String(), d.q.Location())
		}
		q, err := d.q.WithWindow(base, read(fromID), read(toID), time.Now())
		if err != nil {
			d.notice = err.Error()
			return
		}
		d.apply(ctx, q, true, false)
	}
}

// onZoom turns a span selected on a time chart into an absolute window
// (bucket start of the first to bucket end of the last selected bucket).
func (d *Dashboard) onZoom(ctx app.Context, a app.Action) {
	z, ok := a.Value.(Zoom)
	if !ok {
		return
	}
	if q, ok := d.q.Zoom(d.res, z.Chart, d.view.HeatFirst, z.From, z.To); ok {
		d.pushQuery(ctx, q) // Back undoes the zoom
	}
}

func (d *Dashboard) onLive(ctx app.Context, e app.Event) {
	d.apply(ctx, d.q.Live(), true, false)
}

func (d *Dashboard) onTheme(ctx app.Context, e app.Event) {
	q := d.q
	q.Theme = view.ThemeDark
	if d.q.Theme == view.ThemeDark {
		q.Theme = view.ThemeLight
	}
	remember(ctx, storeTheme, q.Theme)
	setPageTheme(q.Theme)
	d.apply(ctx, q, true, false)
}

func (d *Dashboard) onSort(col string) app.EventHandler {
	return func(ctx app.Context, e app.Event) { d.apply(ctx, d.q.SortedBy(col), true, false) }
}

// onCopyLink puts the page's URL (the whole view) on the clipboard and shows
// it for copying by hand where the clipboard is not available.
func (d *Dashboard) onCopyLink(ctx app.Context, e app.Event) {
	href := ""
	func() {
		defer func() { recover() }()
		href = app.Window().Get("location").Get("href").String()
		if u, err := url.Parse(href); err == nil {
			href = view.CanonicalURL(u, d.q) // without ignored parameters
		}
	}()
	d.link = href
	d.notice = "Link to this view:"
	func() {
		defer func() { recover() }()
		clip := app.Window().Get("navigator").Get("clipboard")
		if !clip.Truthy() {
			return
		}
		// writeText is a promise: say "copied" only once it resolved, and
		// why not when the browser refused (no focus, no permission).
		var ok, fail app.Func
		settle := func(notice string) {
			ok.Release()
			fail.Release()
			ctx.Dispatch(func(app.Context) {
				if d.link == href {
					d.notice = notice
				}
			})
		}
		ok = app.FuncOf(func(app.Value, []app.Value) any {
			settle("Link copied to the clipboard:")
			return nil
		})
		fail = app.FuncOf(func(_ app.Value, args []app.Value) any {
			why := "refused"
			func() {
				defer func() { recover() }()
				if len(args) > 0 && args[0].Truthy() {
					why = args[0].Get("name").String()
				}
			}()
			settle("The clipboard was not available (" + why + "): copy the link by hand:")
			return nil
		})
		clip.Call("writeText", href).Call("then", ok, fail)
	}()
}

func (d *Dashboard) onRefreshNow(ctx app.Context, e app.Event) {
	d.load(ctx)
}

// onExport downloads the numbers behind a panel (csv, json) or its chart
// as a PNG.
func (d *Dashboard) onExport(name, format string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		var err error
		switch format {
		case "png":
			DrawPendingCharts(ctx) // the PNG is what the current option draws
			pal := chartopt.PaletteFor(d.q.Theme)
			err = downloadPNG(name, view.FileName(d.res, name, "png"), pal.Panel, pal.Text, view.PNGTitle(d.res, d.q, d.source, d.res.SplitShows(name, d.lay.Split)))
		case "csv":
			t := d.exportTableWithMeta(name)
			err = download(view.FileName(d.res, t.Name, "csv"), "text/csv;charset=utf-8", t.CSV())
		case "json":
			t := d.exportTableWithMeta(name)
			err = download(view.FileName(d.res, t.Name, "json"), "application/json", t.JSON())
		}
		if err != nil {
			d.notice = err.Error()
		}
	}
}
