package app

import (
	"context"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/model"
)

// GroupResult is one row of the breakdown: one group of the view model.
type GroupResult = model.Group

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

// request is the view model's request for q's window ending at now.
func request(q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window) model.Request {
	g := q.Grid(scrape, now)
	if q.Absolute() {
		prev = nil
	}
	r := model.Request{Grid: g, Filters: q.Filters(), GroupBy: q.Grouping(), Convention: q.Convention,
		Now: now, Scrape: scrape, Prev: prev, Fixed: q.Absolute(), Labels: true, LabelsMaxAge: labelsReuseMax, Trace: perfMark}
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
// Dashboard.refreshLabels). An absolute window reads everything.
//
// It never panics: a panic below becomes Result.Err.
func LoadSince(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window) Result {
	return loadSince(ctx, c, q, scrape, now, prev, true)
}

// loadSince is LoadSince; without labels the load does not read the
// filter menus' label lists (Result.Labels stays nil: the dashboard keeps
// the ones it has, younger than LabelsMaxAge). A load without a previous
// Window (the shaped read, docs/ARCHITECTURE.md "Query plan") has no other
// way to reuse them, and at a thousand engines they are the one answer of
// a load that grows with the engines.
func loadSince(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window, labels bool) Result {
	var src model.Source
	if c != nil {
		src = c
	}
	r := request(q, scrape, now, prev)
	r.Labels = labels
	m, err := model.Compute(ctx, src, r)
	res := Result{Model: *m, Query: q, Err: err}
	if err == nil {
		if sn := m.Schema; sn != nil && sn.AveragedOverTime {
			res.Notes = append(res.Notes, sn.Schema.Name+" exposes gauges that each cover one logging window, not counters: the counter panels stay empty; the cards below show the gauges averaged over time (never rate())")
		}
		perfMark("end")
	}
	res.At = time.Now()
	return res
}

// compute fills the numbers of res from fetched series (no I/O):
// model.FromSeries of q's window ending at now.
func (res *Result) compute(series []compute.Series, q Query, g compute.Grid, now time.Time, scrape time.Duration) {
	r := request(q, scrape, now, nil)
	r.Grid = g
	res.Model = *model.FromSeries(series, r)
	res.Query = q
}
