package app

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/metricsclient"
	"specdash/view"
)

// Source selection and status: which configured source the page reads
// (the URL's ?source=<name>, default the server's default source), a
// selector among the configured sources, and for embedded sources each
// scrape target's health and last error.
//
// Test hooks: [data-source-status] carries data-source-name and
// data-source-kind ("prometheus"|"embedded"); [data-source-summary] is the
// source line; each embedded target is [data-target=<scrape URL>] with
// data-health ("up"|"down"|"unknown") and, when down, a
// [data-target-error] element holding its last scrape error; the selector
// is select#source (only with more than one source).

// targetsEvery is how often the status of embedded targets is refreshed.
const targetsEvery = 5 * time.Second

// Sources decodes the server's EnvSources (nil when unset or invalid).
func Sources() []view.SourceInfo { return view.DecodeSources(app.Getenv(view.EnvSources)) }

// browserURL is the page's URL in the browser, nil on the server.
func browserURL() *url.URL {
	if !app.IsClient {
		return nil
	}
	return app.Window().URL()
}

// currentSource is the source the page shows (browser: from its URL).
func currentSource() (view.SourceInfo, bool) { return view.PickSource(Sources(), browserURL()) }

// SourceStatus shows the current source, the selector among configured
// sources and, for embedded sources, the targets.
type SourceStatus struct {
	app.Compo

	sources []view.SourceInfo
	cur     view.SourceInfo

	targets   []metricsclient.Target
	targetErr string
	lastGood  map[string]time.Time // per target: last scrape while up

	cancel context.CancelFunc
}

// OnInit reads the configured sources.
func (s *SourceStatus) OnInit() {
	s.sources = Sources()
	s.cur, _ = view.PickSource(s.sources, browserURL())
	s.lastGood = map[string]time.Time{}
}

// OnPreRender selects the URL's source in the server-rendered page.
func (s *SourceStatus) OnPreRender(ctx app.Context) {
	s.cur, _ = view.PickSource(s.sources, ctx.Page().URL())
}

// OnMount starts polling the targets of an embedded source (browser only).
func (s *SourceStatus) OnMount(ctx app.Context) {
	if !app.IsClient || s.cancel != nil {
		return
	}
	s.cur, _ = view.PickSource(s.sources, app.Window().URL())
	if s.cur.Kind != view.KindEmbedded {
		return
	}
	c, cancel := context.WithCancel(context.Background())
	addr := view.SourceAddress(currentSource())
	busy := false
	poll := func() {
		if busy || c.Err() != nil {
			return // the previous poll is still running
		}
		busy = true
		ctx.Async(func() {
			ts, err := metricsclient.FetchTargets(c, addr)
			ctx.Dispatch(func(app.Context) {
				busy = false
				s.setTargets(ts, err)
			})
		})
	}
	poll()
	// A browser timer, not a time.Ticker (see every): a goroutine parked on
	// a Go ticker delayed the page's other updates.
	stopTimer := every(targetsEvery, func() { ctx.Dispatch(func(app.Context) { poll() }) })
	s.cancel = func() { cancel(); stopTimer() }
}

// OnDismount stops polling.
func (s *SourceStatus) OnDismount() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

func (s *SourceStatus) setTargets(ts []metricsclient.Target, err error) {
	if err != nil {
		s.targetErr = err.Error()
		return
	}
	s.targetErr = ""
	s.targets = ts
	for _, t := range ts {
		if t.Health == "up" {
			s.lastGood[t.URL] = t.LastScrape
		}
	}
}

func (s *SourceStatus) onSelect(ctx app.Context, e app.Event) {
	name := ctx.JSSrc().Get("value").String()
	if name == s.cur.Name {
		return
	}
	// A full load: the dashboard's client is bound to one source.
	app.Window().Get("location").Set("href", view.SwitchSource(*app.Window().URL(), name))
}

// Render draws the status bar.
func (s *SourceStatus) Render() app.UI {
	box := app.Div().Class("source-status").
		DataSet("source-status", "true").
		DataSet("source-name", s.cur.Name).
		DataSet("source-kind", s.cur.Kind).
		Style("display", "flex").Style("flex-wrap", "wrap").Style("gap", "6px 16px").
		Style("align-items", "center").Style("font-size", "13px").Style("margin", "0 0 10px 0")
	var parts []app.UI
	if len(s.sources) > 1 {
		parts = append(parts, app.Label().Class("control").For("source").Body(
			app.Span().Class("control-label").Text("Source"),
			app.Select().ID("source").Name("source").OnChange(s.onSelect).Body(
				app.Range(s.sources).Slice(func(i int) app.UI {
					src := s.sources[i]
					// Names match [A-Za-z0-9_.-] (server-checked): safe in
					// an attribute.
					return app.Option().Value(src.Name).Selected(src.Name == s.cur.Name).Text(src.Name + " (" + src.Label + ")")
				}),
			),
		))
	}
	if s.cur.Name != "" {
		parts = append(parts, app.Span().DataSet("source-summary", "true").Text("Reading "+view.TargetsSummary(s.cur, s.targets, s.targetErr)))
	}
	if s.targetErr != "" {
		msg := s.targetErr
		if view.TargetsUnreachable(msg) {
			msg = "The specdash server is unreachable: target status unknown (" + msg + ")"
		}
		parts = append(parts, app.Span().Class("msg-stale").DataSet("targets-error", "true").Text(msg))
	}
	if down := view.DownTargets(s.targets, s.targetErr); down > 0 {
		parts = append(parts, app.Strong().Class("target-banner").DataSet("targets-down", down).
			Text(fmt.Sprintf("%d of %d targets down: any numbers they gave before are stale", down, len(s.targets))))
	}
	if s.cur.Kind == view.KindEmbedded {
		parts = append(parts, app.Ul().Class("targets").
			Style("list-style", "none").Style("margin", "0").Style("padding", "0").
			Style("display", "flex").Style("flex-wrap", "wrap").Style("gap", "4px 16px").Body(
			app.Range(s.targets).Slice(func(i int) app.UI { return s.renderTarget(s.targets[i]) }),
		))
	}
	return box.Body(parts...)
}

func (s *SourceStatus) renderTarget(t metricsclient.Target) app.UI {
	health := t.Health
	if health != "up" && health != "down" || s.targetErr != "" {
		health = "unknown" // the last poll failed: no longer known
	}
	li := app.Li().Class("target", "target-"+health).DataSet("target", t.URL).DataSet("health", health).Body(
		app.Span().Class("target-health", "health-"+health).Text(health+" "),
		app.Code().Text(t.URL),
		app.If(health == "down", func() app.UI {
			msg, stale := view.TargetDown(t, s.lastGood[t.URL], s.location())
			return app.Span().Class("target-error").Body(
				app.Text(": "),
				app.Span().DataSet("target-error", "true").Text(msg),
				app.Text(stale),
			)
		}),
		app.If(health == "up" && !t.LastScrape.IsZero(), func() app.UI {
			return app.Span().Class("target-scraped").Text(view.TargetScraped(t, s.location()))
		}),
	)
	return li
}

// location is the page's time zone (its URL's tz: local or UTC), which
// the dashboard shows times in.
func (s *SourceStatus) location() *time.Location {
	u := browserURL()
	if u == nil {
		return time.Local
	}
	return view.ParseQuery(u.Query()).Location()
}
