//go:build !js

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
)

// workerEntry is one resource timing entry of the page.
type workerEntry struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// workerEntriesJS lists the page's /prom requests with the source that
// answered them (Resource Timing's workerMatchedSourceType).
const workerEntriesJS = `performance.getEntriesByType('resource').filter(e => e.name.includes('/prom/')).map(e => ({name: e.name, source: String(e.workerMatchedSourceType || '')}))`

// TestWorkerLeavesDataPath: once specdash's service worker controls the
// page (a returning visitor, an open dashboard), the page's /prom queries
// do not go through it (server/worker.go), and a visit to "/" gets a
// fresh page from the server, not the copy the worker cached when it was
// installed (whose pre-rendered numbers preview.js would refuse as stale).
func TestWorkerLeavesDataPath(t *testing.T) {
	skipShort(t)
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{modelA}, Engines: 2, K: 4,
		Acceptance: []float64{0.85, 0.8, 0.75, 0.7}, DraftsPerSecond: 15, Seed: 5}, 2)
	// The pre-render's budget is no test of speed here: a busy machine
	// must not leave the second visit's page without its numbers.
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e", PreRenderTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitReady(t, tab, 60*time.Second)
	// boot.js registers the worker once the dashboard is ready; it claims
	// the page when active.
	waitJS(t, tab, 60*time.Second, `!!navigator.serviceWorker && !!navigator.serviceWorker.controller`)

	// A refresh while the worker controls the page.
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { performance.clearResourceTimings(); performance.clearMarks(); document.querySelector('button.refresh-now').click(); return true; })()`))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('body > [data-dashboard]'); return r && r.dataset.state === 'ready' && performance.getEntriesByName('specdash:load:rendered').length > 0; })()`)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[[]workerEntry](workerEntriesJS))
	if len(got) == 0 {
		t.Fatalf("the refresh made no /prom request")
	}
	// Chromium's static routing (InstallEvent.addRoutes) names the source
	// that answered: "network" for a route to it, "" for a request handed
	// to the worker's fetch handler (go-app's worker: every request).
	for _, e := range got {
		if e.Source != "network" {
			t.Errorf("%s went through the service worker (workerMatchedSourceType %q), want the network route", e.Name, e.Source)
		}
	}

	// A second visit to "/" while the worker controls the origin.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/"))
	waitReady(t, tab, 60*time.Second)
	if !run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`!!navigator.serviceWorker.controller`)) {
		t.Fatalf("second visit: no service worker controls the page")
	}
	nav := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`(() => { const n = performance.getEntriesByType('navigation')[0]; return [n.workerStart, n.transferSize]; })()`))
	pv := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.body.getAttribute('data-preview') || ''`))
	if nav[1] <= 0 || pv != "shown" {
		t.Errorf("second visit to /: transferSize %.0f, preview %q; want the page from the server (transferSize > 0) with its fresh numbers shown", nav[1], pv)
	}
}
