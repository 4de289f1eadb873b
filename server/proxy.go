package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/singleflight"

	"specdash/metricsclient"
)

// ProxyPrefix is where the browser reaches the default source's HTTP API
// root: /prom/api/v1/query is <default source URL>/api/v1/query. A named
// source is reached at /prom/s/<name>/api/v1/query.
const ProxyPrefix = "/prom"

// SourcePrefix returns the proxy root of the named source (what
// metricsclient's Address is in the browser): "/prom/s/<name>".
func SourcePrefix(name string) string { return ProxyPrefix + "/s/" + name }

// allowedAPI are the read-only Prometheus API endpoints the proxy passes,
// relative to /api/v1/ (https://prometheus.io/docs/prometheus/latest/querying/api/).
var allowedAPI = map[string]bool{
	"query":            true,
	"query_range":      true,
	"labels":           true,
	"series":           true,
	"status/buildinfo": true,
}

// embeddedOnlyAPI are endpoints passed only to embedded sources: a real
// Prometheus' target list holds internal addresses and scrape errors, the
// embedded engine's only the targets specdash was given.
var embeddedOnlyAPI = map[string]bool{
	"targets": true,
}

// labelValuesAPI is /api/v1/label/<name>/values with a classic label name.
var labelValuesAPI = regexp.MustCompile(`^label/[a-zA-Z_][a-zA-Z0-9_]*/values$`)

// maxRequestBody bounds a POSTed query form (bytes).
const maxRequestBody = 1 << 20

// Defaults of Config.
const (
	DefaultUpstreamTimeout  = 30 * time.Second
	DefaultMaxResponseBytes = 32 << 20
	DefaultCacheTTL         = 5 * time.Second
	cacheMaxEntries         = 4096
	cacheMaxBytes           = 128 << 20
	gzipMinBytes            = 1024
)

var (
	// errRedirect marks an upstream 3xx answer: the proxy never follows or
	// forwards redirects (a browser would follow them to another origin).
	errRedirect = errors.New("upstream answered with a redirect")
	// errTooLarge marks an upstream answer over Config.MaxResponseBytes.
	errTooLarge = errors.New("upstream answer too large")
)

type proxy struct {
	sources  map[string]*upstream
	def      *upstream
	log      *slog.Logger
	timeout  time.Duration
	maxResp  int64
	cache    *cache
	flight   singleflight.Group
	metrics  *metrics
	now      func() time.Time
	maxBytes string
	// defAnswered is set once the default source answered a request with
	// a 2xx status (readiness, ready.go).
	defAnswered atomic.Bool
}

func newProxy(sources map[string]*upstream, def *upstream, cfg Config, m *metrics) *proxy {
	return &proxy{
		sources:  sources,
		def:      def,
		log:      cfg.Logger,
		timeout:  cfg.UpstreamTimeout,
		maxResp:  cfg.MaxResponseBytes,
		cache:    newCache(cfg.CacheTTL, cacheMaxEntries, cacheMaxBytes),
		metrics:  m,
		now:      time.Now,
		maxBytes: humanBytes(cfg.MaxResponseBytes),
	}
}

// route checks the path and returns the source and the API endpoint
// relative to /api/v1/.
func (p *proxy) route(w http.ResponseWriter, r *http.Request) (*upstream, string, bool) {
	// Path tricks: no escapes at all (no API path needs one; this also
	// refuses encoded slashes and dots), no dot segments, no empty
	// segments.
	if strings.Contains(r.URL.EscapedPath(), "%") || r.URL.RawPath != "" {
		http.Error(w, metricsclient.ProxyErrorPrefix+"escaped characters are not allowed in the path", http.StatusBadRequest)
		return nil, "", false
	}
	if p := r.URL.Path; path.Clean(p) != p || strings.Contains(p, "..") {
		http.Error(w, metricsclient.ProxyErrorPrefix+"path is not clean", http.StatusBadRequest)
		return nil, "", false
	}
	rest := strings.TrimPrefix(r.URL.Path, ProxyPrefix)
	src := p.def
	if after, ok := strings.CutPrefix(rest, "/s/"); ok {
		name, tail, _ := strings.Cut(after, "/")
		s, ok := p.sources[name]
		if !ok {
			http.Error(w, metricsclient.ProxyErrorPrefix+"no such source (only configured sources are proxied)", http.StatusNotFound)
			return nil, "", false
		}
		src, rest = s, "/"+tail
	}
	api, ok := strings.CutPrefix(rest, "/api/v1/")
	if !ok || !(allowedAPI[api] || labelValuesAPI.MatchString(api) || (embeddedOnlyAPI[api] && src.Handler != nil)) {
		http.Error(w, metricsclient.ProxyErrorPrefix+"not found (only the read-only query API is proxied: query, query_range, labels, label/<name>/values, series, status/buildinfo, and targets of embedded sources)", http.StatusNotFound)
		return nil, "", false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, metricsclient.ProxyErrorPrefix+"method not allowed (GET and POST only)", http.StatusMethodNotAllowed)
		return nil, "", false
	}
	return src, api, true
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	src, api, ok := p.route(w, r)
	if !ok {
		return
	}
	if r.ContentLength > maxRequestBody {
		http.Error(w, fmt.Sprintf(metricsclient.ProxyErrorPrefix+"request body larger than %d bytes", maxRequestBody), http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		http.Error(w, fmt.Sprintf(metricsclient.ProxyErrorPrefix+"request body larger than %d bytes or unreadable", maxRequestBody), http.StatusRequestEntityTooLarge)
		return
	}
	ctype := r.Header.Get("Content-Type")
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, metricsclient.ProxyErrorPrefix+"malformed query string", http.StatusBadRequest)
		return
	}
	if mt, _, _ := mime.ParseMediaType(ctype); mt == "application/x-www-form-urlencoded" && len(body) > 0 {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			http.Error(w, metricsclient.ProxyErrorPrefix+"malformed form body", http.StatusBadRequest)
			return
		}
		for k, v := range form {
			params[k] = append(params[k], v...)
		}
	} else if len(body) > 0 {
		// Only form bodies are meaningful to the query API; the key covers
		// any other body verbatim.
		params["\x00body"] = []string{ctype, string(body)}
	}
	key := r.Method + " " + cacheKey(src.Name, api, params)

	a, err := p.answer(r.Context(), key, func() (*answer, error) {
		return p.fetch(src, api, r.Method, r.URL.RawQuery, body, ctype)
	})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.write(w, r, a)
}

// answer returns a cached answer for key, joins an identical request in
// flight, or calls fetch (whose context does not depend on any one
// browser's request, so a viewer going away does not fail the others).
func (p *proxy) answer(ctx context.Context, key string, fetch func() (*answer, error)) (*answer, error) {
	if a := p.cache.get(key, p.now()); a != nil {
		p.metrics.cache.WithLabelValues("hit").Inc()
		return a, nil
	}
	ran := false // set when this caller's fetch is the one that runs
	ch := p.flight.DoChan(key, func() (any, error) {
		ran = true
		// Re-check: an identical request may have filled the cache
		// between the lookup and joining the flight.
		if a := p.cache.get(key, p.now()); a != nil {
			return a, nil
		}
		a, err := fetch()
		if err == nil && a.status == http.StatusOK {
			p.cache.put(key, a, p.now())
		}
		return a, err
	})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-ch:
		if ran {
			p.metrics.cache.WithLabelValues("miss").Inc()
		} else {
			p.metrics.cache.WithLabelValues("coalesced").Inc()
		}
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*answer), nil
	}
}

// fetch sends one request upstream (bounded by the upstream timeout and
// the response size limit) and records it in the metrics.
func (p *proxy) fetch(src *upstream, api, method, rawQuery string, body []byte, ctype string) (*answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	endpoint := api
	if labelValuesAPI.MatchString(api) {
		endpoint = "label/values"
	}
	start := time.Now()
	var a *answer
	var err error
	if src.Handler != nil {
		a, err = p.callHandler(ctx, src, api, method, rawQuery, body, ctype)
	} else {
		a, err = p.roundTrip(ctx, src, api, method, rawQuery, body, ctype)
	}
	p.metrics.upstreamTime.WithLabelValues(src.Name, endpoint).Observe(time.Since(start).Seconds())
	result := "error"
	if err == nil {
		switch {
		case a.status < 300:
			result = "ok"
			if src == p.def {
				p.defAnswered.Store(true)
			}
		case a.status < 500:
			result = "4xx"
		default:
			result = "5xx"
		}
	}
	p.metrics.upstream.WithLabelValues(src.Name, endpoint, result).Inc()
	return a, err
}

func (p *proxy) roundTrip(ctx context.Context, src *upstream, api, method, rawQuery string, body []byte, ctype string) (*answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, src.upstreamURL("api/v1/"+api, rawQuery), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if len(body) > 0 && ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	if src.manualAuth != nil {
		req.SetBasicAuth(src.manualAuth.Username, string(src.manualAuth.Password))
	}
	resp, err := src.transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, fmt.Errorf("%w (HTTP %d)", errRedirect, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, p.maxResp+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > p.maxResp {
		return nil, errTooLarge
	}
	return p.finish(resp.StatusCode, resp.Header.Get("Content-Type"), b), nil
}

// finish turns an upstream status and body into the browser's answer: API
// answers (JSON) pass as they are; a non-JSON error page (a load
// balancer's 502, a proxy's HTML) is replaced by a message that names the
// status but quotes nothing (such pages name internal hosts).
func (p *proxy) finish(status int, ctype string, body []byte) *answer {
	mt, _, _ := mime.ParseMediaType(ctype)
	if status >= 400 && !strings.Contains(mt, "json") {
		msg := fmt.Sprintf(metricsclient.ProxyErrorPrefix+"Prometheus answered HTTP %d %s without an API error body (a wrong path prefix, or a proxy or load balancer in front of it?)\n",
			status, http.StatusText(status))
		return &answer{status: status, ctype: "text/plain; charset=utf-8", body: []byte(msg)}
	}
	if ctype == "" {
		ctype = "application/json"
	}
	return &answer{status: status, ctype: ctype, body: body}
}

// callHandler runs an in-process upstream (the embedded engine).
func (p *proxy) callHandler(ctx context.Context, src *upstream, api, method, rawQuery string, body []byte, ctype string) (a *answer, err error) {
	target := "/api/v1/" + api
	if rawQuery != "" {
		target += "?" + rawQuery
	}
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rw := &bufferWriter{header: http.Header{}, max: p.maxResp}
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("embedded source panicked", "source", src.Name, "panic", r)
			a, err = nil, fmt.Errorf("embedded source failed: internal error")
		}
	}()
	src.Handler.ServeHTTP(rw, req)
	if rw.overflow {
		return nil, errTooLarge
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return p.finish(rw.status, rw.header.Get("Content-Type"), rw.buf.Bytes()), nil
}

// bufferWriter is an http.ResponseWriter that keeps at most max bytes.
type bufferWriter struct {
	header   http.Header
	status   int
	buf      bytes.Buffer
	max      int64
	overflow bool
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if int64(b.buf.Len()+len(p)) > b.max {
		b.overflow = true
		return 0, errTooLarge
	}
	return b.buf.Write(p)
}

func (p *proxy) write(w http.ResponseWriter, r *http.Request, a *answer) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	body := a.body
	if len(body) >= gzipMinBytes && acceptsGzip(r) {
		body = a.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(a.status)
	w.Write(body)
}

// fail answers an upstream failure with 502 and a message for people that
// names the kind of failure but not the upstream's address (the full error
// goes to the log).
func (p *proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		// The browser went away (a cancelled refresh): nobody to answer.
		p.log.Debug("proxy request cancelled by client", "path", r.URL.Path)
		return
	}
	p.log.Warn("proxy to upstream failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintln(w, metricsclient.ProxyErrorPrefix+""+p.describeUpstreamError(err))
}

// describeUpstreamError classifies a transport error without quoting it
// (transport errors carry the upstream's host and port).
func (p *proxy) describeUpstreamError(err error) string {
	var (
		dnsErr *net.DNSError
		netErr net.Error
		maxErr *http.MaxBytesError
	)
	switch {
	case errors.Is(err, errRedirect):
		return "Prometheus answered with a redirect, which specdash does not follow: check the source URL (it must be the API root, e.g. http://host:9090)"
	case errors.Is(err, errTooLarge):
		return "Prometheus' answer is larger than the proxy's limit of " + p.maxBytes + ": choose a shorter range or a narrower filter"
	case errors.Is(err, ErrForbiddenAddress):
		return "the source's address is refused: specdash never connects to link-local or cloud metadata addresses"
	case errors.As(err, &maxErr):
		return fmt.Sprintf("request body larger than %d bytes", maxErr.Limit)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "Prometheus did not answer in time (timeout)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "Prometheus is unreachable: connection refused (is it running?)"
	case errors.As(err, &dnsErr):
		return "Prometheus is unreachable: its host name could not be resolved"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "Prometheus closed the connection"
	default:
		return "Prometheus is unreachable"
	}
}

// humanBytes formats a byte count for messages ("32 MiB").
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
