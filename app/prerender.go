package app

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/metricsclient"
	"specdash/view"
)

// Server-side first paint. go-app pre-renders the dashboard on the server;
// with a client hook (SetPreRenderClient, by package server, host only) that pre-render
// also runs the URL's Load, so the HTML already holds the numbers (cards,
// table) and every chart's option (Chart, data-option). The static script
// /web/preview.js draws those charts with ECharts before the wasm has
// started and moves the pre-rendered root into an overlay
// (#specdash-preview) so go-app mounts under it; the overlay goes when the
// live dashboard is ready or failed (see the script).
//
// Test hooks: the pre-rendered root carries data-state="preview" (never
// "ready": the live dashboard's ready state is what tests wait for); each
// pre-rendered chart with an option carries data-option (base64 of the
// option JSON), data-preview-at (server time of the pre-render, Unix ms)
// and data-preview-url (base64url of the page's path and query); the
// root's last child [data-answers] holds the load's answers
// (metricsclient.Recorder.Encode).

// PreRenderClientFunc gives the server's pre-render a client for the
// configured source named source ("" when the server configured no source
// list) and the time the pre-render may spend loading; ok false means no
// numbers in the pre-rendered page (it then shows the loading state, as
// without a hook).
type PreRenderClientFunc func(source string) (c *metricsclient.Client, budget time.Duration, ok bool)

// preRenderClient is the hook of SetPreRenderClient (atomic: a server's
// handlers may still be pre-rendering while another server is created, as
// in tests).
var preRenderClient atomic.Pointer[PreRenderClientFunc]

// SetPreRenderClient sets the hook through which the dashboard's server-side
// pre-render loads its numbers (nil: none). Package server sets it in New
// (the last New wins, like go-app's Env); the browser never has one, and
// the wasm never links the server's code.
func SetPreRenderClient(f PreRenderClientFunc) {
	if f == nil {
		preRenderClient.Store(nil)
		return
	}
	preRenderClient.Store(&f)
}

// PreRenderChartFunc draws a chart's typed ECharts option as static HTML
// for the pre-rendered page, or returns "" to leave the chart to ECharts.
// Its result goes into the page as it is: it must escape every text.
type PreRenderChartFunc func(option *chartopt.Option) string

var preRenderChart atomic.Pointer[PreRenderChartFunc]

// SetPreRenderChart sets the hook that draws each pre-rendered chart
// before ECharts has run (nil: none; package server sets chartsvg.DrawOption in
// New, so the wasm never links the drawing code). Only charts of a
// pre-render that loaded numbers are drawn.
func SetPreRenderChart(f PreRenderChartFunc) {
	if f == nil {
		preRenderChart.Store(nil)
		return
	}
	preRenderChart.Store(&f)
}

// preRenderLoad runs the URL's Load on the server within the budget of the
// SetPreRenderClient hook and keeps a successful result for the pre-rendered page.
// A failure or a timeout leaves the page without numbers. Never in the
// browser, never for other routes than the dashboard.
func (d *Dashboard) preRenderLoad(ctx app.Context) {
	hook := preRenderClient.Load()
	if app.IsClient || hook == nil {
		return
	}
	u := ctx.Page().URL()
	name := ""
	if s, ok := view.PickSource(Sources(), u); ok {
		name = s.Name
		d.source = s.Label
		if sc, err := time.ParseDuration(s.ScrapeInterval); err == nil && sc > 0 {
			d.scrape = sc
		}
	}
	c, budget, ok := (*hook)(name)
	if !ok || c == nil || budget <= 0 {
		return
	}
	// The load reads as the browser's first load of the page does
	// (DeferWindow: a small live selection shaped, without the raw read
	// that only refreshes need), so its queries are the browser's: the
	// proxy's cache and its requests in flight hand their answers to the
	// browser's first load (a query the proxy sent goes on after the
	// budget ran out).
	//
	// Its time (whole ms) goes into the page (data-load-at): the browser's
	// first load reads at that time too (firstLoadAt), so its queries are
	// the very same even when the window's step moved on in between.
	//
	// Its answers go into the page too (data-answers): the browser's first
	// load, asking the same requests, takes them from there instead of
	// asking the proxy again (previewAnswers).
	lctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	rec := metricsclient.NewRecorder(0)
	now := time.Now().Truncate(time.Millisecond)
	res := view.LoadWith(metricsclient.WithRecorder(lctx, rec), c, d.q, d.scrape, now, nil, view.LoadOptions{DeferWindow: true})
	if res.Err != nil || lctx.Err() != nil {
		return
	}
	d.adopt(&res)
	d.preview = true
	d.previewAt = now.UnixMilli()
	d.answers = rec.Encode()
}

// previewAnswers are the pre-render's answers for the page's first load
// in the browser (window.specdashPreviewAnswers, which
// web/static/preview.js sets from the pre-rendered page's data-answers
// when it shows this page's fresh preview), or nil. Each answer serves
// only the very request it answered (metricsclient.WithAnswers): the
// first load asks those at the pre-render's time (firstLoadAt), so none
// of them goes to the proxy; any other request does. Asked once per
// page; the text is dropped from the window.
//
// Replayed answers have no Date header, from which the client learns the
// server's clock (metricsclient.Client.Now), so the page's server time
// against the middle of its request and answer in the browser seeds it
// (pageClockOffset; preview.js gives none for a page that took more than
// a second): a browser whose clock is off reads its first refresh at the
// server's time too. Without a seed, that refresh's answers tell the
// offset and the dashboard reads again at once (startLoad).
func (d *Dashboard) previewAnswers(c *metricsclient.Client) *metricsclient.Answers {
	if d.answersAsked || !app.IsClient {
		return nil
	}
	d.answersAsked = true
	w := app.Window()
	v := w.Get("specdashPreviewAnswers")
	if v.Type() != app.TypeString {
		return nil
	}
	text := v.String()
	w.Set("specdashPreviewAnswers", nil)
	a, err := metricsclient.DecodeAnswers(text)
	if err != nil || a.Len() == 0 {
		return nil
	}
	server, received := w.Get("specdashPreviewServerAt"), w.Get("specdashPreviewReceivedAt")
	if server.Type() == app.TypeNumber && received.Type() == app.TypeNumber {
		if o, ok := pageClockOffset(server.Float(), received.Float()); ok {
			c.SeedClockOffset(o)
		}
	}
	return a
}

// pageClockOffset is the server's clock's offset from the browser's
// (metricsclient.Client.ClockOffset) from the page's server time and the
// middle of its request and answer in the browser (at most a second
// apart: preview.js), both Unix ms. ok is false for times that are not
// plausible: not finite, before 2000, or previewAtMaxAge or more apart
// (preview.js shows no preview older or newer than that, by the
// browser's clock, so a larger offset is a tampered page's).
func pageClockOffset(serverMs, receivedMs float64) (time.Duration, bool) {
	const minMs, maxApart = 946684800000, previewAtMaxAge // 2000-01-01
	// Written so that NaN fails every bound.
	if !(serverMs >= minMs && serverMs <= 1e15 && receivedMs >= minMs && receivedMs <= 1e15) {
		return 0, false
	}
	o := time.Duration((serverMs - receivedMs) * float64(time.Millisecond))
	if o >= maxApart || o <= -maxApart {
		return 0, false
	}
	return o, true
}

// previewAtMaxAge bounds how old a pre-render's time the browser's first
// load takes (web/static/preview.js shows previews younger than a minute).
const previewAtMaxAge = time.Minute

// firstLoadAt is the time of the page's first load in the browser: the
// pre-render's (window.specdashPreviewLoadAt, which web/static/preview.js
// sets from data-load-at when it shows this page's fresh preview) when
// that is within previewAtMaxAge of now, so that the first load asks the
// proxy the pre-render's queries, which it has cached (before: when the
// window's step moved on between the page and the wasm's start, every
// query went upstream again: at 1,024 engines 0.9 s against 0.13 s) and
// the live page shows the preview's numbers, its charts kept as drawn.
// The next refresh reads on from there. Asked once per page; now otherwise.
func (d *Dashboard) firstLoadAt(now time.Time) time.Time {
	if d.previewAtAsked || !app.IsClient {
		return now
	}
	d.previewAtAsked = true
	v := app.Window().Get("specdashPreviewLoadAt")
	if v.Type() != app.TypeNumber {
		return now
	}
	at := time.UnixMilli(int64(v.Float()))
	if age := now.Sub(at); v.Float() <= 0 || age > previewAtMaxAge || age < -previewAtMaxAge {
		return now
	}
	return at
}

// preRenderPage returns the page URL u without its fragment and the
// browser's time zone that package server put there (view.ZoneFragment,
// from the browser's view.ZoneCookie): nil when there is none or it is not
// a known zone. The pre-render shows "local" times in that zone, as the
// browser's live page will, and tells web/static/preview.js which zone
// it used (zoneOffsets).
func preRenderPage(u *url.URL) (*url.URL, *time.Location) {
	page := *u
	frag := page.Fragment
	page.Fragment, page.RawFragment = "", ""
	name, ok := strings.CutPrefix(frag, view.ZoneFragment)
	if !ok {
		return &page, nil
	}
	loc, ok := view.BrowserZone(name)
	if !ok {
		return &page, nil
	}
	return &page, loc
}

// zoneOffsets is the pre-rendered root's data-zone-offsets: the UTC
// offsets (seconds east) of the zone its "local" times are shown in, at
// the window's start and end, "start,end"; "" when the page shows UTC, or
// in the browser. web/static/preview.js shows the preview only when the
// browser's zone has the same offsets (the server knows the browser's
// zone from the second visit on, and a browser can move).
func (d *Dashboard) zoneOffsets(g compute.Grid) string {
	if app.IsClient || d.q.TZ == view.TZUTC {
		return ""
	}
	loc := d.q.Location()
	_, a := time.UnixMilli(g.Start).In(loc).Zone()
	_, b := time.UnixMilli(g.End).In(loc).Zone()
	return strconv.Itoa(a) + "," + strconv.Itoa(b)
}
