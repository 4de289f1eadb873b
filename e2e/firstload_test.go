//go:build !js

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
)

// A URL with every parameter and an auto-refresh period shows its numbers
// after its first load, not after the first refresh. The bug: the refresh
// loop was a goroutine parked on a time.Ticker, and under js/wasm that kept
// go-app's frame timer from firing, so the first load's result (dispatched
// from the fetch goroutine) was drawn only when the refresh ticker fired:
// with refresh=30s the page said "Loading…" for 30 s.
//
// The period here is 5m (the longest offered) and the wait is bounded far
// below it; data-loads proves the numbers come from the first load (no
// refresh has run).
func TestFirstLoadNotDelayedByRefresh(t *testing.T) {
	base, tab := simSite(t, []string{modelA, modelB}, 4)

	to := (time.Now().Add(-3*time.Second).UnixMilli() / 1000) * 1000
	from := to - 10*1000
	full := url.Values{
		"source": {server.DefaultSourceName},
		"range":  {"15m"}, "from": {time.UnixMilli(from).UTC().Format(time.RFC3339)}, "to": {time.UnixMilli(to).UTC().Format(time.RFC3339)},
		"model": {modelA, modelB}, "engine": {"1"}, "f.job": {"vllm"},
		"group": {"model_name"}, "convention": {"nobonus"}, "theme": {"dark"}, "tz": {"utc"},
		"sort": {"-acceptance-rate"}, "compare": {"groups"}, "a": {mustJSON([]string{modelB})}, "b": {mustJSON([]string{modelA})},
	}
	cases := []struct {
		name string
		q    url.Values
		rows int
	}{
		{"every parameter, refresh 5m", with(full, "refresh", "5m"), 2},
		// Two models: grouped by model by default, one row each.
		{"relative window, refresh 5m", url.Values{"range": {"5m"}, "refresh": {"5m"}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+c.q.Encode()))
			// Bounded well below the 5 minute period: only the first load can
			// make the page ready in time.
			waitReady(t, tab, 60*time.Second)
			loads := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-dashboard]').dataset.loads`))
			if loads != "1" {
				t.Errorf("data-loads %q when first ready, want 1 (the first load, no refresh)", loads)
			}
			if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('[data-row]').length`)); n != c.rows {
				t.Errorf("%d breakdown rows, want %d", n, c.rows)
			}
		})
	}
}

// simSite serves specdash in front of a Prometheus scraping targets
// simulators of models (2 engines, k = 4) once it holds 10 s of their
// data, and opens a tab.
func simSite(t *testing.T, models []string, targets int) (base string, tab context.Context) {
	t.Helper()
	prom := simtest.Prometheus(t, simulate.Config{Models: models, Engines: 2, K: 4,
		Acceptance: []float64{0.8}, DraftsPerSecond: 10, Seed: 3}, targets)
	start := time.Now()
	prom.WaitFor(t, `min(timestamp(vllm:spec_decode_num_drafts_total)) > `+strconv.FormatInt(start.Add(10*time.Second).Unix(), 10), promtest.NonEmpty, 60*time.Second)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h), newTab(t)
}

// with returns a copy of v with key set to val.
func with(v url.Values, key, val string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(key, val)
	return out
}

// TestFirstLoadAtPreviewTime: the live page's first load reads at the
// pre-render's time (data-load-at, via preview.js), so it shows the
// preview's window, from the proxy's cache, even when the window's step
// moved on while the wasm was held back; data-loads proves it is the first
// load.
func TestFirstLoadAtPreviewTime(t *testing.T) {
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{modelA}, Engines: 2, K: 4,
		Acceptance: []float64{0.8}, DraftsPerSecond: 10, Seed: 3}, 2)
	start := time.Now()
	// Two of the window's 10 s steps of data: a pre-render with numbers.
	prom.WaitFor(t, `min(timestamp(vllm:spec_decode_num_drafts_total)) > `+strconv.FormatInt(start.Add(25*time.Second).Unix(), 10), promtest.NonEmpty, 90*time.Second)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e", PreRenderTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The browser's requests to the proxy (the pre-render's go to it in
	// the process, not through here).
	var asked atomic.Int32
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, server.ProxyPrefix+"/") {
			asked.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	tab := newTab(t)
	addScript(t, tab, pageClock(0))
	gates := holdRequests(t, tab, map[string]string{"app.wasm": "wasm"})
	navigateNoWait(t, tab, base+"/?"+url.Values{"range": {"1h"}, "refresh": {"5m"}}.Encode())
	waitJS(t, tab, 60*time.Second, `document.body && document.body.dataset.preview === 'shown'`)
	type window struct {
		End, Step, LoadAt, Loads, Rate string
	}
	const read = `(() => { const r = document.querySelector(%q), d = r.dataset, c = r.querySelector('[data-metric="acceptance-rate"]');
		return {end: d.windowEnd || '', step: d.stepSeconds || '', loadAt: d.loadAt || '', loads: d.loads || '', rate: (c && c.dataset.value) || ''}; })()`
	pre := run(t, tab, 10*time.Second, chromedp.Evaluate[window](fmt.Sprintf(read, "#specdash-preview [data-dashboard]")))
	end, err1 := strconv.ParseInt(pre.End, 10, 64)
	stepS, err2 := strconv.ParseFloat(pre.Step, 64)
	if err1 != nil || err2 != nil || pre.LoadAt == "" {
		t.Fatalf("preview %+v: want its window's end, step and data-load-at", pre)
	}
	// The wasm held until the window's step has moved on; then the page's
	// clock stops there: the first load sees the step moved on, and the
	// pre-render's time well within firstLoadAt's minute however long the
	// Go program takes to start (on a slow CI machine it took over a
	// minute, and the first load rightly read at its own time).
	next := end + int64(stepS*1000) + 1000
	waitJS(t, tab, 2*time.Minute, `Date.now() > `+strconv.FormatInt(next, 10))
	run(t, tab, 10*time.Second, chromedp.Evaluate[float64](`window.__stopClock(`+strconv.FormatInt(next, 10)+`)`))
	if gates.held("wasm") == 0 {
		t.Fatal("no app.wasm request held: the test cannot hold the live page back")
	}
	gates.open("wasm")
	waitReady(t, tab, 60*time.Second)
	live := run(t, tab, 10*time.Second, chromedp.Evaluate[window](fmt.Sprintf(read, "body > [data-dashboard]")))
	if live.Loads != "1" || live.End != pre.End || live.Rate == "" || live.Rate != pre.Rate {
		t.Errorf("live page after its first load (data-loads %q): window end %s, acceptance rate %s; the preview's %s, %s (data-load-at %s): want the preview's",
			live.Loads, live.End, live.Rate, pre.End, pre.Rate, pre.LoadAt)
	}
	// The first load took the page's answers (data-answers): it asked the
	// proxy nothing.
	if n := asked.Load(); n != 0 {
		t.Errorf("the browser asked the proxy %d requests by its first load: want none (the page's answers)", n)
	}
}

// pageClock replaces the page's Date before any of its scripts run (Go's
// js/wasm reads the wall clock through it; its timers and monotonic clock
// use performance.now): skew ahead of the real time (a browser whose
// clock is off), and window.__stopClock(ms) makes it say ms from then on.
func pageClock(skew time.Duration) string {
	return `(() => {
  const Real = Date, skew = ` + strconv.FormatInt(skew.Milliseconds(), 10) + `;
  let stopped = 0;
  const now = () => stopped || Real.now() + skew;
  class Fake extends Real {
    constructor(...a) { if (a.length === 0) super(now()); else super(...a); }
    static now() { return now(); }
  }
  window.Date = Fake;
  window.__stopClock = (ms) => (stopped = ms);
})()`
}

// addScript runs source in the tab's every new document before its own
// scripts.
func addScript(t *testing.T, tab context.Context, source string) {
	t.Helper()
	run(t, tab, 10*time.Second, chromedp.Action[cdppage.AddScriptToEvaluateOnNewDocumentResult](
		func(ctx context.Context, tg *chromedp.Target) (cdppage.AddScriptToEvaluateOnNewDocumentResult, error) {
			return cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: source})
		}))
}

// TestBrowserClockAhead: a browser whose clock is 5 minutes ahead of the
// server's shows the server's window, with the refresh off (the default
// at /): its first load read at its own clock (no preview: the page
// looks 5 minutes old to it), and once that load's answers told the
// server's time, the dashboard read again at once. Before, the window
// ended 5 minutes in the future (empty buckets, every card stale) until
// the user acted.
func TestBrowserClockAhead(t *testing.T) {
	base, tab := simSite(t, []string{modelA}, 2)
	addScript(t, tab, pageClock(5*time.Minute))
	before := time.Now()
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m"))
	if ahead := run(t, tab, 10*time.Second, chromedp.Evaluate[float64](`Date.now()`)) - float64(time.Now().UnixMilli()); ahead < 4*60*1000 {
		t.Fatalf("the page's clock is %.0f ms ahead: want 5 minutes", ahead)
	}
	// Ready with a window that ends at the server's time when it loaded
	// (within the window's step), not 5 minutes ahead: the first load may
	// read at the page's clock, and the page reads again once an answer's
	// Date says the skew. Each read is bounded by the server's times before
	// the page was asked for and after the read, so a slow machine cannot
	// break it (before: a bound a minute after the navigation, which a page
	// ready later passed).
	waitReady(t, tab, 60*time.Second)
	var end, after time.Time
	var slack time.Duration
	for deadline := time.Now().Add(3 * time.Minute * waitSlack); ; {
		got := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]string](`(() => { const d = document.querySelector('body > [data-dashboard]').dataset;
		  return {end: d.windowEnd || '', step: d.stepSeconds || '', loads: d.loads || ''}; })()`))
		after = time.Now()
		e, err1 := strconv.ParseInt(got["end"], 10, 64)
		stepS, err2 := strconv.ParseFloat(got["step"], 64)
		if err1 != nil || err2 != nil || stepS <= 0 {
			t.Fatalf("live page's window end %q, step %q: want both", got["end"], got["step"])
		}
		end = time.UnixMilli(e)
		slack = time.Duration(stepS*float64(time.Second)) + time.Second
		if !end.Before(before.Add(-slack)) && !end.After(after.Add(slack)) {
			return
		}
		if after.After(deadline) {
			break
		}
		// The next read (data-loads counts them), ready again.
		waitJS(t, tab, 60*time.Second, `(() => { const d = document.querySelector('body > [data-dashboard]').dataset;
		  return d.state === 'ready' && Number(d.loads) > Number(`+strconv.Quote(got["loads"])+`); })()`)
	}
	t.Errorf("window end %s: want between the server's times before the page (%s) and after it was ready (%s), within the step (%v)",
		end.UTC().Format(time.RFC3339), before.UTC().Format(time.RFC3339), after.UTC().Format(time.RFC3339), slack)
}
