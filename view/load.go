package view

import (
	"context"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/model"
)

// LabelsWindow names the window whose label lists the menus show (they
// are unfiltered: the filters do not change them).
func LabelsWindow(q Query) string {
	return q.Range + "|" + time.UnixMilli(q.From).String() + "|" + time.UnixMilli(q.To).String()
}

// MaxEmptyRetries bounds retryWhileEmpty: one retry per scrape interval,
// for about a minute (at least 6 retries).
func MaxEmptyRetries(scrape time.Duration) int {
	if scrape <= 0 {
		return 6
	}
	return max(6, int(time.Minute/scrape))
}

// Ungrouped reports whether res shows one group of everything: grouped by
// nothing, or by default (per model) with at most one group.
func (res *Result) Ungrouped() bool {
	return len(res.Request.GroupBy) == 0 || (res.Query.GroupBy == nil && len(res.Groups) <= 1)
}

// Result is one load of the dashboard: the view model of one window
// (model.Model: every number shown is computed there) with the query it is
// for and how the load went.
type Result struct {
	model.Model
	// Query the numbers are for.
	Query Query
	// Err is the failure of the load (then the model holds at most the
	// label lists of the filter menus).
	Err error
	// At is when the load finished.
	At time.Time
}

// Load fetches and computes the numbers for q over the window ending at
// now (or q's absolute window), always reading the whole window: LoadSince
// without a previous window.
func Load(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time) Result {
	return LoadSince(ctx, c, q, scrape, now, nil)
}

// LabelsMaxAge is how old the label lists of the filter menus (Result.Labels)
// may grow: after showing a load whose lists are older, the dashboard
// reads them again in the background (metricsclient.Client.RefreshLabels),
// off the refresh's path. So a label value that appears (a new engine, a
// new model) shows in the menus about a minute plus one refresh period
// after it is in the window, and one that left the window stays listed as
// long.
const LabelsMaxAge = time.Minute

// labelsReuseMax is how old label lists an incremental load reuses instead
// of reading them with the counters: long, since the dashboard refreshes
// them in the background every LabelsMaxAge; past it (no refresh came
// through) the load reads them itself.
const labelsReuseMax = 10 * time.Minute

// Request is the view model's request for q's window ending at now.
func Request(q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window) model.Request {
	g := q.Grid(scrape, now)
	if q.Absolute() {
		prev = nil
	}
	r := model.Request{Grid: g, Filters: q.Filters(), GroupBy: q.Grouping(), Convention: q.Convention,
		Now: now, Scrape: scrape, Prev: prev, Fixed: q.Absolute(), Labels: true, LabelsMaxAge: labelsReuseMax,
		Location: q.Location()}
	r.Health.Thresholds = q.Health
	if q.Compare == CompareWindow {
		b := q.BaselineGrid(g)
		r.Baseline = &b
	}
	return r
}

// LoadSince computes the view model of q over the window ending at now
// (or q's absolute window): model.Compute of grid q.Grid(scrape, now),
// q's filters, group-by labels and convention, the label lists of the
// filter menus, and with CompareWindow the baseline window.
//
// prev is the Window of the previous successful load of the same page
// (Result.Window), or nil: a relative (live) window that slid forward on
// the same step re-reads only its newest points (Result.Incremental; see
// model.Request.Prev), reusing prev's label lists while younger than
// labelsReuseMax (the dashboard refreshes them in the background:
// app.Dashboard.refreshLabels). An absolute window reads everything.
//
// It never panics: a panic below becomes Result.Err.
func LoadSince(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window) Result {
	return LoadWith(ctx, c, q, scrape, now, prev, LoadOptions{})
}

// LoadOptions are the dashboard's settings of a load beyond its window.
type LoadOptions struct {
	// SkipLabels: the load does not read the filter menus' label lists
	// (Result.Labels stays nil: the dashboard keeps the ones it has,
	// younger than LabelsMaxAge). A load without a previous Window (the
	// shaped read, docs/ARCHITECTURE.md "Query plan") has no other way to
	// reuse them, and at a thousand engines they are the one answer of a
	// load that grows with the engines.
	SkipLabels bool
	// Trace, when set, is called with the load's timing marks
	// (model.Request.Trace, and "end" when the load succeeded).
	Trace func(name string)
	// DeferWindow: a live view of a small selection reads shaped now and
	// leaves its raw read (the Window of incremental refreshes) to the
	// next load without it (model.Request.DeferWindow): the dashboard's
	// loads that a user waits for, not its auto-refreshes.
	DeferWindow bool
}

// LoadWith is LoadSince with the dashboard's options.
func LoadWith(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window, o LoadOptions) Result {
	var src model.Source
	if c != nil {
		src = c
	}
	r := Request(q, scrape, now, prev)
	r.Labels = !o.SkipLabels
	r.Trace = o.Trace
	r.DeferWindow = o.DeferWindow && prev == nil
	m, err := model.Compute(ctx, src, r)
	res := Result{Model: *m, Query: q, Err: err}
	if err == nil {
		if sn := m.Schema; sn != nil && sn.AveragedOverTime {
			res.Notes = append(res.Notes, sn.Schema.Name+" exposes gauges that each cover one logging window, not counters: the counter panels stay empty; the cards below show the gauges averaged over time (never rate())")
		}
		if o.Trace != nil {
			o.Trace("end")
		}
	}
	res.At = time.Now()
	return res
}

// FromSeries fills the numbers of res from fetched series (no I/O):
// model.FromSeries of q's window ending at now.
func (res *Result) FromSeries(series []compute.Series, q Query, g compute.Grid, now time.Time, scrape time.Duration) {
	r := Request(q, scrape, now, nil)
	r.Grid = g
	res.Model = *model.FromSeries(series, r)
	res.Query = q
}
