//go:build !js

package bench

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus"

	"specdash/internal/browsertest"
	"specdash/metricsclient"
	"specdash/server"
)

// scaleSizes are the fleet sizes of BenchmarkScale (SPECDASH_BENCH_SCALE,
// comma-separated engine counts; default 16,256,1024,4096).
func scaleSizes(b *testing.B) []int {
	s := os.Getenv("SPECDASH_BENCH_SCALE")
	if s == "" {
		s = "16,256,1024,4096"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n%scaleEnginesPerInstance != 0 && n > scaleEnginesPerInstance {
			b.Fatalf("SPECDASH_BENCH_SCALE=%q: want comma-separated engine counts (multiples of %d above %d)", s, scaleEnginesPerInstance, scaleEnginesPerInstance)
		}
		out = append(out, n)
	}
	return out
}

// scaleWindows are the windows of BenchmarkScale
// (SPECDASH_BENCH_SCALE_WINDOWS, comma-separated 6h / 7d style durations;
// default 6h,7d).
func scaleWindows(b *testing.B) []time.Duration {
	s := os.Getenv("SPECDASH_BENCH_SCALE_WINDOWS")
	if s == "" {
		s = "6h,7d"
	}
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		var d time.Duration
		var err error
		if days, ok := strings.CutSuffix(f, "d"); ok {
			var n int
			n, err = strconv.Atoi(days)
			d = time.Duration(n) * 24 * time.Hour
		} else {
			d, err = time.ParseDuration(f)
		}
		if err != nil || d < time.Hour {
			b.Fatalf("SPECDASH_BENCH_SCALE_WINDOWS=%q: want windows such as 6h or 7d", s)
		}
		out = append(out, d)
	}
	return out
}

// scaleExpr is the Prometheus UI's expression for a data set: the
// acceptance rate over increases of 4 scrapes (1m at 15 s, as
// acceptanceRateExpr).
func scaleExpr(scrape time.Duration) string {
	if scrape == caseScrape {
		return acceptanceRateExpr
	}
	return strings.ReplaceAll(acceptanceRateExpr, "[1m]", "["+strconv.Itoa(int((4*scrape).Minutes()))+"m]")
}

// scaleWatchScript records, checked once per animation frame from the
// start of the document (not on every DOM change: a large page changes
// often), window.__done: performance.now() of the first frame after cond
// holds, window.__state: state's value then, and window.__paint: the
// first frame after specdashPaint held (a chart with numbers on screen:
// the pre-render's static drawing or ECharts'; 0 when none came before
// cond).
func scaleWatchScript(cond, state string) string {
	return `(() => {
	window.__done = 0; window.__state = ''; window.__paint = 0;
	let seen = false, painted = false;
	const loop = () => {
		if (!painted) {
			try { painted = ` + specdashPaint + `; } catch (e) {}
			if (painted) requestAnimationFrame(() => { window.__paint = performance.now(); });
		}
		let ok = false;
		try { ok = ` + cond + `; } catch (e) {}
		if (ok) {
			seen = true;
			try { window.__state = String(` + state + `); } catch (e) {}
			requestAnimationFrame(() => { window.__done = performance.now(); });
			return;
		}
		requestAnimationFrame(loop);
	};
	requestAnimationFrame(loop);
})();`
}

const (
	// The live dashboard is ready (data-state ready) or has given up
	// (error).
	scaleSpecdashDone  = `(() => { const d = document.querySelector('body > [data-dashboard]'); return !!d && (d.dataset.state === 'ready' || d.dataset.state === 'error'); })()`
	scaleSpecdashState = `(() => { const d = document.querySelector('body > [data-dashboard]'); const m = d.querySelector('[data-error]'); return d.dataset.state + (m ? ': ' + m.textContent.slice(0, 600) : ''); })()`
)

// scaleLoadJS reads, after the page is done, the bytes of the requests
// whose URL holds the path fragment and, for specdash, the parts of its
// first load from the page's marks (model.Compute's trace, view/load.go,
// app/dashboard.go): query = wall time with a matching request in flight
// between specdash:load:start and :end; decode = the rest of
// start..fetched and computed..end; compute = the rest of
// fetched..computed (model.Compute also queries there: the irregular
// engines' reads); render = end..rendered.
const scaleLoadJS = `((frag) => {
	const mark = (n) => { const e = performance.getEntriesByName('specdash:load:' + n, 'mark'); return e.length ? e[0].startTime : NaN; };
	const start = mark('start'), fetched = mark('fetched'), computed = mark('computed'), end = mark('end'), rendered = mark('rendered');
	const rs = performance.getEntriesByType('resource').filter(e => e.name.includes(frag));
	let transfer = 0, encoded = 0, decoded = 0;
	for (const e of rs) { transfer += e.transferSize; encoded += e.encodedBodySize; decoded += e.decodedBodySize; }
	const iv = rs.map(e => [e.startTime, e.responseEnd]);
	// Wall time within [a, b] with a request in flight.
	const inflight = (a, b) => {
		const cl = iv.map(([s, f]) => [Math.max(s, a), Math.min(f, b)]).filter(([s, f]) => f > s).sort((x, y) => x[0] - y[0]);
		let t = 0, cur = null;
		for (const [s, f] of cl) {
			if (cur && s <= cur[1]) { cur[1] = Math.max(cur[1], f); continue; }
			if (cur) t += cur[1] - cur[0];
			cur = [s, f];
		}
		if (cur) t += cur[1] - cur[0];
		return t;
	};
	const query = inflight(start, end);
	const nav = performance.getEntriesByType('navigation')[0];
	const ok = !isNaN(start + fetched + computed + end + rendered);
	return {Requests: rs.length, Transfer: transfer, Encoded: encoded, Decoded: decoded, Doc: nav ? nav.transferSize : 0,
		HasMarks: ok, Query: ok ? query : 0,
		Decode: ok ? (fetched - start - inflight(start, fetched)) + (end - computed - inflight(computed, end)) : 0,
		Compute: ok ? computed - fetched - inflight(fetched, computed) : 0, Render: ok ? rendered - end : 0};
})`

type scaleLoad struct {
	Done, Paint, Requests           float64
	Transfer, Encoded, Decoded, Doc float64
	HasMarks                        bool
	Query, Decode, Compute, Render  float64
	State                           string
}

// coldLoad starts a fresh Chromium process on a fresh profile (nothing
// cached, nothing compiled), loads url, waits up to timeout for cond and
// returns the time to it and the bytes of the requests matching frag;
// with profile set, it writes a CPU profile of the page's main thread
// (navigation to cond) there.
func coldLoad(b *testing.B, url, cond, state, frag string, timeout time.Duration, profile string) scaleLoad {
	b.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(b.TempDir())...)
	defer cancelAlloc()
	tab, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(tab); err != nil {
		b.Fatalf("start chromium: %v", err)
	}
	scaleAddScript(b, tab, scaleWatchScript(cond, state))
	if profile != "" {
		startCPUProfile(b, tab)
	}
	ctx, cancelT := context.WithTimeout(tab, timeout)
	defer cancelT()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("navigate %s: %v", url, err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.__done || false`, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil {
		text, _ := chromedp.Run(context.WithoutCancel(tab), chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ''`))
		b.Fatalf("%s: not done within %s: %v; page text: %q", url, timeout, err, text)
	}
	l, err := chromedp.Run(tab, chromedp.Evaluate[scaleLoad](scaleLoadJS+`(`+strconv.Quote(frag)+`)`, chromedp.EvalAsValue))
	if err != nil {
		b.Fatalf("read the page's timings: %v", err)
	}
	if profile != "" {
		stopCPUProfile(b, tab, profile)
	}
	l.Done = ms
	l.State, _ = chromedp.Run(tab, chromedp.Evaluate[string](`window.__state`))
	l.Paint, _ = chromedp.Run(tab, chromedp.Evaluate[float64](`window.__paint`))
	return l
}

// scaleAddScript makes every document tab loads run src first.
func scaleAddScript(b *testing.B, tab context.Context, src string) {
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

// wireCount counts the bytes the server writes in answer to the browser's
// /prom requests (bodies as sent: gzipped when the browser accepts it). The
// page's resource timings cannot give them: once go-app's service worker
// controls the page (it claims it during the first visit), its fetches
// report transferSize 0 and the decoded size as the encoded one.
type wireCount struct {
	bytes, requests atomic.Int64
	reg             *prometheus.Registry
}

// proxyResults are the proxy's requests so far by cache result ("miss":
// went upstream, "coalesced": joined an identical one in flight, "hit"),
// from specdash_proxy_cache_requests_total in reg, and the range cache's
// ("range cached": every point kept, "range extended": kept points and an
// upstream request for the others, "range whole").
func proxyResults(b *testing.B, reg *prometheus.Registry) map[string]float64 {
	b.Helper()
	out := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, mf := range mfs {
		prefix := ""
		switch mf.GetName() {
		case "specdash_proxy_cache_requests_total":
		case "specdash_proxy_range_cache_requests_total":
			prefix = "range "
		default:
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "result" {
					out[prefix+lp.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}

func (w countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (c *wireCount) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/prom/") {
			c.requests.Add(1)
			w = countingWriter{w, &c.bytes}
		}
		h.ServeHTTP(w, r)
	})
}

// startScaleSpecdash serves specdash in process in front of promURL with
// the data set's scrape interval and the proxy cache off (benchCacheTTL); wc counts the
// /prom answers' bytes and keeps the server's registry (proxyResults).
func startScaleSpecdash(b *testing.B, promURL string, scrape time.Duration, wc *wireCount) string {
	b.Helper()
	wc.reg = prometheus.NewRegistry()
	cfg := server.Config{PrometheusURL: promURL, ScrapeInterval: scrape, CacheTTL: benchCacheTTL(), Registry: wc.reg, Version: "bench"}
	if d, ok := benchPreRender(); ok {
		cfg.PreRenderTimeout = d // the pre-render's budget (server.DefaultPreRenderTimeout)
	}
	if dir := os.Getenv("SPECDASH_BENCH_WEB"); dir != "" {
		cfg.Assets = os.DirFS(dir)
	}
	h, err := server.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return serveLoopback(b, wc.wrap(h))
}

// countingConn counts the bytes read from a connection (the answers as
// sent, gzipped when negotiated, headers included).
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// hostReads reads the dashboard's window (its grid: metricsclient.ChooseStep)
// from Prometheus directly in Go, with gzip as browsers negotiate, both
// ways: the raw path (Client.Fetch with labels, what the dashboard of
// this commit may do) and the shaped read (Client.FetchShapedAuto, one
// group, with labels). It returns the bytes read and the wall time of
// each: what the page would read through /prom either way, without the
// proxy's size limit.
func hostReads(b *testing.B, promURL string, s scaleSet) (rawBytes, rawMs, shapedBytes, shapedMs float64) {
	b.Helper()
	var n atomic.Int64
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &n}, nil
	}}
	defer tr.CloseIdleConnections()
	c, err := metricsclient.New(metricsclient.Config{Address: promURL, RoundTripper: tr, ScrapeInterval: s.scrape})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	g := metricsclient.AlignGrid(time.Now(), s.window, metricsclient.ChooseStep(s.window, s.scrape))
	t0 := time.Now()
	if _, _, err := c.Fetch(ctx, metricsclient.FetchRequest{Grid: g, Labels: true}); err != nil {
		b.Fatalf("raw read: %v", err)
	}
	rawMs, rawBytes = float64(time.Since(t0).Microseconds())/1000, float64(n.Swap(0))
	t0 = time.Now()
	_, sh, err := c.FetchShapedAuto(ctx, metricsclient.FetchRequest{Grid: g, Labels: true}, nil)
	if err != nil {
		b.Fatalf("shaped read: %v", err)
	}
	if sh == nil || sh.Raw {
		// Not a failure of the benchmark: its figure is then the raw
		// path's, and the log says why.
		b.Logf("shaped read fell back to the raw path: %+v", sh)
		b.ReportMetric(1, "host-shaped-fallback")
	}
	shapedMs, shapedBytes = float64(time.Since(t0).Microseconds())/1000, float64(n.Swap(0))
	return
}

// reportRun runs the built `specdash report` over the window (JSON) and
// returns its wall time in ms and its output's size.
func reportRun(b *testing.B, bin, promURL string, window, scrape time.Duration) (float64, int) {
	b.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, "report", "--prometheus.url="+promURL, "--range="+fmtWindow(window),
		"--scrape-interval="+scrape.String(), "--format=json", "--timeout=10m")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errOut.String())
	}
	return float64(time.Since(t0).Microseconds()) / 1000, out.Len()
}

// BenchmarkScale: the dashboard over fleets of 16 to 4,096 engines (8 per
// instance, k = 8; SPECDASH_BENCH_SCALE), over 6 h and 7 d windows
// (SPECDASH_BENCH_SCALE_WINDOWS; 15 s scrape up to a day, 5 min beyond:
// scrapeFor), side by side with the Prometheus UI's graph page for the
// acceptance rate over the same window of the same Prometheus, and
// `specdash report` over that window. Every page load is cold: a fresh
// Chromium process on a fresh profile; the sites alternate. The data
// sets are written once and cached across runs (scaleData).
//
// Metrics, medians over SPECDASH_BENCH_RUNS: live-ms (navigation start to
// the first frame with the live dashboard ready, data-state ready),
// prom-bytes and prom-requests (the bytes the server sent in answer to
// the page's /prom requests, as sent: gzipped; wireCount),
// prom-decoded-bytes (their bodies decoded, resource timing), doc-bytes (the page itself, pre-rendered), query-ms,
// decode-ms, compute-ms, render-ms (the first load's parts, as
// BenchmarkRefresh splits a refresh), promui-ms (navigation start to the
// Prometheus UI's drawn graph), promui-bytes (its /api/v1 requests'
// transferSize),
// ratio (live-ms / promui-ms), report-ms (wall time of `specdash report
// --format=json`, process start included; needs the built ./specdash),
// samples (in the window), host-raw-bytes / host-raw-ms and
// host-shaped-bytes / host-shaped-ms (hostReads: the window read in Go
// straight from Prometheus, raw and shaped). A dashboard that ends in its error state
// reports live-error 1 and logs the page's message.
// SPECDASH_BENCH_PROFILE=dir writes a CPU profile of every specdash load
// (navigation to live). Run with -benchtime=1x.
func BenchmarkScale(b *testing.B) {
	bin, err := filepath.Abs("../specdash")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		b.Fatalf("%s not built: run `make build` first", bin)
	}
	for _, window := range scaleWindows(b) {
		for _, engines := range scaleSizes(b) {
			s := scaleSet{engines: engines, window: window, scrape: scrapeFor(window), latency: caseLatency()}
			b.Run(fmt.Sprintf("%s/%d", fmtWindow(window), engines), func(b *testing.B) {
				benchScale(b, s, bin)
			})
		}
	}
}

func benchScale(b *testing.B, s scaleSet, bin string) {
	prom := startScalePrometheus(b, s)
	var wc wireCount
	spec := startScaleSpecdash(b, prom.URL, s.scrape, &wc)
	rng := fmtWindow(s.window)
	specURL := spec + "/?range=" + rng
	v := url.Values{}
	v.Set("g0.expr", scaleExpr(s.scrape))
	v.Set("g0.tab", "0")
	v.Set("g0.range_input", rng)
	promURL := prom.URL + "/graph?" + v.Encode()
	// Warm Prometheus' page cache for the data set (both sites read it
	// alike afterwards): one report run, not measured.
	reportRun(b, bin, prom.URL, s.window, s.scrape)

	rb, rms, sb, sms := hostReads(b, prom.URL, s)
	b.Logf("host reads: raw %.0f bytes in %.0f ms, shaped %.0f bytes in %.0f ms", rb, rms, sb, sms)
	b.ReportMetric(rb, "host-raw-bytes")
	b.ReportMetric(rms, "host-raw-ms")
	b.ReportMetric(sb, "host-shaped-bytes")
	b.ReportMetric(sms, "host-shaped-ms")

	// The stack's floor (SPECDASH_BENCH_FLOOR=1, floor_test.go) on the
	// same data: the Prometheus UI's expression over the window, at the
	// step of a 360-point graph.
	sites := 2
	var floorURL string
	var floorLive []float64
	if os.Getenv("SPECDASH_BENCH_FLOOR") == "1" {
		step := (s.window / 360).Round(time.Second)
		floorURL = startFloor(b, prom.URL, false, scaleExpr(s.scrape), s.window.String(), step.String()) + "/"
		sites = 3
	}
	var live, query, decode, compute, render, pb, pd, preq, doc, pui, puib, rep []float64
	failed := false
	for i := range runs(b) {
		for j := range sites {
			if (i+j)%sites == 2 {
				l := coldLoad(b, floorURL, scaleSpecdashDone, scaleSpecdashState, "/api/v1/", 10*time.Minute, "")
				b.Logf("run %d floor: %.0f ms, state %q", i+1, l.Done, l.State)
				if l.State != "ready" {
					failed = true
				}
				floorLive = append(floorLive, l.Done)
			} else if (i+j)%sites == 0 {
				wc.bytes.Store(0)
				wc.requests.Store(0)
				before := proxyResults(b, wc.reg)
				profile := ""
				if dir := os.Getenv("SPECDASH_BENCH_PROFILE"); dir != "" {
					profile = filepath.Join(dir, fmt.Sprintf("specdash-%s-%d-%d.cpuprofile", fmtWindow(s.window), s.engines, i+1))
				}
				l := coldLoad(b, specURL, scaleSpecdashDone, scaleSpecdashState, "/prom/", 10*time.Minute, profile)
				// Counted from navigation to the page's done state.
				l.Transfer, l.Requests = float64(wc.bytes.Load()), float64(wc.requests.Load())
				after := proxyResults(b, wc.reg)
				b.Logf("run %d specdash: %.0f ms, first chart with numbers %.0f ms, state %q, /prom %d requests, %.0f bytes sent (%.0f decoded), page %.0f bytes; query %.0f decode %.0f compute %.0f render %.0f ms; proxy (the pre-render's requests too): %.0f upstream, %.0f joined one in flight, %.0f cached; range cache: %.0f whole, %.0f extended, %.0f cached",
					i+1, l.Done, l.Paint, l.State, int(l.Requests), l.Transfer, l.Decoded, l.Doc, l.Query, l.Decode, l.Compute, l.Render,
					after["miss"]-before["miss"], after["coalesced"]-before["coalesced"], after["hit"]-before["hit"],
					after["range whole"]-before["range whole"], after["range extended"]-before["range extended"], after["range cached"]-before["range cached"])
				if l.State != "ready" {
					failed = true
				}
				live = append(live, l.Done)
				pb, pd, preq, doc = append(pb, l.Transfer), append(pd, l.Decoded), append(preq, l.Requests), append(doc, l.Doc)
				if l.HasMarks {
					query, decode, compute, render = append(query, l.Query), append(decode, l.Decode), append(compute, l.Compute), append(render, l.Render)
				}
			} else {
				l := coldLoad(b, promURL, promDrawn, "'drawn'", "/api/v1/", 10*time.Minute, "")
				b.Logf("run %d Prometheus UI: %.0f ms, /api/v1 %d requests, %.0f bytes transferred", i+1, l.Done, int(l.Requests), l.Transfer)
				pui, puib = append(pui, l.Done), append(puib, l.Transfer)
			}
		}
		ms, n := reportRun(b, bin, prom.URL, s.window, s.scrape)
		b.Logf("run %d specdash report: %.0f ms, %d bytes of JSON", i+1, ms, n)
		rep = append(rep, ms)
	}
	now := time.Now()
	b.ReportMetric(float64(s.samples(now.Add(-s.window), now)), "samples")
	b.ReportMetric(s.scrape.Seconds(), "scrape-s")
	if failed {
		b.ReportMetric(1, "live-error")
	}
	ml, mp := median(live), median(pui)
	b.ReportMetric(ml, "live-ms")
	b.ReportMetric(mp, "promui-ms")
	b.ReportMetric(ml/mp, "ratio")
	if len(floorLive) > 0 {
		mf := median(floorLive)
		b.ReportMetric(mf, "floor-ms")
		b.Logf("live %.0f ms, Prometheus UI %.0f ms (%.2fx), floor %.0f ms (%.2fx the Prometheus UI; specdash %.2fx the floor)", ml, mp, ml/mp, mf, mf/mp, ml/mf)
	}
	b.ReportMetric(median(pb), "prom-bytes")
	b.ReportMetric(median(pd), "prom-decoded-bytes")
	b.ReportMetric(median(preq), "prom-requests")
	b.ReportMetric(median(doc), "doc-bytes")
	b.ReportMetric(median(puib), "promui-bytes")
	if len(query) > 0 {
		b.ReportMetric(median(query), "query-ms")
		b.ReportMetric(median(decode), "decode-ms")
		b.ReportMetric(median(compute), "compute-ms")
		b.ReportMetric(median(render), "render-ms")
	}
	b.ReportMetric(median(rep), "report-ms")
}

// benchCacheTTL is the proxy's cache TTL of the scale benchmark: off
// (every load queries the source) unless SPECDASH_BENCH_CACHE_TTL sets
// one (the server's default, 5 s, is how users run it).
func benchCacheTTL() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SPECDASH_BENCH_CACHE_TTL")); err == nil {
		return d
	}
	return -1
}
