package app

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
)

// GroupResult is one row of the breakdown: one group of series.
type GroupResult struct {
	// Key is GroupKey(Labels, groupBy); Name its display form (GroupName).
	Key, Name string
	// Labels are the group-by label values.
	Labels map[string]string
	// Counts are the group's summed increases (total and per bucket).
	Counts compute.Group
	// Stats over the window and per bucket.
	Stats   compute.Stats
	Buckets []compute.Stats
	// FirstBucket is the index of the group's first bucket with data (see
	// Result.FirstBucket).
	FirstBucket int
}

// Baseline is the "before" window of a before/after comparison.
type Baseline struct {
	Grid  compute.Grid
	Total compute.Group
	Stats compute.Stats
	// Err is why the baseline could not be loaded (the rest is empty).
	Err error
}

// Result is one load of the dashboard: the numbers for one window.
type Result struct {
	// Query the numbers are for.
	Query Query
	// Grid actually queried (Unix ms, step-aligned).
	Grid compute.Grid
	// Stats over the whole window (all selected series summed: ratio of sums).
	Stats compute.Stats
	// Buckets are the per-step stats of the total, one per grid bucket.
	Buckets []compute.Stats
	// Total is all groups summed (counts per bucket and over the window).
	Total compute.Group
	// Fit is the geometric acceptance fit of the window's total counts; its
	// Conditional rates are the per-position chart's second series.
	Fit compute.GeometricFit
	// Groups are the breakdown rows, in compute.Aggregate's order (by
	// label values).
	Groups []GroupResult
	// Complete is the number of leading buckets that are final: buckets
	// from Complete on end less than IncompleteLag before the load and may
	// still grow (their newest scrape may not be stored yet).
	Complete int
	// Series is the number of counter series the numbers come from.
	Series int
	// FirstBucket is the index of the first bucket with data: the first
	// bucket ending at or after the earliest point of any series (Buckets()
	// when there is none). Buckets before it have no series at all: the
	// time charts of rates leave them as gaps, not zeros. DataFrom is the
	// grid time (Unix ms) where the data starts, BucketStart(FirstBucket).
	FirstBucket int
	DataFrom    int64
	// Labels maps every label name on the spec-decode series in the window
	// (unfiltered) to its values; nil when the look-up failed.
	Labels map[string][]string
	// Models and Engines are Labels["model_name"] and Labels["engine"].
	Models, Engines []string
	// Schema is the name of the detected metric schema ("vLLM V1", ...;
	// metricsclient.Detect); OtherSchemas are other schemas also present.
	Schema       string
	OtherSchemas []string
	// SchemaView is the schema's limits and own numbers (applySchema).
	SchemaView *SchemaView
	// Baseline is the compared window (Query.Compare == CompareWindow).
	Baseline *Baseline
	// Notes are non-fatal messages (metricsclient warnings, Prometheus
	// warnings, failed label look-ups).
	Notes []string
	// Incremental is true when the load re-read only the newest points
	// of a window that slid forward (LoadSince).
	Incremental bool
	// Window is what the next load of the same view may continue from
	// (LoadSince's prev); nil after an error. It is never modified.
	Window *metricsclient.Window
	// Err is the failure of the load (then the rest is empty).
	Err error
	// At is when the load finished.
	At time.Time
}

// IncompleteLag is how long after a bucket's end its numbers may still
// change: the bucket's last sample may be scraped (and stored) up to one
// scrape interval after it, plus 5 s for scrape duration and storage. A
// bucket ending later than now - IncompleteLag is drawn as incomplete.
func IncompleteLag(scrape time.Duration) time.Duration {
	return scrape + 5*time.Second
}

// completeBuckets is the number of leading buckets of g that end at or
// before now - IncompleteLag(scrape).
func completeBuckets(g compute.Grid, now time.Time, scrape time.Duration) int {
	n := g.Buckets()
	cut := now.Add(-IncompleteLag(scrape)).UnixMilli()
	c := 0
	for c < n && g.BucketEnd(c) <= cut {
		c++
	}
	return c
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

// LoadSince fetches and computes the numbers for q over the window ending
// at now (or q's absolute window): grid = q.Grid(scrape, now), the schema
// detected and its counters fetched with q's filters
// (metricsclient.Client.Fetch, as FetchAuto), compute.Aggregate by q's
// group-by labels, Sum for the total, Derive for the window and for each
// bucket, FitGeometric for the conditional per-position rates, and the
// label names and values of the window (SeriesLabels, unfiltered, for the
// filter menus; read concurrently with the counters). With CompareWindow
// it also loads the baseline window (always in full).
//
// prev is the Window of the previous successful load of the same page
// (Result.Window), or nil. For a relative (live) window that slid forward
// on the same step, Fetch re-reads only the points from one step before
// the previous load's first incomplete bucket (IncompleteLag) on, merges
// them into prev's points and computes from the merged series exactly as
// from a full read (Result.Incremental); the label lists of prev are
// reused while younger than labelsReuseMax (the dashboard refreshes them
// in the background: Dashboard.refreshLabels). An absolute window, another
// step, filters or source, a window that jumped, a schema change or a
// source warning reads everything. Result.Window is what the next load may
// continue from (nil after an error).
//
// It never panics: a panic below becomes Result.Err.
func LoadSince(ctx context.Context, c *metricsclient.Client, q Query, scrape time.Duration, now time.Time, prev *metricsclient.Window) (res Result) {
	res.Query = q
	defer func() {
		if r := recover(); r != nil {
			res = Result{Query: q, Err: fmt.Errorf("internal error: %v\n%s", r, debug.Stack()), At: time.Now()}
		}
	}()
	g := q.Grid(scrape, now)
	res.Grid = g
	if q.Absolute() {
		prev = nil
	}

	perfMark("start")
	f, w, err := c.Fetch(ctx, metricsclient.FetchRequest{
		Grid:         g,
		Filters:      q.Filters(),
		Prev:         prev,
		Settled:      now.Add(-IncompleteLag(scrape)),
		Labels:       true,
		LabelsMaxAge: labelsReuseMax,
		Now:          now,
	})
	if err != nil {
		res.Err = err
		res.labelsWhenFiltered(ctx, c, g, err)
		res.At = time.Now()
		return res
	}
	if f.Incremental {
		perfMark("incremental")
	}
	perfMark("fetched")
	res.Incremental = f.Incremental
	res.Schema = f.Schema().Name
	res.OtherSchemas = f.Detection.OtherNames()
	res.Notes = append(res.Notes, f.Warnings...)
	if f.AveragedOverTime {
		res.Notes = append(res.Notes, f.Schema().Name+" exposes gauges that each cover one logging window, not counters: the counter panels stay empty; the cards below show the gauges averaged over time (never rate())")
	}
	res.compute(f.Series, q, g, now, scrape)
	res.applySchema(f, q, g)
	perfMark("computed")

	if labels := f.Labels; labels != nil {
		res.setLabels(labels)
	} else if f.LabelsErr != nil && ctx.Err() == nil {
		res.Notes = append(res.Notes, "label list: "+f.LabelsErr.Error())
	}

	if q.Compare == CompareWindow {
		res.Baseline = loadBaseline(ctx, c, q, g)
	}
	perfMark("end")
	res.Window = w
	res.At = time.Now()
	return res
}

// compute fills the numbers of res from the fetched series (no I/O): the
// groups of q.GroupBy (compute.Aggregate), their sum, the window's and each
// bucket's stats, the geometric fit and the number of complete buckets at
// now.
func (res *Result) compute(series []compute.Series, q Query, g compute.Grid, now time.Time, scrape time.Duration) {
	groups := compute.Aggregate(series, q.GroupBy, g)
	res.Grid = g
	res.Total = compute.Sum(groups)
	res.Notes = append(res.Notes, res.Total.Skipped...)
	if w := compute.DistinctK(series).Warning(); w != "" {
		res.Notes = append(res.Notes, w)
	}
	res.Stats = res.Total.TotalStats(g, q.Convention)
	res.Buckets = res.Total.BucketStats(g, q.Convention)
	res.Fit = compute.FitGeometric(res.Total.Total)
	res.Series = len(series)
	first := firstPoints(series, q.GroupBy)
	res.FirstBucket = g.BucketAt(first[allKey])
	res.DataFrom = g.BucketStart(res.FirstBucket)
	res.Groups = make([]GroupResult, len(groups))
	for i, gr := range groups {
		key := GroupKey(gr.Labels, q.GroupBy)
		res.Groups[i] = GroupResult{
			FirstBucket: g.BucketAt(first[key]),
			Key:         GroupKey(gr.Labels, q.GroupBy),
			Name:        GroupName(gr.Labels, q.GroupBy),
			Labels:      gr.Labels,
			Counts:      gr,
			Stats:       gr.TotalStats(g, q.Convention),
			Buckets:     gr.BucketStats(g, q.Convention),
		}
	}
	res.Complete = completeBuckets(g, now, scrape)
}

// allKey is the key of all series in firstPoints (no group key is "").
const allKey = ""

// firstPoints maps each group key (GroupKey of the series' labels by
// groupBy) and allKey to the earliest point time (Unix ms) of its series;
// groups without points are absent.
func firstPoints(series []compute.Series, groupBy []string) map[string]int64 {
	out := map[string]int64{}
	set := func(k string, t int64) {
		if cur, ok := out[k]; !ok || t < cur {
			out[k] = t
		}
	}
	for _, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		t := s.Points[0].T
		set(allKey, t)
		set(GroupKey(s.Labels, groupBy), t)
	}
	return out
}

// gapsBefore returns vals with the values before bucket first undefined
// (drawn as gaps, empty in exports): no series existed there.
func gapsBefore(vals []compute.Value, first int) []compute.Value {
	for j := 0; j < first && j < len(vals); j++ {
		vals[j] = compute.Value{}
	}
	return vals
}

func loadBaseline(ctx context.Context, c *metricsclient.Client, q Query, g compute.Grid) *Baseline {
	b := &Baseline{Grid: q.BaselineGrid(g)}
	f, err := c.FetchAuto(ctx, b.Grid, q.Filters())
	var series []compute.Series
	if f != nil {
		series = f.Series
	}
	if err != nil {
		var miss *metricsclient.MissingMetricsError
		if errors.As(err, &miss) {
			err = fmt.Errorf("no speculative-decoding series in the baseline window %s – %s",
				time.UnixMilli(b.Grid.Start).UTC().Format(time.RFC3339), time.UnixMilli(b.Grid.End).UTC().Format(time.RFC3339))
		}
		b.Err = err
		return b
	}
	b.Total = compute.Sum(compute.Aggregate(series, nil, b.Grid))
	b.Stats = b.Total.TotalStats(b.Grid, q.Convention)
	return b
}

// setLabels keeps the label lists of the filter menus.
func (res *Result) setLabels(labels map[string][]string) {
	res.Labels = labels
	res.Models, res.Engines = labels["model_name"], labels["engine"]
	if res.Models == nil {
		res.Models = []string{}
	}
	if res.Engines == nil {
		res.Engines = []string{}
	}
}

// labelsWhenFiltered fills the filter menus' label lists after a load
// whose filters exclude every series (metricsclient.CauseFiltered): the
// schema's series exist in the window without the filters, so the menus
// list their values (one series request), and the user can pick values
// that exist instead of editing the URL. Other errors leave them unset.
func (res *Result) labelsWhenFiltered(ctx context.Context, c *metricsclient.Client, g compute.Grid, err error) {
	var miss *metricsclient.MissingMetricsError
	if !errors.As(err, &miss) || miss.Cause != metricsclient.CauseFiltered {
		return
	}
	s, ok := metricsclient.SchemaByID(miss.Schema)
	if !ok {
		return
	}
	labels, lerr := c.WithSchema(s).SeriesLabels(ctx, nil, time.UnixMilli(g.Start), time.UnixMilli(g.End))
	if lerr == nil {
		res.setLabels(labels)
	}
}
