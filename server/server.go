// Package server is specdash's HTTP server: it serves the go-app front end
// (pre-rendered pages, app.js, the embedded app.wasm and ECharts under
// /web/) and a read-only, same-origin proxy under /prom/ to the configured
// Prometheus-compatible sources (HTTP upstreams, or the in-process embedded
// engine), so the browser never talks to Prometheus directly (no CORS, no
// credentials in the browser). Identical requests of many viewers are
// coalesced and briefly cached; the server exposes its own /metrics,
// /-/healthy and /-/ready.
//
// Host only: the wasm front end never imports this package.
package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/prometheus/client_golang/prometheus"

	specapp "specdash/app"
	"specdash/chartsvg"
	"specdash/internal/panics"
	"specdash/metricsclient"
	"specdash/view"
	"specdash/web"
)

// Config configures the server.
type Config struct {
	// PrometheusURL is the root of the Prometheus HTTP API of the one
	// upstream, e.g. "http://127.0.0.1:9090" or, for Mimir,
	// "http://mimir:8080/prometheus" (a path prefix is kept). Userinfo
	// (user:password@) is sent upstream as basic auth and never shown.
	// It configures a source named DefaultSourceName; set it or Sources.
	PrometheusURL string
	// ScrapeInterval of PrometheusURL's targets (default 15 s): the step
	// of every query is at least this long.
	ScrapeInterval time.Duration
	// Sources are the named upstreams (config file); the UI switches only
	// among them. Names are unique.
	Sources []Source
	// DefaultSource is the name of the source shown at "/" and reached at
	// /prom/api/v1/ (default: the first source).
	DefaultSource string
	// Version of specdash, shown in the page footer (free text).
	Version string
	// UpstreamTimeout bounds one upstream request, answer included
	// (default 30 s); past it the proxy answers 502.
	UpstreamTimeout time.Duration
	// MaxResponseBytes bounds an upstream answer (default 32 MiB); a
	// larger one becomes a 502 that says so.
	MaxResponseBytes int64
	// CacheTTL is how long identical proxy requests are answered from the
	// cache (default 5 s; negative: no cache and no range cache,
	// rangecache.go; identical requests in flight are still coalesced).
	CacheTTL time.Duration
	// PreRenderTimeout bounds the server-side load of the pre-rendered
	// dashboard page (default DefaultPreRenderTimeout, 1 s; negative: no
	// numbers in the pre-rendered page). Past it the page is served without
	// numbers, as before pre-rendering had them (see prerender.go).
	PreRenderTimeout time.Duration
	// WarmUp reads the default view once in the background after New, so
	// that the first visitor of "/" finds its window in the proxy's caches
	// and the page's head known (warmup.go). Off without a cache
	// (negative CacheTTL) and for an embedded default source. `specdash
	// serve` turns it on (--web.warm-up).
	WarmUp bool
	// Auth protects everything but /-/healthy and /-/ready (default: open).
	Auth AuthConfig
	// Registry receives the server's metrics, served at /metrics (default:
	// a new registry with the Go and process collectors).
	Registry *prometheus.Registry
	// Ready reports readiness for /-/ready (default: not ready until the
	// default source has answered once, a viewer's query or a probe
	// query=1 sent by /-/ready; see ready.go).
	Ready func() error
	// Logger receives one line per proxy failure (default slog.Default()).
	Logger *slog.Logger
	// Transport to every URL upstream (default: built from each source's
	// HTTPClient, with a dialer that refuses link-local and metadata
	// addresses). For tests.
	Transport http.RoundTripper
	// Assets replaces the embedded web.FS (dist/ and static/). For tests.
	Assets fs.FS
	// now is the clock of the proxy's cache (default time.Now); tests set a
	// fake one so that cache lifetimes do not depend on the machine's speed.
	now func() time.Time
	// warmedUp, when set, receives what the warm-up did (tests).
	warmedUp func(warmUpResult)
}

// EChartsPath is the URL path of the ECharts bundle (web/dist); the page
// preloads it and web/static/preview.js runs it.
const EChartsPath = "/web/echarts.min.js"

// New returns the server's handler:
//
//   - /prom/api/v1/{query,query_range,labels,label/<name>/values,series,status/buildinfo}
//     (and targets for embedded sources): the read-only proxy to the
//     default source; /prom/s/<name>/api/v1/...: to a named source (GET and
//     POST only: 405 otherwise; any other /prom path: 404; see proxy.go);
//   - /web/<file> and /web/h-<hash>/<file>: the embedded assets (web.FS
//     dist/ then static/), the hashed form cached for a year;
//   - /metrics: the server's own metrics (see metrics.go);
//   - /-/healthy, /-/ready: 200 when healthy / ready (never behind auth);
//   - everything else: the go-app handler, which pre-renders the dashboard
//     route "/" and serves app.js, wasm_exec.js, app-worker.js and the
//     manifest.
//
// Errors: no source; a source URL missing, unparsable, not http(s), or
// carrying a query or fragment; bad names, duplicates, an unknown default;
// invalid HTTP client or auth settings.
func New(cfg Config) (http.Handler, error) {
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = DefaultUpstreamTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PreRenderTimeout == 0 {
		cfg.PreRenderTimeout = DefaultPreRenderTimeout
	}
	srcs := cfg.Sources
	switch {
	case len(srcs) == 0:
		srcs = []Source{{Name: DefaultSourceName, URL: cfg.PrometheusURL, ScrapeInterval: cfg.ScrapeInterval}}
	case cfg.PrometheusURL != "":
		return nil, errors.New("server: both a Prometheus URL and named sources configured: use one")
	}
	sources := map[string]*upstream{}
	var order []*upstream
	for _, s := range srcs {
		u, err := newUpstream(s, &cfg)
		if err != nil {
			return nil, err
		}
		if sources[u.Name] != nil {
			return nil, fmt.Errorf("server: source %s configured twice", u.Name)
		}
		sources[u.Name] = u
		order = append(order, u)
		for _, msg := range u.unreadableFiles() {
			cfg.Logger.Warn("source file unreadable at startup (read again at each request)", "source", u.Name, "problem", msg)
		}
	}
	def := order[0]
	if cfg.DefaultSource != "" {
		if def = sources[cfg.DefaultSource]; def == nil {
			return nil, fmt.Errorf("server: default source %q is not configured", cfg.DefaultSource)
		}
	}
	auth, err := newAuth(cfg.Auth)
	if err != nil {
		return nil, err
	}
	reg := cfg.Registry
	if reg == nil {
		reg = defaultRegistry()
	}
	m := newMetrics(reg)
	if err := panics.Register(reg); err != nil {
		return nil, fmt.Errorf("server: registering the panic counter: %w", err)
	}
	panics.Total.WithLabelValues("http")
	panics.Total.WithLabelValues("proxy")

	fsys := cfg.Assets
	if fsys == nil {
		fsys = web.FS
	}
	assets := newAssets(fsys)
	proxy := newProxy(sources, def, cfg, m)
	if cfg.now != nil {
		proxy.now = cfg.now
	}

	specapp.Register()
	specapp.SetPreRenderClient(preRenderClients(proxy, order, def, cfg.PreRenderTimeout))
	specapp.SetPreRenderChart(chartsvg.DrawOption) // charts in the first paint, before ECharts
	var list []view.SourceInfo
	for _, u := range order {
		list = append(list, view.SourceInfo{
			Name: u.Name, Label: u.display(), Kind: u.Kind,
			ScrapeInterval: u.ScrapeInterval.String(), Default: u == def,
		})
	}
	env := map[string]string{
		view.EnvSource:         def.display(),
		view.EnvScrapeInterval: def.ScrapeInterval.String(),
		view.EnvVersion:        cfg.Version,
		view.EnvSources:        view.EncodeSources(list),
	}
	if assets.wasmMissing {
		env[view.EnvWasmMissing] = "1"
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
		BackgroundColor: "#f6f7f9",
		ThemeColor:      "#1d4ed8",
		// Without go-app's {progress}: it would count the empty body
		// boot.js gives app.js's fetch (100 % at once); boot.js writes the
		// wasm's real progress into the label (data-wasm-length).
		LoadingLabel: "Loading specdash…",
		// ECharts is fetched with the head (a preload: pageStream sends the
		// head before the body) but run only when preview.js adds its
		// script: at once on a page without a preview, after the first
		// frame on a page with one, so that its 50-100 ms of script never
		// hold up the first paint, which shows the server's static drawings
		// of the charts (chartsvg). Loaded async it ran in the middle of the
		// body's arrival; deferred, right after the body was parsed, before
		// the first frame (docs/PERFORMANCE.md). preview.js then draws the
		// pre-rendered charts with ECharts before the wasm runs
		// (app/prerender.go); app/chart.go waits for ECharts when it has not
		// run yet. boot.js (rawHeaders) fetches and compiles the wasm from
		// the head, while the body is on its way, and hands the module to
		// go-app's app.js (docs/PERFORMANCE.md, "Live dashboard").
		RawHeaders:        rawHeaders(assets),
		Scripts:           []string{"/web/preview.js defer", "/web/charts.js defer"},
		Styles:            []string{"/web/specdash.css", "/web/filters.css"},
		Env:               env,
		Resources:         hashResolver{assets},
		Version:           appVersion(assets.version, env),
		WasmContentLength: assets.wasmLength,
		// The data path bypasses go-app's worker (worker.go).
		ServiceWorkerTemplate: workerTemplate(),
	}

	page := &pageStream{goapp: goapp}
	if warmUpOn(cfg, def) {
		c, err := metricsclient.New(metricsclient.Config{
			Address:        preRenderHost + ProxyPrefix,
			RoundTripper:   inProcess{h: proxy},
			ScrapeInterval: def.ScrapeInterval,
		})
		if err != nil {
			return nil, fmt.Errorf("server: the warm-up's client: %w", err)
		}
		panics.Total.WithLabelValues("warm-up")
		go func() {
			defer panics.Catch("warm-up", cfg.Logger, nil)
			r := warmUp(cfg.Logger, c, def.ScrapeInterval, page)
			if cfg.warmedUp != nil {
				cfg.warmedUp(r)
			}
		}()
	}

	ready := cfg.Ready
	if ready == nil {
		ready = (&sourceReady{p: proxy, answered: &proxy.defAnswered}).check
	}
	r := &root{
		preRender: cfg.PreRenderTimeout > 0,
		proxy:     m.instrument("proxy", proxy),
		assets:    m.instrument("assets", assets),
		app:       m.instrument("app", goapp),
		page:      m.instrument("app", page),
		metrics:   m.instrument("metrics", m.handler()),
		health:    m.instrument("health", health{ready: ready}),
	}
	// Outermost: the security headers (on every answer, errors included),
	// then the panic guard (around auth too).
	return securityHeaders(recoverGuard(cfg.Logger, auth.wrap(r))), nil
}

// root dispatches on the raw request path, before any cleaning, so that
// path tricks reach the proxy's checks instead of a redirect.
type root struct {
	preRender                                 bool // the dashboard page is pre-rendered with numbers
	proxy, assets, app, page, metrics, health http.Handler
}

func (h *root) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/prom" || strings.HasPrefix(p, "/prom/"):
		h.proxy.ServeHTTP(w, r)
	case strings.HasPrefix(p, "/web/"):
		h.assets.ServeHTTP(w, r)
	case p == "/metrics":
		h.metrics.ServeHTTP(w, r)
	case p == "/-/healthy" || p == "/-/ready":
		h.health.ServeHTTP(w, r)
	case p == "/robots.txt" || p == "/sitemap.xml" || p == "/ads.txt":
		// go-app would fetch these from /web/ over HTTP itself; specdash
		// has none.
		http.NotFound(w, r)
	case p == "/":
		// The dashboard page holds pre-rendered numbers: never answer 304
		// (go-app's ETag is the build's version, so a revalidated page
		// would keep the numbers of its first load).
		if r.Header.Get("If-None-Match") != "" {
			r = r.Clone(r.Context())
			r.Header.Del("If-None-Match")
		}
		h.page.ServeHTTP(w, withBrowserZone(w, r, h.preRender))
	default:
		h.app.ServeHTTP(w, r)
	}
}

// health answers /-/healthy (always, while the process serves) and
// /-/ready (when Config.Ready returns nil), as Prometheus does.
type health struct{ ready func() error }

func (h health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == "/-/ready" {
		if err := h.ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "specdash is not ready: %v\n", err)
			return
		}
		fmt.Fprintln(w, "specdash is Ready.")
		return
	}
	fmt.Fprintln(w, "specdash is Healthy.")
}

// BootPath is the URL path of web/static/boot.js: run from the page's head,
// it fetches and compiles the wasm while the body is still on its way and
// hands the module to go-app's app.js (docs/PERFORMANCE.md).
const BootPath = "/web/boot.js"

// CompilerPath is the URL path of web/static/compile.js: the dedicated
// worker in which boot.js compiles the wasm, off the page's main thread.
const CompilerPath = "/web/compile.js"

// rawHeaders are the page head's own tags: the preload of ECharts and,
// unless the wasm is missing, boot.js with the URLs of the wasm and of its
// compile worker (a classic script: it runs before go-app's deferred
// app.js, while the server still renders the body; async, it sometimes ran
// after app.js; no inline script, for the page's script-src 'self').
func rawHeaders(a *assets) []string {
	res := hashResolver{a}
	h := []string{`<link rel="preload" as="script" href="` + html.EscapeString(res.Resolve(EChartsPath)) + `">`}
	if _, err := a.file(strings.TrimPrefix(BootPath, "/web/")); err == nil && !a.wasmMissing {
		compiler := ""
		if _, err := a.file(strings.TrimPrefix(CompilerPath, "/web/")); err == nil {
			compiler = ` data-compiler="` + html.EscapeString(res.Resolve(CompilerPath)) + `"`
		}
		h = append(h, `<script src="`+html.EscapeString(res.Resolve(BootPath))+`" data-wasm="`+html.EscapeString(res.Resolve("/web/app.wasm"))+`" data-wasm-length="`+a.wasmLength+`"`+compiler+`></script>`)
	}
	return h
}

// hashResolver gives go-app content-hashed URLs for the embedded assets
// (/web/h-<hash>/<name>), which are cached for a year; other locations stay
// as they are (the server serves them itself: app.LocalDir is broken in
// go-app v10.1.11, and not being an http.Handler keeps go-app from serving
// files from the working directory).
type hashResolver struct{ a *assets }

func (h hashResolver) Resolve(location string) string {
	if location == "" {
		return "/"
	}
	if name, ok := strings.CutPrefix(location, "/web/"); ok && cleanAssetName(name) {
		if f, err := h.a.file(name); err == nil {
			return "/web/h-" + f.hash + "/" + name
		}
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

// appVersion is go-app's version of the app: the wasm's hash and the
// environment the server hands the page (sources, scrape intervals,
// version). go-app's service worker serves app.js, which carries the
// environment, from its cache until the version changes: keyed on the wasm
// alone, a server restarted with another scrape interval or source list
// kept returning browsers on the old settings (a wrong step), and so did a
// test server on a loopback port an earlier one had used.
func appVersion(wasm string, env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%q=%q\n", k, env[k])
	}
	return wasm + "-" + hex.EncodeToString(h.Sum(nil)[:4])
}
