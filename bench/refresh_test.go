//go:build !js

package bench

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// refreshJS clicks the dashboard's Refresh button and resolves, once the
// new numbers are painted, to the parts of that refresh in milliseconds,
// from the page's performance marks (app/load.go, app/dashboard.go:
// specdash:load:start, :fetched, :computed, :end, :rendered) and the
// resource timings of the /prom requests:
//   - query: wall time with at least one /prom request in flight (network,
//     proxy and Prometheus);
//   - decode: the rest of the fetch phases (JSON decode in Go, client
//     work between requests);
//   - compute: specdash/compute on the fetched series;
//   - render: end of the load to the first animation frame after go-app
//     updated the page and ECharts took the new options;
//   - total: click to that frame.
const refreshJS = `new Promise((resolve, reject) => {
	performance.clearMarks();
	performance.clearResourceTimings();
	const t0 = performance.now();
	const timer = setTimeout(() => reject(new Error('no specdash:load:rendered mark within 60 s')), 60000);
	const obs = new PerformanceObserver((list) => {
		if (!list.getEntries().some(e => e.name === 'specdash:load:rendered')) return;
		obs.disconnect();
		requestAnimationFrame(() => {
			clearTimeout(timer);
			const painted = performance.now();
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
				compute: computed - fetched, render: painted - end, requests: iv.length});
		});
	});
	obs.observe({type: 'mark'});
	document.querySelector('button.refresh-now').click();
})`

type refreshTiming struct {
	Total, Query, Decode, Compute, Render float64
	Requests                              int
}

// BenchmarkRefresh: one refresh of the dashboard in headless Chromium
// (Refresh button) over 16 engines x 8 positions at 15 s scrape, 6 h and
// 24 h windows: the page is loaded once, then refreshed 2 + runs times
// (the first two are discarded as warm-up). Metrics: total-ms, query-ms,
// decode-ms, compute-ms, render-ms (medians). Run with -benchtime=1x.
func BenchmarkRefresh(b *testing.B) {
	prom := startPrometheus(b)
	spec := startSpecdash(b, prom.URL, -1, nil) // cache off: every refresh queries Prometheus
	browser := newBrowser(b)
	for _, rng := range []string{"6h", "24h"} {
		b.Run(rng, func(b *testing.B) {
			tab, cancel := newProfile(b, browser)
			defer cancel()
			watchChart(b, tab, specdashDrawn)
			timeToChart(b, tab, spec+"/?range="+rng, time.Minute)
			var tot, q, d, c, r []float64
			for i := range 2 + runs(b) {
				ctx, cancelRun := context.WithTimeout(tab, 90*time.Second)
				t, err := chromedp.Run(ctx, chromedp.Evaluate[refreshTiming](refreshJS, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
				cancelRun()
				if err != nil {
					b.Fatalf("refresh: %v (the page needs the specdash:load:* performance marks of app/)", err)
				}
				if t.Requests == 0 {
					b.Fatalf("refresh made no /prom request: %+v", t)
				}
				if i < 2 {
					continue
				}
				tot, q, d, c, r = append(tot, t.Total), append(q, t.Query), append(d, t.Decode), append(c, t.Compute), append(r, t.Render)
			}
			b.ReportMetric(median(tot), "total-ms")
			b.ReportMetric(median(q), "query-ms")
			b.ReportMetric(median(d), "decode-ms")
			b.ReportMetric(median(c), "compute-ms")
			b.ReportMetric(median(r), "render-ms")
		})
	}
}
