//go:build !js

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"specdash/server"
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
// the worker fails (its script missing), it compiles on the main thread and
// the Go program runs all the same. The source is unreachable: the dashboard's
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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := newTab(t)
			if c.before != "" {
				run(t, tab, 10*time.Second, chromedp.Action[cdppage.AddScriptToEvaluateOnNewDocumentResult](
					func(ctx context.Context, tg *chromedp.Target) (cdppage.AddScriptToEvaluateOnNewDocumentResult, error) {
						return cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: c.before})
					}))
			}
			step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m&refresh=off"))
			waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('body > [data-dashboard]'); return !!r && (r.dataset.state === 'ready' || r.dataset.state === 'error'); })()`)
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
