// Package metricsclient reads the speculative-decoding counters from a
// Prometheus-compatible HTTP API (Prometheus, Thanos, Mimir, VictoriaMetrics)
// with client_golang's api/prometheus/v1 and turns them into compute.Series.
//
// It builds for the host and for js/wasm (the browser queries through the
// server's same-origin proxy, e.g. Address "/prom").
//
// Metric names: docs/METRICS.md (vLLM V1, class SpecDecodingProm
// in vllm/v1/spec_decode/metrics.py). Other engines are Schema values
// (schema.go: vLLM under Ray Serve, llama.cpp, TensorRT-LLM, vLLM V0,
// SGLang); Detect finds which one a source has, FetchAuto detects and
// fetches, and a *MissingMetricsError says what was looked for, what exists
// and the likely cause when nothing matches.
package metricsclient

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// Config configures a Client.
type Config struct {
	// Address of the Prometheus HTTP API root, e.g. "http://127.0.0.1:9090"
	// or, in the browser, the same-origin proxy "/prom" (a path starting with
	// "/"; only usable where relative URLs resolve, i.e. in the browser).
	Address string
	// RoundTripper; nil means http.DefaultTransport (required in wasm:
	// client_golang's api.DefaultRoundTripper sets DialContext, which makes
	// Go's js transport bypass the browser's fetch).
	RoundTripper http.RoundTripper
	// ScrapeInterval of the source (default 15 s); the step never goes below it.
	ScrapeInterval time.Duration
	// Schema of the metrics; the zero value means VLLMV1. FetchAuto and
	// Detect ignore it and look for every schema of Schemas.
	Schema Schema
}

// Client queries one Prometheus-compatible source. It is safe for
// concurrent use.
type Client struct {
	api     v1.API
	raw     api.Client // the same client, for queryRangeMatrix
	address string
	scrape  time.Duration
	schema  Schema
	// clock is the server's clock seen through its answers (shared by
	// WithSchema's copies).
	clock *serverClock
}

// New returns a Client for cfg. Errors: an empty or unparsable Address, or one
// that is neither an http(s) URL nor a path starting with "/".
func New(cfg Config) (*Client, error) {
	addr := strings.TrimSpace(cfg.Address)
	if addr == "" {
		return nil, fmt.Errorf("no Prometheus address given (e.g. http://127.0.0.1:9090)")
	}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, fmt.Errorf("invalid Prometheus address %q: %v", addr, err)
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		if u.Host == "" {
			return nil, fmt.Errorf("invalid Prometheus address %q: no host", addr)
		}
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/"):
		// Relative to the page's origin (browser proxy).
	default:
		return nil, fmt.Errorf("invalid Prometheus address %q: use http://host:port[/prefix], https://..., or a path such as /prom", addr)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("invalid Prometheus address %q: no query string or fragment allowed", addr)
	}
	rt := cfg.RoundTripper
	if rt == nil {
		rt = http.DefaultTransport
	}
	clock := &serverClock{now: time.Now}
	c, err := api.NewClient(api.Config{Address: addr, RoundTripper: answersTransport{rt: clockTransport{rt: rt, c: clock}}})
	if err != nil {
		return nil, fmt.Errorf("invalid Prometheus address %q: %v", addr, err)
	}
	scrape := cfg.ScrapeInterval
	if scrape <= 0 {
		scrape = DefaultScrapeInterval
	}
	schema := cfg.Schema
	if len(schema.Metrics) == 0 && len(schema.Extra) == 0 {
		schema = VLLMV1
	}
	return &Client{api: v1.NewAPI(c), raw: c, address: addr, scrape: scrape, schema: schema, clock: clock}, nil
}

// Address returns the configured Prometheus address.
func (c *Client) Address() string { return c.address }

// ScrapeInterval returns the configured scrape interval (DefaultScrapeInterval
// when none was given).
func (c *Client) ScrapeInterval() time.Duration { return c.scrape }

// Schema returns the client's schema.
func (c *Client) Schema() Schema { return c.schema }

// WithSchema returns a Client for the same source using schema s (for
// example Detection.Schema), so that FetchSeries and LabelValues read that
// engine's metrics. A schema without metrics means VLLMV1. c is unchanged.
func (c *Client) WithSchema(s Schema) *Client {
	cp := *c
	if len(s.Metrics) == 0 && len(s.Extra) == 0 {
		s = VLLMV1
	}
	cp.schema = s
	return &cp
}

// ValidateGrid checks that g can be queried: Step > 0, End > Start, End-Start
// a multiple of Step, and at most MaxPoints points per series.
func ValidateGrid(g compute.Grid) error {
	if g.Step <= 0 {
		return fmt.Errorf("invalid grid: step %d ms must be positive", g.Step)
	}
	if g.End <= g.Start {
		return fmt.Errorf("invalid grid: end %d ms is not after start %d ms", g.End, g.Start)
	}
	if (g.End-g.Start)%g.Step != 0 {
		return fmt.Errorf("invalid grid: range %d ms is not a multiple of the step %d ms", g.End-g.Start, g.Step)
	}
	if pts := (g.End-g.Start)/g.Step + 1; pts > MaxPoints {
		minStep := time.Duration((g.End-g.Start+MaxPoints-2)/(MaxPoints-1)) * time.Millisecond
		return fmt.Errorf("range %s at step %s needs %d points per series, more than Prometheus' limit of %d: use a step of at least %s",
			time.Duration(g.End-g.Start)*time.Millisecond, time.Duration(g.Step)*time.Millisecond, pts, MaxPoints, minStep)
	}
	return nil
}

// FetchSeries returns the client schema's counter families (vLLM V1 by
// default) matching filters, as their values at the grid's points Start,
// Start+Step, ..., End (Unix ms), with one query_range (Schema.CounterQuery):
// at each point the last sample in the step's lookback window (Lookback:
// max(step, 5 m)), so a series that lives less than one step still shows
// at the step point after it. The counters' _created gauges come in the
// same query and set each series' start time (compute.Series.Created), so
// a series that started inside the window counts from 0 whatever the step
// (compute.IncreaseSince). Values are raw counter values (drafts or
// tokens); NaN points are left out. The second result holds Prometheus'
// warnings and specdash's own: a family of the schema with no series while
// others have some, and series that started inside the window without a
// start time (startWarnings). It reads neither a schema's Extra metrics nor
// a gauge schema: use FetchAuto for those.
//
// Errors: an invalid grid (see ValidateGrid: more than MaxPoints points is
// refused, not silently re-stepped), an invalid filter, a gauge schema (no
// counters), an *APIError for a failed request, a malformed position label,
// and *MissingMetricsError when no series matched.
func (c *Client) FetchSeries(ctx context.Context, g compute.Grid, filters []Filter) ([]compute.Series, []string, error) {
	if err := ValidateGrid(g); err != nil {
		return nil, nil, err
	}
	if len(c.schema.Metrics) == 0 {
		return nil, nil, fmt.Errorf("schema %s has no counters (its metrics are gauges averaged over time): use FetchAuto", c.schema.Name)
	}
	sel, err := c.schema.CounterSelector(filters)
	if err != nil {
		return nil, nil, err
	}
	series, warnings, err := c.fetchCounters(ctx, c.schema, g, filters)
	if err != nil {
		return nil, warnings, err
	}
	if len(series) == 0 {
		return nil, warnings, c.diagnose(ctx, c.schema.Names(), sel, filters, time.UnixMilli(g.Start), time.UnixMilli(g.End))
	}
	return series, warnings, nil
}

func typeName(v model.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Type().String()
}

// MaxPosition bounds the position label, as compute.MaxPosition does (vLLM's
// k is a few; a larger position means a malformed series).
const MaxPosition = compute.MaxPosition

// SeriesFromMatrix converts a query_range matrix of schema's metrics into
// compute.Series: Family from __name__, Position from the position label
// (AcceptedPerPosition only; -1 otherwise), Labels without __name__ and
// position, Points in ascending time with T in Unix ms. NaN values (and
// series left without points) are dropped; series of other metrics are
// skipped. The matrix may hold the counters' _created gauges (CreatedNames):
// they are not series of their own; each counter series' Created (Unix ms)
// is its _created series' value (seconds x 1000) at the counter's first point
// or, failing that, just after it (0 when the source exports none, as
// prometheus_client's multiprocess mode and vLLM V0 do). The result is sorted by family, labels and position. Warnings name
// schema families that have no series while others have some (for example
// vLLM V0, which has no drafts counter). Errors: a per-position series whose
// position label is missing, not an integer, negative or above MaxPosition.
func SeriesFromMatrix(m model.Matrix, schema Schema) ([]compute.Series, []string, error) {
	var out []compute.Series
	var warnings []string
	seen := map[compute.Family]bool{}
	skipped := map[string]bool{}
	createdNames := map[string]bool{}
	for _, n := range schema.CreatedNames() {
		createdNames[n] = true
	}
	created := map[string][]model.SamplePair{}
	for _, ss := range m {
		if name := string(ss.Metric[model.MetricNameLabel]); createdNames[name] {
			created[seriesKey(ss.Metric, name)] = ss.Values
		}
	}
	for _, ss := range m {
		name := string(ss.Metric[model.MetricNameLabel])
		if createdNames[name] {
			continue
		}
		fam, ok := schema.Family(name)
		if !ok {
			skipped[name] = true
			continue
		}
		s := compute.Series{Family: fam, Position: -1, Labels: map[string]string{}}
		for k, v := range ss.Metric {
			if k == model.MetricNameLabel || (fam == compute.AcceptedPerPosition && string(k) == schema.PositionLabel) {
				continue
			}
			s.Labels[string(k)] = string(v)
		}
		if fam == compute.AcceptedPerPosition {
			pv, has := ss.Metric[model.LabelName(schema.PositionLabel)]
			p, err := strconv.Atoi(string(pv))
			if !has || err != nil || p < 0 || p > MaxPosition {
				return nil, warnings, fmt.Errorf("series %s has an invalid %s label %q: want an integer 0..%d", ss.Metric, schema.PositionLabel, string(pv), MaxPosition)
			}
			s.Position = p
		}
		s.Points = make([]compute.Point, 0, len(ss.Values))
		for _, sp := range ss.Values {
			v := float64(sp.Value)
			if math.IsNaN(v) {
				continue
			}
			s.Points = append(s.Points, compute.Point{T: int64(sp.Timestamp), V: v})
		}
		if len(s.Points) == 0 {
			continue
		}
		if !sort.SliceIsSorted(s.Points, func(i, j int) bool { return s.Points[i].T < s.Points[j].T }) {
			sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].T < s.Points[j].T })
		}
		if cn := CreatedName(name); cn != "" && len(created) > 0 {
			if cv, ok := created[seriesKey(ss.Metric, cn)]; ok {
				s.Created = createdAt(cv, s.Points[0].T)
			}
		}
		seen[fam] = true
		out = append(out, s)
	}
	for n := range skipped {
		warnings = append(warnings, fmt.Sprintf("ignored series of unexpected metric %q", n))
	}
	sort.Strings(warnings)
	if len(out) > 0 {
		for _, f := range families {
			if n, ok := schema.Metrics[f]; ok && !seen[f] {
				msg := fmt.Sprintf("metric %s has no series here while the other speculative-decoding counters do; the numbers that need it are undefined", n)
				if schema.ID == LlamaCpp.ID && f == compute.AcceptedPerPosition {
					msg += " (llama.cpp exports it only after the first speculative request completes)"
				} else if schema.ID == LMDeploy.ID && f == compute.AcceptedPerPosition {
					msg += " (LMDeploy creates it at its first speculative step)"
				}
				warnings = append(warnings, msg)
			}
		}
	}
	// Sort by family, labels and position, each series' label string
	// computed once.
	keyed := make([]struct {
		s      compute.Series
		labels string
	}, len(out))
	for i, s := range out {
		keyed[i].s, keyed[i].labels = s, labelString(s.Labels)
	}
	sort.SliceStable(keyed, func(i, j int) bool {
		a, b := keyed[i], keyed[j]
		if a.s.Family != b.s.Family {
			return a.s.Family < b.s.Family
		}
		if a.labels != b.labels {
			return a.labels < b.labels
		}
		return a.s.Position < b.s.Position
	})
	for i := range keyed {
		out[i] = keyed[i].s
	}
	return out, warnings, nil
}

func labelString(l map[string]string) string {
	ls := model.LabelSet{}
	for k, v := range l {
		ls[model.LabelName(k)] = model.LabelValue(v)
	}
	return ls.String()
}

// LabelValues returns the values of label among the schema's series that
// match filters and have samples between start and end, sorted. It uses the
// label values API with match[] = the selector. Errors: an invalid label name
// or filter, an *APIError. No matching series gives an empty list.
func (c *Client) LabelValues(ctx context.Context, label string, filters []Filter, start, end time.Time) ([]string, error) {
	if err := ValidateLabelName(label); err != nil {
		return nil, err
	}
	sel, err := c.schema.Selector(filters)
	if err != nil {
		return nil, err
	}
	return c.labelValues(ctx, label, []string{sel}, start, end)
}

func (c *Client) labelValues(ctx context.Context, label string, matches []string, start, end time.Time) ([]string, error) {
	vals, _, _, err := c.api.LabelValues(ctx, label, matches, start, end)
	if err != nil {
		return nil, wrapErr("label values", c.address, err)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	sort.Strings(out)
	return out, nil
}

// specLike matches metric names that may be speculative-decoding related
// (the server-side specLikeMatcher); looksSpec narrows it.
var specLike = regexp.MustCompile(`(?i)spec|draft|accept`)

// acceptOnly matches the names whose "accept" is about tokens, a rate or a
// length (accepted_tokens, acceptance_rate, accept_length): a name that
// matches specLike only through "accept" must match it too, so that e.g.
// Prometheus' own net_conntrack_listener_conn_accepted_total is not taken
// for a renamed speculative-decoding counter.
var acceptOnly = regexp.MustCompile(`(?i)accept[a-z]*_?(tok|rate|len)`)

// looksSpec reports whether a metric name looks speculative-decoding
// related: it contains "spec" or "draft", or "accept" about tokens, a rate
// or a length, and is not a counter's OpenMetrics creation time (a
// *_created gauge, which comes with every counter and says nothing more).
func looksSpec(name string) bool {
	if !specLike.MatchString(name) || strings.HasSuffix(name, "_created") {
		return false
	}
	l := strings.ToLower(name)
	return strings.Contains(l, "spec") || strings.Contains(l, "draft") || acceptOnly.MatchString(name)
}

// specLikeMatcher is the server-side form of specLike for match[].
const specLikeMatcher = `{__name__=~"(?i).*(spec|draft|accept).*"}`

const maxFilterValues = 20

// diagnose builds the *MissingMetricsError for a selector that matched
// nothing: which spec-like metric names exist in the window, whether the
// schema's metrics exist without the filters (and which values the filtered
// labels have), and whether they exist outside the window.
//
// names are the metric names that were looked for (the counter families for
// FetchSeries, every name of the schema for FetchAuto).
func (c *Client) diagnose(ctx context.Context, names []string, sel string, filters []Filter, start, end time.Time) *MissingMetricsError {
	e := &MissingMetricsError{
		Schema:   c.schema.Name,
		Wanted:   names,
		Selector: sel,
		Start:    start,
		End:      end,
	}
	for _, f := range filters {
		if len(f.Values) > 0 {
			e.Filters = append(e.Filters, f)
		}
	}
	found, err := c.labelValues(ctx, model.MetricNameLabel, []string{specLikeMatcher}, start, end)
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	for _, n := range found {
		if looksSpec(n) {
			e.SpecLike = append(e.SpecLike, n)
		}
	}
	bare, err := Selector(names, nil)
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	present, err := c.labelValues(ctx, model.MetricNameLabel, []string{bare}, start, end)
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	e.PresentInWindow = len(present) > 0
	if len(present) > 0 && len(e.Filters) > 0 {
		e.ExistWithoutFilters = true
		e.FilterValues = map[string][]string{}
		for _, f := range e.Filters {
			vals, err := c.labelValues(ctx, f.Name, []string{bare}, start, end)
			if err != nil {
				e.DiagnosisErr = err
				return e
			}
			if len(vals) > maxFilterValues {
				vals = vals[:maxFilterValues]
			}
			e.FilterValues[f.Name] = vals
		}
	}
	if len(present) == 0 {
		// Zero times: the whole database.
		all, err := c.labelValues(ctx, model.MetricNameLabel, []string{bare}, time.Time{}, time.Time{})
		if err != nil {
			e.DiagnosisErr = err
			return e
		}
		e.ExistOutsideWindow = len(all) > 0
	}
	e.Cause = e.guessCause()
	return e
}
