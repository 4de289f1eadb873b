package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/prometheus/promql"

	"specdash/internal/panics"
)

// This file bounds the engine as Prometheus bounds itself: the scrape
// limits of its scrape config, the query engine's concurrency, samples and
// timeout, and a recover where a hostile input could panic in a goroutine
// specdash runs.

// setLimits fills the zero limits with their defaults and checks them.
func (c *Config) setLimits() error {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.BodySizeLimit == 0 {
		c.BodySizeLimit = DefaultBodySizeLimit
	}
	if c.BodySizeLimit < 0 || c.BodySizeLimit > MaxBodySizeLimit {
		return fmt.Errorf("embedded: body size limit %s: must be positive and at most %s (a larger body could carry a label over 16 MiB, which Prometheus' label encoding cannot hold)", formatBytes(c.BodySizeLimit), formatBytes(MaxBodySizeLimit))
	}
	def(&c.SampleLimit, DefaultSampleLimit)
	if c.SampleLimit > c.SeriesLimit {
		c.SampleLimit = c.SeriesLimit
	}
	def(&c.LabelLimit, DefaultLabelLimit)
	def(&c.LabelNameLengthLimit, DefaultLabelNameLengthLimit)
	def(&c.LabelValueLengthLimit, DefaultLabelValueLengthLimit)
	def(&c.QueryConcurrency, DefaultQueryConcurrency)
	def(&c.QueryMaxSamples, DefaultQueryMaxSamples)
	if c.QueryTimeout == 0 {
		c.QueryTimeout = DefaultQueryTimeout
	}
	for _, l := range []struct {
		name string
		v    int
	}{
		{"sample limit", c.SampleLimit},
		{"label limit", c.LabelLimit},
		{"label name length limit", c.LabelNameLengthLimit},
		{"label value length limit", c.LabelValueLengthLimit},
		{"query concurrency", c.QueryConcurrency},
		{"query max samples", c.QueryMaxSamples},
	} {
		if l.v < 0 {
			return fmt.Errorf("embedded: %s %d: must be positive", l.name, l.v)
		}
	}
	if c.QueryTimeout < 0 {
		return fmt.Errorf("embedded: query timeout %v: must be positive", c.QueryTimeout)
	}
	return nil
}

// formatBytes writes n in the largest binary unit it reaches: "10 MiB",
// "4 KiB", "512 B", with one decimal when it is not a whole number of
// them ("16.5 MiB").
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Prometheus' scrape errors (scrape/scrape.go, scrape/target.go v0.316.0).
var (
	labelLimitErr  = regexp.MustCompile(`^label_limit exceeded \(metric: (.*), number of labels: (\d+), limit: (\d+)\)$`)
	nameLengthErr  = regexp.MustCompile(`^label_name_length_limit exceeded \(metric: (.*), label name: (.*), length: (\d+), limit: (\d+)\)$`)
	valueLengthErr = regexp.MustCompile(`^label_value_length_limit exceeded \(metric: (.*), label name: (.*), value: .*, length: (\d+), limit: (\d+)\)$`)
)

// describeScrapeError is a scrape error as the target list shows it: a
// limit's rejection says which limit, its value and its setting;
// other errors are Prometheus' text.
func (e *Engine) describeScrapeError(url string, err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	size := func(s string) string {
		n, _ := strconv.ParseInt(s, 10, 64)
		return formatBytes(n)
	}
	reject := func(format string, a ...any) string {
		return fmt.Sprintf("target %s rejected: ", url) + fmt.Sprintf(format, a...)
	}
	switch {
	case msg == "body size limit exceeded":
		return reject("the body exceeds the %s limit (scrape.body-size-limit)", formatBytes(e.cfg.BodySizeLimit))
	case msg == "sample limit exceeded":
		return reject("more than %d samples, the limit (scrape.sample-limit)", e.cfg.SampleLimit)
	}
	if m := labelLimitErr.FindStringSubmatch(msg); m != nil {
		return reject("metric %s has %s labels, over the limit of %s (scrape.label-limit)", m[1], m[2], m[3])
	}
	if m := nameLengthErr.FindStringSubmatch(msg); m != nil {
		name := m[2]
		if len(name) == 50 { // Prometheus quotes 50 bytes of it
			name += "…"
		}
		return reject("label name %s of metric %s is %s long, over the %s limit (scrape.label-name-length-limit)", name, m[1], size(m[3]), size(m[4]))
	}
	if m := valueLengthErr.FindStringSubmatch(msg); m != nil {
		return reject("label value of %s (label %s of metric %s) exceeds the %s limit (scrape.label-value-length-limit)", size(m[3]), m[2], m[1], size(m[4]))
	}
	return msg
}

// queryGate is the engine's QueryTracker: Prometheus' ActiveQueryTracker
// (a slot per concurrent query; Insert waits for one), counting the
// queries running and waiting, with a readable error when the wait ends.
// Close unmaps the tracker's file only once no query is inside it (a query
// still running at shutdown would otherwise write to unmapped memory).
type queryGate struct {
	promql.QueryTracker
	timeout          time.Duration
	running, waiting atomic.Int64

	mu     sync.Mutex
	users  int // queries waiting or running
	closed bool
	done   bool // inner tracker closed
	err    error
}

// QueueTimeoutError ends a query whose QueryTimeout passed (or whose
// request was cancelled) while every query slot was busy.
type QueueTimeoutError struct {
	Concurrency int
	Timeout     time.Duration
	Err         error // context.DeadlineExceeded or context.Canceled
}

func (e *QueueTimeoutError) Error() string {
	return fmt.Sprintf("query ended (%v) while waiting for a free slot: all %d query slots (query.max-concurrency) stayed busy within the %v query timeout", e.Err, e.Concurrency, e.Timeout)
}

func (e *QueueTimeoutError) Unwrap() error { return e.Err }

var errEngineClosed = errors.New("embedded: the engine is closed")

func (g *queryGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.users++
	return true
}

func (g *queryGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.users--
	if g.closed && g.users == 0 && !g.done {
		g.done = true
		g.err = g.QueryTracker.Close()
	}
}

func (g *queryGate) Insert(ctx context.Context, q string) (int, error) {
	if !g.enter() {
		return 0, errEngineClosed
	}
	g.waiting.Add(1)
	i, err := g.QueryTracker.Insert(ctx, q)
	g.waiting.Add(-1)
	if err != nil {
		g.leave()
		return 0, &QueueTimeoutError{Concurrency: g.GetMaxConcurrent(), Timeout: g.timeout, Err: err}
	}
	g.running.Add(1)
	return i, nil
}

func (g *queryGate) Delete(i int) {
	g.running.Add(-1)
	g.QueryTracker.Delete(i)
	g.leave()
}

// Close closes the tracker now, or when the last query leaves.
func (g *queryGate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.users == 0 && !g.done {
		g.done = true
		g.err = g.QueryTracker.Close()
	}
	return g.err
}

// QueryLoad returns the queries evaluating now and those waiting for a
// slot.
func (e *Engine) QueryLoad() (running, waiting int) {
	return int(e.gate.running.Load()), int(e.gate.waiting.Load())
}

// describeQueryError adds the limit and its setting to the engine's
// cost-limit and timeout errors.
func (e *Engine) describeQueryError(err error) error {
	var eqt promql.ErrQueryTimeout
	var etms promql.ErrTooManySamples
	var qte *QueueTimeoutError
	switch {
	case errors.As(err, &qte):
		return err
	case errors.As(err, &etms):
		return fmt.Errorf("%w: over the limit of %d samples (query.max-samples): narrow the range, raise the step or the subquery's resolution", err, e.cfg.QueryMaxSamples)
	case errors.As(err, &eqt):
		return fmt.Errorf("%w: past the %v limit (query.timeout)", err, e.cfg.QueryTimeout)
	}
	return err
}

// recordPanic logs a recovered panic with its stack, counts it in
// specdash_panics_total{where} (internal/panics), and returns it as an
// error.
func recordPanic(log *slog.Logger, where, what string, r any) error {
	panics.Record(where, log.With("in", what), r)
	return fmt.Errorf("embedded: internal error in %s (a panic, recovered and logged): %v", what, r)
}

func (e *Engine) recovered(where, what string, r any) error {
	return recordPanic(e.log, where, what, r)
}
