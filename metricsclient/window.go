package metricsclient

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// FetchRequest is what Fetch reads: FetchAuto's grid and filters, plus what
// an incremental refresh needs (the previous fetch's Window) and the label
// look-up of the filter menus.
type FetchRequest struct {
	// Grid and Filters as for FetchAuto.
	Grid    compute.Grid
	Filters []Filter
	// GroupBy are the labels the caller groups the series by (the view
	// model's request). Fetch reads every series today; a fetch of
	// per-group sums may use it.
	GroupBy []string
	// Prev is the Window of the previous successful Fetch of this view, or
	// nil. When the new grid continues it (see Window.ContinuesAt), Fetch
	// re-reads only the newest points and takes the rest from Prev.
	Prev *Window
	// Settled is the time up to which stored samples are final: a grid
	// point at or before it will not change any more (for a live source,
	// now minus the scrape interval and a margin; model.IncompleteLag). The
	// returned Window remembers the last grid point at or before it. The
	// zero time means no point is final (the next Fetch is a full one).
	Settled time.Time
	// Labels asks for SeriesLabels(nil, grid start, grid end) of the
	// detected schema (unfiltered: the filter menus list every value), run
	// concurrently with the counters' query; the answer is in
	// Fetched.Labels (or Fetched.LabelsErr).
	Labels bool
	// LabelsMaxAge lets an incremental fetch reuse Prev's labels, and
	// Prev's schema detection (the metric names of the window), when they
	// were read less than LabelsMaxAge before Now (0: never reuse): a
	// schema that appears, or whose engines stop while another's run
	// (Detect prefers the schemas still exported), shows at most that much
	// later. A full fetch always reads them (the labels when Labels is
	// set).
	LabelsMaxAge time.Duration
	// Now is when the request is made (the age of reused labels is counted
	// from it; the zero time means time.Now()).
	Now time.Time
}

// Window is what one Fetch read, kept so that the next Fetch of a live
// window that slid forward reads only the points that may have changed.
// It holds the raw query_range answers (counters with their _created
// gauges, and the schema's Extra metrics) at the grid's points, the
// detected schema and the labels of the filter menus. A Window is never
// modified after Fetch returns it, so it may be shared between goroutines
// and loads.
type Window struct {
	address   string
	filterKey string
	filters   []Filter
	grid      compute.Grid
	// final is the last grid point (Unix ms) at or before the request's
	// Settled time: points at or before it are final. math.MinInt64 when
	// none is.
	final    int64
	det      Detection
	counters model.Matrix
	extra    model.Matrix
	fellBack bool
	// cacheable is false when the source answered with warnings (a
	// partial answer may be completed later): the next fetch is full.
	cacheable bool
	labels    map[string][]string
	labelsAt  time.Time
	// detAt is when det was read.
	detAt time.Time
	// samples and optional are the load's other reads over grid, kept
	// for the next load to continue (WithReads); nil when not kept.
	samples  *SampleCounts
	optional *OptionalFetch
}

// Grid returns the grid the window was read for.
func (w *Window) Grid() compute.Grid { return w.grid }

// Final returns the last grid point (Unix ms) that was final when the
// window was read, and false when none was.
func (w *Window) Final() (int64, bool) { return w.final, w.final != math.MinInt64 }

// Points returns the number of points the window holds (counters, their
// _created gauges and Extra metrics), for tests and benchmarks.
func (w *Window) Points() int {
	n := 0
	for _, m := range []model.Matrix{w.counters, w.extra} {
		for _, ss := range m {
			n += len(ss.Values)
		}
	}
	return n
}

// ContinuesAt returns the grid time (Unix ms) from which a fetch of grid g
// with filters through client c must re-read the source when w is the
// previous fetch, and whether w can be continued at all. It can when w was
// read by a client of the same address with the same filters, its source
// answered without warnings, g has w's step and alignment, g starts no
// earlier and ends no earlier than w (a live window that slid forward, or
// did not move), and at least one of w's final points lies after g's
// start. The re-read starts one step before w's last final point: that
// point is the base of the first bucket that was incomplete (so its
// increase is exact) and the step before it is a margin for samples stored
// late. Everything before comes from w. A nil w never continues.
func (w *Window) ContinuesAt(c *Client, g compute.Grid, filters []Filter) (int64, bool) {
	if w == nil || c == nil || !w.cacheable || w.address != c.address || w.final == math.MinInt64 {
		return 0, false
	}
	if key, err := specLikeSelector(filters); err != nil || key != w.filterKey {
		return 0, false
	}
	p := w.grid
	if g.Step != p.Step || g.Step <= 0 || g.Start < p.Start || g.End < p.End || (g.Start-p.Start)%g.Step != 0 {
		return 0, false
	}
	from := w.final - g.Step
	if from <= g.Start || from > g.End {
		return 0, false
	}
	return from, true
}

// Fetch detects the schema and fetches its series over r.Grid like
// FetchAuto, and returns, besides the Fetched, the Window the next Fetch
// may continue from.
//
// Incremental fetch: when r.Prev continues at some time F (ContinuesAt),
// Fetch runs, concurrently, one query_range of the counters over (F ...
// End) (and one of the Extra metrics for schemas that have them) with
// Prev's schema, and, unless Prev's detection (labels) are younger than
// r.LabelsMaxAge, Detect over the whole new grid (the label look-up). It
// merges the points (MergeMatrix: Prev's points from the new grid's start
// up to before F, then the re-read points; series that vanished keep their
// old points, series that appeared come in, series left without points in
// the new grid are dropped) and converts the merged answer exactly as a
// full fetch converts its own (SeriesFromMatrix: _created start times,
// warnings), so the result equals a full fetch of the same grid as long as
// the points Prev held as final did not change. When the detected schema
// differs from Prev's, the source answers with warnings or with a
// different form (metric names dropped), Fetch does a full fetch instead.
// Fetched.Incremental says which it was.
//
// Full fetch: Detect, then the counters' query, the Extra metrics' query
// and the label look-up concurrently; without a Prev, those of the client's
// schema (Config.Schema) run alongside Detect, and again for the detected
// schema only when it differs.
//
// Errors: those of FetchAuto. The label look-up's failure is not an error
// of the fetch: it is in Fetched.LabelsErr.
func (c *Client) Fetch(ctx context.Context, r FetchRequest) (*Fetched, *Window, error) {
	g := r.Grid
	if err := ValidateGrid(g); err != nil {
		return nil, nil, err
	}
	filterKey, err := specLikeSelector(r.Filters)
	if err != nil {
		return nil, nil, err
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	start, end := time.UnixMilli(g.Start), time.UnixMilli(g.End)
	var det *Detection
	detAt := now // when det was read
	if from, ok := r.Prev.ContinuesAt(c, g, r.Filters); ok {
		p := r.Prev
		sub := compute.Grid{Start: from, End: g.End, Step: g.Step}
		reuseLabels := p.labels != nil && r.LabelsMaxAge > 0 && now.Sub(p.labelsAt) < r.LabelsMaxAge
		var wg sync.WaitGroup
		detect := r.LabelsMaxAge <= 0 || p.detAt.IsZero() || now.Sub(p.detAt) >= r.LabelsMaxAge
		if !detect {
			detAt = p.detAt
		}
		da := c.startDetect(ctx, &wg, detect, r.Filters, start, end)
		labels := c.startLabels(ctx, &wg, p.det.Schema, r.Labels && !reuseLabels, start, end)
		raw := c.fetchRaw(ctx, p.det.Schema, sub, r.Filters)
		wg.Wait()
		d := p.det
		if detect {
			if da.err != nil {
				return nil, nil, da.err
			}
			d = da.d
		}
		if raw.err != nil {
			return nil, nil, raw.err
		}
		if d.Schema.ID == p.det.Schema.ID && len(raw.apiWarnings()) == 0 && raw.fellBack == p.fellBack {
			raw.counters = MergeMatrix(p.counters, raw.counters, g.Start, from)
			raw.extra = MergeMatrix(p.extra, raw.extra, g.Start, from)
			f, err := c.build(ctx, d, raw, g, r.Filters)
			if err != nil {
				return nil, nil, err
			}
			f.Incremental = true
			labelsAt := now
			if reuseLabels && r.Labels {
				f.Labels, labelsAt = p.labels, p.labelsAt
			} else if r.Labels {
				f.Labels, f.LabelsErr = labels.m, labels.err
			}
			return f, c.window(g, r.Filters, filterKey, r.Settled, d, detAt, raw, f, labelsAt), nil
		}
		det = &d // a full fetch follows, with this detection
	}
	var (
		raw    rawFetch
		labels *labelsAnswer
		have   bool // raw and labels are of det's schema
	)
	if det == nil {
		// A first load: the series of the client's schema are asked while
		// Detect runs (a round trip less), and kept when Detect finds that
		// schema.
		var wg sync.WaitGroup
		da := c.startDetect(ctx, &wg, true, r.Filters, start, end)
		labels = c.startLabels(ctx, &wg, c.schema, r.Labels, start, end)
		raw = c.fetchRaw(ctx, c.schema, g, r.Filters)
		wg.Wait()
		if da.err != nil {
			return nil, nil, da.err
		}
		det = &da.d
		have = da.d.Schema.ID == c.schema.ID
	}
	if !have {
		var wg sync.WaitGroup
		labels = c.startLabels(ctx, &wg, det.Schema, r.Labels, start, end)
		raw = c.fetchRaw(ctx, det.Schema, g, r.Filters)
		wg.Wait()
	}
	if raw.err != nil {
		return nil, nil, raw.err
	}
	f, err := c.build(ctx, *det, raw, g, r.Filters)
	if err != nil {
		return nil, nil, err
	}
	if r.Labels {
		f.Labels, f.LabelsErr = labels.m, labels.err
	}
	return f, c.window(g, r.Filters, filterKey, r.Settled, *det, detAt, raw, f, now), nil
}

// detectAnswer is the result of a concurrent Detect.
type detectAnswer struct {
	d   Detection
	err error
}

// startDetect starts Detect(filters, start, end) on wg when want is set;
// the answer is valid after wg.Wait().
func (c *Client) startDetect(ctx context.Context, wg *sync.WaitGroup, want bool, filters []Filter, start, end time.Time) *detectAnswer {
	a := &detectAnswer{}
	if !want {
		return a
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.d, a.err = c.Detect(ctx, filters, start, end)
	}()
	return a
}

// labelsAnswer is the result of a concurrent SeriesLabels.
type labelsAnswer struct {
	m   map[string][]string
	err error
}

// startLabels starts SeriesLabels(nil, start, end) of schema s on wg when
// want is set; the answer is valid after wg.Wait().
func (c *Client) startLabels(ctx context.Context, wg *sync.WaitGroup, s Schema, want bool, start, end time.Time) *labelsAnswer {
	a := &labelsAnswer{}
	if !want {
		return a
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.m, a.err = c.WithSchema(s).SeriesLabels(ctx, nil, start, end)
	}()
	return a
}

// WithReads returns a copy of w that also keeps the load's sample counts
// and optional families (either may be nil), so that the next load's
// SchemaSampleCounts and FetchOptionalSince read only their newest points,
// as Fetch does for the counters. A read is kept only when it is of w's
// grid and its source answered without warnings. w itself is not
// modified; a nil w stays nil.
func (w *Window) WithReads(samples *SampleCounts, optional *OptionalFetch) *Window {
	if w == nil {
		return nil
	}
	cp := *w
	cp.samples, cp.optional = nil, nil
	if samples != nil && samples.cacheable && samples.grid == w.grid {
		cp.samples = samples
	}
	if optional != nil && optional.raw != nil && optional.raw.cacheable && optional.raw.grid == w.grid {
		cp.optional = optional
	}
	return &cp
}

// samplesFor is the sample counts w keeps of schema s, or nil.
func (w *Window) samplesFor(s Schema) *SampleCounts {
	if w == nil || w.samples == nil || w.samples.schemaID != s.ID || w.samples.Counts == nil {
		return nil
	}
	return w.samples
}

// optionalFor is the raw answer of the optional families w keeps of schema
// s and the roles of key (roleKey), or nil.
func (w *Window) optionalFor(s Schema, key string) *optionalRaw {
	if w == nil || w.optional == nil || w.optional.raw.schemaID != s.ID || w.optional.raw.roles != key {
		return nil
	}
	return w.optional.raw
}

// continueOptional is where an optional read of the window g (for the
// schema and key of raw) continues w's: w's read p and the grid to read
// (from one step before w's last final point on) when it continues
// (ContinuesAt), else nil and g.
func (w *Window) continueOptional(c *Client, raw *optionalRaw, g compute.Grid, filters []Filter) (p *optionalRaw, read compute.Grid, from int64, cont bool) {
	if p = w.optionalFor(Schema{ID: raw.schemaID}, raw.roles); p == nil {
		return nil, g, 0, false
	}
	if from, cont = w.ContinuesAt(c, g, filters); !cont {
		return p, g, 0, false
	}
	return p, compute.Grid{Start: from, End: g.End, Step: g.Step}, from, true
}

// Schema is the schema whose series the window holds.
func (w *Window) Schema() Schema { return w.det.Schema }

// LabelsAt is when the window's label lists (Fetched.Labels) were read;
// the zero time when it holds none.
func (w *Window) LabelsAt() time.Time { return w.labelsAt }

// RefreshLabels reads the label lists of w's schema over w's grid again
// (SeriesLabels without filters, as Fetch does), and its schema detection
// (Detect with the filters w was read with), and returns the lists with a copy of w that
// holds both, read at now, for the next incremental Fetch to reuse: a
// caller that reuses them for long in Fetch (LabelsMaxAge) refreshes them
// with this after showing a load, off the refresh's path. When the
// detection finds another schema than w's counters are of, the copy is not
// continued: the next Fetch reads the whole window. w itself is not
// modified. Errors: those of SeriesLabels and Detect.
func (c *Client) RefreshLabels(ctx context.Context, w *Window, now time.Time) (*Window, map[string][]string, error) {
	start, end := time.UnixMilli(w.grid.Start), time.UnixMilli(w.grid.End)
	var wg sync.WaitGroup
	da := c.startDetect(ctx, &wg, true, w.filters, start, end)
	labels, err := c.WithSchema(w.det.Schema).SeriesLabels(ctx, nil, start, end)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	if da.err != nil {
		return nil, nil, da.err
	}
	cp := *w
	cp.labels, cp.labelsAt = labels, now
	if da.d.Schema.ID != w.det.Schema.ID {
		cp.cacheable = false
	} else {
		cp.det, cp.detAt = da.d, now
	}
	return &cp, labels, nil
}

// window makes the Window of a successful fetch of filters (their
// selector: filterKey), its detection read at detAt.
func (c *Client) window(g compute.Grid, filters []Filter, filterKey string, settled time.Time, det Detection, detAt time.Time, raw rawFetch, f *Fetched, labelsAt time.Time) *Window {
	w := &Window{
		address:   c.address,
		filterKey: filterKey,
		filters:   slices.Clone(filters),
		grid:      g,
		final:     math.MinInt64,
		det:       det,
		detAt:     detAt,
		counters:  raw.counters,
		extra:     raw.extra,
		fellBack:  raw.fellBack,
		cacheable: len(raw.apiWarnings()) == 0,
	}
	if !settled.IsZero() {
		if s := min(settled.UnixMilli(), g.End); s >= g.Start {
			w.final = g.Start + (s-g.Start)/g.Step*g.Step
		}
	}
	if f.Labels != nil && f.LabelsErr == nil {
		w.labels, w.labelsAt = f.Labels, labelsAt
	}
	return w
}

// rawFetch is the source's answer for one schema over one grid, before
// conversion.
type rawFetch struct {
	counters, extra       model.Matrix
	counterWarns, extraWs []string
	fellBack              bool
	err                   error
}

func (r rawFetch) apiWarnings() []string {
	return append(append([]string(nil), r.counterWarns...), r.extraWs...)
}

// fetchRaw runs the schema's counter query (countersMatrix) and, for a
// schema with Extra metrics, their plain selector over g, concurrently.
func (c *Client) fetchRaw(ctx context.Context, s Schema, g compute.Grid, filters []Filter) rawFetch {
	var out rawFetch
	var wg sync.WaitGroup
	var extraErr error
	if names := extraNames(s); len(names) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			esel, err := Selector(names, filters)
			if err != nil {
				extraErr = err
				return
			}
			r := v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: time.Duration(g.Step) * time.Millisecond}
			out.extra, out.extraWs, extraErr = c.queryMatrix(ctx, esel, r)
		}()
	}
	if len(s.Metrics) > 0 {
		out.counters, out.counterWarns, out.fellBack, out.err = c.countersMatrix(ctx, s, g, filters)
	}
	wg.Wait()
	if out.err == nil {
		out.err = extraErr
	}
	return out
}

// extraNames are the schema's Extra metric names in role order.
func extraNames(s Schema) []string {
	var out []string
	for _, r := range roles {
		if n := s.Extra[r]; n != "" {
			out = append(out, n)
		}
	}
	return out
}

// build converts a (full or merged) raw answer over g into a Fetched, as
// FetchAuto does: counters through SeriesFromMatrix and startWarnings,
// Extra series by role, warnings in FetchAuto's order. Errors: a malformed
// position label, and *MissingMetricsError when neither counters nor Extra
// metrics have points.
func (c *Client) build(ctx context.Context, det Detection, raw rawFetch, g compute.Grid, filters []Filter) (*Fetched, error) {
	s := det.Schema
	out := &Fetched{Detection: det, AveragedOverTime: s.Kind == Gauges}
	out.Warnings = append(out.Warnings, det.Warnings()...)
	if len(s.Metrics) > 0 {
		out.Warnings = append(out.Warnings, raw.counterWarns...)
		if raw.fellBack {
			out.Warnings = append(out.Warnings, fallbackWarning(time.Duration(g.Step)*time.Millisecond))
		}
		series, w, err := SeriesFromMatrix(raw.counters, s)
		out.Warnings = append(out.Warnings, w...)
		if err != nil {
			return nil, err
		}
		out.Warnings = append(out.Warnings, startWarnings(series, g)...)
		out.Series = series
	}
	seenRole := map[Role]bool{}
	if len(extraNames(s)) > 0 {
		out.Warnings = append(out.Warnings, raw.extraWs...)
		out.Extra = extraFromMatrix(raw.extra, s)
		for _, es := range out.Extra {
			seenRole[es.Role] = true
		}
	}
	if len(out.Series) == 0 && len(out.Extra) == 0 {
		sel, err := s.Selector(filters)
		if err != nil {
			return nil, err
		}
		return nil, c.WithSchema(s).diagnose(ctx, s.AllNames(), sel, filters, time.UnixMilli(g.Start), time.UnixMilli(g.End))
	}
	for _, role := range roles {
		if n, ok := s.Extra[role]; ok && !seenRole[role] {
			out.Warnings = append(out.Warnings, fmt.Sprintf("metric %s has no series here; the numbers that need it are undefined", n))
		}
	}
	return out, nil
}

// extraFromMatrix converts the Extra metrics' answer into ExtraSeries
// (points in ascending time, NaN left out, series without points
// dropped), sorted by role and labels.
func extraFromMatrix(m model.Matrix, s Schema) []ExtraSeries {
	var out []ExtraSeries
	for _, ss := range m {
		name := string(ss.Metric[model.MetricNameLabel])
		role, isExtra := s.Role(name)
		if !isExtra {
			continue
		}
		es := ExtraSeries{Role: role, Name: name, Labels: map[string]string{}}
		for k, v := range ss.Metric {
			if k != model.MetricNameLabel {
				es.Labels[string(k)] = string(v)
			}
		}
		for _, sp := range ss.Values {
			if v := float64(sp.Value); !math.IsNaN(v) {
				es.Points = append(es.Points, compute.Point{T: int64(sp.Timestamp), V: v})
			}
		}
		if len(es.Points) == 0 {
			continue
		}
		sort.SliceStable(es.Points, func(i, j int) bool { return es.Points[i].T < es.Points[j].T })
		out = append(out, es)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		return labelString(a.Labels) < labelString(b.Labels)
	})
	return out
}

// MergeMatrix returns what one query_range over a grid starting at start
// (Unix ms) returns, given prev, an earlier answer of the same query over a
// grid with the same step and alignment that holds every point from start
// up to before from, and fresh, the answer over the grid points from from
// on (from > start, on the grid); points of each series in ascending time,
// as Prometheus answers. Per series (label set): prev's points at start <=
// T < from followed by all of fresh's points, float samples and native
// histogram samples alike. prev's points at or after from are replaced by
// fresh's (a point fresh no longer has is gone, as it would be from a full
// answer); series only in prev keep their points before from; series only
// in fresh come in; series left without points are dropped. Order: prev's
// series in prev's order, then the new ones in fresh's order
// (SeriesFromMatrix sorts what it returns). Neither input is modified; the
// result's point slices are its own, its label sets and histograms are
// prev's or fresh's (never modified by this package). Cost O(points +
// series), one allocation per series and kind for its points.
func MergeMatrix(prev, fresh model.Matrix, start, from int64) model.Matrix {
	type entry struct {
		metric           model.Metric
		old, new         []model.SamplePair // sub-slices of the inputs, not copies
		oldHist, newHist []model.SampleHistogramPair
	}
	byFP := make(map[model.Fingerprint][]*entry, len(prev)+len(fresh))
	all := make([]*entry, 0, len(prev)+len(fresh))
	find := func(m model.Metric) *entry {
		fp := m.Fingerprint()
		for _, e := range byFP[fp] {
			if e.metric.Equal(m) {
				return e
			}
		}
		e := &entry{metric: m}
		byFP[fp] = append(byFP[fp], e)
		all = append(all, e)
		return e
	}
	for _, ss := range prev {
		lo := sort.Search(len(ss.Values), func(i int) bool { return int64(ss.Values[i].Timestamp) >= start })
		hi := sort.Search(len(ss.Values), func(i int) bool { return int64(ss.Values[i].Timestamp) >= from })
		hlo := sort.Search(len(ss.Histograms), func(i int) bool { return int64(ss.Histograms[i].Timestamp) >= start })
		hhi := sort.Search(len(ss.Histograms), func(i int) bool { return int64(ss.Histograms[i].Timestamp) >= from })
		if lo < hi || hlo < hhi {
			e := find(ss.Metric)
			e.old, e.oldHist = ss.Values[lo:hi], ss.Histograms[hlo:hhi]
		}
	}
	for _, ss := range fresh {
		if len(ss.Values) > 0 || len(ss.Histograms) > 0 {
			e := find(ss.Metric)
			e.new, e.newHist = ss.Values, ss.Histograms
		}
	}
	out := make(model.Matrix, 0, len(all))
	for _, e := range all {
		ss := &model.SampleStream{Metric: e.metric}
		if n := len(e.old) + len(e.new); n > 0 {
			ss.Values = append(append(make([]model.SamplePair, 0, n), e.old...), e.new...)
		}
		if n := len(e.oldHist) + len(e.newHist); n > 0 {
			ss.Histograms = append(append(make([]model.SampleHistogramPair, 0, n), e.oldHist...), e.newHist...)
		}
		out = append(out, ss)
	}
	return out
}
