package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"regexp"
	"strings"
	"syscall"
)

// ProxyPrefix is where the browser reaches the upstream's HTTP API root:
// /prom/api/v1/query is the upstream's <PrometheusURL>/api/v1/query.
const ProxyPrefix = "/prom"

// allowedAPI are the read-only Prometheus API endpoints the proxy passes,
// relative to /api/v1/ (https://prometheus.io/docs/prometheus/latest/querying/api/).
var allowedAPI = map[string]bool{
	"query":            true,
	"query_range":      true,
	"labels":           true,
	"series":           true,
	"status/buildinfo": true,
}

// labelValuesAPI is /api/v1/label/<name>/values with a classic label name.
var labelValuesAPI = regexp.MustCompile(`^label/[a-zA-Z_][a-zA-Z0-9_]*/values$`)

// maxRequestBody bounds a POSTed query form (bytes).
const maxRequestBody = 1 << 20

// errRedirect marks an upstream 3xx answer: the proxy never follows or
// forwards redirects (a browser would follow them to another origin).
var errRedirect = errors.New("upstream answered with a redirect")

type proxy struct {
	rp  *httputil.ReverseProxy
	log *slog.Logger
}

func newProxy(upstream *url.URL, cfg Config) *proxy {
	target := *upstream
	user := target.User
	target.User = nil

	transport := cfg.Transport
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = cfg.UpstreamTimeout
		transport = t
	}
	p := &proxy{log: cfg.Logger}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, ProxyPrefix)
			pr.Out.URL.RawPath = ""
			pr.SetURL(&target)
			// The browser's credentials are for specdash, not for the
			// upstream; the upstream's own come from the configured URL.
			pr.Out.Header.Del("Cookie")
			pr.Out.Header.Del("Authorization")
			pr.Out.Header.Del("Proxy-Authorization")
			if user != nil {
				pass, _ := user.Password()
				pr.Out.SetBasicAuth(user.Username(), pass)
			}
		},
		Transport: transport,
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Del("Set-Cookie")
			if resp.StatusCode >= 300 && resp.StatusCode < 400 {
				resp.Body.Close()
				return fmt.Errorf("%w (HTTP %d)", errRedirect, resp.StatusCode)
			}
			return nil
		},
		ErrorHandler: p.fail,
		ErrorLog:     slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
	return p
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Path tricks: no escapes at all (no API path needs one; this also
	// refuses encoded slashes and dots), no dot segments, no empty
	// segments.
	if strings.Contains(r.URL.EscapedPath(), "%") || r.URL.RawPath != "" {
		http.Error(w, "specdash proxy: escaped characters are not allowed in the path", http.StatusBadRequest)
		return
	}
	if p := r.URL.Path; path.Clean(p) != p || strings.Contains(p, "..") {
		http.Error(w, "specdash proxy: path is not clean", http.StatusBadRequest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, ProxyPrefix+"/api/v1/")
	if !ok || !(allowedAPI[rest] || labelValuesAPI.MatchString(rest)) {
		http.Error(w, "specdash proxy: not found (only the read-only query API is proxied: query, query_range, labels, label/<name>/values, series, status/buildinfo)", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "specdash proxy: method not allowed (GET and POST only)", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > maxRequestBody {
		http.Error(w, fmt.Sprintf("specdash proxy: request body larger than %d bytes", maxRequestBody), http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	p.rp.ServeHTTP(w, r)
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
	p.log.Warn("proxy to Prometheus failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintln(w, "specdash proxy: "+describeUpstreamError(err))
}

// describeUpstreamError classifies a transport error without quoting it
// (transport errors carry the upstream's host and port).
func describeUpstreamError(err error) string {
	var (
		dnsErr *net.DNSError
		netErr net.Error
		maxErr *http.MaxBytesError
	)
	switch {
	case errors.Is(err, errRedirect):
		return "Prometheus answered with a redirect, which specdash does not follow: check --prometheus.url (it must be the API root, e.g. http://host:9090)"
	case errors.As(err, &maxErr):
		return fmt.Sprintf("request body larger than %d bytes", maxErr.Limit)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "Prometheus did not answer in time (timeout)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "Prometheus is unreachable: connection refused (is it running?)"
	case errors.As(err, &dnsErr):
		return "Prometheus is unreachable: its host name could not be resolved"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed):
		return "Prometheus closed the connection"
	default:
		return "Prometheus is unreachable"
	}
}
