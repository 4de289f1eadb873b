package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"specdash/metricsclient"
	"specdash/view"
)

// The warm-up (Config.WarmUp): once, in the background, right after New,
// the server reads what the first visitor of "/" would have waited for.
// Without it, that visitor's page was the slowest a server gives:
//
//   - the proxy's caches were empty, so the pre-render's load (bounded by
//     PreRenderTimeout) asked the source for the whole window, ran out of
//     its budget at a large fleet and sent the page without numbers, and
//     the browser's first load then waited for the source too (at 1,024
//     engines, 8–11 s against ~3.5 s for a later visitor of the same view:
//     docs/PERFORMANCE.md);
//   - pageStream had not seen a render of "/" yet, so it could not send the
//     page's head before the render was done (pagestream.go).
//
// The warm-up first runs the default view's first load (view.LoadWith as
// the pre-render and the browser's first load run it, DeferWindow) through
// the proxy in-process, without the pre-render's budget: its answers go
// into the proxy's cache and the range cache (rangecache.go), which keeps
// the window's settled points for the next hour of idleness; then it
// renders "/" once, which gives pageStream the head. The warm-up is bounded
// by warmUpTimeout and logged at Info; a failure (the source down or still
// empty, as an embedded Prometheus right after its start) costs nothing but
// the log line: the first visitor then reads as before.

// warmUpTimeout bounds the warm-up's load, as the browser bounds a load
// (app's loadTimeout).
const warmUpTimeout = time.Minute

// warmUpResult is what a warm-up did, for Config.warmedUp (tests).
type warmUpResult struct {
	now         time.Time // the load's now (its window ends at the grid point before it)
	err         error     // the load's failure, nil on success
	page        int       // the status of the render of "/"
	headLearned bool      // pageStream knows the page's head
}

// warmUp reads the default source's default view with c (a client on the
// proxy, preRenderClients) and then renders "/" with page.
func warmUp(log *slog.Logger, c *metricsclient.Client, scrape time.Duration, page *pageStream) warmUpResult {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), warmUpTimeout)
	defer cancel()
	// As the pre-render of "/" reads it (app/prerender.go): the URL's
	// query (none) in the server's zone.
	q := view.ParseQueryAt(nil, t0).InZone(view.BrowserNamed(time.Local, t0))
	res := view.LoadWith(ctx, c, q, scrape, t0, nil, view.LoadOptions{DeferWindow: true})
	r := warmUpResult{now: t0, err: res.Err}
	loaded := time.Since(t0)

	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	r.page = rec.Code
	r.headLearned = page.head.Load() != nil

	attrs := []any{"range", q.Range, "load", loaded.Round(time.Millisecond).String(), "page_status", r.page}
	if r.err != nil {
		log.Info("warm-up: the default view's load failed; the first visitor reads the source as before", append(attrs, "err", r.err)...)
	} else {
		log.Info("warm-up: the default view's window is in the proxy's caches", attrs...)
	}
	return r
}
