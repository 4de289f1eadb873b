package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"specdash/internal/panics"
)

// recoverGuard answers a panicking handler's request with a 500 in the
// handler's format (a Prometheus API error body under /prom, text
// elsewhere), logs the panic with its stack and counts it in
// specdash_panics_total{where="http"}; the process keeps serving. Without
// it net/http logs the panic and drops the connection: the browser sees
// a network error and the panic is not counted. A panic after the
// handler started its answer cannot be answered cleanly: it is logged and
// counted, and the connection is dropped (http.ErrAbortHandler) so that
// the browser does not take a truncated answer for a whole one.
func recoverGuard(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v) // a deliberate abort, not a bug
			}
			panics.Record("http", log, v)
			if tw.wrote {
				panic(http.ErrAbortHandler)
			}
			hdr := w.Header()
			for _, k := range []string{"Content-Encoding", "Content-Length", "Etag", "Last-Modified", "Cache-Control"} {
				hdr.Del(k)
			}
			hdr.Set("Cache-Control", "no-store")
			if isProxyPath(r.URL.Path) {
				writeAPIError(w, http.StatusInternalServerError, "internal", "internal error while answering "+r.URL.Path+" (logged on the server)")
				return
			}
			http.Error(w, fmt.Sprintf("specdash: internal error while answering %s (logged on the server)", r.URL.Path), http.StatusInternalServerError)
		}()
		h.ServeHTTP(tw, r)
	})
}

func isProxyPath(p string) bool { return p == ProxyPrefix || strings.HasPrefix(p, ProxyPrefix+"/") }

// trackingWriter notes whether the answer has started.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) {
	if code >= 200 { // 1xx answers are not the answer
		t.wrote = true
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (Flush).
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// Flush sends what was written so far (the page's head, pagestream.go).
func (t *trackingWriter) Flush() {
	t.wrote = true
	http.NewResponseController(t.ResponseWriter).Flush()
}
