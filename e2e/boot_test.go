//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"specdash/internal/fixtures"
	"specdash/server"
	"specdash/web"
)

// bootJS reads how the page's wasm was compiled: the root's state and
// error, the marks boot.js leaves (specdash:wasm-request and
// specdash:wasm-end come from the compile worker's fetch) and whether the
// page itself fetched app.wasm (a worker's requests are not in the page's
// resource timings).
const bootJS = `(() => {
	const root = document.querySelector('body > [data-dashboard]');
	const mark = n => { const e = performance.getEntriesByName(n, 'mark')[0]; return e ? e.startTime : -1; };
	return {
		state: root ? root.dataset.state : '',
		error: (document.querySelector('[data-error]') || {}).textContent || '',
		compile: mark('specdash:wasm:compile'),
		compiled: mark('specdash:wasm:compiled'),
		request: mark('specdash:wasm-request'),
		end: mark('specdash:wasm-end'),
		pageFetched: performance.getEntriesByType('resource').some(e => /\/app\.wasm$/.test(e.name)),
	};
})()`

type bootState struct {
	State, Error                    string
	Compile, Compiled, Request, End float64
	PageFetched                     bool
}

// TestWasmCompiledOffMainThread: boot.js compiles the wasm in its worker
// (web/static/compile.js), off the page's main thread, and the Go program
// runs from that module; where the page has no Worker, cannot start one, or
// the worker fails (its script missing) or never answers, it compiles on the
// main thread and the Go program runs all the same. The source is unreachable: the dashboard's
// own error says the Go program ran.
func TestWasmCompiledOffMainThread(t *testing.T) {
	h, err := server.New(server.Config{PrometheusURL: "http://127.0.0.1:1", ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	cases := []struct {
		name, before string
		worker       bool
	}{
		{"worker", "", true},
		{"no worker", `window.Worker = undefined;`, false},
		{"worker refused", `window.Worker = function () { throw new Error('refused'); };`, false},
		{"worker script missing", `(() => { const W = window.Worker; window.Worker = function (u) { return new W(u + '.missing'); }; })();`, false},
		// A worker that starts but never answers: given up after boot.js's
		// STALL_MS (15 s).
		{"worker silent", `window.Worker = function () { return { postMessage() {}, terminate() {} }; };`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := newTab(t)
			if c.before != "" {
				addScript(t, tab, c.before)
			}
			step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m&refresh=off"))
			waitJS(t, tab, 90*time.Second, `(() => { const r = document.querySelector('body > [data-dashboard]'); return !!r && (r.dataset.state === 'ready' || r.dataset.state === 'error'); })()`)
			got := run(t, tab, 10*time.Second, chromedp.Evaluate[bootState](bootJS))
			if got.State != "error" || !strings.Contains(got.Error, "Prometheus is unreachable") {
				t.Errorf("state %q, error %q: want the Go program's error: Prometheus is unreachable", got.State, got.Error)
			}
			if got.Compile <= 0 || got.Compiled < got.Compile {
				t.Errorf("marks wasm:compile %.0f, wasm:compiled %.0f: want boot.js's compile, then its module", got.Compile, got.Compiled)
			}
			if c.worker {
				if got.PageFetched || got.Request < got.Compile || got.End < got.Request || got.Compiled < got.End {
					t.Errorf("page fetched app.wasm %v, worker's request %.0f and end %.0f (compile %.0f, compiled %.0f): want the worker's fetch only, in that order",
						got.PageFetched, got.Request, got.End, got.Compile, got.Compiled)
				}
			} else if !got.PageFetched || got.Request != -1 {
				t.Errorf("page fetched app.wasm %v, worker's request mark %.0f: want the page's own fetch, no worker's", got.PageFetched, got.Request)
			}
		})
	}
}

// TestWasmCodeCached: a returning visitor's page takes the wasm's compiled
// code from the browser's code cache (V8's wasm.Deserialize in a trace of
// the visit) instead of compiling every function it calls again: boot.js
// keeps its compile worker, through which V8 writes that cache, after the
// worker posted the module. Each visit is a new tab (a new renderer
// process: a reload in the same one finds the module in V8's memory
// instead) that stays until the dashboard is live; the first visit caches
// the wasm's bytes, a later one its code. At most maxVisits visits.
func TestWasmCodeCached(t *testing.T) {
	const maxVisits = 8
	fx := fixtures.KnownAnswer()
	base, _ := previewSite(t, fx.OpenMetrics)
	w := fx.Whole
	u := base + "/?" + url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode()
	// visit loads u in a new tab, traced, and returns the trace's counts of
	// modules taken from the code cache and of functions compiled on their
	// first call.
	visit := func() (deserialized, lazy int) {
		tab, cancel := chromedp.NewContext(browserCtx)
		defer cancel()
		var mu sync.Mutex
		done := make(chan struct{})
		_ = chromedp.Listen(tab, func(ev any) {
			switch e := ev.(type) {
			case *tracing.EventDataCollected:
				mu.Lock()
				defer mu.Unlock()
				for _, v := range e.Value {
					var te struct {
						Name string `json:"name"`
					}
					if json.Unmarshal(v, &te) == nil {
						switch te.Name {
						case "wasm.Deserialize":
							deserialized++
						case "wasm.CompileLazy":
							lazy++
						}
					}
				}
			case *tracing.EventTracingComplete:
				close(done)
			}
		})
		run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
			return cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{
				IncludedCategories: []string{"v8.wasm", "disabled-by-default-v8.wasm.detailed"}}})
		}))
		step(t, tab, 30*time.Second, chromedp.Navigate(u))
		waitReady(t, tab, 60*time.Second)
		run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
			return cdp.Call(ctx, tg, tracing.End, cdp.Empty{})
		}))
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("the trace did not end")
		}
		mu.Lock()
		defer mu.Unlock()
		return deserialized, lazy
	}
	first := 0 // functions the first visit compiled on their first call
	for v := 1; v <= maxVisits; v++ {
		d, l := visit()
		t.Logf("visit %d: %d module taken from the code cache, %d functions compiled on their first call", v, d, l)
		if v == 1 {
			first = l
		}
		if d > 0 {
			if v < 3 {
				t.Errorf("visit %d took the module from the code cache: want the first two to compile it", v)
			}
			// The cache holds what had been compiled when V8 wrote it:
			// the functions first called later are compiled as before.
			if l > first/4 {
				t.Errorf("visit %d compiled %d functions on their first call with the module from the code cache, the first visit %d: want far fewer", v, l, first)
			}
			return
		}
		if l < 1000 {
			t.Fatalf("visit %d: %d functions compiled on their first call, no module from the code cache: is the trace complete?", v, l)
		}
	}
	t.Fatalf("no visit of %d took the wasm's compiled code from the code cache", maxVisits)
}

// faultyWasm serves h with a fault in app.wasm's answers, which no real
// server part produces on demand: with status set, every app.wasm request
// is answered with that status; otherwise the first answer stops after its
// first limit bytes (raw: the request's Accept-Encoding dropped) until
// release is closed, a download that stalls.
type faultyWasm struct {
	h       http.Handler
	limit   int64
	release chan struct{}
	status  int
	mu      sync.Mutex
	asked   int      // app.wasm requests
	callers []string // who asked, from each request's headers
}

func (s *faultyWasm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/app.wasm") {
		s.h.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.asked++
	first := s.asked == 1
	s.callers = append(s.callers, fmt.Sprintf("Sec-Fetch-Dest %q, Sec-Fetch-Mode %q, Service-Worker %q, Referer %q",
		r.Header.Get("Sec-Fetch-Dest"), r.Header.Get("Sec-Fetch-Mode"), r.Header.Get("Service-Worker"), r.Header.Get("Referer")))
	s.mu.Unlock()
	if s.status != 0 {
		http.Error(w, "a broken deployment", s.status)
		return
	}
	if !first {
		s.h.ServeHTTP(w, r)
		return
	}
	r.Header.Del("Accept-Encoding")
	s.h.ServeHTTP(&stallWriter{ResponseWriter: w, left: s.limit, release: s.release, done: r.Context().Done()}, r)
}

// from says who asked for app.wasm, a line per request.
func (s *faultyWasm) from() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.callers...)
}

func (s *faultyWasm) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

type stallWriter struct {
	http.ResponseWriter
	left          int64
	release, done <-chan struct{}
}

func (w *stallWriter) Write(p []byte) (int, error) {
	if w.left < 0 || int64(len(p)) < w.left {
		if w.left >= 0 {
			w.left -= int64(len(p))
		}
		return w.ResponseWriter.Write(p)
	}
	n, err := w.ResponseWriter.Write(p[:w.left])
	if err != nil {
		return n, err
	}
	w.left = -1
	http.NewResponseController(w.ResponseWriter).Flush()
	select {
	case <-w.release:
	case <-w.done:
		return n, io.ErrClosedPipe
	}
	m, err := w.ResponseWriter.Write(p[n:])
	return n + m, err
}

// TestWasmLoaderProgress: go-app's loader badge says how much of the wasm
// has come (boot.js, from its compile worker's counts; go-app's own count
// said 100 % at once), says for how long nothing came when the download
// stalls, and the page goes live once the rest comes, from the same
// request (no second download).
func TestWasmLoaderProgress(t *testing.T) {
	raw, err := fs.ReadFile(web.FS, "dist/app.wasm")
	if err != nil {
		t.Fatal(err)
	}
	fx := fixtures.KnownAnswer()
	h := fixtureHandler(t, fx.OpenMetrics, 0)
	stall := &faultyWasm{h: h, limit: int64(len(raw))*2/5 + 1, release: make(chan struct{})}
	base := serve(t, stall)
	tab := newTab(t)
	w := fx.Whole
	navigateNoWait(t, tab, base+"/?"+url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode())
	label := `((document.getElementById('app-wasm-loader-label') || {}).textContent || '')`
	// 40 % of the raw wasm came: the label says so, then, 15 s without a
	// byte, for how long nothing came.
	waitJS(t, tab, 60*time.Second, label+` === 'Loading specdash… 40 %'`)
	waitJS(t, tab, 90*time.Second, label+`.startsWith('Loading specdash… 40 %: nothing received for ')`)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](label))
	secs, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, "Loading specdash… 40 %: nothing received for "), " s"))
	if err != nil || secs < 15 {
		t.Errorf("stalled label %q: want the seconds since the last byte, at least 15", got)
	}
	if st := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(document.querySelector('body [data-dashboard]') || {dataset: {}}).dataset.state || ''`)); st == "ready" {
		t.Fatalf("dashboard %q with 40 %% of its wasm", st)
	}
	// Past boot.js's 20 s hold of go-app's service worker, counted from the
	// page's start it let the worker's install ask for app.wasm again while
	// the first answer still came: the hold counts from the wasm's end.
	waitJS(t, tab, 60*time.Second, `performance.now() > 22000`)
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`navigator.serviceWorker.getRegistrations().then(r => r.length)`, chromedp.EvalAwaitPromise)); n != 0 {
		t.Errorf("%d service worker registrations while the wasm still comes: want none", n)
	}
	close(stall.release)
	waitReady(t, tab, 90*time.Second)
	if got := run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`!!document.getElementById('app-wasm-loader')`)); got {
		t.Errorf("go-app's loader still there on the live dashboard")
	}
	if n := stall.requests(); n != 1 {
		t.Errorf("%d app.wasm requests (%s): want the stalled one only, resumed", n, strings.Join(stall.from(), "; "))
	}
}

// TestWasmHTTPError: when the server answers the wasm's request with an
// error status, the page asks once (before: the worker, the main thread
// and go-app's fallback each asked again), and both go-app's loader and the
// preview's hint say what failed while the pre-rendered numbers stay.
func TestWasmHTTPError(t *testing.T) {
	fx := fixtures.KnownAnswer()
	// A generous pre-render budget: the test needs the preview's numbers,
	// and a busy machine ran past the default second (a page without
	// numbers has no preview hint to say the failure).
	h := fixtureHandler(t, fx.OpenMetrics, 20*time.Second)
	broken := &faultyWasm{h: h, status: http.StatusInternalServerError}
	base := serve(t, broken)
	tab := newTab(t)
	w := fx.Whole
	navigateNoWait(t, tab, base+"/?"+url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode())
	const want = "specdash could not load its app: app.wasm answered HTTP 500; reload the page to try again"
	waitJS(t, tab, 60*time.Second, `((document.getElementById('app-wasm-loader-label') || {}).textContent || '').includes(`+strconv.Quote(want)+`)`)
	hint := `(document.querySelector('[data-preview-hint]') || {}).textContent || ''`
	waitJS(t, tab, 30*time.Second, `(`+hint+`).startsWith('The live dashboard did not start: ')`)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]string](`({
	  hint: `+hint+`,
	  role: (document.querySelector('[data-preview-hint]') || {getAttribute: () => ''}).getAttribute('role') || '',
	  state: (document.querySelector('[data-dashboard][data-state]') || {dataset: {}}).dataset.state || '',
	  rate: (document.querySelector('[data-metric="acceptance-rate"]') || {}).textContent || '',
	})`))
	if !strings.Contains(got["hint"], want) || !strings.Contains(got["hint"], "The page shows the numbers as of ") || got["role"] != "alert" {
		t.Errorf("preview hint %q (role %q): want the failure, as an alert, and the numbers' time", got["hint"], got["role"])
	}
	if got["state"] != "preview" || !strings.Contains(got["rate"], "%") {
		t.Errorf("page state %q, acceptance rate %q: want the pre-rendered numbers kept", got["state"], got["rate"])
	}
	// The badge would say the same over the hint: hidden.
	if d := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`getComputedStyle(document.getElementById('app-wasm-loader')).display`)); d != "none" {
		t.Errorf("loader badge display %q beside the hint's alert: want none", d)
	}
	// Past boot.js's 20 s hold of go-app's service worker, which would
	// cache app.wasm: not registered, nothing asked again.
	waitJS(t, tab, 60*time.Second, `performance.now() > 22000`)
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`navigator.serviceWorker.getRegistrations().then(r => r.length)`, chromedp.EvalAwaitPromise)); n != 0 {
		t.Errorf("%d service worker registrations after the wasm failed: want none", n)
	}
	if n := broken.requests(); n != 1 {
		t.Errorf("%d app.wasm requests: want 1 (an error status is not asked again)", n)
	}
}
