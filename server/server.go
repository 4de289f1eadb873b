// Package server is specdash's HTTP server: it serves the go-app front end
// (pre-rendered pages, app.js, the embedded app.wasm and ECharts under
// /web/) and a read-only, same-origin proxy to one Prometheus-compatible
// upstream under /prom/, so the browser never talks to Prometheus directly
// (no CORS, no credentials in the browser).
//
// Host only: the wasm front end never imports this package.
package server

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	specapp "specdash/app"
	"specdash/web"
)

// Config configures the server.
type Config struct {
	// PrometheusURL is the root of the Prometheus HTTP API of the one
	// upstream, e.g. "http://127.0.0.1:9090" or, for Mimir,
	// "http://mimir:8080/prometheus" (a path prefix is kept). Userinfo
	// (user:password@) is sent upstream as basic auth and never shown.
	// Required.
	PrometheusURL string
	// ScrapeInterval of the upstream's targets (default 15 s): the step of
	// every query is at least this long.
	ScrapeInterval time.Duration
	// Version of specdash, shown in the page footer (free text).
	Version string
	// UpstreamTimeout bounds the wait for the upstream's response headers
	// (default 30 s); past it the proxy answers 502.
	UpstreamTimeout time.Duration
	// Logger receives one line per proxy failure (default slog.Default()).
	Logger *slog.Logger
	// Transport to the upstream (default: a clone of http.DefaultTransport
	// with UpstreamTimeout as ResponseHeaderTimeout). For tests.
	Transport http.RoundTripper
	// Assets replaces the embedded web.FS (dist/ and static/). For tests.
	Assets fs.FS
}

// New returns the server's handler:
//
//   - /prom/api/v1/{query,query_range,labels,label/<name>/values,series,status/buildinfo}:
//     the read-only proxy (GET and POST only: 405 otherwise; any other /prom
//     path: 404; see proxy.go);
//   - /web/<file>: the embedded assets (web.FS dist/ then static/);
//   - everything else: the go-app handler, which pre-renders the dashboard
//     route "/" and serves app.js, wasm_exec.js, app-worker.js and the
//     manifest.
//
// Errors: PrometheusURL missing, unparsable, not http(s), or carrying a
// query or fragment.
func New(cfg Config) (http.Handler, error) {
	if cfg.PrometheusURL == "" {
		return nil, errors.New("server: no Prometheus URL configured")
	}
	upstream, err := parseUpstream(cfg.PrometheusURL)
	if err != nil {
		return nil, err
	}
	if cfg.ScrapeInterval <= 0 {
		cfg.ScrapeInterval = 15 * time.Second
	}
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}

	fsys := cfg.Assets
	if fsys == nil {
		fsys = web.FS
	}
	assets := newAssets(fsys)
	proxy := newProxy(upstream, cfg)

	specapp.Register()
	env := map[string]string{
		specapp.EnvSource:         DisplayURL(upstream),
		specapp.EnvScrapeInterval: cfg.ScrapeInterval.String(),
		specapp.EnvVersion:        cfg.Version,
	}
	if assets.wasmMissing {
		env[specapp.EnvWasmMissing] = "1"
	}
	goapp := &app.Handler{
		Name:        "specdash",
		ShortName:   "specdash",
		Title:       "specdash",
		Description: "Speculative decoding dashboard: acceptance rate, mean acceptance length, per-position acceptance, throughput.",
		Icon: app.Icon{
			Default:  "/web/icon.svg",
			Large:    "/web/icon.svg",
			SVG:      "/web/icon.svg",
			Maskable: "/web/icon.svg",
		},
		BackgroundColor:   "#f6f7f9",
		ThemeColor:        "#1d4ed8",
		LoadingLabel:      "Loading specdash… {progress}%",
		Scripts:           []string{"/web/echarts.min.js"},
		Styles:            []string{"/web/specdash.css"},
		Env:               env,
		Resources:         identityResolver{},
		Version:           assets.version,
		WasmContentLength: assets.wasmLength,
	}

	return &root{proxy: proxy, assets: assets, app: goapp}, nil
}

// root dispatches on the raw request path, before any cleaning, so that
// path tricks reach the proxy's checks instead of a redirect.
type root struct {
	proxy  http.Handler
	assets *assets
	app    http.Handler
}

func (h *root) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/prom" || strings.HasPrefix(p, "/prom/"):
		h.proxy.ServeHTTP(w, r)
	case strings.HasPrefix(p, "/web/"):
		h.assets.ServeHTTP(w, r)
	case p == "/robots.txt" || p == "/sitemap.xml" || p == "/ads.txt":
		// go-app would fetch these from /web/ over HTTP itself; specdash
		// has none.
		http.NotFound(w, r)
	default:
		h.app.ServeHTTP(w, r)
	}
}

// identityResolver keeps /web/ paths as they are: the server serves them
// itself (app.LocalDir is broken in go-app v10.1.11, and not being an
// http.Handler keeps go-app from serving files from the working directory).
type identityResolver struct{}

func (identityResolver) Resolve(location string) string {
	if location == "" {
		return "/"
	}
	return location
}

// parseUpstream validates the configured Prometheus URL.
func parseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the raw URL, which may hold a password: keep
		// only the inner reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("server: Prometheus URL is not a valid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("server: Prometheus URL %q: scheme must be http or https", DisplayString(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("server: Prometheus URL %q: no host", DisplayString(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("server: Prometheus URL %q: must not carry a query or fragment", DisplayString(raw))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// DisplayURL is u without userinfo, for showing to people: the source line
// of the UI and log messages.
func DisplayURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// DisplayString is DisplayURL for a raw URL; an unparsable one becomes
// "(invalid URL)" so no credential leaks through an error message.
func DisplayString(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return DisplayURL(u)
}
