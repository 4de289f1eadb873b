//go:build !js

package bench

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/internal/browsertest"
)

const chromiumPath = browsertest.ChromiumPath

// newBrowser starts headless Chromium with the e2e flags (DEVELOPERS.md)
// and a fresh profile; it is closed with the benchmark.
func newBrowser(b *testing.B) context.Context {
	b.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		b.Fatalf("%s not found (%v): install it with `make deps`", chromiumPath, err)
	}
	profile := b.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(profile)...)
	ctx, cancel := chromedp.NewContext(alloc)
	b.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		b.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// newProfile opens a tab in a new browser context: its own empty HTTP
// cache, code cache and service workers (a cold visit).
func newProfile(b *testing.B, browser context.Context) (context.Context, context.CancelFunc) {
	b.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		b.Fatalf("new browser context: %v", err)
	}
	return ctx, cancel
}

// Page conditions for "the first chart is drawn": the condition holds,
// then one animation frame has run (the canvas or SVG is painted).
const (
	// specdash: a [data-chart] holds a drawn series, either the server's
	// static drawing (package chartsvg: a mark with data-series in
	// [data-chart-static], in the page's first paint) or specdashECharts.
	specdashDrawn = `(!!document.querySelector('[data-chart] [data-chart-static] [data-series]') || ` + specdashECharts + `)`
	// specdash, drawn by ECharts: an ECharts instance in a [data-chart]
	// holds an option with at least one series carrying data.
	specdashECharts = `(() => {
		if (!window.echarts) return false;
		for (const el of document.querySelectorAll('[data-chart]')) {
			const inst = echarts.getInstanceByDom(el);
			if (!inst) continue;
			const o = inst.getOption();
			if (o && o.series && o.series.some(s => s.data && s.data.length > 0)) return true;
		}
		return false;
	})()`
	// Prometheus 2.42 classic UI (Debian's build): Rickshaw draws each
	// series as an SVG path in the graph area.
	promDrawn = `!!document.querySelector('.graph svg path')`
)

// firstChartScript records in window[name] the performance.now() of the
// first animation frame after cond first holds (checked on every DOM
// change and every frame, from the start of the document).
func firstChartScript(name, cond string) string {
	return `(() => {
	window[` + strconv.Quote(name) + `] = 0;
	let seen = false;
	const check = () => {
		if (seen) return;
		let ok = false;
		try { ok = ` + cond + `; } catch (e) {}
		if (ok) { seen = true; requestAnimationFrame(() => { window[` + strconv.Quote(name) + `] = performance.now(); }); }
	};
	const loop = () => { check(); if (!seen) requestAnimationFrame(loop); };
	new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
	requestAnimationFrame(loop);
})();`
}

// watchChart makes every document the tab loads from now on record its
// first drawn chart (cond) in window.__drawn and, with echarts set, its
// first chart drawn by ECharts in window.__echarts.
func watchChart(b *testing.B, tab context.Context, cond, echarts string) {
	b.Helper()
	src := firstChartScript("__drawn", cond)
	if echarts != "" {
		src += firstChartScript("__echarts", echarts)
	}
	_, err := chromedp.Run(tab, chromedp.Action[page.AddScriptToEvaluateOnNewDocumentResult](
		func(ctx context.Context, t *chromedp.Target) (page.AddScriptToEvaluateOnNewDocumentResult, error) {
			return cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument,
				page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		}))
	if err != nil {
		b.Fatalf("inject: %v", err)
	}
}

// timeToECharts waits for the page loaded by timeToChart to record its first
// chart drawn by ECharts and returns it, in milliseconds from navigation
// start.
func timeToECharts(b *testing.B, tab context.Context, timeout time.Duration) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.__echarts || false`,
		chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		b.Fatalf("no chart drawn by ECharts within %s: %v", timeout, err)
	}
	return ms
}

// timeToChart navigates the tab (prepared with watchChart) to url and
// returns the milliseconds from navigation start to the first drawn chart.
func timeToChart(b *testing.B, tab context.Context, url string, timeout time.Duration) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("navigate %s: %v", url, err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.__drawn || false`,
		chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		text, _ := chromedp.Run(context.WithoutCancel(tab), chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ''`))
		b.Fatalf("%s: no chart drawn within %s: %v; page text: %q", url, timeout, err, text)
	}
	return ms
}

// settle waits, before a warm load, until the page of the cold load has
// done its own start-up work, so that the warm load does not compete with
// it: for specdash (live true), the live dashboard ready and go-app's
// service worker active (its install caches app.wasm and the assets in
// the background, for a second or more after the first chart); for both
// sites, then 300 ms more.
func settle(b *testing.B, tab context.Context, live bool, timeout time.Duration) {
	b.Helper()
	ctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	if live {
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const d = document.querySelector('body > [data-dashboard]'); return !!d && d.dataset.state === 'ready'; })()`,
			chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
			b.Fatalf("live dashboard not ready within %s: %v", timeout, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => true)`,
			func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) })); err != nil {
			b.Fatalf("service worker not active within %s: %v", timeout, err)
		}
	}
	time.Sleep(300 * time.Millisecond)
}
