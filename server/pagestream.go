package server

import (
	"bytes"
	"compress/gzip"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
)

// pageStream serves the dashboard page ("/") in two parts, so that the
// browser fetches the stylesheets, the scripts (ECharts runs as soon as it
// arrives) and the wasm while the server still runs the pre-render's load
// (app/prerender.go, up to DefaultPreRenderTimeout):
//
//  1. at once, the page's head: the bytes go-app wrote before <body> the
//     first time it rendered "/" in this process (go-app builds the head
//     from the handler's settings and the path only, so every render's
//     head means the same; the bytes differ, as go-app writes attributes
//     in map order). That first request is served in one piece;
//  2. when go-app's render is done (with the numbers), the rest of that
//     render from <body> on.
//
// The page is gzipped (BestSpeed, flushed after the head) for clients that
// accept it. HEAD requests go to go-app as they are.
type pageStream struct {
	goapp http.Handler
	head  atomic.Pointer[pageHead]
}

// pageHead is what is sent before the render is done.
type pageHead struct {
	header http.Header // go-app's response headers, without Content-Length
	prefix []byte      // the page up to and including "<body>"
}

var bodyTag = []byte("<body>")

// offBooleans drops the boolean attributes that go-app pre-renders as off
// with the value "false" (selected="false", checked="false", ...): HTML
// reads a present boolean attribute as on, so the page's first paint would
// show a select's last option and every checkbox ticked, not the URL's
// choices. go-app writes attribute values with strconv.Quote, so a label
// value holding the same text has its quotes escaped (\") and is left alone;
// text is HTML-escaped (&#34;).
var offBooleans = func() *strings.Replacer {
	var pairs []string
	for _, a := range []string{"selected", "checked", "disabled", "multiple", "hidden", "open", "readonly", "required"} {
		pairs = append(pairs, " "+a+`="false"`, "")
	}
	return strings.NewReplacer(pairs...)
}()

func (p *pageStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		p.goapp.ServeHTTP(w, r)
		return
	}
	head := p.head.Load()
	var out writeFlusher = plainWriter{w}
	if head != nil {
		h := w.Header()
		for k, v := range head.header {
			h[k] = v
		}
		out = p.startBody(w, r)
		out.Write(head.prefix)
		out.Flush()
	}

	rec := httptest.NewRecorder()
	p.goapp.ServeHTTP(rec, r)
	page := []byte(offBooleans.Replace(rec.Body.String()))
	i := bytes.Index(page, bodyTag)
	if head == nil && rec.Code == http.StatusOK && i >= 0 {
		hdr := rec.Header().Clone()
		hdr.Del("Content-Length")
		hdr.Del("ETag") // go-app's build version; every dashboard page differs (its numbers)
		p.head.CompareAndSwap(nil, &pageHead{header: hdr, prefix: bytes.Clone(page[:i+len(bodyTag)])})
	}

	if head == nil {
		// Nothing sent yet: the render as it is.
		h := w.Header()
		for k, v := range rec.Header() {
			h[k] = v
		}
		h.Del("ETag")           // as in the streamed pages
		h.Del("Content-Length") // offBooleans may have shortened the page
		if rec.Code != http.StatusOK {
			w.WriteHeader(rec.Code)
			w.Write(page)
			return
		}
		out = p.startBody(w, r)
		out.Write(page)
		out.Close()
		return
	}
	if i < 0 {
		// A failed render (go-app writes no page): say so in the page
		// already started.
		slog.Error("dashboard page: go-app rendered no page", "status", rec.Code)
		out.Write([]byte("<body><p>specdash could not render this page (HTTP " + strconv.Itoa(rec.Code) + "); reload it.</p></body></html>"))
		out.Close()
		return
	}
	out.Write(page[i+len(bodyTag):])
	out.Close()
}

// startBody sets the coding headers and writes the status: gzip when the
// client accepts it.
func (p *pageStream) startBody(w http.ResponseWriter, r *http.Request) writeFlusher {
	h := w.Header()
	h.Del("Content-Length")
	h.Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r) {
		w.WriteHeader(http.StatusOK)
		return plainWriter{w}
	}
	h.Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return gzipWriter{zw, w}
}

// writeFlusher is the page's body writer: Flush sends what was written so
// far, Close ends the page.
type writeFlusher interface {
	Write([]byte) (int, error)
	Flush()
	Close()
}

type plainWriter struct{ w http.ResponseWriter }

func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p plainWriter) Flush()                      { http.NewResponseController(p.w).Flush() }
func (p plainWriter) Close()                      {}

type gzipWriter struct {
	zw *gzip.Writer
	w  http.ResponseWriter
}

func (g gzipWriter) Write(b []byte) (int, error) { return g.zw.Write(b) }
func (g gzipWriter) Flush() {
	g.zw.Flush()
	http.NewResponseController(g.w).Flush()
}
func (g gzipWriter) Close() { g.zw.Close() }
