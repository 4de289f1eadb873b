//go:build !js

package e2e

import (
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/fixtures"
)

// TestPortReused: a server on a port an earlier test's server used is not
// served by the worker and caches that server left in the shared browser
// (serve, forgetOrigin): with preview.js held back, it does not run.
func TestPortReused(t *testing.T) {
	fx := fixtures.KnownAnswer()
	h := fixtureHandler(t, fx.OpenMetrics, 0)
	w := fx.Whole
	page := "/?" + url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode()
	// The first server: its page goes live and go-app's worker caches the
	// assets, preview.js among them.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	first := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go first.Serve(ln)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate("http://"+addr+page))
	waitReadyState(t, tab, 60*time.Second)
	waitJS(t, tab, 60*time.Second, `(async () => { for (const k of await caches.keys()) { const c = await caches.open(k); for (const r of await c.keys()) if (r.url.includes('preview.js')) return true; } return false; })()`)
	first.Close()

	// The second, on the same port (as the system may hand it out again).
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port is taken again already: %v", err)
	}
	base := "http://" + addr
	second := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go second.Serve(ln2)
	t.Cleanup(func() { second.Close() })
	forgetOrigin(t, base)
	tab2 := newTab(t)
	holdRequests(t, tab2, map[string]string{"preview.js": "preview"})
	navigateNoWait(t, tab2, base+page)
	waitJS(t, tab2, 30*time.Second, `!!document.querySelector('body > [data-dashboard]') && document.readyState !== 'loading'`)
	if ran := run(t, tab2, 10*time.Second, chromedp.Evaluate[bool](`!!document.getElementById('specdash-preview') || document.body.dataset.preview === 'skipped'`)); ran {
		t.Error("preview.js ran although held: the first server's worker served it")
	}
}
