//go:build !js

package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
)

// axePath is axe-core's browser build, installed by npm ci (package.json
// devDependencies, pinned by package-lock.json).
const axePath = "../node_modules/axe-core/axe.min.js"

// axeViolation is one failed axe rule on a page.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Nodes   int      `json:"nodes"`
	Targets []string `json:"targets"`
	Summary string   `json:"summary"`
}

// runAxeJS runs axe over the whole document and returns its violations,
// with the first nodes' selectors and the first failure summary.
const runAxeJS = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.length,
  targets: v.nodes.slice(0, 6).map(n => n.target.join(' ')),
  summary: v.nodes.length ? (v.nodes[0].failureSummary || '') : '',
})))`

// axeSource reads axe-core; a missing one fails the test (never skips).
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("axe-core is missing (%v): run `npm ci` (scripts/install-deps.sh does)", err)
	}
	return string(b)
}

// checkAxe injects axe-core into the tab's page and fails on every serious
// or critical violation and on content outside landmarks (the region and
// landmark rules); the others are logged.
func checkAxe(t *testing.T, tab context.Context, name, axe string) {
	t.Helper()
	if !run(t, tab, 30*time.Second, chromedp.Evaluate[bool](axe+";typeof axe === 'object'")) {
		t.Fatalf("%s: axe-core did not load into the page", name)
	}
	vs := run(t, tab, 120*time.Second, chromedp.Evaluate[[]axeViolation](runAxeJS, chromedp.EvalAwaitPromise))
	for _, v := range vs {
		msg := fmt.Sprintf("%s: axe %s (%s, %d nodes): %s; e.g. %s; %s", name, v.ID, v.Impact, v.Nodes, v.Help,
			strings.Join(v.Targets, " | "), strings.ReplaceAll(v.Summary, "\n", " "))
		switch {
		case v.Impact == "serious" || v.Impact == "critical",
			v.ID == "region", v.ID == "landmark-one-main":
			t.Error(msg)
		default:
			t.Log(msg)
		}
	}
}

// TestAccessibility runs axe-core 4 over every page specdash shows, in the
// light and the dark theme: the dashboard with numbers, with a comparison,
// /logs, the error page (Prometheus down) and the empty page (a target
// without speculative-decoding metrics).
func TestAccessibility(t *testing.T) {
	axe := axeSource(t)
	tab := newTab(t)
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m1", "m2"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 11}, 2)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)

	// A Prometheus address where nothing listens: the error page.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	hd, err := server.New(server.Config{PrometheusURL: dead, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	deadBase := serve(t, hd)

	// An embedded source scraping a target without spec metrics: the empty page.
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		io.WriteString(w, nonSpecMetrics)
	}))
	emptyBase := startEmbedded(t, []string{target + "/metrics"})

	const ready = `(() => { const r = document.querySelector('[data-dashboard]'); const a = document.querySelector('[data-metric="acceptance-rate"]');
	  return !!r && r.dataset.state === 'ready' && !!a && !!a.dataset.value; })()`
	const failed = `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error' && !!document.querySelector('[data-error]'); })()`
	const logs = `!!document.querySelector('[data-logs]') && !!document.querySelector('textarea')`
	pages := []struct{ name, url, wait string }{
		{"dashboard light", base + "/?range=5m&group=model_name", ready},
		{"dashboard dark", base + "/?range=5m&group=model_name&theme=dark", ready},
		{"compare light", base + "/?range=5m&group=model_name&compare=groups", ready + ` && !!document.querySelector('[data-compare]')`},
		{"compare dark", base + "/?range=5m&compare=window&theme=dark", ready + ` && !!document.querySelector('[data-compare], [data-compare-reason]')`},
		{"logs light", base + "/logs", logs},
		{"logs dark", base + "/logs?theme=dark", logs},
		{"error light", deadBase + "/?range=5m", failed},
		{"error dark", deadBase + "/?range=5m&theme=dark", failed},
		{"empty light", emptyBase + "/?range=5m&refresh=5s", failed + ` && document.querySelector('[data-target]') && document.querySelector('[data-target]').dataset.health === 'up'`},
		{"empty dark", emptyBase + "/?range=5m&refresh=5s&theme=dark", failed},
	}
	// From and To are a few Tab presses into the page (a datetime-local
	// input took seven each).
	t.Run("tab-order", func(t *testing.T) {
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
		waitJS(t, tab, 120*time.Second, ready)
		var order []string
		for i := 0; i < 12; i++ {
			step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Tab))
			order = append(order, run(t, tab, 10*time.Second, chromedp.Evaluate[string](
				`(() => { const e = document.activeElement; return e ? (e.id || e.className || e.tagName) : ''; })()`)))
		}
		from, to := slices.Index(order, "from"), slices.Index(order, "to")
		if from < 0 || from > 7 || to != from+1 {
			t.Errorf("Tab order %q: want From within 8 presses and To right after it", order)
		}
		if len(order) == 0 || order[0] != "skip-link" {
			t.Errorf("first Tab stop %q, want the skip link", order)
		}
	})

	// A sort header is a button: focus it and press Enter to sort; the th
	// says how it is sorted (aria-sort).
	t.Run("keyboard-sort", func(t *testing.T) {
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&group=model_name"))
		waitJS(t, tab, 120*time.Second, ready)
		if !run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { const b = document.querySelector('th[data-sort="acceptance-rate"] button');
		  if (!b) return false; b.focus(); return document.activeElement === b; })()`)) {
			t.Fatalf("the acceptance-rate header has no focusable sort button")
		}
		step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Enter))
		waitJS(t, tab, 30*time.Second, `new URLSearchParams(location.search).get('sort') === '-acceptance-rate' &&
		  document.querySelector('th[data-sort="acceptance-rate"]').getAttribute('aria-sort') === 'descending' &&
		  document.querySelector('th[data-sort="k"]').getAttribute('aria-sort') === 'none'`)
	})
	for _, p := range pages {
		t.Run(strings.ReplaceAll(p.name, " ", "-"), func(t *testing.T) {
			step(t, tab, 30*time.Second, chromedp.Navigate(p.url))
			waitJS(t, tab, 120*time.Second, p.wait)
			checkAxe(t, tab, p.name, axe)
		})
	}
}
