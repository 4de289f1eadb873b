//go:build !js

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/internal/browsertest"
)

// The three moments of a page's start, recorded by the page itself
// (interactiveScript) as performance.now() of the first animation frame
// after each holds.
const (
	// specdash's first paint with numbers: the server's static drawing of
	// a chart (chartsvg) or a chart drawn by ECharts.
	specdashPaint = specdashDrawn
	// specdash's live dashboard: the wasm's root is ready (its filters,
	// refresh and charts work from then on).
	specdashLive = `(() => { const d = document.querySelector('body > [data-dashboard]'); return !!d && d.dataset.state === 'ready'; })()`
	// Where to hover: every chart of the page (the first to answer counts).
	specdashCharts = `[data-chart]`
	// A chart answered: an ECharts tooltip (a div ECharts adds to the
	// chart's element, z-index 9999999) is shown with text in it.
	specdashTooltip = `(() => {
		for (const el of document.querySelectorAll('[data-chart] > div')) {
			if (el.style.zIndex !== '9999999') continue;
			if (el.style.display !== 'none' && el.style.visibility !== 'hidden' && el.style.opacity !== '0' && el.textContent.trim() !== '') return true;
		}
		return false;
	})()`
	// Prometheus 2.42's classic graph page: Rickshaw's hover detail shows
	// the value under the pointer in .detail .item.active.
	promCharts  = `.graph`
	promTooltip = `!!document.querySelector('.graph .detail .item.active')`
)

// interactiveScript records, in every document the tab loads, the
// performance.now() of the first animation frame after paint holds
// (window.__paint), after a hover answers (window.__hover) and after live
// holds (window.__live; for a page without a separate live state, live
// is "" and __live is the later of the other two). Hovering: on every
// frame from the first paint with numbers on (before it there is nothing
// to hover, and the probe's reads of the layout cost a page that is still
// arriving a forced layout each frame: 60-100 ms of every 100 on
// specdash's), the script sends a mousemove to the middle of each element
// matching charts (to the element there: an overlay that lets pointers
// through hands it to what is under it), moving by a pixel each time,
// then checks tooltip. The conditions are checked once a frame (not on
// every DOM change: that cost the page ~60 ms of its main thread).
func interactiveScript(paint, charts, tooltip, live string) string {
	if live == "" {
		live = "false"
	}
	return `(() => {
	const rec = {__paint: () => ` + paint + `, __hover: () => ` + tooltip + `, __live: () => ` + live + `};
	for (const k in rec) window[k] = 0;
	// From the tab's first navigation on this origin: a page that asks for
	// itself again (boot.js, a first visit from another zone) counts
	// the first document's time too.
	let origin = performance.timeOrigin;
	try {
		const o = Number(sessionStorage.getItem('__benchOrigin'));
		if (o > 0) origin = o; else sessionStorage.setItem('__benchOrigin', String(origin));
	} catch (e) {}
	const now = () => performance.timeOrigin + performance.now() - origin;
	const seen = {};
	let jiggle = 0;
	const hover = () => {
		jiggle = 1 - jiggle;
		for (const el of document.querySelectorAll(` + strconv.Quote(charts) + `)) {
			const r = el.getBoundingClientRect();
			if (r.width < 4 || r.height < 4) continue;
			const x = r.left + r.width / 2 + jiggle, y = r.top + r.height / 2;
			const t = document.elementFromPoint(x, y);
			if (!t) continue;
			const o = {bubbles: true, cancelable: true, clientX: x, clientY: y, view: window};
			t.dispatchEvent(new MouseEvent('mouseover', o));
			t.dispatchEvent(new MouseEvent('mousemove', o));
		}
	};
	const check = () => {
		for (const k in rec) {
			if (seen[k]) continue;
			let ok = false;
			try { ok = rec[k](); } catch (e) {}
			if (ok) { seen[k] = true; requestAnimationFrame(() => { window[k] = now(); }); }
		}
	};
	const loop = () => {
		try { if (seen.__paint && !seen.__hover) hover(); } catch (e) {}
		check();
		if (!(seen.__paint && seen.__hover && seen.__live)) requestAnimationFrame(loop);
	};
	requestAnimationFrame(loop);
})();`
}

// startTimes are one load's three moments, in ms from navigation start.
type startTimes struct{ paint, hover, live float64 }

// loadInteractive navigates tab (prepared with interactiveScript) to url
// and waits for the three moments; with noLive the page has no separate
// live state and live is the later of paint and hover.
func loadInteractive(b *testing.B, tab context.Context, url string, noLive bool, timeout time.Duration) startTimes {
	b.Helper()
	ctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("navigate %s: %v", url, err)
	}
	want := `(window.__paint && window.__hover && window.__live) ? [window.__paint, window.__hover, window.__live] : false`
	if noLive {
		want = `(window.__paint && window.__hover) ? [window.__paint, window.__hover, Math.max(window.__paint, window.__hover)] : false`
	}
	// A poll fails, rather than waits, while a document goes (a page
	// that asks for itself again): poll again in the next one.
	var v []float64
	var err error
	for {
		v, err = chromedp.Run(ctx, chromedp.Poll[[]float64](want, chromedp.WithPollingInterval(20*time.Millisecond)))
		if err == nil || ctx.Err() != nil || !(strings.Contains(err.Error(), "navigated or closed") || strings.Contains(err.Error(), "Cannot find context")) {
			break
		}
	}
	if err != nil || len(v) != 3 {
		got, _ := chromedp.Run(context.WithoutCancel(tab), chromedp.Evaluate[string](`JSON.stringify([window.__paint, window.__hover, window.__live]) + ' ' + (document.body ? document.body.innerText.slice(0, 300) : '')`))
		b.Fatalf("%s: not painted, hovered and live within %s (%v); [paint, hover, live] and page text: %s", url, timeout, err, got)
	}
	return startTimes{v[0], v[1], v[2]}
}

// inBenchZone puts tab's browser in the time zone SPECDASH_BENCH_ZONE
// (an IANA name; none when unset): a visitor from another zone than the
// server's, whose first visit the server pre-renders in its own zone
// (server/zone.go), then in the browser's once boot.js has asked again.
func inBenchZone(b *testing.B, tab context.Context) {
	b.Helper()
	zone := os.Getenv("SPECDASH_BENCH_ZONE")
	if zone == "" {
		return
	}
	_, err := chromedp.Run(tab, chromedp.Action[cdp.Empty](func(ctx context.Context, t *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
	}))
	if err != nil {
		b.Fatalf("SPECDASH_BENCH_ZONE=%q: %v", zone, err)
	}
}

// startBrowser starts headless Chromium (the e2e flags) on the profile
// directory; stop closes it (the profile stays for the next start).
func startBrowser(b *testing.B, profile string) (tab context.Context, stop func()) {
	b.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(profile)...)
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		b.Fatalf("start chromium: %v", err)
	}
	return ctx, func() { cancel(); cancelAlloc() }
}

// addScript makes every document tab loads run src first.
func addScript(b *testing.B, tab context.Context, src string) {
	b.Helper()
	_, err := chromedp.Run(tab, chromedp.Action[page.AddScriptToEvaluateOnNewDocumentResult](
		func(ctx context.Context, t *chromedp.Target) (page.AddScriptToEvaluateOnNewDocumentResult, error) {
			return cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument,
				page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		}))
	if err != nil {
		b.Fatalf("inject: %v", err)
	}
}

// BenchmarkInteractive: how soon a new visitor can use the page, specdash's
// dashboard side by side with the Prometheus UI's graph page for the
// acceptance rate over the same window of the same Prometheus (6 h, 16
// engines x k = 8, loopback, proxy cache off). Three moments, from
// navigation start to the next animation frame: paint (the first chart
// with numbers on screen), hover (the first chart that answers a mousemove
// with a tooltip: ECharts' for specdash, Rickshaw's hover detail for the
// Prometheus UI), live (specdash: the live dashboard ready, data-state
// ready, its filters and refresh working; the Prometheus UI has no later
// state: the later of paint and hover).
//
// Cold: a fresh Chromium process on a fresh profile for every run (no HTTP
// cache, no code cache, no service worker, nothing compiled in memory).
// Warm: that profile on a second visit: Chromium closed once the cold
// page settled (specdash: live and its service worker active; then 1 s
// for both, for the caches to be written) and started again on it. The
// sites alternate run by run. Metrics (medians of SPECDASH_BENCH_RUNS):
// cold-paint-ms, cold-hover-ms, cold-live-ms and the warm-* ones. Run with
// -benchtime=1x. SPECDASH_BENCH_PROFILE=dir writes a CPU profile of the
// page's main thread (JavaScript and wasm; open it in Chromium's DevTools)
// for every cold specdash load, from navigation to live.
// SPECDASH_BENCH_FLOOR=1 adds the stack's floor to the rotation ("floor":
// bench/cmd/floorapp, go-app + Go's wasm + client_golang's api/v1 + one
// go-echarts option drawn by ECharts, measured by specdash's conditions;
// floor_test.go), =2 also "floor-hello" (the same go-app program with no
// query and no chart: all three moments are its root's ready); specdash's
// figures are then also given against the floor's.
func BenchmarkInteractive(b *testing.B) {
	prom := startPrometheus(b)
	spec := startSpecdash(b, prom.URL, -1, nil)
	type site struct {
		name, url, paint, charts, tooltip, live string
	}
	const rng = "6h"
	sites := []site{
		{"specdash", spec + "/?range=" + rng, specdashPaint, specdashCharts, specdashTooltip, specdashLive},
		{"prometheus", promGraphURL(prom.URL, rng), promDrawn, promCharts, promTooltip, ""},
	}
	if dir := os.Getenv("SPECDASH_BENCH_WEB_B"); dir != "" {
		// A/B: a second server with another build of the front end, in the
		// same rotation (same conditions).
		specB := startSpecdashWeb(b, prom.URL, dir)
		sites = append(sites, site{"specdash-b", specB + "/?range=" + rng, specdashPaint, specdashCharts, specdashTooltip, specdashLive})
	}
	switch v := os.Getenv("SPECDASH_BENCH_FLOOR"); v {
	case "", "0":
	case "1", "2":
		// The stack's floor (floor_test.go), measured by specdash's own
		// conditions: its paint is its ECharts chart (it has no static
		// drawing), its live the root's data-state ready.
		sites = append(sites, site{"floor", startFloor(b, prom.URL, false, acceptanceRateExpr, floorWindow, floorStep) + "/", specdashPaint, specdashCharts, specdashTooltip, specdashLive})
		if v == "2" {
			// No chart to paint or hover: all three moments are the
			// root's ready.
			sites = append(sites, site{"floor-hello", startFloor(b, prom.URL, true, acceptanceRateExpr, floorWindow, floorStep) + "/", specdashLive, specdashCharts, specdashLive, specdashLive})
		}
	default:
		b.Fatalf("SPECDASH_BENCH_FLOOR=%q: want 1 (floor) or 2 (floor and floor-hello)", v)
	}
	if rtt := benchRTT(b); rtt > 0 {
		// The browser's requests cross a network: each waits one round
		// trip before it reaches the site (both sites alike).
		for i := range sites {
			u, err := url.Parse(sites[i].url)
			if err != nil {
				b.Fatal(err)
			}
			base := u.Scheme + "://" + u.Host
			sites[i].url = withRTT(b, base, rtt) + strings.TrimPrefix(sites[i].url, base)
		}
		b.Logf("every request of the browser waits a round trip of %s", rtt)
	}
	type figures struct {
		cold, warm [3][]float64
		steps      []steps
	}
	got := map[string]*figures{}
	for _, s := range sites {
		got[s.name] = &figures{}
	}
	// specdash's and the floor's sites: a separate live state, the steps'
	// marks, and go-app's service worker (app-worker.js) to wait for.
	isSpecdash := func(s site) bool { return s.live != "" }
	add := func(to *[3][]float64, t startTimes) {
		to[0] = append(to[0], t.paint)
		to[1] = append(to[1], t.hover)
		to[2] = append(to[2], t.live)
	}
	for i := range runs(b) {
		for j := range sites {
			s := sites[(i+j)%len(sites)] // alternate which site goes first
			f := got[s.name]
			profile := b.TempDir()
			src := interactiveScript(s.paint, s.charts, s.tooltip, s.live)

			tab, stop := startBrowser(b, profile)
			addScript(b, tab, src)
			inBenchZone(b, tab)
			cpu := os.Getenv("SPECDASH_BENCH_PROFILE")
			if cpu != "" && isSpecdash(s) {
				startCPUProfile(b, tab)
			}
			cold := loadInteractive(b, tab, s.url, !isSpecdash(s), 2*time.Minute)
			if cpu != "" && isSpecdash(s) {
				stopCPUProfile(b, tab, filepath.Join(cpu, fmt.Sprintf("%s-cold-%d.cpuprofile", s.name, i+1)))
			}
			add(&f.cold, cold)
			if isSpecdash(s) {
				st := startSteps(b, tab)
				f.steps = append(f.steps, st)
				b.Logf("run %d %s cold steps (ms): %s", i+1, s.name, st)
			}
			if isSpecdash(s) {
				ctx, cancel := context.WithTimeout(tab, time.Minute)
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => true)`,
					func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) })); err != nil {
					b.Fatalf("service worker not active within a minute: %v", err)
				}
				cancel()
			}
			time.Sleep(time.Second) // caches written (HTTP, code cache, service worker)
			stop()

			tab, stop = startBrowser(b, profile)
			addScript(b, tab, src)
			inBenchZone(b, tab)
			warm := loadInteractive(b, tab, s.url, !isSpecdash(s), 2*time.Minute)
			add(&f.warm, warm)
			if isSpecdash(s) {
				b.Logf("run %d %s warm steps (ms): %s", i+1, s.name, startSteps(b, tab))
			}
			stop()
			b.Logf("run %d %s: cold paint %.0f hover %.0f live %.0f ms; warm paint %.0f hover %.0f live %.0f ms",
				i+1, s.name, cold.paint, cold.hover, cold.live, warm.paint, warm.hover, warm.live)
		}
	}
	for _, s := range sites {
		b.Run(s.name+"/"+rng, func(b *testing.B) {
			f := got[s.name]
			for k, name := range []string{"paint", "hover", "live"} {
				b.ReportMetric(median(f.cold[k]), "cold-"+name+"-ms")
				b.ReportMetric(median(f.warm[k]), "warm-"+name+"-ms")
			}
		})
	}
	for _, s := range sites {
		if !isSpecdash(s) {
			continue
		}
		sp := got[s.name]
		for _, k := range stepNames {
			var xs []float64
			for _, st := range sp.steps {
				xs = append(xs, st[k])
			}
			b.Logf("%s cold, median %s: %.0f ms", s.name, k, median(xs))
		}
		// Against the Prometheus UI, and against the stack's floor when
		// it ran (SPECDASH_BENCH_FLOOR).
		for _, base := range []struct{ name, label string }{{"prometheus", "Prometheus UI"}, {"floor", "floor"}} {
			pp := got[base.name]
			if pp == nil || base.name == s.name {
				continue
			}
			for k, name := range []string{"paint", "hover", "live"} {
				b.Logf("%s %s: cold %.0f / %.0f ms = %.2fx, warm %.0f / %.0f ms = %.2fx (/ %s)", s.name, name,
					median(sp.cold[k]), median(pp.cold[k]), median(sp.cold[k])/median(pp.cold[k]),
					median(sp.warm[k]), median(pp.warm[k]), median(sp.warm[k])/median(pp.warm[k]), base.label)
			}
		}
	}
}

// steps are the moments of specdash's start in one load (ms from navigation
// start; 0 when absent), read by startSteps.
type steps map[string]float64

// stepNames: the wasm's request sent and its last byte (the page's
// resource timing, or the marks boot.js copies from its compile worker's),
// main (the Go program's main started: cmd/specdash/main_wasm.go), and the
// first load's marks (view/load.go, app/dashboard.go); page-end and
// echarts-end: the page's and ECharts' last bytes; wasm:compile and
// wasm:compiled: web/static/boot.js's marks; preview:first-chart: the
// preview's first chart drawn by ECharts (web/static/preview.js).
var stepNames = []string{"page-end", "echarts-end", "wasm-request", "wasm:compile", "wasm-end", "wasm:compiled", "preview:first-chart", "main", "load:start", "load:fetched", "load:computed", "load:end", "load:rendered"}

func (s steps) String() string {
	out := ""
	for _, k := range stepNames {
		out += fmt.Sprintf(" %s %.0f", k, s[k])
	}
	return out
}

// startSteps reads the steps of the page loaded in tab.
func startSteps(b *testing.B, tab context.Context) steps {
	b.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[map[string]float64](`(() => {
		const o = {};
		const nav = performance.getEntriesByType('navigation')[0];
		if (nav) o['page-end'] = nav.responseEnd;
		for (const e of performance.getEntriesByType('resource')) {
			if (e.name.endsWith('/echarts.min.js') && !o['echarts-end']) o['echarts-end'] = e.responseEnd;
			if (e.name.endsWith('/app.wasm') && !o['wasm-request']) { o['wasm-request'] = e.requestStart || e.startTime; o['wasm-end'] = e.responseEnd; }
		}
		for (const e of performance.getEntriesByType('mark')) {
			const k = e.name.replace(/^specdash:/, '');
			if (!(k in o)) o[k] = e.startTime;
		}
		return o;
	})()`))
	if err != nil {
		b.Fatalf("read the page's timings: %v", err)
	}
	return v
}

// startCPUProfile starts sampling the tab's main thread every 200 µs.
func startCPUProfile(b *testing.B, tab context.Context) {
	b.Helper()
	_, err := chromedp.Run(tab, chromedp.Action[cdp.Empty](func(ctx context.Context, t *chromedp.Target) (cdp.Empty, error) {
		if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
			return cdp.Empty{}, err
		}
		if _, err := cdp.Call(ctx, t, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return cdp.Empty{}, err
		}
		return cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
	}))
	if err != nil {
		b.Fatalf("start the CPU profile: %v", err)
	}
}

// stopCPUProfile stops the tab's CPU profile and writes it to path.
func stopCPUProfile(b *testing.B, tab context.Context, path string) {
	b.Helper()
	res, err := chromedp.Run(tab, chromedp.Action[profiler.StopResult](func(ctx context.Context, t *chromedp.Target) (profiler.StopResult, error) {
		return cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
	}))
	if err != nil {
		b.Fatalf("stop the CPU profile: %v", err)
	}
	data, err := json.Marshal(res.Profile)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		b.Fatalf("write %s: %v", path, err)
	}
	b.Logf("CPU profile: %s", path)
}

// benchRTT is SPECDASH_BENCH_RTT (a Go duration; none when unset): the
// round trip BenchmarkInteractive adds to every request of the browser.
func benchRTT(b *testing.B) time.Duration {
	v := os.Getenv("SPECDASH_BENCH_RTT")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		b.Fatalf("SPECDASH_BENCH_RTT=%q: want a duration such as 50ms", v)
	}
	return d
}

// withRTT serves, on another loopback port, a reverse proxy to base that
// holds every request for rtt before passing it on (and streams answers as
// they come: the page's head arrives before its body), and returns its URL.
func withRTT(b *testing.B, base string, rtt time.Duration) string {
	b.Helper()
	target, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	return serveLoopback(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(rtt):
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	}))
}
