//go:build !js

package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// refreshJS clicks the dashboard's Refresh button and resolves, once the
// new numbers are painted, to the parts of that refresh in milliseconds,
// from the page's performance marks (view/load.go, app/dashboard.go:
// specdash:load:start, :fetched, :computed, :end, :rendered) and the
// resource timings of the /prom requests:
//   - query: wall time with at least one /prom request in flight (network,
//     proxy and Prometheus);
//   - decode: the rest of the fetch phases (JSON decode in Go, client
//     work between requests);
//   - compute: specdash/compute on the fetched series;
//   - render: end of the load to the first animation frame after go-app
//     updated the page and the charts in view (app.Chart's lazy redraw)
//     took the new options (specdash:load:rendered);
//   - renderAll: end of the load to the first animation frame after the
//     last chart out of view was drawn too (specdash:load:rendered-all;
//     hasAll false when the front end has no such mark);
//   - total: click to that frame;
//   - incremental: whether the load re-read only the newest points
//     (specdash:load:incremental, view.LoadSince);
//   - end: the window end the page then shows (data-window-end, Unix ms).
const refreshJS = `new Promise((resolve, reject) => {
	performance.clearMarks();
	performance.clearResourceTimings();
	const t0 = performance.now();
	const timer = setTimeout(() => reject(new Error('no specdash:load:rendered mark within 60 s')), 60000);
	let painted = NaN, paintedAll = NaN, hasAll = true, sawAll = false, allTimer = null;
	const done = () => {
		if (isNaN(painted) || (hasAll && isNaN(paintedAll))) return;
		clearTimeout(timer);
		clearTimeout(allTimer);
		obs.disconnect();
		const mark = (n) => { const e = performance.getEntriesByName('specdash:load:' + n, 'mark'); return e.length ? e[e.length - 1].startTime : NaN; };
		const start = mark('start'), fetched = mark('fetched'), computed = mark('computed'), end = mark('end');
		const iv = performance.getEntriesByType('resource')
			.filter(e => e.name.includes('/prom/') && e.startTime >= t0 && e.responseEnd <= end)
			.map(e => [e.startTime, e.responseEnd]).sort((a, b) => a[0] - b[0]);
		let query = 0, cur = null;
		for (const [s, f] of iv) {
			if (cur && s <= cur[1]) { cur[1] = Math.max(cur[1], f); continue; }
			if (cur) query += cur[1] - cur[0];
			cur = [s, f];
		}
		if (cur) query += cur[1] - cur[0];
		resolve({total: painted - t0, query, decode: (fetched - start) + (end - computed) - query,
			compute: computed - fetched, render: painted - end, renderAll: hasAll ? paintedAll - end : 0, hasAll, requests: iv.length,
			incremental: performance.getEntriesByName('specdash:load:incremental', 'mark').length > 0,
			end: Number(document.querySelector('[data-dashboard]').dataset.windowEnd)});
	};
	const obs = new PerformanceObserver((list) => {
		for (const e of list.getEntries()) {
			if (e.name === 'specdash:load:rendered' && isNaN(painted) && !allTimer) {
				requestAnimationFrame(() => { painted = performance.now(); done(); });
				// A front end without the rendered-all mark (SPECDASH_BENCH_WEB).
				if (!sawAll) allTimer = setTimeout(() => { if (!sawAll) { hasAll = false; done(); } }, 20000);
			}
			if (e.name === 'specdash:load:rendered-all' && !sawAll) {
				sawAll = true;
				requestAnimationFrame(() => { paintedAll = performance.now(); done(); });
			}
		}
	});
	obs.observe({type: 'mark'});
	document.querySelector('button.refresh-now').click();
})`

type refreshTiming struct {
	Total, Query, Decode, Compute, Render, RenderAll float64
	HasAll                                           bool
	Requests                                         int
	Incremental                                      bool
	End                                              int64
}

// windowJS is the page's window end and step (data-window-end, Unix ms;
// data-step-seconds).
const windowJS = `(() => { const d = document.querySelector('[data-dashboard]').dataset; return [Number(d.windowEnd), Number(d.stepSeconds)]; })()`

// BenchmarkRefresh: one refresh of the dashboard in headless Chromium
// (Refresh button) over 16 engines x 8 positions at 15 s scrape, 6 h and
// 24 h windows: the page is loaded once, then refreshed 2 + runs times
// (the first two are discarded as warm-up). Every measured refresh must be
// incremental (view.LoadSince: the live window is continued, only its
// newest points are re-read). Metrics: total-ms, query-ms, decode-ms,
// compute-ms, render-ms (charts in view), render-all-ms (every chart,
// those out of view drawn in idle time after the others; reported when
// the front end marks it), medians. The window is the e2e one
// (internal/browsertest: 1440x1000): the first row of charts is in view,
// the rest below it. Each refresh waits until every chart is drawn before
// the next one starts.
//
// The data is backfilled up to the run's start and the refreshes follow
// each other within a second, so those refreshes mostly see the same grid
// and the same numbers: go-app re-renders, but every chart's option is
// unchanged and ECharts is not called. A live refresh also changes the
// charts (the newest bucket grows; every step the window slides), so the
// 6 h case then waits for the window to slide by one step (1 min) before
// each of 1 + runs more refreshes (the first discarded) and reports them
// as slide-total-ms, slide-query-ms, ... : the cost of a live refresh
// with every chart redrawn. That part takes about runs + 1 minutes.
// SPECDASH_BENCH_PROFILE=dir writes a CPU profile of the page's main
// thread per measured slide (DevTools format, slide-N.cpuprofile).
// Run with -benchtime=1x.
func BenchmarkRefresh(b *testing.B) {
	prom := startPrometheus(b)
	spec := startSpecdash(b, prom.URL, -1, nil) // cache off: every refresh queries Prometheus
	browser := newBrowser(b)
	refresh := func(b *testing.B, tab context.Context) refreshTiming {
		ctx, cancelRun := context.WithTimeout(tab, 90*time.Second)
		defer cancelRun()
		t, err := chromedp.Run(ctx, chromedp.Evaluate[refreshTiming](refreshJS, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatalf("refresh: %v (the page needs the specdash:load:* performance marks of app/)", err)
		}
		if t.Requests == 0 {
			b.Fatalf("refresh made no /prom request: %+v", t)
		}
		return t
	}
	report := func(b *testing.B, prefix string, ts []refreshTiming) {
		var tot, q, d, c, r, ra []float64
		hasAll := true
		for _, t := range ts {
			tot, q, d, c, r = append(tot, t.Total), append(q, t.Query), append(d, t.Decode), append(c, t.Compute), append(r, t.Render)
			ra = append(ra, t.RenderAll)
			hasAll = hasAll && t.HasAll
		}
		b.ReportMetric(median(tot), prefix+"total-ms")
		b.ReportMetric(median(q), prefix+"query-ms")
		b.ReportMetric(median(d), prefix+"decode-ms")
		b.ReportMetric(median(c), prefix+"compute-ms")
		b.ReportMetric(median(r), prefix+"render-ms")
		if hasAll {
			b.ReportMetric(median(ra), prefix+"render-all-ms")
		}
	}
	for _, rng := range []string{"6h", "24h"} {
		b.Run(rng, func(b *testing.B) {
			tab, cancel := newProfile(b, browser)
			defer cancel()
			watchChart(b, tab, specdashDrawn, "")
			timeToChart(b, tab, spec+"/?range="+rng, time.Minute)
			// The first chart is the pre-rendered preview's; its Refresh
			// button is a link that reloads the page. Refresh the live one.
			settle(b, tab, true, time.Minute)
			var measured []refreshTiming
			for i := range 2 + runs(b) {
				t := refresh(b, tab)
				if i < 2 {
					continue
				}
				if !t.Incremental {
					b.Fatalf("refresh %d read the whole window: not the incremental refresh of a live window (%+v)", i, t)
				}
				measured = append(measured, t)
			}
			report(b, "", measured)
			if rng != "6h" {
				return
			}
			measured = measured[:0]
			for i := range 1 + runs(b) {
				w, err := chromedp.Run(tab, chromedp.Evaluate[[2]int64](windowJS, chromedp.EvalAsValue))
				if err != nil {
					b.Fatal(err)
				}
				// Wait until the window's end moves by one step.
				next := time.UnixMilli(w[0] + w[1]*1000 + 200)
				time.Sleep(time.Until(next))
				cpu := os.Getenv("SPECDASH_BENCH_PROFILE")
				if cpu != "" && i > 0 {
					startCPUProfile(b, tab)
				}
				t := refresh(b, tab)
				if cpu != "" && i > 0 {
					stopCPUProfile(b, tab, filepath.Join(cpu, fmt.Sprintf("slide-%d.cpuprofile", i)))
				}
				if t.End <= w[0] || !t.Incremental {
					b.Fatalf("slide %d: window end %d -> %d, incremental %v: not a slide of the live window", i, w[0], t.End, t.Incremental)
				}
				if i > 0 {
					measured = append(measured, t)
				}
			}
			report(b, "slide-", measured)
		})
	}
}
