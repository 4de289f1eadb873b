// Package model turns a request (a window, filters, a grouping) into the
// view model of specdash: every number the dashboard, `specdash report`
// and the /logs page show, computed once. The dashboard (app/) renders a
// Model, the report (report/) writes one as text or JSON; neither computes.
//
// Data flow: Source.Fetch (metricsclient: Detect the schema, one
// query_range of its raw counters; a refresh continues the previous
// Window) -> compute.Aggregate (exact increases, summed per group) ->
// compute.Sum (total) -> compute.Derive (ratios of sums, per window and
// per bucket) -> the schema's fix-ups and own numbers (schema.go) ->
// insights (insights.go), coverage, incomplete buckets, warnings. Log text
// and scrapes take the same path from their parsed counts (logs.go).
// Formulas and metric names: docs/ARCHITECTURE.md ("Where each number is
// computed").
//
// It builds for the host and for js/wasm (no os, no syscall/js).
package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
)

// Source is where Compute reads counters: *metricsclient.Client.
type Source interface {
	// FetchShapedAuto reads the whole window with the per-group sums of
	// the source (metricsclient.Client.FetchShapedAuto: its answer grows
	// with groups, not engines); groupBy as Request.GroupBy.
	FetchShapedAuto(ctx context.Context, r metricsclient.FetchRequest, groupBy []string) (*metricsclient.Fetched, *metricsclient.Shaped, error)
	// SchemaSampleCounts is the number of samples of schema s's selection
	// in each bucket of g (metricsclient.Client.SchemaSampleCounts): the
	// data gaps. A live window that slid forward continues prev's.
	SchemaSampleCounts(ctx context.Context, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) (*metricsclient.SampleCounts, error)
	// Fetch reads the counters (and the schema's extra series) of
	// r.Grid with r.Filters, continuing r.Prev when it can
	// (metricsclient.Client.Fetch). r.GroupBy names the labels the
	// numbers are grouped by: a source may answer with per-group sums
	// (compute.Aggregate sums them to the same groups).
	Fetch(ctx context.Context, r metricsclient.FetchRequest) (*metricsclient.Fetched, *metricsclient.Window, error)
	// SchemaLabels lists the label names and values of schema s's series
	// in [start, end], unfiltered (the filter menus).
	SchemaLabels(ctx context.Context, s metricsclient.Schema, start, end time.Time) (map[string][]string, error)
	// SelectionSize is the number of counter series that match filters at
	// g's start or end (metricsclient.Client.SelectionSize): one cheap
	// query that says which way to read a live view (RawSeriesMax).
	SelectionSize(ctx context.Context, g compute.Grid, filters []metricsclient.Filter) (int, error)
}

// Request selects the numbers of one Model.
type Request struct {
	// Grid is the window and its buckets (Unix ms, step-aligned).
	Grid compute.Grid
	// Filters restrict the series; GroupBy are the labels of the groups
	// (none: one group of everything).
	Filters []metricsclient.Filter
	GroupBy []string
	// Convention of the mean acceptance length.
	Convention compute.Convention
	// Now and Scrape place the incomplete buckets (those ending after
	// Now - IncompleteLag(Scrape)) and the points that are final for an
	// incremental refresh. Zero Now: every bucket is complete, nothing is
	// final.
	Now    time.Time
	Scrape time.Duration
	// Prev is the Window of the previous Model of the same view
	// (Model.Window), or nil: a live window that slid forward on the same
	// step re-reads only its newest points.
	Prev *metricsclient.Window
	// Fixed says no refresh will continue this load (an absolute window):
	// a small selection is then read by the shaped read alone, without
	// the raw read that gives a live view its Window (RawSeriesMax).
	Fixed bool
	// DeferWindow leaves the raw read that gives a live view of a small
	// selection its Window to the next load without DeferWindow (the
	// page's next auto-refresh): this load reads shaped, as a fixed
	// window does. A page's first load shows sooner so: at 16 engines x
	// 6 h the raw read is 1.4 MB to decode in the browser, the shaped
	// read ~30 kB.
	DeferWindow bool
	// Labels asks for the label lists of the filter menus (Model.Labels);
	// LabelsMaxAge lets an incremental load reuse Prev's.
	Labels       bool
	LabelsMaxAge time.Duration
	// Baseline, when set, is the grid of a "before" window compared with
	// this one (Model.Baseline; always read in full).
	Baseline *compute.Grid
	// Insights asks for the insights of every group and of the total at
	// the cost ratios DraftCost (nil: compute.DefaultDraftCostRatio).
	Insights  bool
	DraftCost *CostRatios
	// K is num_speculative_tokens for vLLM V0's windowed system efficiency
	// (V0 does not export it); 0: unknown.
	K int
	// Health are the thresholds of the health verdicts and the options of
	// the change detection (zero fields: the defaults; model/health.go).
	Health HealthOptions
	// Location is the time zone of the times notes print (the page's);
	// nil: UTC (the CLI report's).
	Location *time.Location
	// Trace, when set, is called at the stages of Compute ("start",
	// "incremental", "fetched", "computed"): the browser's performance
	// marks.
	Trace func(stage string)
}

// Group is one group of series: its labels and numbers.
type Group struct {
	// Key is compute.GroupKey(Labels, groupBy); Name its display form
	// (GroupName).
	Key, Name string
	// Labels are the group-by label values.
	Labels map[string]string
	// Counts are the group's summed increases (total and per bucket).
	Counts compute.Group
	// Stats over the window and per bucket.
	Stats   compute.Stats
	Buckets []compute.Stats
	// FirstBucket is the index of the group's first bucket with data, and
	// DataFrom when its counts start (see Model.FirstBucket, DataFrom).
	FirstBucket int
	DataFrom    int64
	// Insights are the group's speedup, best k, fit and intervals
	// (Request.Insights; log input always); nil when not computed.
	Insights *Insights
	// V0 and Averaged are the schema's own numbers (schema.go): vLLM V0's
	// emitted tokens and lifetime gauges, a gauge schema's time averages.
	V0       *V0Stats
	Averaged *GaugeStats

	// Per-group additions go here (computed in FromSeries or Compute):
	// health verdicts and change points of the group's buckets, latency
	// (ITL) numbers, per-model splits.

	// Health is the group's verdict over the window and Changes the
	// changes of its acceptance rate over the complete buckets
	// (AddHealth); nil for a gauge schema.
	Health  *compute.Verdict
	Changes []compute.ChangePoint
}

// Baseline is the "before" window of a comparison (Request.Baseline).
type Baseline struct {
	Grid  compute.Grid
	Total compute.Group
	Stats compute.Stats
	// Err is why the baseline could not be loaded (the rest is empty).
	Err error
}

// Model is every number of one window (or of one log text): what the
// dashboard draws and the report writes.
type Model struct {
	// Request the numbers are for (without Prev and Trace, which only
	// steer the fetch).
	Request Request
	// Grid actually queried (Unix ms, step-aligned); zero for log input.
	Grid compute.Grid
	// WindowSeconds is the window's length in seconds (log input: the
	// summed window of the entries when known, else 0).
	WindowSeconds float64
	// Stats over the whole window (all selected series summed: ratio of
	// sums).
	Stats compute.Stats
	// Buckets are the per-step stats of the total, one per grid bucket.
	Buckets []compute.Stats
	// Total is all groups summed (counts per bucket and over the window).
	Total compute.Group
	// Fit is the geometric acceptance fit of the window's total counts; its
	// Conditional rates are the per-position chart's second series.
	Fit compute.GeometricFit
	// Insights are the total's insights (Request.Insights; log input
	// always); nil when not computed.
	Insights *Insights
	// Groups are the breakdown rows, in compute.Aggregate's order (by
	// label values).
	Groups []Group
	// Complete is the number of leading buckets that are final: buckets
	// from Complete on end less than IncompleteLag before Request.Now and
	// may still grow (their newest scrape may not be stored yet).
	Complete int
	// Series is the number of counter series the numbers come from.
	Series int
	// FirstBucket is the index of the first bucket with data: the first
	// bucket ending at or after the earliest point of any series (Buckets()
	// when there is none). Buckets before it have no series at all: the
	// time charts of rates leave them as gaps, not zeros. DataFrom is when
	// the window's counts start (Unix ms, countStarts): the window's start
	// when a series has a point at or before it, else the earliest series
	// start, its _created time when it started from 0 inside the window
	// (its counts since then are in the window's), else its first point
	// (a base, not counted). The rates are per second from there
	// (CoveredSeconds).
	FirstBucket int
	DataFrom    int64
	// LastPoint is the latest point time (Unix ms) of any series: the
	// staleness of the "now" numbers (now.go); 0 without points.
	LastPoint int64
	// samples are the selection's sample counts per bucket (the gap
	// check's, SchemaSampleCounts; nil when not read): the "now" interval
	// is stale as soon as it has none (Now).
	samples []float64
	// Labels maps every label name on the spec-decode series in the window
	// (unfiltered) to its values; nil when not asked for or the look-up
	// failed. Models and Engines are Labels["model_name"] and
	// Labels["engine"].
	Labels          map[string][]string
	Models, Engines []string
	// Schema is the detected schema and its own numbers (schema.go).
	Schema *SchemaNumbers
	// Baseline is the compared window (Request.Baseline).
	Baseline *Baseline
	// Notes are non-fatal messages, in the report's "warnings": source
	// warnings, skipped series, the mixed-k warning, the coverage note,
	// failed label look-ups.
	Notes []string
	// Incremental is true when the fetch re-read only the newest points
	// of a window that slid forward (Request.Prev).
	Incremental bool
	// Window is what the next Compute of the same view may continue from
	// (Request.Prev); nil after an error. It is never modified.
	Window *metricsclient.Window
	// Log describes log or scrape input (FromLog, FromScrape); nil for a
	// window read from a source.
	Log *LogInfo

	// Latency is the window's inter-token latency, output and load
	// numbers (latency.go); nil when the source cannot read them (log
	// input).
	Latency *Latency
	// Measured is the speedup measured against a baseline window without
	// drafts (latency.go); nil without a baseline.
	Measured *Measured
	// Ks are the distinct k of the selection's engines, ascending (more
	// than one: mixed k, named in Notes; Stats.K is the largest).
	Ks []int
	// Shaped is true when the counters were read through the shaped read
	// (per-group sums, metricsclient.Client.FetchShaped) and not series by
	// series (see Compute).
	Shaped bool
	// Resets are the counter series that went down (restarts, and series
	// that go backwards more often than restarts explain) and Gaps the
	// runs of buckets without any sample of the selection
	// (irregular.go); both are named in Notes and marked on the charts.
	Resets []compute.Reset
	Gaps   []compute.Gap
	// StartGaps are the runs of buckets in which engines that started
	// inside the window counted before their first sample (their first
	// sample's bucket holds those counts: compute.StartGaps); named in
	// Notes and marked on the charts like Gaps.
	StartGaps []compute.StartGap

	// Later additions have their place here and on Group: health
	// verdicts and change points (compute/health.go), latency (ITL)
	// panels, per-model splits.

	// Health and Changes are the selection's verdict and changes
	// (AddHealth; as on Group).
	Health  *compute.Verdict
	Changes []compute.ChangePoint
}

// IncompleteLag is how long after a bucket's end its numbers may still
// change: the bucket's last sample may be scraped (and stored) up to one
// scrape interval after it, plus 5 s for scrape duration and storage. A
// bucket ending later than now - IncompleteLag is drawn as incomplete.
func IncompleteLag(scrape time.Duration) time.Duration {
	return scrape + 5*time.Second
}

// completeBuckets is the number of leading buckets of g that end at or
// before now - IncompleteLag(scrape); all of them for a zero now.
func completeBuckets(g compute.Grid, now time.Time, scrape time.Duration) int {
	n := g.Buckets()
	if now.IsZero() {
		return n
	}
	cut := now.Add(-IncompleteLag(scrape)).UnixMilli()
	c := 0
	for c < n && g.BucketEnd(c) <= cut {
		c++
	}
	return c
}

func (r Request) trace(stage string) {
	if r.Trace != nil {
		r.Trace(stage)
	}
}

// Compute reads r's window from src and computes its Model: the schema
// detected and its counters fetched with r's filters (Source.Fetch; a live
// window that slid forward continues r.Prev), compute.Aggregate by
// r.GroupBy, Sum for the total, Derive for the window and for each bucket,
// FitGeometric for the conditional per-position rates, the schema's
// fix-ups and own numbers, the coverage note, incomplete buckets, the
// label lists (r.Labels), the baseline window (r.Baseline) and the
// insights (r.Insights).
//
// On an error the Model holds only what could still be read: the label
// lists of the filter menus when the filters exclude every series
// (metricsclient.CauseFiltered). It never panics: a panic below becomes
// the error.
func Compute(ctx context.Context, src Source, r Request) (m *Model, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = &Model{Request: r, Grid: r.Grid}, fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
		}
	}()
	if src == nil {
		return &Model{Request: r, Grid: r.Grid}, errors.New("no Prometheus client")
	}
	g := r.Grid
	var settled time.Time
	if !r.Now.IsZero() {
		settled = r.Now.Add(-IncompleteLag(r.Scrape))
	}
	r.trace("start")
	fr := metricsclient.FetchRequest{
		Grid:         g,
		Filters:      r.Filters,
		GroupBy:      r.GroupBy,
		Prev:         r.Prev,
		Settled:      settled,
		Labels:       r.Labels,
		LabelsMaxAge: r.LabelsMaxAge,
		Now:          r.Now,
	}
	fail := func(err error) (*Model, error) {
		m := &Model{Request: r, Grid: g}
		m.Request.Prev, m.Request.Trace = nil, nil
		m.labelsWhenFiltered(ctx, src, err)
		return m, err
	}
	// The query plan (docs/ARCHITECTURE.md, "Query plan"): a refresh that
	// continues r.Prev (a Window exists only for a small selection) reads
	// its newest points series by series; so does the first load of a
	// live view (r.Now set, not r.Fixed or r.DeferWindow) of a small
	// selection (SelectionSize, one cheap query first), for the Window of
	// the next refresh; any other load is a shaped read (followed by the
	// raw read when a live view's selection proves small after all).
	var (
		f  *metricsclient.Fetched
		w  *metricsclient.Window
		sh *metricsclient.Shaped
	)
	live := !r.Now.IsZero() && !r.Fixed && !r.DeferWindow
	// A live view's raw read that shows a counter restart its points
	// cannot count (metricsclient.Window.Restarted) gives way to the
	// shaped read, which reads the samples around the restart: the
	// first load's own when it had one, or one more. The view then keeps
	// no Window and reads shaped while the restart is in the window.
	var (
		shapedF *metricsclient.Fetched
		shaped  *metricsclient.Shaped
	)
	// The gap check's sample counts and the latency families need only the
	// schema: they are read alongside the counters, for the schema this
	// load most likely reads (read again below if the fetch finds another).
	var early schemaReads
	if s, ok := likelySchema(src, r.Prev); ok {
		early = startSchemaReads(ctx, src, s, g, r.Filters, r.Prev)
	}
	if r.Prev == nil {
		small := false
		if live {
			n, err := src.SelectionSize(ctx, g, r.Filters)
			small = err == nil && n <= RawSeriesMax
		}
		if !small {
			f, sh, err = src.FetchShapedAuto(ctx, fr, r.GroupBy)
			if err != nil {
				return fail(err)
			}
			if sh != nil && live && sh.SourceSeries <= RawSeriesMax {
				shapedF, shaped, sh = f, sh, nil
			}
		}
	}
	if sh == nil && (f == nil || live) {
		f, w, err = src.Fetch(ctx, fr)
		if err != nil {
			return fail(err)
		}
		if len(f.Series) > RawSeriesMax {
			w = nil // grown past a small selection: the next load reads shaped
		}
		if w.Restarted(r.Scrape) {
			w, fr.Prev = nil, nil
			if shaped == nil {
				shapedF, shaped, _ = src.FetchShapedAuto(ctx, fr, r.GroupBy)
			}
			if shaped != nil {
				f, sh = shapedF, shaped
			}
		}
	}
	if f.Incremental {
		r.trace("incremental")
	}
	r.trace("fetched")
	reads := early
	if len(early.schema.Metrics) == 0 || early.schema.ID != f.Schema().ID {
		reads = startSchemaReads(ctx, src, f.Schema(), g, r.Filters, r.Prev)
	}
	samples, latency := reads.samples, reads.latency
	if len(f.Series) == 0 {
		samples = nil // no gaps to look for
	}
	if sh != nil {
		m = fromShaped(sh, r)
	} else {
		m = FromSeries(f.Series, r)
	}
	m.Incremental = f.Incremental
	m.Notes = append(f.Warnings[:len(f.Warnings):len(f.Warnings)], m.Notes...)
	m.addIrregular(ctx, f, sh, samples)
	m.noteWindowEnd()
	m.applySchema(f)
	m.AddHealth() // again: a gauge schema has none
	if r.Insights {
		m.AddInsights()
	}
	r.trace("computed")
	if labels := f.Labels; labels != nil {
		m.setLabels(labels)
	} else if f.LabelsErr != nil && ctx.Err() == nil {
		m.Notes = append(m.Notes, "label list: "+f.LabelsErr.Error())
	}
	m.noteMissingGroupBy(ctx, src, f.Schema(), f.Labels)
	m.addLatency(src, f.Schema(), latency)
	if r.Baseline != nil {
		m.Baseline = loadBaseline(ctx, src, r, *r.Baseline)
		m.measure(ctx, src, f.Schema())
	}
	m.Window = keepReads(w, samples, latency)
	m.noteClockSkew(src)
	return m, nil
}

// FromSeries computes the Model of fetched counter series (no I/O, no
// schema): the groups of r.GroupBy (compute.Aggregate), their sum, the
// window's and each bucket's stats, the geometric fit, the coverage, the
// number of complete buckets at r.Now, and the notes of skipped series,
// mixed k and coverage.
func FromSeries(series []compute.Series, r Request) *Model {
	return fromGroups(series, compute.Aggregate(series, r.GroupBy, r.Grid), compute.DistinctK(series), len(series), r)
}

// fromShaped is FromSeries of a shaped read: its groups (engine counts
// per group), k and number of source series.
func fromShaped(sh *metricsclient.Shaped, r Request) *Model {
	m := fromGroups(sh.Series, sh.Groups(r.Grid), sh.KMix(), sh.SourceSeries, r)
	m.Shaped = !sh.Raw
	return m
}

// fromGroups is FromSeries of the groups of series (the series only place
// each group's first bucket), their k and the number of source series.
func fromGroups(series []compute.Series, groups []compute.Group, kmix compute.KMix, nSeries int, r Request) *Model {
	g := r.Grid
	r.Prev, r.Trace = nil, nil
	m := &Model{Request: r, Grid: g, WindowSeconds: g.Seconds(), Ks: kmix.Ks}
	m.Total = compute.Sum(groups)
	m.Notes = append(m.Notes, m.Total.Skipped...)
	if w := kmix.Warning(); w != "" {
		m.Notes = append(m.Notes, w)
	}
	if n := draftLengthNote(m.Total.Total); n != "" {
		m.Notes = append(m.Notes, n)
	}
	m.Stats = m.Total.TotalStats(g, r.Convention)
	m.Buckets = m.Total.BucketStats(g, r.Convention)
	m.Fit = compute.FitGeometric(m.Total.Total)
	m.Series = nSeries
	first := firstPoints(series, r.GroupBy)
	from := countStarts(series, r.GroupBy, g)
	m.FirstBucket = g.BucketAt(first[allKey])
	m.DataFrom = from[allKey]
	m.LastPoint = lastPoint(series)
	if note := m.CoverageNote(); note != "" {
		// Rates are per second of data (CoveredStatsOf).
		m.Notes = append(m.Notes, note)
	}
	m.Groups = make([]Group, len(groups))
	for i, gr := range groups {
		labels := gr.Labels
		if labels == nil {
			labels = map[string]string{}
		}
		m.Groups[i] = Group{
			FirstBucket: g.BucketAt(first[gr.Key]),
			DataFrom:    from[gr.Key],
			Key:         gr.Key,
			Name:        GroupName(labels, r.GroupBy),
			Labels:      labels,
			Counts:      gr,
			Stats:       gr.TotalStats(g, r.Convention),
			Buckets:     gr.BucketStats(g, r.Convention),
		}
	}
	m.Complete = completeBuckets(g, r.Now, r.Scrape)
	m.AddHealth()
	return m
}

// CoverageNote is compute.Coverage's note for the window: data in a
// small part of it only; "" when the data covers (almost) the whole
// window or there is none.
func (m *Model) CoverageNote() string {
	return compute.Coverage{FirstBucket: m.FirstBucket, DataFrom: m.DataFrom, DataTo: m.dataEnd()}.Note(m.Grid)
}

// countStarts is, for all series (allKey) and per group key, when the
// window's counts start (Unix ms), as compute.IncreaseSince counts: the
// grid's start when a series has a usable point at or before it; else a
// series' _created time when it started from 0 inside the window before
// its first point (what it counted since then is counted); else its first
// point (the base: what it held then is not counted). The earliest over
// the series, never before g.Start; g.End for a key without points.
func countStarts(series []compute.Series, groupBy []string, g compute.Grid) map[string]int64 {
	out := map[string]int64{}
	set := func(k string, t int64) {
		if cur, ok := out[k]; !ok || t < cur {
			out[k] = t
		}
	}
	for _, s := range series {
		p0, ok := int64(0), false
		for _, p := range s.Points {
			if p.V >= 0 && !math.IsInf(p.V, 0) {
				p0, ok = p.T, true
				break
			}
		}
		if !ok {
			continue
		}
		t := p0
		switch {
		case p0 <= g.Start:
			t = g.Start
		case s.Created > g.Start && s.Created < p0:
			t = s.Created
		}
		set(allKey, t)
		set(compute.GroupKey(s.Labels, groupBy), t)
	}
	if _, ok := out[allKey]; !ok {
		out[allKey] = g.End
	}
	return out
}

// allKey is the key of all series in firstPoints (no group key is "").
const allKey = ""

// firstPoints maps each group key (compute.GroupKey of the series' labels
// by groupBy) and allKey to the earliest point time (Unix ms) of its
// series; groups without points are absent.
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
		set(compute.GroupKey(s.Labels, groupBy), t)
	}
	return out
}

func loadBaseline(ctx context.Context, src Source, r Request, g compute.Grid) *Baseline {
	b := &Baseline{Grid: g}
	f, sh, err := src.FetchShapedAuto(ctx, metricsclient.FetchRequest{Grid: g, Filters: r.Filters}, nil)
	if err != nil {
		var miss *metricsclient.MissingMetricsError
		if errors.As(err, &miss) {
			err = fmt.Errorf("no speculative-decoding series in the baseline window %s – %s",
				compute.FormatTimeIn(g.Start, r.Location), compute.FormatTimeIn(g.End, r.Location))
		}
		b.Err = err
		return b
	}
	if sh != nil {
		b.Total = compute.Sum(sh.Groups(g))
	} else {
		b.Total = compute.Sum(compute.Aggregate(f.Series, nil, g))
	}
	b.Stats = b.Total.TotalStats(g, r.Convention)
	return b
}

// setLabels keeps the label lists of the filter menus.
func (m *Model) setLabels(labels map[string][]string) {
	m.Labels = labels
	m.Models, m.Engines = labels["model_name"], labels["engine"]
	if m.Models == nil {
		m.Models = []string{}
	}
	if m.Engines == nil {
		m.Engines = []string{}
	}
}

// SetLabels replaces the label lists of the filter menus (a background
// refresh of them: metricsclient.Client.RefreshLabels).
func (m *Model) SetLabels(labels map[string][]string) { m.setLabels(labels) }

// labelsWhenFiltered fills the filter menus' label lists after a fetch
// whose filters exclude every series (metricsclient.CauseFiltered): the
// schema's series exist in the window without the filters, so the menus
// list their values (SeriesLabels: the label names and values APIs), and
// the user can pick values that exist instead of editing the URL. Other
// errors leave them unset.
func (m *Model) labelsWhenFiltered(ctx context.Context, src Source, err error) {
	var miss *metricsclient.MissingMetricsError
	if !m.Request.Labels || !errors.As(err, &miss) || miss.Cause != metricsclient.CauseFiltered {
		return
	}
	s, ok := metricsclient.SchemaByID(miss.Schema)
	if !ok {
		return
	}
	g := m.Grid
	labels, lerr := src.SchemaLabels(ctx, s, time.UnixMilli(g.Start), time.UnixMilli(g.End))
	if lerr == nil {
		m.setLabels(labels)
	}
}

// GroupName is a group's display name: its label values joined by " · "
// (a missing label shows as "(none)"), "all series" without grouping.
func GroupName(labels map[string]string, groupBy []string) string {
	if len(groupBy) == 0 {
		return "all series"
	}
	parts := make([]string, len(groupBy))
	for i, l := range groupBy {
		parts[i] = LabelText(labels[l])
	}
	return strings.Join(parts, " · ")
}

// LabelText shows a label value; the empty value (series without the
// label) as "(none)".
func LabelText(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}
