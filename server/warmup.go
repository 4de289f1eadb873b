package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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
//     engines the default view's first paint with numbers came at 4.2 s
//     instead of ~1.1 s once, a 6 h view's live page at 8–11 s against
//     ~3.5 s for a later visitor: docs/PERFORMANCE.md);
//   - pageStream had not seen a render of "/" yet, so it could not send the
//     page's head before the render was done (pagestream.go).
//
// The warm-up first runs the default view's first load (view.LoadWith as
// the pre-render and the browser's first load run it, DeferWindow) through
// the proxy in-process, without the pre-render's budget: its answers go
// into the proxy's cache and the range cache (rangecache.go), which keeps
// the window's settled points for the next hour of idleness; then it
// renders "/" once, which gives pageStream the head. The warm-up is bounded
// by warmUpTimeout and logged at Info; a failure (the source down or empty)
// costs nothing but the log line, and the render is then left to the first
// visitor (the source would only fail it again): that visitor reads as
// before. An embedded default source is not warmed (New): it has just
// started, with no sample in any window yet, and answers in process.

// warmUpOn says whether New warms up for cfg (its defaults applied) with
// the default source def: asked for, with a cache to keep what it reads,
// and not for an embedded source (see above).
func warmUpOn(cfg Config, def *upstream) bool {
	return cfg.WarmUp && cfg.CacheTTL > 0 && def.Kind != KindEmbedded
}

// warmUpTimeout bounds the warm-up's load, as the browser bounds a load
// (app's loadTimeout).
const warmUpTimeout = time.Minute

// warmUpResult is what a warm-up did, for Config.warmedUp (tests).
type warmUpResult struct {
	now         time.Time // the load's now (its window ends at the grid point before it)
	err         error     // the load's failure, nil on success
	page        int       // the status of the render of "/" (0: none, after a failed load)
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
	attrs := []any{"range", q.Range, "load", time.Since(t0).Round(time.Millisecond).String()}
	if r.err != nil {
		// The error is the page's message (long, with advice for the
		// page); the proxy's own lines name the upstream's failure.
		msg := strings.ReplaceAll(r.err.Error(), "specdash's proxy at "+preRenderHost+ProxyPrefix, "the proxy (in process)")
		log.Info("warm-up: the default view's load failed; the first visitor reads the source as before", append(attrs, "err", truncateRunes(msg, 200))...)
		return r
	}
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	r.page = rec.Code
	r.headLearned = page.head.Load() != nil
	log.Info("warm-up: read the default view into the proxy's caches (its settled points stay for an hour unused)", append(attrs, "page_status", r.page)...)
	return r
}
