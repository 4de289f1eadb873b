// Package embedded is specdash's embedded mode: an in-process Prometheus
// (github.com/prometheus/prometheus used as a library: its scrape manager,
// TSDB and PromQL engine) that scrapes vLLM /metrics endpoints directly and
// serves the read-only parts of the Prometheus HTTP API that specdash uses,
// at the same paths and in the same JSON (see Handler). The front end,
// metricsclient and report cannot tell it from a real Prometheus.
//
// It is host-only (the wasm front end never imports it).
//
// Behaviour follows Prometheus because it is Prometheus' code: every target
// gets an `up` series (1 after a successful scrape, 0 after a failed one)
// and scrape_duration_seconds, scrape_samples_scraped,
// scrape_samples_post_metric_relabeling and scrape_series_added, all with
// the labels job and instance (host:port); when a target goes down or a
// series disappears, staleness markers end its series, and its old samples
// stay queryable until retention removes them. Sample timestamps in the
// exposition are honoured (honor_timestamps), `_created` gauge families of
// prometheus_client are stored as the gauges they are.
//
// Bounds: Config.Retention (time-based retention of persisted blocks;
// the in-memory head holds up to about 3 h more, as in Prometheus),
// Config.SeriesLimit, Prometheus' scrape limits (Config.BodySizeLimit,
// SampleLimit, LabelLimit, LabelNameLengthLimit, LabelValueLengthLimit)
// and query limits (QueryConcurrency, QueryMaxSamples, QueryTimeout), all
// with defaults (see there and docs/CONFIG.md).
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/discovery/targetgroup"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/scrape"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"specdash/internal/panics"
)

// Defaults of Config.
const (
	DefaultScrapeInterval = 5 * time.Second
	DefaultRetention      = 6 * time.Hour
	DefaultBlockDuration  = 2 * time.Hour
	// DefaultSeriesLimit is the default Config.SeriesLimit. A vLLM server
	// exposes a few hundred series (the spec-decode families are 4 + k
	// per engine and model); 100,000 leaves room for many targets while
	// keeping the in-memory head to some hundreds of MB at most.
	DefaultSeriesLimit = 100_000
	// DefaultJobName is the job label of every target (as
	// internal/promtest's scrape job).
	DefaultJobName = "vllm"
	// DefaultQueryTimeout bounds one PromQL evaluation, the wait for a
	// free query slot included (Prometheus' --query.timeout, whose default
	// is 2 min). It is below the proxy's default upstream timeout (30 s,
	// server.DefaultUpstreamTimeout) so that a query past it ends with the
	// engine's "query timed out" answer, not with the proxy's 502 that
	// cannot say which query or limit.
	DefaultQueryTimeout = 20 * time.Second
	// DefaultQueryMaxSamples bounds the samples one query may hold in
	// memory at once (Prometheus' --query.max-samples, default
	// 50,000,000). A float sample costs 16 bytes, so 5,000,000 are about
	// 80 MB, a few hundred MB with the engine's overhead, per query: with
	// DefaultQueryConcurrency queries that stays below 1 GB, where
	// Prometheus' default allows about that much for each query. The
	// dashboard's widest query (a range over the 6 h retention at the
	// 5 s scrape interval, a few dozen series) loads some 10^5 samples.
	DefaultQueryMaxSamples = 5_000_000
	// DefaultQueryConcurrency is how many queries evaluate at once; more
	// wait for a slot (Prometheus' --query.max-concurrency, default 20).
	// PromQL evaluation is CPU-bound: on the 2 to 8 cores specdash
	// typically shares with other work, 20 heavy queries only slow each
	// other down while each holds its samples. 4 lets a page's light
	// queries pass one heavy one and bounds the memory of heavy ones to
	// 4 x DefaultQueryMaxSamples.
	DefaultQueryConcurrency = 4

	// DefaultBodySizeLimit bounds the uncompressed body of one scrape
	// (Prometheus' body_size_limit; its default is none). vLLM's /metrics
	// is tens of kB per model and engine; 10 MiB is hundreds of times
	// that, and it keeps a hostile or broken target from filling memory.
	DefaultBodySizeLimit = 10 << 20
	// MaxBodySizeLimit is the largest BodySizeLimit accepted: Prometheus'
	// label encoding (model/labels/labels_stringlabels.go) panics on a
	// label name or value over 16 MiB, in the scrape loop's goroutine
	// where nothing can recover it, before label_value_length_limit is
	// checked. A body below 15 MiB cannot carry such a value (the margin
	// covers the suffixes the protobuf parser appends to names).
	MaxBodySizeLimit = 15 << 20
	// DefaultSampleLimit bounds the samples of one scrape (Prometheus'
	// sample_limit; default none). A vLLM server exposes a few hundred
	// samples per model and engine (histograms included): 50,000 leaves
	// room for many engines and LoRA adapters. It is never above
	// SeriesLimit.
	DefaultSampleLimit = 50_000
	// DefaultLabelLimit bounds the labels of one series, job and instance
	// included (Prometheus' label_limit; default none). vLLM's series have
	// up to about 8.
	DefaultLabelLimit = 64
	// DefaultLabelNameLengthLimit bounds a label name in bytes (Prometheus'
	// label_name_length_limit; default none). vLLM's are under 32.
	DefaultLabelNameLengthLimit = 256
	// DefaultLabelValueLengthLimit bounds a label value in bytes
	// (Prometheus' label_value_length_limit; default none): 4 KiB is
	// PATH_MAX on Linux, so a model_name or LoRA adapter given as a file
	// path always fits.
	DefaultLabelValueLengthLimit = 4 << 10
)

// Config configures an Engine. Zero values mean the documented defaults.
type Config struct {
	// Targets are the /metrics URLs to scrape, e.g.
	// "http://gpu-host:8000/metrics" (scheme http or https; path default
	// "/metrics"; query parameters are sent as in Prometheus' params).
	// Their instance label is host:port. May be empty (query-only engine,
	// e.g. over backfilled data). Duplicates are an error.
	Targets []string
	// ScrapeInterval between scrapes of each target (default 5 s; whole
	// milliseconds, at least 100 ms). The scrape timeout equals it.
	ScrapeInterval time.Duration
	// StoragePath is the TSDB directory. "" means a temporary directory,
	// removed by Close.
	StoragePath string
	// Retention is how long persisted data is kept (default 6 h; at
	// least 1 min).
	Retention time.Duration
	// BlockDuration is the time range of one persisted TSDB block (default
	// DefaultBlockDuration, 2 h, as Prometheus; at least 1 min). The head
	// (in memory) is compacted into a block once it spans 1.5 blocks, so
	// it also bounds how much recent data is held in memory. Shorter blocks
	// run the head's compaction, WAL truncation and retention cycle more
	// often: the memory soak (bench BenchmarkEmbedded) uses that to go
	// through many cycles in an hour.
	BlockDuration time.Duration
	// SeriesLimit bounds memory (default DefaultSeriesLimit): a scrape of
	// one target that exposes more samples than this fails (SampleLimit is
	// never above it; up=0, the error in TargetStatus.LastError), and once
	// the in-memory head holds SeriesLimit series, a scrape that would
	// create a new series fails with a *SeriesLimitError (existing
	// series keep being written; the 5 per-target series up and scrape_*
	// are exempt, so a target over the limit still shows up=0 and the
	// error). Series that no longer receive samples, and those created by
	// a scrape that failed, leave the head at its next compaction (every
	// ~2 h).
	SeriesLimit int
	// JobName is the job label of the targets (default DefaultJobName).
	JobName string

	// Scrape limits, Prometheus' scrape config fields of the same names
	// (zero: the Default* constant). A scrape past one fails as a whole:
	// its target shows up=0 and a message naming the limit and its value
	// (TargetStatus.LastError); earlier samples stay.
	//
	// BodySizeLimit (body_size_limit) bounds the uncompressed body in
	// bytes, at most MaxBodySizeLimit.
	BodySizeLimit int64
	// SampleLimit (sample_limit) bounds the samples of one scrape; above
	// SeriesLimit it is SeriesLimit.
	SampleLimit int
	// LabelLimit (label_limit) bounds the labels of a series.
	LabelLimit int
	// LabelNameLengthLimit and LabelValueLengthLimit
	// (label_name_length_limit, label_value_length_limit) bound a label's
	// name and value in bytes.
	LabelNameLengthLimit  int
	LabelValueLengthLimit int

	// Query limits, Prometheus' flags of the same names (zero: the
	// Default* constant).
	//
	// QueryConcurrency (--query.max-concurrency): queries past it wait
	// for a slot, within QueryTimeout.
	QueryConcurrency int
	// QueryMaxSamples (--query.max-samples): a query that would hold more
	// samples at once fails with errorType execution (HTTP 422, as
	// Prometheus) and a message naming the limit.
	QueryMaxSamples int
	// QueryTimeout (--query.timeout) bounds a query, its wait for a slot
	// included; past it the query fails with errorType timeout (HTTP 503)
	// and a message naming the limit.
	QueryTimeout time.Duration

	// Logger receives the engine's, the scrape manager's and the TSDB's
	// logs (default: discard).
	Logger *slog.Logger

	// convertToNHCB stores classic histograms as native histograms with
	// custom buckets (Prometheus 3's convert_classic_histograms_to_nhcb):
	// tests use it for a source that holds such histograms.
	convertToNHCB bool
}

// TargetStatus is the state of one scrape target.
type TargetStatus struct {
	// URL is the scrape URL as given in Config.Targets.
	URL string `json:"url"`
	// Job and Instance are the target's job and instance labels.
	Job      string `json:"job"`
	Instance string `json:"instance"`
	// Health is "up", "down" or "unknown" (not scraped yet).
	Health string `json:"health"`
	// Up is true after a successful last scrape.
	Up bool `json:"up"`
	// LastError is the last scrape's error ("" when it succeeded).
	LastError string `json:"last_error"`
	// LastScrape is when the last scrape started (zero before the first).
	LastScrape time.Time `json:"last_scrape"`
	// LastScrapeDuration is the last scrape's duration.
	LastScrapeDuration time.Duration `json:"last_scrape_duration"`
}

// SeriesLimitError is the scrape error once the head holds Limit series and
// a scrape would add another one.
type SeriesLimitError struct {
	// Limit is Config.SeriesLimit; InMemory the series in the head.
	Limit    int
	InMemory uint64
	// Series is the rejected series.
	Series string
}

func (e *SeriesLimitError) Error() string {
	return fmt.Sprintf("embedded: series limit of %d reached (%d series in memory); new series %s rejected: raise the series limit or scrape fewer targets", e.Limit, e.InMemory, e.Series)
}

// Engine is an in-process Prometheus: scrape manager, TSDB and PromQL
// engine. Create it with New, run it with Run, serve its API with Handler,
// and release it with Close.
type Engine struct {
	cfg    Config
	log    *slog.Logger
	dir    string
	tmpDir bool

	reg    *prometheus.Registry
	db     *tsdb.DB
	qe     *promql.Engine
	parser parser.Parser
	gate   *queryGate
	// queryable is what queries read: the TSDB (tests wrap it).
	queryable storage.Queryable

	scrapeCfg *config.Config
	groups    []*targetgroup.Group
	urls      map[string]string // instance+path key -> given URL

	mu      sync.Mutex
	manager *scrape.Manager
	running bool
	closed  bool
	stopped chan struct{}
	// stopScrape stops the scrape manager once (Manager.Stop panics when
	// called twice).
	stopScrape sync.Once
	// storage tracks failed writes of the TSDB (StorageError).
	storage storageHealth
}

// New validates cfg, opens the TSDB (creating a temporary directory when
// StoragePath is "") and prepares the scrape configuration. Nothing is
// scraped until Run. Errors: an invalid target URL, interval or limit, and
// TSDB open errors.
func New(cfg Config) (*Engine, error) {
	if cfg.ScrapeInterval == 0 {
		cfg.ScrapeInterval = DefaultScrapeInterval
	}
	if cfg.ScrapeInterval < 100*time.Millisecond || cfg.ScrapeInterval%time.Millisecond != 0 {
		return nil, fmt.Errorf("embedded: scrape interval %v: must be at least 100ms and a whole number of milliseconds", cfg.ScrapeInterval)
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Retention < time.Minute {
		return nil, fmt.Errorf("embedded: retention %v: must be at least 1m", cfg.Retention)
	}
	if cfg.BlockDuration == 0 {
		cfg.BlockDuration = DefaultBlockDuration
	}
	if cfg.BlockDuration < time.Minute || cfg.BlockDuration%time.Millisecond != 0 {
		return nil, fmt.Errorf("embedded: block duration %v: must be at least 1m and a whole number of milliseconds", cfg.BlockDuration)
	}
	if cfg.SeriesLimit == 0 {
		cfg.SeriesLimit = DefaultSeriesLimit
	}
	if cfg.SeriesLimit < 0 {
		return nil, fmt.Errorf("embedded: series limit %d: must be positive", cfg.SeriesLimit)
	}
	if cfg.JobName == "" {
		cfg.JobName = DefaultJobName
	}
	if !model.LabelValue(cfg.JobName).IsValid() {
		return nil, fmt.Errorf("embedded: job name %q is not valid UTF-8", cfg.JobName)
	}
	if err := cfg.setLimits(); err != nil {
		return nil, err
	}
	// specdash_panics_total{where="scrape"|"query"} show 0 until a panic.
	panics.Total.WithLabelValues("scrape")
	panics.Total.WithLabelValues("query")
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, urls: map[string]string{}, stopped: make(chan struct{})}

	group := &targetgroup.Group{Source: "embedded"}
	seen := map[string]bool{}
	for _, raw := range cfg.Targets {
		ls, key, err := targetLabels(raw)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("embedded: target %q given twice", raw)
		}
		seen[key] = true
		e.urls[key] = raw
		group.Targets = append(group.Targets, ls)
	}
	e.groups = []*targetgroup.Group{group}

	sc, err := scrapeConfig(cfg)
	if err != nil {
		return nil, err
	}
	e.scrapeCfg = sc

	e.dir = cfg.StoragePath
	if e.dir == "" {
		d, err := os.MkdirTemp("", "specdash-tsdb-")
		if err != nil {
			return nil, fmt.Errorf("embedded: temporary storage directory: %w", err)
		}
		e.dir, e.tmpDir = d, true
	}
	e.reg = prometheus.NewRegistry()
	opts := tsdb.DefaultOptions()
	opts.RetentionDuration = cfg.Retention.Milliseconds()
	// As Prometheus does for short retentions: blocks of 2 h (BlockDuration),
	// never merged into larger ones, so retention can drop them one by one.
	opts.MinBlockDuration = cfg.BlockDuration.Milliseconds()
	opts.MaxBlockDuration = opts.MinBlockDuration
	opts.NoLockfile = false
	db, err := tsdb.Open(e.dir, cfg.Logger.With("component", "tsdb"), e.reg, opts, nil)
	if err != nil {
		e.removeTmp()
		return nil, fmt.Errorf("embedded: open TSDB in %s: %w", e.dir, err)
	}
	e.db = db
	e.queryable = db
	// Prometheus' own tracker: the queries in flight are kept in
	// queries.active in the storage directory (logged at the next start
	// if the process died during them), and Insert waits for a free slot.
	aqt, err := promql.NewActiveQueryTracker(e.dir, cfg.QueryConcurrency, cfg.Logger.With("component", "query tracker"))
	if err != nil {
		db.Close()
		e.removeTmp()
		return nil, fmt.Errorf("embedded: query tracker in %s: %w", e.dir, err)
	}
	e.gate = &queryGate{QueryTracker: aqt, timeout: cfg.QueryTimeout}
	e.parser = parser.NewParser(parser.Options{})
	e.qe = promql.NewEngine(promql.EngineOpts{
		Logger:               cfg.Logger.With("component", "query engine"),
		Reg:                  e.reg,
		MaxSamples:           cfg.QueryMaxSamples,
		Timeout:              cfg.QueryTimeout,
		ActiveQueryTracker:   e.gate,
		EnableAtModifier:     true,
		EnableNegativeOffset: true,
		Parser:               e.parser,
		NoStepSubqueryIntervalFn: func(int64) int64 {
			return cfg.ScrapeInterval.Milliseconds()
		},
	})
	return e, nil
}

// targetLabels turns a scrape URL into Prometheus' discovery labels
// (__address__, __scheme__, __metrics_path__, __param_*) and a key that
// identifies the scrape URL.
func targetLabels(raw string) (model.LabelSet, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("embedded: target %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", fmt.Errorf("embedded: target %q: scheme must be http or https, e.g. http://gpu-host:8000/metrics", raw)
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" {
		// Redacted: a password given in the URL is never echoed.
		return nil, "", fmt.Errorf("embedded: target %q: want http[s]://host[:port][/path][?params] (no user info or fragment)", u.Redacted())
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/metrics"
	}
	ls := model.LabelSet{
		model.AddressLabel:     model.LabelValue(host),
		model.SchemeLabel:      model.LabelValue(u.Scheme),
		model.MetricsPathLabel: model.LabelValue(path),
	}
	for k, vs := range u.Query() {
		if len(vs) > 0 {
			ls[model.LabelName(model.ParamLabelPrefix+k)] = model.LabelValue(vs[0])
		}
	}
	key := u.Scheme + "://" + host + path + "?" + u.Query().Encode()
	return ls, key, nil
}

func targetKey(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath() + "?" + u.Query().Encode()
}

// scrapeConfig is a Prometheus configuration with one scrape job, loaded
// through config.Load so every default and validation of Prometheus
// applies.
func scrapeConfig(cfg Config) (*config.Config, error) {
	iv := model.Duration(cfg.ScrapeInterval).String()
	y := fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
scrape_configs:
  - job_name: %q
    honor_timestamps: true
    sample_limit: %d
    body_size_limit: %dB
    label_limit: %d
    label_name_length_limit: %d
    label_value_length_limit: %d
    fallback_scrape_protocol: PrometheusText0.0.4
    convert_classic_histograms_to_nhcb: %t
`, iv, iv, cfg.JobName, cfg.SampleLimit, cfg.BodySizeLimit, cfg.LabelLimit, cfg.LabelNameLengthLimit, cfg.LabelValueLengthLimit, cfg.convertToNHCB)
	c, err := config.Load(y, cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("embedded: scrape configuration: %w", err)
	}
	return c, nil
}

// Run scrapes the targets every Config.ScrapeInterval until ctx is done,
// then stops the scrapers (writing staleness markers, as Prometheus does on
// shutdown) and returns nil. Run may be called once; the TSDB stays open
// (and Handler keeps answering) until Close.
func (e *Engine) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errors.New("embedded: Run after Close")
	}
	if e.running {
		e.mu.Unlock()
		return errors.New("embedded: Run called twice")
	}
	e.running = true
	m, err := scrape.NewManager(&scrape.Options{
		DiscoveryReloadInterval:  model.Duration(time.Second),
		DiscoveryReloadOnStartup: true,
	}, e.log.With("component", "scrape manager"), nil, nil, limitedAppendable{db: e.db, limit: e.cfg.SeriesLimit, log: e.log}, e.reg)
	if err != nil {
		e.mu.Unlock()
		close(e.stopped)
		return fmt.Errorf("embedded: scrape manager: %w", err)
	}
	if err := m.ApplyConfig(e.scrapeCfg); err != nil {
		e.mu.Unlock()
		close(e.stopped)
		return fmt.Errorf("embedded: scrape manager: %w", err)
	}
	e.manager = m
	e.mu.Unlock()
	defer close(e.stopped)

	tsets := make(chan map[string][]*targetgroup.Group, 1)
	tsets <- map[string][]*targetgroup.Group{e.cfg.JobName: e.groups}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- e.recovered("scrape", "scrape manager", r)
			}
		}()
		done <- m.Run(tsets)
	}()
	e.log.Info("embedded Prometheus scraping", "targets", e.cfg.Targets, "interval", e.cfg.ScrapeInterval, "storage", e.dir)
	select {
	case <-ctx.Done():
		e.stopScrape.Do(m.Stop)
		<-done
		return nil
	case err := <-done:
		e.stopScrape.Do(m.Stop)
		return err
	}
}

// Close stops scraping if Run is still going (the caller should cancel
// Run's context first), closes the TSDB and removes a temporary storage
// directory. It is safe to call more than once.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	m, running := e.manager, e.running
	e.mu.Unlock()
	if running && m != nil {
		e.stopScrape.Do(m.Stop)
		<-e.stopped
	}
	err := errors.Join(e.qe.Close(), e.db.Close())
	if rmErr := e.removeTmp(); err == nil {
		err = rmErr
	}
	return err
}

func (e *Engine) removeTmp() error {
	if !e.tmpDir {
		return nil
	}
	return os.RemoveAll(e.dir)
}

// StoragePath returns the TSDB directory in use (a temporary one when
// Config.StoragePath was "").
func (e *Engine) StoragePath() string { return e.dir }

// ScrapeInterval returns the scrape interval in use.
func (e *Engine) ScrapeInterval() time.Duration { return e.cfg.ScrapeInterval }

// Queryable is the engine's storage, for PromQL and tests.
func (e *Engine) Queryable() storage.Queryable { return e.db }

// Targets returns the state of every configured target, in the order of
// Config.Targets. Before Run, or before the first scrape of a target, its
// Health is "unknown".
func (e *Engine) Targets() []TargetStatus {
	out := make([]TargetStatus, 0, len(e.cfg.Targets))
	byKey := map[string]*scrape.Target{}
	e.mu.Lock()
	m := e.manager
	e.mu.Unlock()
	if m != nil {
		for _, ts := range m.TargetsActive() {
			for _, t := range ts {
				byKey[targetKey(t.URL())] = t
			}
		}
	}
	storageErr := e.StorageError()
	for _, raw := range e.cfg.Targets {
		ls, key, _ := targetLabels(raw)
		st := TargetStatus{URL: raw, Job: e.cfg.JobName, Instance: string(ls[model.AddressLabel]), Health: string(scrape.HealthUnknown)}
		if t, ok := byKey[key]; ok {
			health, lastErr := targetReport(t)
			st.Health = string(health)
			st.Up = health == scrape.HealthGood
			st.LastError = e.describeScrapeError(raw, lastErr)
			st.LastScrape = t.LastScrape()
			st.LastScrapeDuration = t.LastScrapeDuration()
		}
		if storageErr != "" {
			// The target answers, but its samples are not stored: down.
			st.Health, st.Up, st.LastError = string(scrape.HealthBad), false, storageErr
		}
		out = append(out, st)
	}
	return out
}

// targetReport is t's health and last error of one scrape: t's getters
// lock one at a time, so a scrape's report (which sets both, and the last
// scrape's time, at once) can land between two of them; they are read
// again while the last scrape's time moved during the reading (scrapes
// are at least a second apart, so a few tries suffice).
func targetReport(t *scrape.Target) (scrape.TargetHealth, error) {
	var (
		health scrape.TargetHealth
		err    error
	)
	for range 5 {
		at := t.LastScrape()
		health, err = t.Health(), t.LastError()
		if t.LastScrape().Equal(at) {
			break
		}
	}
	return health, err
}

// activeTargets returns the scrape manager's targets sorted by URL (nil
// before Run).
func (e *Engine) activeTargets() []*scrape.Target {
	e.mu.Lock()
	m := e.manager
	e.mu.Unlock()
	if m == nil {
		return nil
	}
	var out []*scrape.Target
	for _, ts := range m.TargetsActive() {
		out = append(out, ts...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL().String() < out[j].URL().String() })
	return out
}

// limitedAppendable is the TSDB with Config.SeriesLimit enforced on new
// series: the scrape loop passes ref 0 for a series it has not written
// yet.
type limitedAppendable struct {
	db    *tsdb.DB
	limit int
	log   *slog.Logger
}

func (l limitedAppendable) AppenderV2(ctx context.Context) storage.AppenderV2 {
	return &limitedAppender{AppenderV2: l.db.AppenderV2(ctx), head: l.db.Head(), limit: l.limit, log: l.log}
}

// reportSeries are the series the scrape loop writes about each target
// (scrape/scrape.go): exempt from the series limit so that a target that
// hits it still shows up=0 and its error. They are 5 per configured target.
var reportSeries = map[string]bool{
	"up":                                    true,
	"scrape_duration_seconds":               true,
	"scrape_samples_scraped":                true,
	"scrape_samples_post_metric_relabeling": true,
	"scrape_series_added":                   true,
}

type limitedAppender struct {
	storage.AppenderV2
	head  *tsdb.Head
	limit int
	log   *slog.Logger
}

// Append, Commit and Rollback run in the scrape loop's goroutine, which
// specdash cannot guard: a panic in the TSDB on a hostile sample becomes
// this scrape's error (the target shows it) instead of ending the process.
func (a *limitedAppender) Append(ref storage.SeriesRef, ls labels.Labels, st, t int64, v float64, h *histogram.Histogram, fh *histogram.FloatHistogram, opts storage.AppendV2Options) (_ storage.SeriesRef, err error) {
	defer a.guard("append", &err)
	if ref == 0 && !reportSeries[ls.Get(labels.MetricName)] {
		if n := a.head.NumSeries(); n >= uint64(a.limit) {
			return 0, &SeriesLimitError{Limit: a.limit, InMemory: n, Series: ls.String()}
		}
	}
	return a.AppenderV2.Append(ref, ls, st, t, v, h, fh, opts)
}

func (a *limitedAppender) Commit() (err error) {
	defer a.guard("commit", &err)
	return a.AppenderV2.Commit()
}

func (a *limitedAppender) Rollback() (err error) {
	defer a.guard("rollback", &err)
	return a.AppenderV2.Rollback()
}

// guard turns a panic into *err, logged and counted as where="scrape"
// (specdash_panics_total).
func (a *limitedAppender) guard(op string, err *error) {
	if r := recover(); r != nil {
		*err = recordPanic(a.log, "scrape", "TSDB "+op, r)
	}
}
