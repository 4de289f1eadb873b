//go:build !wasm

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/alecthomas/units"

	"specdash/embedded"
	"specdash/server"
	"specdash/simulate"
)

// version is specdash's version, set at build time with
// -ldflags="-X main.version=...".
var version = "dev"

// shutdownTimeout bounds the graceful shutdown after SIGINT/SIGTERM.
const shutdownTimeout = 10 * time.Second

// serveFlags are the flags of `specdash serve`.
type serveFlags struct {
	configFile    string
	promURL       string
	promScrape    time.Duration
	targets       []string
	scrape        time.Duration
	storagePath   string
	retention     time.Duration
	blockDuration time.Duration
	seriesLimit   int
	limits        embeddedLimits
	listen        string
	timeout       time.Duration
	timeoutSet    bool
	cacheTTL      time.Duration
	cacheTTLSet   bool
	preRender     time.Duration
	preRenderSet  bool
	warmUp        bool
	logLevel      string
	logFormat     string
	promScrapeSet bool
}

// embeddedLimits are the scrape and query limits of embedded mode (flags
// and config file keys of the same names; embedded.Config's fields).
type embeddedLimits struct {
	bodySizeLimit         units.Base2Bytes
	sampleLimit           int
	labelLimit            int
	labelNameLengthLimit  int
	labelValueLengthLimit int
	queryConcurrency      int
	queryMaxSamples       int
	queryTimeout          time.Duration
}

// apply sets the limits in c; a config file's non-zero values win over
// the flags.
func (l embeddedLimits) apply(c *embedded.Config, file *server.EmbeddedConfig) {
	c.BodySizeLimit = int64(l.bodySizeLimit)
	c.SampleLimit = l.sampleLimit
	c.LabelLimit = l.labelLimit
	c.LabelNameLengthLimit = l.labelNameLengthLimit
	c.LabelValueLengthLimit = l.labelValueLengthLimit
	c.QueryConcurrency = l.queryConcurrency
	c.QueryMaxSamples = l.queryMaxSamples
	c.QueryTimeout = l.queryTimeout
	if file == nil {
		return
	}
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	if file.BodySizeLimit != 0 {
		c.BodySizeLimit = int64(file.BodySizeLimit)
	}
	set(&c.SampleLimit, file.SampleLimit)
	set(&c.LabelLimit, file.LabelLimit)
	set(&c.LabelNameLengthLimit, file.LabelNameLengthLimit)
	set(&c.LabelValueLengthLimit, file.LabelValueLengthLimit)
	set(&c.QueryConcurrency, file.QueryMaxConcurrency)
	set(&c.QueryMaxSamples, file.QueryMaxSamples)
	if file.QueryTimeout != 0 {
		c.QueryTimeout = time.Duration(file.QueryTimeout)
	}
}

// registerServe adds the "serve" command: the web UI and the same-origin
// read-only proxy to Prometheus, to named sources of a config file, or to
// an embedded Prometheus that scrapes vLLM itself.
func registerServe(a *kingpin.Application, cmds map[string]func() error) *serveFlags {
	cmd := a.Command("serve", "Serve the dashboard (web UI and a read-only proxy). Without --prometheus.url or --config.file it runs an embedded Prometheus that scrapes --scrape.target (or, with no target, a built-in vLLM simulator).")
	f := &serveFlags{}
	cmd.Flag("config.file", "YAML file with named sources (Prometheus, Thanos, Mimir, VictoriaMetrics, embedded), HTTP client settings and access control; see docs/CONFIG.md.").StringVar(&f.configFile)
	cmd.Flag("prometheus.url", "Prometheus HTTP API root that holds the vLLM metrics, e.g. http://127.0.0.1:9090 (a path prefix such as /prometheus is kept).").StringVar(&f.promURL)
	cmd.Flag("prometheus.scrape-interval", "Scrape interval of the vLLM targets in that Prometheus; the query step never goes below it.").Default("15s").IsSetByUser(&f.promScrapeSet).DurationVar(&f.promScrape)
	cmd.Flag("scrape.target", "Embedded mode: a vLLM /metrics URL to scrape, e.g. http://gpu-host:8000/metrics (repeatable). None: scrape a built-in simulator.").StringsVar(&f.targets)
	cmd.Flag("scrape.interval", "Embedded mode: scrape interval.").Default("5s").DurationVar(&f.scrape)
	cmd.Flag("storage.path", "Embedded mode: TSDB directory (default: a temporary directory, removed on exit).").StringVar(&f.storagePath)
	cmd.Flag("storage.retention", "Embedded mode: how long data is kept.").Default("6h").DurationVar(&f.retention)
	cmd.Flag("storage.block-duration", "Embedded mode: time range of one TSDB block; the in-memory head is compacted into a block once it spans 1.5 of them (Prometheus' hidden --storage.tsdb.min-block-duration). For tests and soaks.").Default("2h").Hidden().DurationVar(&f.blockDuration)
	cmd.Flag("storage.series-limit", "Embedded mode: most series held in memory (bounds memory; a scrape adding more fails, its target shows the error).").Default(fmt.Sprint(embedded.DefaultSeriesLimit)).IntVar(&f.seriesLimit)
	l := &f.limits
	cmd.Flag("scrape.body-size-limit", "Embedded mode: largest uncompressed body of one scrape (at most 15MiB); a larger one fails the scrape (Prometheus' body_size_limit).").Default(units.Base2Bytes(embedded.DefaultBodySizeLimit).String()).BytesVar(&l.bodySizeLimit)
	cmd.Flag("scrape.sample-limit", "Embedded mode: most samples of one scrape; more fail the scrape (Prometheus' sample_limit; never above --storage.series-limit).").Default(fmt.Sprint(embedded.DefaultSampleLimit)).IntVar(&l.sampleLimit)
	cmd.Flag("scrape.label-limit", "Embedded mode: most labels of one series, job and instance included (Prometheus' label_limit).").Default(fmt.Sprint(embedded.DefaultLabelLimit)).IntVar(&l.labelLimit)
	cmd.Flag("scrape.label-name-length-limit", "Embedded mode: longest label name in bytes (Prometheus' label_name_length_limit).").Default(fmt.Sprint(embedded.DefaultLabelNameLengthLimit)).IntVar(&l.labelNameLengthLimit)
	cmd.Flag("scrape.label-value-length-limit", "Embedded mode: longest label value in bytes (Prometheus' label_value_length_limit).").Default(fmt.Sprint(embedded.DefaultLabelValueLengthLimit)).IntVar(&l.labelValueLengthLimit)
	cmd.Flag("query.max-concurrency", "Embedded mode: most queries evaluated at once; more wait for a slot within --query.timeout.").Default(fmt.Sprint(embedded.DefaultQueryConcurrency)).IntVar(&l.queryConcurrency)
	cmd.Flag("query.max-samples", "Embedded mode: most samples one query may hold in memory at once; past it the query fails.").Default(fmt.Sprint(embedded.DefaultQueryMaxSamples)).IntVar(&l.queryMaxSamples)
	cmd.Flag("query.timeout", "Embedded mode: longest a query may take, its wait for a slot included (keep it below --web.upstream-timeout so that the query's own error reaches the page).").Default(embedded.DefaultQueryTimeout.String()).DurationVar(&l.queryTimeout)
	cmd.Flag("web.listen-address", "Address to listen on for the web UI (default web.listen_address of the config file, else :$SPECDASH_PORT when set, else :8080).").StringVar(&f.listen)
	cmd.Flag("web.upstream-timeout", "Bound of one upstream request, answer included (wins over upstream_timeout in the config file when given).").Default(server.DefaultUpstreamTimeout.String()).IsSetByUser(&f.timeoutSet).DurationVar(&f.timeout)
	cmd.Flag("web.cache-ttl", "How long identical proxy requests are answered from the cache; 0: off, with the range cache of settled points (as cache_ttl: 0s in the config file, which the flag wins over when given).").Default(server.DefaultCacheTTL.String()).IsSetByUser(&f.cacheTTLSet).DurationVar(&f.cacheTTL)
	cmd.Flag("web.prerender-timeout", "How long the server's pre-render may wait for the source to put numbers in the first paint of the page; past it the page comes without them and the browser loads as usual. 0: never (as prerender_timeout: 0s in the config file).").Default(server.DefaultPreRenderTimeout.String()).IsSetByUser(&f.preRenderSet).DurationVar(&f.preRender)
	cmd.Flag("web.warm-up", "Read the default view once at start, so that the first visitor of / finds its window in the proxy's caches and its numbers pre-rendered. On by default; --no-web.warm-up: not before a visitor asks. Off without a cache and in embedded mode.").Default("true").BoolVar(&f.warmUp)
	cmd.Flag("log.level", "Log level: debug, info, warn, error.").Default("info").EnumVar(&f.logLevel, "debug", "info", "warn", "error")
	cmd.Flag("log.format", "Log format: text or json.").Default("text").EnumVar(&f.logFormat, "text", "json")
	cmds[cmd.FullCommand()] = func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return runServe(ctx, f, nil)
	}
	return f
}

func newLogger(level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// engines runs the embedded engines (and the simulator) of a serve.
type engines struct {
	log     *slog.Logger
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	engines []*embedded.Engine
	closers []func()
}

func newEngines(log *slog.Logger) *engines {
	return &engines{log: log, cancel: func() {}}
}

// start creates and runs one engine; its handler serves the proxy, whose
// upstream timeout should be longer than the engine's query timeout.
func (es *engines) start(ctx context.Context, cfg embedded.Config, upstreamTimeout time.Duration) (*embedded.Engine, error) {
	cfg.Logger = es.log.With("component", "embedded")
	e, err := embedded.New(cfg)
	if err != nil {
		return nil, err
	}
	if qt := cfg.QueryTimeout; qt >= upstreamTimeout {
		es.log.Warn("the embedded query timeout is not below the upstream timeout: a slow query ends in the proxy's 502 instead of its own timeout error", "query.timeout", qt, "web.upstream-timeout", upstreamTimeout)
	}
	es.engines = append(es.engines, e)
	es.wg.Add(1)
	go func() {
		defer es.wg.Done()
		if err := e.Run(ctx); err != nil {
			es.log.Error("embedded Prometheus stopped", "err", err)
		}
	}()
	return e, nil
}

// stop ends scraping and closes the TSDBs (removing temporary ones).
func (es *engines) stop() {
	es.cancel()
	es.wg.Wait()
	for _, e := range es.engines {
		if err := e.Close(); err != nil {
			es.log.Warn("closing embedded storage", "err", err)
		}
	}
	for _, c := range es.closers {
		c()
	}
}

// startSimulator serves the built-in vLLM simulator on a loopback port
// and returns its /metrics URL.
func (es *engines) startSimulator(ctx context.Context) (string, error) {
	sim, err := simulate.New(simulate.Config{
		Models:          []string{"meta-llama/Llama-3.1-8B-Instruct", `Llama 3 "chat" 8B`},
		Engines:         2,
		K:               4,
		Acceptance:      []float64{0.8, 0.7, 0.6, 0.5},
		DraftsPerSecond: 20,
		Seed:            1,
	})
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("simulator: %w", err)
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	go sim.Run(ctx)
	es.closers = append(es.closers, func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/metrics", nil
}

// runServe builds the sources from the flags (or config file), serves
// until ctx ends, then shuts down: HTTP first, then the embedded engines.
// When ready is non-nil it receives the listening address.
func runServe(ctx context.Context, f *serveFlags, ready chan<- string) error {
	log := newLogger(f.logLevel, f.logFormat)
	slog.SetDefault(log)
	defListen, err := defaultListen(os.Getenv)
	if err != nil {
		return err
	}
	cfg := server.Config{
		Version:         version,
		Logger:          log,
		UpstreamTimeout: f.timeout,
		CacheTTL:        f.cacheTTL,
		WarmUp:          f.warmUp,
	}
	if f.cacheTTL < 0 {
		return badFlags(fmt.Errorf("serve: --web.cache-ttl must be 0 (off) or positive, got %s", f.cacheTTL))
	}
	if f.timeout <= 0 {
		return badFlags(fmt.Errorf("serve: --web.upstream-timeout must be positive, got %s", f.timeout))
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = -1 // off, as cache_ttl: 0s in the config file
	}
	var ok bool
	if cfg.PreRenderTimeout, ok = preRenderTimeout(f.preRender); !ok {
		return badFlags(fmt.Errorf("serve: --web.prerender-timeout must be 0 (off) or positive, got %s", f.preRender))
	}
	es := newEngines(log)
	ectx, cancel := context.WithCancel(context.Background())
	es.cancel = cancel
	defer es.stop()

	listen := f.listen
	switch {
	case f.configFile != "":
		if f.promURL != "" || len(f.targets) > 0 {
			return badFlags(errors.New("serve: --config.file lists the sources: do not also give --prometheus.url or --scrape.target"))
		}
		fc, err := server.LoadConfigFile(f.configFile)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		cfg.DefaultSource = fc.DefaultSource
		cfg.Auth = fc.Web.AuthConfig
		f.applyFileWeb(&cfg, fc.Web)
		if listen == "" {
			listen = fc.Web.ListenAddress
		}
		for _, s := range fc.Sources {
			if s.Embedded == nil {
				cfg.Sources = append(cfg.Sources, s.Source())
				continue
			}
			ec := embedded.Config{
				Targets:        s.Embedded.Targets,
				ScrapeInterval: time.Duration(s.Embedded.ScrapeInterval),
				StoragePath:    s.Embedded.StoragePath,
				Retention:      time.Duration(s.Embedded.Retention),
				SeriesLimit:    s.Embedded.SeriesLimit,
				JobName:        s.Name,
			}
			f.limits.apply(&ec, s.Embedded)
			e, err := es.start(ectx, ec, cfg.UpstreamTimeout)
			if err != nil {
				return fmt.Errorf("serve: source %s: %w", s.Name, err)
			}
			label := s.Label
			if label == "" {
				label = embeddedLabel(len(s.Embedded.Targets), false)
			}
			cfg.Sources = append(cfg.Sources, server.Source{
				Name: s.Name, Label: label, Kind: server.KindEmbedded,
				Handler: e.Handler(), ScrapeInterval: e.ScrapeInterval(),
			})
		}
	case f.promURL != "":
		if len(f.targets) > 0 {
			return badFlags(errors.New("serve: --prometheus.url and --scrape.target exclude each other: the first reads an existing Prometheus, the second scrapes vLLM itself (embedded mode)"))
		}
		if f.promScrape <= 0 {
			return badFlags(fmt.Errorf("serve: --prometheus.scrape-interval must be positive, got %s", f.promScrape))
		}
		cfg.PrometheusURL = f.promURL
		cfg.ScrapeInterval = f.promScrape
	default:
		if f.scrape <= 0 {
			// embedded.Config reads 0 as its default (5s): an explicit
			// --scrape.interval=0s would be replaced without a word.
			return badFlags(fmt.Errorf("serve: --scrape.interval must be positive, got %s", f.scrape))
		}
		targets := f.targets
		simulated := len(targets) == 0
		if simulated {
			u, err := es.startSimulator(ectx)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			targets = []string{u}
			log.Info("no --scrape.target: scraping the built-in vLLM simulator", "target", u)
		}
		ec := embedded.Config{
			Targets:        targets,
			ScrapeInterval: f.scrape,
			StoragePath:    f.storagePath,
			Retention:      f.retention,
			BlockDuration:  f.blockDuration,
			SeriesLimit:    f.seriesLimit,
		}
		f.limits.apply(&ec, nil)
		e, err := es.start(ectx, ec, cfg.UpstreamTimeout)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		cfg.Sources = []server.Source{{
			Name: "embedded", Label: embeddedLabel(len(targets), simulated), Kind: server.KindEmbedded,
			Handler: e.Handler(), ScrapeInterval: e.ScrapeInterval(),
		}}
	}
	if listen == "" {
		listen = defListen
	}
	warnPreRenderTimeout(log, cfg.PreRenderTimeout, cfg.UpstreamTimeout)
	h, err := server.New(cfg)
	if err != nil {
		return err
	}
	return runServer(ctx, log, listen, h, ready)
}

// preRenderTimeout is server.Config.PreRenderTimeout for the pre-render
// budget d of --web.prerender-timeout or the config file's
// prerender_timeout: 0 turns the pre-rendered numbers off (negative in
// server.Config, whose 0 is its default); false for a negative d.
func preRenderTimeout(d time.Duration) (time.Duration, bool) {
	switch {
	case d < 0:
		return 0, false
	case d == 0:
		return -1, true
	}
	return d, true
}

// applyFileWeb sets cfg's timeouts, cache and response bound from the
// config file's web keys, where no flag was given: a flag given wins over
// its key, as for the listen address.
func (f *serveFlags) applyFileWeb(cfg *server.Config, w server.WebConfig) {
	if w.UpstreamTimeout > 0 && !f.timeoutSet {
		cfg.UpstreamTimeout = time.Duration(w.UpstreamTimeout)
	}
	if d := w.PreRenderTimeout; d != nil && !f.preRenderSet {
		// Never negative: the file's durations cannot be.
		cfg.PreRenderTimeout, _ = preRenderTimeout(time.Duration(*d))
	}
	if ttl := w.CacheTTL; ttl != nil && !f.cacheTTLSet {
		cfg.CacheTTL = time.Duration(*ttl)
		if cfg.CacheTTL == 0 {
			cfg.CacheTTL = -1 // off
		}
	}
	cfg.MaxResponseBytes = int64(w.MaxResponseBytes)
}

// warnPreRenderTimeout warns when the pre-render's budget is not below
// the upstream timeout (0: server.DefaultUpstreamTimeout): the budget
// then never ends a pre-render, the upstream's requests do, and with a
// hung source every page waits for them before it comes without numbers.
func warnPreRenderTimeout(log *slog.Logger, preRender, upstream time.Duration) {
	upstream = cmp.Or(upstream, server.DefaultUpstreamTimeout)
	if preRender >= upstream {
		log.Warn("the pre-render timeout (--web.prerender-timeout, prerender_timeout in the config file) is not below the upstream timeout (--web.upstream-timeout, upstream_timeout): with a slow or hung source a page waits for the upstream timeout before it comes without numbers",
			"prerender_timeout", preRender, "upstream_timeout", upstream)
	}
}

// defaultListen is the listen address when neither --web.listen-address
// nor the config file gives one: ":$SPECDASH_PORT" when that is set (the
// port `make run` uses too), else ":8080".
func defaultListen(getenv func(string) string) (string, error) {
	p := getenv("SPECDASH_PORT")
	if p == "" {
		return ":8080", nil
	}
	if _, err := strconv.ParseUint(p, 10, 16); err != nil {
		return "", fmt.Errorf("serve: SPECDASH_PORT=%q is not a port number (0-65535)", p)
	}
	return ":" + p, nil
}

// embeddedLabel is the source line of an embedded source.
func embeddedLabel(n int, simulated bool) string {
	s := fmt.Sprintf("embedded, scraping %d target", n)
	if n != 1 {
		s += "s"
	}
	if simulated {
		s += " (built-in vLLM simulator)"
	}
	return s
}

// runServer listens on addr and serves h until ctx ends, then shuts down
// gracefully (bounded by shutdownTimeout).
func runServer(ctx context.Context, log *slog.Logger, addr string, h http.Handler, ready chan<- string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	url := "http://" + displayAddr(ln.Addr())
	// "/" opens with auto-refresh off (view.DefaultQuery): say so rather
	// than print a link that behaves otherwise.
	log.Info("specdash serving", "address", url, "auto-refresh", "off at /: choose it in the page, or open /?refresh=5s", "version", version)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// displayAddr turns a wildcard listen address into one a browser can open.
func displayAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return strings.TrimSpace(a.String())
	}
	return net.JoinHostPort("localhost", fmt.Sprint(ta.Port))
}
