package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

	"specdash/internal/panics"
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
	// ranges keeps the settled points of range answers (rangecache.go;
	// nil: off, with the cache); rangeFresh is the least age of a kept
	// point.
	ranges     *rangeCache
	rangeFresh time.Duration
}

func newProxy(sources map[string]*upstream, def *upstream, cfg Config, m *metrics) *proxy {
	var ranges *rangeCache
	if cfg.CacheTTL > 0 {
		ranges = newRangeCache()
	}
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

		ranges:     ranges,
		rangeFresh: max(rangeFreshness, 3*cfg.ScrapeInterval),
	}
}

// route checks the path and returns the source and the API endpoint
// relative to /api/v1/.
func (p *proxy) route(w http.ResponseWriter, r *http.Request) (*upstream, string, bool) {
	// Path tricks: no escapes at all (no API path needs one; this also
	// refuses encoded slashes and dots), no dot segments, no empty
	// segments.
	if strings.Contains(r.URL.EscapedPath(), "%") || r.URL.RawPath != "" {
		writeAPIError(w, http.StatusBadRequest, "bad_data", "escaped characters are not allowed in the path")
		return nil, "", false
	}
	if p := r.URL.Path; path.Clean(p) != p || strings.Contains(p, "..") {
		writeAPIError(w, http.StatusBadRequest, "bad_data", "path is not clean")
		return nil, "", false
	}
	rest := strings.TrimPrefix(r.URL.Path, ProxyPrefix)
	src := p.def
	if after, ok := strings.CutPrefix(rest, "/s/"); ok {
		name, tail, _ := strings.Cut(after, "/")
		s, ok := p.sources[name]
		if !ok {
			writeAPIError(w, http.StatusNotFound, "not_found", "no such source (only configured sources are proxied)")
			return nil, "", false
		}
		src, rest = s, "/"+tail
	}
	api, ok := strings.CutPrefix(rest, "/api/v1/")
	if !ok || !(allowedAPI[api] || labelValuesAPI.MatchString(api) || (embeddedOnlyAPI[api] && src.Handler != nil)) {
		writeAPIError(w, http.StatusNotFound, "not_found", "not found (only the read-only query API is proxied: query, query_range, labels, label/<name>/values, series, status/buildinfo, and targets of embedded sources)")
		return nil, "", false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		writeAPIError(w, http.StatusMethodNotAllowed, "bad_data", "method not allowed (GET and POST only)")
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
		writeAPIError(w, http.StatusRequestEntityTooLarge, "bad_data", fmt.Sprintf("request body larger than %d bytes", maxRequestBody))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		writeAPIError(w, http.StatusRequestEntityTooLarge, "bad_data", fmt.Sprintf("request body larger than %d bytes or unreadable", maxRequestBody))
		return
	}
	ctype := r.Header.Get("Content-Type")
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "bad_data", "malformed query string")
		return
	}
	// Prometheus reads a form body's parameters on POST only (Go's
	// ParseForm); on GET the body is kept verbatim in the key.
	if mt, _, _ := mime.ParseMediaType(ctype); mt == "application/x-www-form-urlencoded" && len(body) > 0 && r.Method == http.MethodPost {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			writeAPIError(w, http.StatusBadRequest, "bad_data", "malformed form body")
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

	fetch := func() (*answer, error) {
		return p.fetch(src, api, r.Method, r.URL.RawQuery, body, ctype)
	}
	if api == "query_range" && p.ranges != nil {
		if rr, ok := parseRangeRequest(src.Name, params); ok {
			whole := fetch
			fetch = func() (*answer, error) { return p.rangeFetch(src, r.Method, rr, whole) }
		}
	}
	a, err := p.answer(r.Context(), key, fetch)
	if err != nil {
		p.fail(w, r, src, err)
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
	ch := p.flight.DoChan(key, func() (v any, err error) {
		ran = true
		// A panic here would end the process (singleflight re-panics
		// DoChan's panics in a goroutine of its own): it becomes this
		// request's error.
		defer panics.Catch("proxy", p.log, func(any) { v, err = nil, errPanic })
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
		if ctx.Err() != nil {
			// A slow trickle past the deadline: a timeout, whatever the
			// transport's read error says.
			return nil, fmt.Errorf("reading the answer after %d bytes: %w", len(b), ctx.Err())
		}
		return nil, err
	}
	if int64(len(b)) > p.maxResp {
		return nil, errTooLarge
	}
	return p.finish(src, resp.StatusCode, resp.Header.Get("Content-Type"), b)
}

// finish turns an upstream status and body into the browser's answer. Only
// what the dashboard can use passes: JSON (application/json, or
// VictoriaMetrics' application/stream+json) in the
// Prometheus API's shape (apiShape). Anything else, an HTML or SVG page
// above all (it would run its scripts on specdash's origin), becomes a
// Prometheus API error that names the source and what it sent but quotes
// nothing of it (error pages name internal hosts): 502, or the upstream's
// own status when it is an error status already (a load balancer's 503).
func (p *proxy) finish(src *upstream, status int, ctype string, body []byte) (*answer, error) {
	mt, _, perr := mime.ParseMediaType(ctype)
	if ctype == "" && src.Handler != nil {
		mt, perr = "application/json", nil // the in-process engine, which writes JSON
	}
	sent := func() string {
		t := "no content type"
		switch {
		case ctype == "":
		case perr != nil || len(mt) > 80:
			t = "an unparsable content type"
		default:
			t = mt
		}
		return fmt.Sprintf("%d %s (%d bytes)", status, t, len(body))
	}
	// VictoriaMetrics labels its answer to an instant query of a range
	// selector (the raw samples the shaped read takes for restarted
	// engines, metricsclient/irregular.go) application/stream+json; its
	// body is an ordinary API answer (apiShape checks it).
	if perr != nil || (mt != "application/json" && mt != "application/stream+json") {
		if status >= 400 {
			return nil, &refusedError{status: status, errorType: "bad_response", msg: fmt.Sprintf(
				"source %s answered HTTP %d %s without an API error body (a wrong path prefix, or a proxy or load balancer in front of it?)",
				src.Name, status, http.StatusText(status))}
		}
		return nil, &refusedError{status: http.StatusBadGateway, errorType: "bad_response", msg: fmt.Sprintf(
			"source %s answered %s where the Prometheus API answers JSON (is the source URL the API root, e.g. http://host:9090?)",
			src.Name, sent())}
	}
	if err := apiShape(body); err != nil {
		return nil, &refusedError{status: http.StatusBadGateway, errorType: "bad_response", msg: fmt.Sprintf(
			"source %s answered %s that is not a Prometheus API answer: %v", src.Name, sent(), err)}
	}
	return &answer{status: status, ctype: ctype, body: body}, nil
}

// apiShape checks that body is a Prometheus API answer: valid JSON, an
// object with "status" "success" and "data", or "error" with "errorType"
// and "error" strings. Cheap on a large matrix: one validating scan
// (json.Valid, no allocation), then tokens of the top-level object only
// until status and data are seen (Prometheus writes them first), so the
// data is never decoded here.
func apiShape(body []byte) error {
	if !json.Valid(body) {
		return errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, _ := dec.Token()
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("a JSON %s instead of an object", jsonKind(tok))
	}
	var status, errorType, errMsg *string
	hasData := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errors.New("invalid JSON")
		}
		key, _ := tok.(string)
		switch key {
		case "status", "errorType", "error":
			var v string
			if err := dec.Decode(&v); err != nil {
				return fmt.Errorf("%q is not a string", key)
			}
			switch key {
			case "status":
				status = &v
			case "errorType":
				errorType = &v
			default:
				errMsg = &v
			}
		case "data":
			hasData = true
			if status != nil && *status == "success" {
				return nil // the data is the client's to decode
			}
			if err := dec.Decode(&skipValue{}); err != nil {
				return errors.New("invalid JSON")
			}
		default:
			if err := dec.Decode(&skipValue{}); err != nil {
				return errors.New("invalid JSON")
			}
		}
		if status != nil && *status == "success" && hasData {
			return nil
		}
	}
	switch {
	case status == nil:
		return errors.New(`no "status"`)
	case *status == "success":
		return errors.New(`status "success" without "data"`)
	case *status == "error" && errorType != nil && errMsg != nil:
		return nil
	case *status == "error":
		return errors.New(`status "error" without "errorType" and "error"`)
	default:
		return fmt.Errorf("status %q (want success or error)", truncateRunes(*status, 40))
	}
}

// skipValue consumes a JSON value without keeping it.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// jsonKind names the JSON value that starts with tok.
func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// refusedError is an upstream answer the proxy does not pass on; the
// browser gets an API error with its status, errorType and message.
type refusedError struct {
	status    int
	errorType string
	msg       string
}

func (e *refusedError) Error() string { return e.msg }

// errPanic is the error of a fetch that panicked (logged and counted by
// panics.Catch).
var errPanic = errors.New("internal error while asking the source (logged on the server)")

// writeAPIError answers with a Prometheus API error body
// ({"status":"error","errorType":...,"error":...}, as
// https://prometheus.io/docs/prometheus/latest/querying/api/#format-overview),
// the message starting with metricsclient.ProxyErrorPrefix so that the
// dashboard tells the proxy's word from a source's.
func writeAPIError(w http.ResponseWriter, status int, errorType, msg string) {
	b, _ := json.Marshal(struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}{"error", errorType, metricsclient.ProxyErrorPrefix + msg})
	h := w.Header()
	h.Del("Content-Encoding")
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", ProxyCSP)
	w.WriteHeader(status)
	w.Write(b)
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
	defer panics.Catch("proxy", p.log, func(any) { a, err = nil, errPanic })
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
	return p.finish(src, rw.status, rw.header.Get("Content-Type"), rw.buf.Bytes())
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
	h.Set("Content-Security-Policy", ProxyCSP)
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

// fail answers an upstream failure with an API error that names the
// source and the kind of failure but not the upstream's address (the full
// error goes to the log): 504 for a timeout, 502 otherwise, or the status
// of a refused answer.
func (p *proxy) fail(w http.ResponseWriter, r *http.Request, src *upstream, err error) {
	if r.Context().Err() != nil {
		// The browser went away (a cancelled refresh): nobody to answer.
		p.log.Debug("proxy request cancelled by client", "path", r.URL.Path)
		return
	}
	p.log.Warn("proxy to upstream failed", "source", src.Name, "path", r.URL.Path, "err", err)
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		writeAPIError(w, refused.status, refused.errorType, refused.msg)
	case isTimeout(err):
		writeAPIError(w, http.StatusGatewayTimeout, "timeout", "source "+src.Name+": "+p.describeUpstreamError(src, err))
	case errors.Is(err, errTooLarge) || errors.Is(err, errRedirect):
		writeAPIError(w, http.StatusBadGateway, "bad_response", "source "+src.Name+": "+p.describeUpstreamError(src, err))
	default:
		writeAPIError(w, http.StatusBadGateway, "unavailable", "source "+src.Name+": "+p.describeUpstreamError(src, err))
	}
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

// describeUpstreamError classifies a transport error without quoting it
// (transport errors carry the upstream's host and port).
func (p *proxy) describeUpstreamError(src *upstream, err error) string {
	var (
		dnsErr  *net.DNSError
		maxErr  *http.MaxBytesError
		pathErr *fs.PathError
		refused *refusedError
	)
	switch {
	case errors.As(err, &refused):
		return refused.msg
	case errors.Is(err, errPanic):
		return err.Error()
	case errors.Is(err, errRedirect):
		return "Prometheus answered with a redirect, which specdash does not follow: check the source URL (it must be the API root, e.g. http://host:9090)"
	case errors.Is(err, errTooLarge):
		// The dashboard reads per-group sums (docs/ARCHITECTURE.md, "Query
		// plan"): what grows is points x groups, and the engines read one
		// by one (restarted ones, or all when the source lacks the
		// shaped queries' functions).
		return "Prometheus' answer is larger than the proxy's limit of " + p.maxBytes + ": choose a shorter range (or a longer step), a narrower filter (fewer models or engines), or group by fewer labels (grouping by engine or instance reads one series per engine)"
	case errors.Is(err, ErrForbiddenAddress):
		return "the source's address is refused: specdash never connects to link-local or cloud metadata addresses"
	case errors.As(err, &maxErr):
		return fmt.Sprintf("request body larger than %d bytes", maxErr.Limit)
	case isTimeout(err):
		return fmt.Sprintf("Prometheus did not answer in time (timeout: the proxy waits %v for a whole answer)", p.timeout)
	case errors.As(err, &pathErr):
		// prometheus/common reads credential files (password_file,
		// credentials_file, ...) at each request: a missing one is not
		// an unreachable Prometheus.
		return src.describeFileError(pathErr)
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
