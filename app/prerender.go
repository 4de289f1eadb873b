package app

import (
	"context"
	"encoding/base64"
	"net/url"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/metricsclient"
)

// Server-side first paint. go-app pre-renders the dashboard on the server;
// with PreRenderClient set (by package server, host only) that pre-render
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
// and data-preview-url (base64url of the page's path and query).

// PreRenderClient, when set, gives the server's pre-render a client for the
// configured source named source ("" when the server configured no source
// list) and the time the pre-render may spend loading; ok false means no
// numbers in the pre-rendered page (it then shows the loading state, as
// without the hook). Package server sets it in New (the last New wins, like
// go-app's Env); it stays nil in the browser, and the wasm never links the
// server's code.
var PreRenderClient func(source string) (c *metricsclient.Client, budget time.Duration, ok bool)

// preRenderLoad runs the URL's Load on the server within the budget of
// PreRenderClient and keeps a successful result for the pre-rendered page.
// A failure or a timeout leaves the page without numbers. Never in the
// browser, never for other routes than the dashboard.
func (d *Dashboard) preRenderLoad(ctx app.Context) {
	if app.IsClient || PreRenderClient == nil {
		return
	}
	u := ctx.Page().URL()
	name := ""
	if s, ok := pickSource(Sources(), u); ok {
		name = s.Name
		d.source = s.Label
		if sc, err := time.ParseDuration(s.ScrapeInterval); err == nil && sc > 0 {
			d.scrape = sc
		}
	}
	c, budget, ok := PreRenderClient(name)
	if !ok || c == nil || budget <= 0 {
		return
	}
	lctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	res := Load(lctx, c, d.q, d.scrape, time.Now())
	if res.Err != nil || lctx.Err() != nil {
		return
	}
	d.res, d.err = &res, nil
	d.preview = true
	if res.Models != nil {
		d.models = res.Models
	}
	if res.Engines != nil {
		d.engines = res.Engines
	}
	if res.Labels != nil {
		d.labels = res.Labels
	}
	d.schema = res.Schema
}

// previewStamp is what a pre-rendered chart carries besides its option:
// when the server rendered it and for which page.
type previewStamp struct {
	at  int64  // Unix ms, server clock
	url string // base64url of path?query
}

// stampFor is the stamp of a pre-render of u now.
func stampFor(u *url.URL) previewStamp {
	page := u.EscapedPath()
	if page == "" {
		page = "/"
	}
	if u.RawQuery != "" {
		page += "?" + u.RawQuery
	}
	return previewStamp{at: time.Now().UnixMilli(), url: base64.RawURLEncoding.EncodeToString([]byte(page))}
}
