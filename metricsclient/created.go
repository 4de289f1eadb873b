package metricsclient

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// DefaultLookback is Prometheus' default lookback delta (5 minutes): an
// instant selector at time t sees the last sample in (t-5m, t].
const DefaultLookback = 5 * time.Minute

// CreatedName returns the name of the <name>_created gauge that
// prometheus_client exports next to counter sample name n: "X_total" gives
// "X_created". It returns "" when n does not end in "_total". The gauge's
// value is the Unix time (seconds) at which the counter was created, i.e.
// the counter's (process') start; specdash reads it only as a start time and
// never sums it into a count (docs/METRICS.md, "_created samples").
func CreatedName(n string) string {
	base, ok := strings.CutSuffix(n, "_total")
	if !ok || base == "" {
		return ""
	}
	return base + "_created"
}

// CreatedNames returns the _created gauge names of the schema's counter
// families (CreatedName of each of Names), in family order.
func (s Schema) CreatedNames() []string {
	var out []string
	for _, n := range s.Names() {
		if c := CreatedName(n); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// Lookback returns the range of the last_over_time() window used at each
// step point of a grid with the given step: max(step, DefaultLookback).
// With it every sample lands in some step point's window (no series that
// lives less than a step is missed), and a step below 5 minutes sees what a
// plain instant selector sees.
func Lookback(step time.Duration) time.Duration {
	return max(step, DefaultLookback)
}

// CounterQuery returns the PromQL query FetchSeries and FetchAuto run over a
// grid with the given step: the last sample in each step point's lookback
// window (Lookback) of the schema's counter families and their _created
// gauges, restricted by filters:
//
//	last_over_time({__name__=~"...total|..._created", filters}[W])
//
// Prometheus keeps the metric names of last_over_time's results. Errors: as
// Selector (a schema without counters has no names).
func (s Schema) CounterQuery(filters []Filter, step time.Duration) (string, error) {
	sel, err := Selector(append(s.Names(), s.CreatedNames()...), filters)
	if err != nil {
		return "", err
	}
	w := Lookback(step).Round(time.Millisecond)
	return "last_over_time(" + sel + "[" + model.Duration(w).String() + "])", nil
}

// fetchCounters runs the schema's CounterQuery over g and converts the
// result (SeriesFromMatrix, which sets each series' start time from its
// _created gauge). When the source drops metric names from last_over_time
// (MetricsQL does so for rollup functions), it falls back to the plain
// selector (values at the step points with the source's lookback) and says
// so in a warning. It adds startWarnings. Errors: an invalid filter, an
// *APIError, a malformed position label.
func (c *Client) fetchCounters(ctx context.Context, s Schema, g compute.Grid, filters []Filter) ([]compute.Series, []string, error) {
	m, warnings, fellBack, err := c.countersMatrix(ctx, s, g, filters)
	if err != nil {
		return nil, warnings, err
	}
	if fellBack {
		warnings = append(warnings, fallbackWarning(time.Duration(g.Step)*time.Millisecond))
	}
	series, w, err := SeriesFromMatrix(m, s)
	warnings = append(warnings, w...)
	if err != nil {
		return nil, warnings, err
	}
	warnings = append(warnings, startWarnings(series, g)...)
	return series, warnings, nil
}

// countersMatrix runs the schema's CounterQuery over g and returns the raw
// answer and the source's warnings. When the source drops metric names from
// last_over_time (MetricsQL does so for rollup functions), it runs the
// plain selector instead (values at the step points with the source's
// lookback) and reports fellBack. Errors: an invalid filter, an *APIError.
func (c *Client) countersMatrix(ctx context.Context, s Schema, g compute.Grid, filters []Filter) (m model.Matrix, warnings []string, fellBack bool, err error) {
	step := time.Duration(g.Step) * time.Millisecond
	q, err := s.CounterQuery(filters, step)
	if err != nil {
		return nil, nil, false, err
	}
	r := v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: step}
	m, warnings, err = c.queryMatrix(ctx, q, r)
	if err != nil {
		return nil, warnings, false, err
	}
	if unnamed(m) {
		sel, err := Selector(append(s.Names(), s.CreatedNames()...), filters)
		if err != nil {
			return nil, warnings, false, err
		}
		var w []string
		m, w, err = c.queryMatrix(ctx, sel, r)
		warnings = append(warnings, w...)
		if err != nil {
			return nil, warnings, false, err
		}
		fellBack = true
	}
	return m, warnings, fellBack, nil
}

// fallbackWarning says that counters were read without last_over_time.
func fallbackWarning(step time.Duration) string {
	return fmt.Sprintf("this source drops metric names from last_over_time(): counters were read at the step points with its own lookback, so a series that lives less than one step (%s) between two step points may be missed", step)
}

// queryMatrix runs a range query that must return a matrix.
func (c *Client) queryMatrix(ctx context.Context, q string, r v1.Range) (model.Matrix, []string, error) {
	// One pass over the answer (rangedecode.go); v1.API for anything else.
	if m, warns, ok, err := c.queryRangeOnePass(ctx, q, r); ok {
		return m, warns, err
	}
	val, warns, _, err := c.api.QueryRange(ctx, q, r)
	warnings := append([]string(nil), warns...)
	if err != nil {
		return nil, warnings, wrapErr("query_range", c.address, err)
	}
	m, ok := val.(model.Matrix)
	if !ok {
		return nil, warnings, &APIError{Op: "query_range", Address: c.address, Kind: BadResponse,
			Msg: fmt.Sprintf("expected a matrix, got %v", typeName(val))}
	}
	return m, warnings, nil
}

// unnamed reports whether a matrix holds series without a metric name.
func unnamed(m model.Matrix) bool {
	for _, ss := range m {
		if ss.Metric[model.MetricNameLabel] == "" {
			return true
		}
	}
	return false
}

// createdAt returns the start time (Unix ms) given by a _created series at
// the counter's first point t (Unix ms): its value at t or, failing that,
// at its first point after t (the same process' start time, seen one scrape
// later). 0 when there is none, or the value is not a positive finite
// number of seconds.
func createdAt(pts []model.SamplePair, t int64) int64 {
	for _, p := range pts {
		if int64(p.Timestamp) < t {
			continue
		}
		v := float64(p.Value)
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > math.MaxInt64/2000 {
			continue
		}
		return int64(math.Round(v * 1000))
	}
	return 0
}

// maxStartWarnings bounds the number of startWarnings sentences.
const maxStartWarnings = 5

// startWarnings names the label sets whose series first appear inside the
// grid (no point at or before g.Start) without a known start time (no
// _created gauge, as with prometheus_client's multiprocess mode): what they
// counted before their first step point is not counted. Series whose
// _created says they started before the window are not named: their counts
// before their first point may be from before the window and are left out
// by design, and neither are those whose counter is 0 at its first point
// (nothing to miss). One sentence per label set, at most maxStartWarnings (and one
// saying how many more).
func startWarnings(series []compute.Series, g compute.Grid) []string {
	type first struct {
		labels      map[string]string
		t           int64
		value       float64
		fam         compute.Family
		haveCounter bool
	}
	byLabels := map[string]*first{}
	for _, s := range series {
		if s.Created != 0 {
			continue
		}
		var p *compute.Point
		for i := range s.Points {
			if v := s.Points[i].V; v >= 0 && !math.IsInf(v, 1) {
				p = &s.Points[i]
				break
			}
		}
		if p == nil || p.T <= g.Start || p.T > g.End {
			continue
		}
		key := labelString(s.Labels)
		f := byLabels[key]
		if f == nil {
			f = &first{labels: s.Labels, t: p.T}
			byLabels[key] = f
		}
		f.t = min(f.t, p.T)
		// Name the draft tokens if there are any, else the drafts, else the
		// accepted tokens.
		rank := map[compute.Family]int{compute.DraftTokens: 3, compute.Drafts: 2, compute.AcceptedTokens: 1}
		if r := rank[s.Family]; r > 0 && (!f.haveCounter || r > rank[f.fam]) {
			f.fam, f.value, f.haveCounter = s.Family, p.V, true
		}
	}
	keys := make([]string, 0, len(byLabels))
	for k, f := range byLabels {
		// A counter at 0 at its first point counted nothing before it
		// (nor did the drafts and accepted tokens: each draft carries
		// draft tokens): nothing is missing.
		if f.haveCounter && f.value == 0 {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for i, k := range keys {
		if i == maxStartWarnings {
			out = append(out, fmt.Sprintf("and %d more series started inside the window without a start time", len(keys)-i))
			break
		}
		f := byLabels[k]
		what := "what it counted before then"
		if f.haveCounter {
			unit := map[compute.Family]string{compute.DraftTokens: "draft tokens", compute.Drafts: "drafts", compute.AcceptedTokens: "accepted tokens"}[f.fam]
			what = fmt.Sprintf("the %s %s it had counted by then", formatCount(f.value), unit)
		}
		out = append(out, fmt.Sprintf("series %s started inside the window (first step point %s) and has no start time (no _created gauge): %s may be missing; narrow the range (a smaller step) for exact counts",
			k, time.UnixMilli(f.t).UTC().Format(time.RFC3339), what))
	}
	return out
}

// formatCount prints a whole count without exponent.
func formatCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}
