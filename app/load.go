package app

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
)

// Result is one load of the dashboard: the numbers for one window.
type Result struct {
	// Query the numbers are for.
	Query Query
	// Grid actually queried (Unix ms, step-aligned).
	Grid compute.Grid
	// Stats over the whole window (all selected series summed: ratio of sums).
	Stats compute.Stats
	// Buckets are the per-step stats, one per grid bucket (for the charts).
	Buckets []compute.Stats
	// Series is the number of counter series the numbers come from.
	Series int
	// Notes are non-fatal messages (metricsclient warnings, Prometheus
	// warnings, failed label look-ups).
	Notes []string
	// Models and Engines are the label values seen in the window (for the
	// selectors); nil when the look-up failed.
	Models, Engines []string
	// Err is the failure of the load (then the rest is empty).
	Err error
	// At is when the load finished.
	At time.Time
}

// Filters returns the metricsclient filters that q selects.
func (q Query) Filters() []metricsclient.Filter {
	var f []metricsclient.Filter
	if q.Model != "" {
		f = append(f, metricsclient.Filter{Name: "model_name", Values: []string{q.Model}})
	}
	if q.Engine != "" {
		f = append(f, metricsclient.Filter{Name: "engine", Values: []string{q.Engine}})
	}
	return f
}

// Load fetches and computes the numbers for q over the window ending at
// now: grid = AlignGrid(now, range, ChooseStep(range, scrape)), the four
// counters from FetchSeries, compute.Aggregate with no grouping, Sum, and
// Derive for the window and for each bucket. It never panics: a panic
// below becomes Result.Err.
func Load(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time) (res Result) {
	res.Query = q
	defer func() {
		if r := recover(); r != nil {
			res = Result{Query: q, Err: fmt.Errorf("internal error: %v\n%s", r, debug.Stack()), At: time.Now()}
		}
	}()
	rng := q.RangeDuration()
	step := metricsclient.ChooseStep(rng, scrape)
	g := metricsclient.AlignGrid(now, rng, step)
	res.Grid = g

	series, notes, err := c.FetchSeries(ctx, g, q.Filters())
	res.Notes = append(res.Notes, notes...)
	if err != nil {
		res.Err = err
		res.At = time.Now()
		return res
	}
	total := compute.Sum(compute.Aggregate(series, nil, g))
	res.Stats = total.TotalStats(g, q.Convention)
	res.Buckets = total.BucketStats(g, q.Convention)
	res.Series = len(series)

	start, end := time.UnixMilli(g.Start), time.UnixMilli(g.End)
	if models, err := c.LabelValues(ctx, "model_name", nil, start, end); err == nil {
		res.Models = models
	} else if ctx.Err() == nil {
		res.Notes = append(res.Notes, "model list: "+err.Error())
	}
	var engineFilter []metricsclient.Filter
	if q.Model != "" {
		engineFilter = []metricsclient.Filter{{Name: "model_name", Values: []string{q.Model}}}
	}
	if engines, err := c.LabelValues(ctx, "engine", engineFilter, start, end); err == nil {
		res.Engines = engines
	} else if ctx.Err() == nil {
		res.Notes = append(res.Notes, "engine list: "+err.Error())
	}
	res.At = time.Now()
	return res
}
