package server

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"

	specapp "specdash/app"
	"specdash/metricsclient"
)

// DefaultPreRenderTimeout bounds the load of the pre-rendered dashboard
// page: past it (a slow or down source) the page is served without
// numbers, as if pre-rendering had no client, so a page is never slower
// than that bound because of its numbers. 1 s (400 ms before): a warm
// 1,024-engine window's load takes 0.25–0.55 s alone on the benchmarks'
// 2-core machine and up to 0.9 s beside a starting browser, so at fleet
// scale, and on a third of warm 16-engine visits, the page came without
// numbers; the live dashboard's time did not move (docs/PERFORMANCE.md,
// "The pre-render's budget").
const DefaultPreRenderTimeout = time.Second

// preRenderHost is the host of the in-process client's URLs; the requests
// never leave the process (inProcess), so it is never resolved.
const preRenderHost = "http://specdash.pre-render.invalid"

// preRenderClients returns the app's pre-render client hook
// (app.SetPreRenderClient) for the proxy h: clients on
// the same proxy handler the browser reaches at /prom (allowlist,
// coalescing and cache apply; credentials stay in the server), one per
// source name, each bounded by budget. With list empty (no source list in
// the Env) the name is "" and the default source is used.
func preRenderClients(h http.Handler, order []*upstream, def *upstream, budget time.Duration) specapp.PreRenderClientFunc {
	clients := map[string]*metricsclient.Client{}
	add := func(name, prefix string, scrape time.Duration) {
		c, err := metricsclient.New(metricsclient.Config{
			Address:        preRenderHost + prefix,
			RoundTripper:   inProcess{h: h},
			ScrapeInterval: scrape,
		})
		if err == nil {
			clients[name] = c
		}
	}
	add("", ProxyPrefix, def.ScrapeInterval)
	for _, u := range order {
		prefix := SourcePrefix(u.Name)
		if u == def {
			prefix = ProxyPrefix // as the browser's SourceAddress
		}
		add(u.Name, prefix, u.ScrapeInterval)
	}
	return func(name string) (*metricsclient.Client, time.Duration, bool) {
		if budget <= 0 {
			return nil, 0, false
		}
		c, ok := clients[name]
		return c, budget, ok
	}
}

// inProcess is an http.RoundTripper that answers each request with the
// handler h in this process (no socket). h must honour the request's
// context (the proxy does: a cancelled or timed-out request returns at
// once while the upstream fetch it joined goes on for other viewers).
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = r.URL.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	w := &inProcessWriter{header: http.Header{}}
	t.h.ServeHTTP(w, r)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	body := w.buf.Bytes()
	h := w.header.Clone()
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// inProcessWriter is the http.ResponseWriter of inProcess.
type inProcessWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (w *inProcessWriter) Header() http.Header { return w.header }
func (w *inProcessWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *inProcessWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.buf.Write(p)
}
