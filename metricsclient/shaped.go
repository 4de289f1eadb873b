package metricsclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"

	"specdash/compute"
)

// The shaped read (FetchShaped): the source sums the steady series per
// group, specdash reads only the few irregular series itself. See
// docs/ARCHITECTURE.md, "Query plan".

const (
	// KLabel is the label that, when k mixes within a group, tells the
	// summed drafts of each k apart (and the per-position series of the
	// group's largest k), so that compute.Aggregate keeps the per-position
	// denominators (Counts.DraftsAtPosition) and compute.DistinctK exact.
	// It appears in the Labels of FetchShaped's summed series only.
	KLabel = "specdash_k"
	// partLabel marks which metric a series of an `or` query of several
	// metrics answers (the values of the irregular series).
	partLabel = "specdash_part"
)

// Shaped is what FetchShaped read: series to give compute.Aggregate (sums
// of the steady series per group, and one exact series per irregular
// series), the warnings to show, and what it cost.
type Shaped struct {
	// Series are for compute.Aggregate(Series, groupBy, grid) (or
	// Shaped.Groups, which also sets each group's engine count). Steady
	// series are summed per group (Labels: the group-by labels, and
	// KLabel for the drafts of each k when k mixes within the group);
	// irregular ones keep their own labels.
	Series []compute.Series
	// Warnings: the source's, specdash's (as FetchSeries'), and, when Raw,
	// why the shaped read was not possible.
	Warnings []string
	// Raw is set when every series was read by the raw path (FetchSeries):
	// the source lacks a feature the shaped queries need, or its answer
	// was inconsistent.
	Raw bool
	// Irregular is the number of label sets (engines) read series by
	// series: they reset, started, stopped or had a gap inside the window.
	Irregular int
	// Queries is the number of HTTP API queries made.
	Queries int
	// SourceSeries is the number of the source's counter series the
	// Series stand for (len(Series) of the raw path).
	SourceSeries int
	// Resets are the restarts and decreases of the source's counter
	// series inside the grid, as compute.Resets reports them: found in the
	// irregular series' samples (a decrease, or a changed _created value:
	// a restart whose first value is above the old one), or, when Raw, by
	// compute.Resets of the raw series (decreases between grid points).
	// Steady series have none (the detection query finds every series
	// that reset or restarted).
	Resets []compute.Reset

	groupBy []string
	// kLabel and kByLabel are the label that decides k, and its values'
	// k, when no group-by label does (kByLabel).
	kLabel   string
	kByLabel []compute.LabelK
	// engines is the number of label sets (engines) per group key.
	engines map[string]int
}

// Groups returns compute.Aggregate(s.Series, groupBy, g) with each group's
// Series set to its number of source label sets (engines), as the raw
// path's groups have: the summed series stand for many.
func (s *Shaped) Groups(g compute.Grid) []compute.Group {
	groups := compute.Aggregate(s.Series, s.groupBy, g)
	if s.engines == nil {
		return groups
	}
	for i := range groups {
		vals := make([]string, len(s.groupBy))
		for j, l := range s.groupBy {
			vals[j] = groups[i].Labels[l]
		}
		groups[i].Series = s.engines[groupKey(vals)]
	}
	return groups
}

// KMix returns the k of the selection as compute.DistinctK finds them. The
// label that decides k is only looked for among the group-by labels (the
// summed series carry no others).
func (s *Shaped) KMix() compute.KMix {
	m := compute.DistinctK(s.Series)
	if m.Label == KLabel {
		m.Label, m.ByLabel = "", nil
	}
	if m.Mixed() && m.Label == "" && s.kLabel != "" {
		m.Label, m.ByLabel = s.kLabel, slices.Clone(s.kByLabel)
	}
	return m
}

func groupKey(vals []string) string {
	var b strings.Builder
	for _, v := range vals {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}

// FetchShaped reads the client schema's counters over g, restricted by
// filters, for grouping by groupBy, with queries whose answers grow with
// groups x positions x buckets rather than with the number of series:
//
//   - one step-local range query over g's points (detectionQuery, which
//     the proxy's range cache keeps) finds the irregular label sets
//     (engines) from the drafts counter (detectName): a counter that
//     reset (resets), a _created gauge that changed (changes: a restart
//     whose first value is above the old one), a series with a value at
//     one grid point and none at the next or the other way round
//     (started, stopped, or not scraped for longer than the lookback);
//   - concurrently, two range queries per family over g sum and count,
//     per group and position, the last value in each step's lookback
//     window (Lookback), as FetchSeries reads each series; when the counts
//     show k mixing within a group, one more sums the drafts of the series
//     that have each position (the drafts of each k follow);
//   - the irregular label sets are then read alone: their values at the
//     grid points (to take them out of the sums), the buckets in which
//     they reset or restarted, and the raw samples of those buckets, from
//     which their exact increases are computed (a restart between two
//     step points, or one that _created alone reveals, loses nothing);
//   - a series of another family than drafts that started, stopped or
//     missed grid points while its engine's drafts did not shows as a
//     change in its group's count of series: the detection of that
//     family and an instant query at those points (the gap probe) name
//     it, and it is read as an irregular one. Not seen: a counter of
//     another family that falls while the engine's drafts neither fall
//     nor change _created (a restart counting more drafts before its
//     first scrape than the engine had before, without _created) and
//     whose steady sum does not fall at a grid point.
//
// compute.Aggregate(result.Series, groupBy, g) (or result.Groups(g)) gives
// the raw path's groups: the same counts per bucket and in total, the same
// k and per-position denominators, the same first bucket per group.
// Counts differ from FetchSeries' only where the raw path loses counts:
// a restart between two step points or one seen only in _created (the
// shaped read counts what the samples say), and a series without a
// _created gauge first seen inside the window (the shaped read counts its
// increases from its first sample, the raw path from its first step point).
//
// When the source cannot answer the shaped queries (it rejects a function
// or operator, or answers inconsistently: steady sums that fall, gaps the
// probe cannot name), FetchShaped reads the raw path (FetchSeries) and
// says so in a warning, with Raw set. groupBy labels must be valid
// (ValidateLabelName) and not KLabel. Errors: those of FetchSeries
// (*MissingMetricsError when no series matched).
func (c *Client) FetchShaped(ctx context.Context, g compute.Grid, filters []Filter, groupBy []string) (*Shaped, error) {
	if err := ValidateGrid(g); err != nil {
		return nil, err
	}
	if len(c.schema.Metrics) == 0 {
		return nil, fmt.Errorf("schema %s has no counters (its metrics are gauges averaged over time): use FetchAuto", c.schema.Name)
	}
	for _, l := range groupBy {
		if err := ValidateLabelName(l); err != nil {
			return nil, err
		}
		if l == KLabel || l == partLabel {
			return nil, fmt.Errorf("label %q cannot be used for grouping: specdash uses it in its own queries", l)
		}
	}
	if _, err := c.schema.CounterSelector(filters); err != nil {
		return nil, err
	}
	r := &shapedRead{c: c, s: c.schema, g: g, filters: filters, groupBy: groupBy}
	out, reason, err := r.read(ctx)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		if len(out.Series) == 0 {
			sel, _ := c.schema.CounterSelector(filters)
			return nil, c.diagnose(ctx, c.schema.Names(), sel, filters, time.UnixMilli(g.Start), time.UnixMilli(g.End))
		}
		if err := r.kByLabel(ctx, out); err != nil {
			// Only the label named in the mixed-k warning is missing.
			out.Warnings = append(out.Warnings, "which model_name has which k could not be read: "+err.Error())
		}
		out.Queries = r.queries
		return out, nil
	}
	series, warns, err := c.FetchSeries(ctx, g, filters)
	if err != nil {
		return nil, err
	}
	return &Shaped{
		Series:       series,
		Resets:       compute.Resets(series, g),
		Warnings:     append(warns, "every series was read one by one (the raw path, whose cost grows with the number of engines) because "+reason),
		Raw:          true,
		Queries:      r.queries + 1,
		SourceSeries: len(series),
		groupBy:      groupBy,
	}, nil
}

// FetchTotals reads the window totals of the client schema's counters
// between start and end (Unix ms; end > start) per group of groupBy: a
// shaped read (FetchShaped) of the one-bucket grid (start, end], so that
// a breakdown over hundreds of engines reads one value per series and
// counter at each end of the window (plus the irregular series), not
// per-bucket series. Each group's Total (and its one bucket) is the
// window's increase; FirstBucket semantics are those of that grid.
func (c *Client) FetchTotals(ctx context.Context, start, end int64, filters []Filter, groupBy []string) ([]compute.Group, *Shaped, error) {
	g := compute.Grid{Start: start, End: end, Step: end - start}
	sh, err := c.FetchShaped(ctx, g, filters, groupBy)
	if err != nil {
		return nil, nil, err
	}
	return sh.Groups(g), sh, nil
}

// shapedRead is one FetchShaped.
type shapedRead struct {
	c       *Client
	s       Schema
	g       compute.Grid
	filters []Filter
	groupBy []string

	mu      sync.Mutex
	queries int
}

// mixedK reports whether k mixes within a group, from the shaped counts
// vals (before the irregular label sets are taken out): at some grid
// point a group's number of per-position series differs between
// positions below its largest k, or from its number of drafts series
// (label sets with drafts but fewer positions, or none). Positions are
// 0..k-1 on every label set, so the steady label sets of a group mix k
// only if this holds: then the drafts of the label sets that have each
// position are read (dapQuery) for splitByK. A group without
// per-position series does not mix k.
func (r *shapedRead) mixedK(vals map[shapedKey]*shapedVals, n int) bool {
	if r.ppName() == "" || r.s.Metrics[compute.Drafts] == "" {
		return false
	}
	type counts struct {
		drafts *shapedVals
		pos    map[int]*shapedVals
	}
	groups := map[string]*counts{}
	for k, v := range vals {
		c := groups[k.group]
		if c == nil {
			c = &counts{pos: map[int]*shapedVals{}}
			groups[k.group] = c
		}
		switch k.fam {
		case compute.Drafts:
			c.drafts = v
		case compute.AcceptedPerPosition:
			c.pos[k.pos] = v
		}
	}
	at := func(v *shapedVals, i int) float64 {
		if v == nil {
			return 0
		}
		return v.cnt[i]
	}
	for _, c := range groups {
		kMax := 0
		for p := range c.pos {
			kMax = max(kMax, p+1)
		}
		if kMax == 0 {
			continue
		}
		for i := range n {
			nd := at(c.drafts, i)
			for p := range kMax {
				if at(c.pos[p], i) != nd {
					return true
				}
			}
		}
	}
	return false
}

func (r *shapedRead) count() {
	r.mu.Lock()
	r.queries++
	r.mu.Unlock()
}

// dur prints a duration for PromQL (milliseconds kept).
func dur(d time.Duration) string { return model.Duration(d.Round(time.Millisecond)).String() }

// ppName is the per-position family's metric name, "" when the schema has
// none.
func (r *shapedRead) ppName() string { return r.s.Metrics[compute.AcceptedPerPosition] }

// familyExpr is the instant-vector expression whose sum (and count) by
// group and position the shaped query takes for the counter named name:
// the last value in each step's lookback window, as the raw path reads.
func (r *shapedRead) familyExpr(name string, w string) (string, error) {
	sel, err := Selector([]string{name}, r.filters)
	if err != nil {
		return "", err
	}
	return "last_over_time(" + sel + "[" + w + "])", nil
}

// byClause is the grouping of the shaped query.
func (r *shapedRead) byClause() string {
	by := append([]string(nil), r.groupBy...)
	if r.ppName() != "" {
		by = append(by, r.s.PositionLabel)
	}
	return "by (" + strings.Join(by, ", ") + ")"
}

// sumPart is one range query of the shaped sums: the sum ('s') or the
// count ('c') of one family's series per group and position.
type sumPart struct {
	fam compute.Family
	agg byte
	q   string
}

// sumParts are the range queries of sums and counts of every family,
// one query each: the source evaluates them concurrently (shapedRead.read),
// where the terms of one `or` query are evaluated one after the other.
func (r *shapedRead) sumParts() ([]sumPart, error) {
	w := dur(Lookback(time.Duration(r.g.Step) * time.Millisecond))
	var out []sumPart
	for _, f := range families {
		name := r.s.Metrics[f]
		if name == "" {
			continue
		}
		e, err := r.familyExpr(name, w)
		if err != nil {
			return nil, err
		}
		for _, agg := range []string{"sum", "count"} {
			out = append(out, sumPart{fam: f, agg: agg[0], q: agg + " " + r.byClause() + " (" + e + ")"})
		}
	}
	return out, nil
}

// dapQuery is the range query, for a selection that mixes k within a
// group, of the drafts of the label sets that have each position, per
// group and position: the per-position denominators
// (Counts.DraftsAtPosition), from which the drafts of each k follow.
func (r *shapedRead) dapQuery() (string, error) {
	w := dur(Lookback(time.Duration(r.g.Step) * time.Millisecond))
	d, err := r.familyExpr(r.s.Metrics[compute.Drafts], w)
	if err != nil {
		return "", err
	}
	pp, err := r.familyExpr(r.ppName(), w)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`sum %s (%s + ignoring(%s) group_right() (0 * %s))`, r.byClause(), d, r.s.PositionLabel, pp), nil
}

// detectName is the counter whose series the detection query reads
// (detectQuery): the first family the schema has (drafts; draft tokens
// for TensorRT-LLM and vLLM V0, which have no drafts counter). A restart resets all of an engine's counters
// (and changes their _created values) at once, so the drafts counter
// names the engines that restarted; reading the other families' samples
// too would multiply the cost (the per-position family has k series per
// engine). A series of another family that starts, stops or has a gap
// while its engine's drafts are steady makes its group's count of series
// change between grid points: read then checks that family alone
// (detectQuery of it, and probeGaps). A counter
// of another family that falls while the drafts neither fall nor change
// _created is not seen (see FetchShaped).
func (r *shapedRead) detectName() string {
	if names := r.s.Names(); len(names) > 0 {
		return names[0]
	}
	return ""
}

// detectQuery is the step-local range query (over detectionRange(r.g))
// that lists the irregular label sets (without metric name and position)
// of the counters names: see detectionQuery.
func (r *shapedRead) detectQuery(names []string) (string, error) {
	created := make([]string, len(names))
	for i, n := range names {
		created[i] = CreatedName(n)
	}
	return detectionQuery(r.g, r.filters, r.s.PositionLabel, names, created)
}

// detectionQuery is the range query, over detectionRange(g), that lists
// the irregular label sets of the counters names (without metric name
// and without the label without), whose _created gauges are created (one
// per name, "" for none). At each grid point t after g's start, with s
// the step and W = Lookback(s), it counts the label sets of series that
//
//   - reset between two samples in the range (t - s - W, t] (resets),
//   - whose _created gauge changed there (a restart whose first value is
//     above the old one),
//   - have a sample in the lookback (t - W, t] but none in (t - s - W,
//     t - s], or the other way round (they started or stopped, or came
//     back after a gap longer than the lookback).
//
// Over the grid's points this finds every label set an instant query at
// g.End over the whole window ([span + W]) finds, and only a few more:
// two successive samples a < b with b in (t - s, t] lie both in t's
// range unless a lies before it, and then the series has no sample in
// the lookback of t - s and one (b) in that of t (W >= s). That holds
// whether a source opens a range's left end (Prometheus 3,
// VictoriaMetrics) or closes it (Prometheus 2), since its lookback and
// its range follow the same rule; a source whose rollups read more
// samples finds more, never fewer. The _created gauge is assumed to be
// scraped with its counter (one exposition), so a gap in it is a gap in
// the counter.
//
// Unlike the instant query, each point's value depends only on that
// point's time (StepLocal), so the proxy's range cache keeps the settled
// points and a live window's next load asks the source only for the new
// ones (docs/ARCHITECTURE.md, "The proxy's range cache").
func detectionQuery(g compute.Grid, filters []Filter, without string, names, created []string) (string, error) {
	s := time.Duration(g.Step) * time.Millisecond
	w := Lookback(s)
	d, ws, off := dur(s+w), dur(w), dur(s)
	var terms []string
	for i, name := range names {
		sel, err := Selector([]string{name}, filters)
		if err != nil {
			return "", err
		}
		now := "last_over_time(" + sel + "[" + ws + "])"
		before := "last_over_time(" + sel + "[" + ws + "] offset " + off + ")"
		terms = append(terms,
			"(resets("+sel+"["+d+"]) > 0)",
			"("+now+" unless "+before+")",
			"("+before+" unless "+now+")")
		if cn := created[i]; cn != "" {
			csel, err := Selector([]string{cn}, filters)
			if err != nil {
				return "", err
			}
			terms = append(terms, "(changes("+csel+"["+d+"]) > 0)")
		}
	}
	return "count without(" + without + ") (" + strings.Join(terms, " or ") + ")", nil
}

// detectionRange is the range over which detectionQuery runs: g's grid
// points after its start (each looks back over the bucket that ends
// there). Empty (End < Start) for a grid without buckets.
func detectionRange(g compute.Grid) v1.Range {
	return v1.Range{Start: time.UnixMilli(g.Start + g.Step), End: time.UnixMilli(g.End), Step: time.Duration(g.Step) * time.Millisecond}
}

// unsupported reports whether err says the source cannot evaluate a
// query (it rejected or failed it), as opposed to being unreachable,
// canceled or timing out.
func unsupported(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.Kind {
	case BadData, Execution, BadResponse, ServerError, ClientError:
		return true
	}
	return false
}

// key of one shaped series: family, position, group values.
type shapedKey struct {
	fam   compute.Family
	pos   int
	group string
}

type shapedVals struct {
	groupVals []string
	sum, cnt  []float64
	have      []bool // sum present at point i
}

// read runs the shaped read. A non-empty reason means: use the raw path.
func (r *shapedRead) read(ctx context.Context) (*Shaped, string, error) {
	g := r.g
	n := g.Buckets() + 1
	parts, err := r.sumParts()
	if err != nil {
		return nil, "", err
	}
	dq, err := r.detectQuery([]string{r.detectName()})
	if err != nil {
		return nil, "", err
	}
	rng := v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: time.Duration(g.Step) * time.Millisecond}
	// The detection and the sums of each family concurrently: the source
	// evaluates each query on its own goroutine.
	var (
		sms   = make([]model.Matrix, len(parts))
		warns = make([][]string, len(parts)+1)
		dm    model.Matrix
	)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxShapedConcurrent)
	eg.Go(func() error {
		r.count()
		var err error
		dm, warns[len(parts)], err = r.c.queryMatrix(ectx, dq, detectionRange(g))
		return err
	})
	for i, p := range parts {
		eg.Go(func() error {
			r.count()
			var err error
			sms[i], warns[i], err = r.c.queryMatrix(ectx, p.q, rng)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		if ctx.Err() == nil && unsupported(err) {
			return nil, "the source could not answer the summed queries: " + err.Error(), nil
		}
		return nil, "", err
	}
	out := &Shaped{groupBy: r.groupBy, engines: map[string]int{}}
	for _, ws := range warns {
		out.Warnings = append(out.Warnings, ws...)
	}

	// Sums and counts per key.
	pos := model.LabelName(r.s.PositionLabel)
	vals := map[shapedKey]*shapedVals{}
	var order []shapedKey
	for pi, sm := range sms {
		part := parts[pi]
		for _, ss := range sm {
			k := shapedKey{fam: part.fam, pos: -1}
			if k.fam == compute.AcceptedPerPosition {
				p, err := strconv.Atoi(string(ss.Metric[pos]))
				if err != nil || p < 0 || p > MaxPosition {
					return nil, "", fmt.Errorf("shaped sum %s has an invalid %s label: want an integer 0..%d", ss.Metric, pos, MaxPosition)
				}
				k.pos = p
			}
			gv := make([]string, len(r.groupBy))
			for i, l := range r.groupBy {
				gv[i] = string(ss.Metric[model.LabelName(l)])
			}
			k.group = groupKey(gv)
			v := vals[k]
			if v == nil {
				v = &shapedVals{groupVals: gv, sum: make([]float64, n), cnt: make([]float64, n), have: make([]bool, n)}
				vals[k] = v
				order = append(order, k)
			}
			for _, sp := range ss.Values {
				t := int64(sp.Timestamp)
				if (t-g.Start)%g.Step != 0 || t < g.Start || t > g.End {
					return nil, "the source answered the shaped query off the grid", nil
				}
				i := (t - g.Start) / g.Step
				if part.agg == 's' {
					v.sum[i], v.have[i] = float64(sp.Value), true
				} else {
					v.cnt[i] = float64(sp.Value)
				}
			}
		}
	}
	// Does k mix within a group? Then the drafts of the label sets that
	// have each position are read too (dapQuery).
	var dap map[shapedKey]*shapedVals
	if r.mixedK(vals, n) {
		q, err := r.dapQuery()
		if err != nil {
			return nil, "", err
		}
		r.count()
		am, ws, err := r.c.queryMatrix(ctx, q, rng)
		out.Warnings = append(out.Warnings, ws...)
		if err != nil {
			if unsupported(err) {
				return nil, "the source could not answer the summed drafts per position: " + err.Error(), nil
			}
			return nil, "", err
		}
		dap = map[shapedKey]*shapedVals{}
		for _, ss := range am {
			p, err := strconv.Atoi(string(ss.Metric[model.LabelName(r.s.PositionLabel)]))
			if err != nil || p < 0 || p > MaxPosition {
				return nil, "", fmt.Errorf("drafts per position %s has an invalid %s label: want an integer 0..%d", ss.Metric, r.s.PositionLabel, MaxPosition)
			}
			gv := make([]string, len(r.groupBy))
			for i, l := range r.groupBy {
				gv[i] = string(ss.Metric[model.LabelName(l)])
			}
			v := &shapedVals{groupVals: gv, sum: make([]float64, n), cnt: make([]float64, n), have: make([]bool, n)}
			for _, sp := range ss.Values {
				t := int64(sp.Timestamp)
				if (t-g.Start)%g.Step != 0 || t < g.Start || t > g.End {
					return nil, "the source answered the drafts per position off the grid", nil
				}
				i := (t - g.Start) / g.Step
				v.sum[i], v.have[i] = float64(sp.Value), true
			}
			dap[shapedKey{fam: compute.Drafts, pos: p, group: groupKey(gv)}] = v
		}
	}

	// Irregular label sets.
	irr := map[string]map[string]string{}
	addIrregular := func(m model.Metric) int {
		l := map[string]string{}
		for k, v := range m {
			if k != model.MetricNameLabel && k != pos {
				l[string(k)] = string(v)
			}
		}
		if id := labelString(l); irr[id] == nil {
			irr[id] = l
			return 1
		}
		return 0
	}
	for _, ss := range dm {
		addIrregular(ss.Metric)
	}
	warnings := out.Warnings
	for pass := 0; ; pass++ {
		out.Warnings = append([]string(nil), warnings...)
		res, gaps, reason, err := r.assemble(ctx, out, cloneVals(vals), order, cloneVals(dap), irr)
		if err != nil || reason != "" || len(gaps) == 0 {
			return res, reason, err
		}
		if pass > 0 {
			return nil, gapReason(gaps), nil
		}
		// The count of a group's steady series changed between grid
		// points. In a family the detection did not read, that is a
		// series that started, stopped, reset or restarted while its
		// engine's drafts did not: detectQuery of that family names it.
		// In any family it may be a steady series not scraped for
		// longer than the lookback (a gap): probeGaps names it. Both
		// are then read as irregular ones.
		var names []string
		for _, f := range families {
			name := r.s.Metrics[f]
			if name == "" || name == r.detectName() {
				continue
			}
			if slices.ContainsFunc(gaps, func(gp shapedGap) bool { return gp.fam == f }) {
				names = append(names, name)
			}
		}
		added := 0
		if len(names) > 0 {
			q, err := r.detectQuery(names)
			if err != nil {
				return nil, "", err
			}
			r.count()
			found, ws, err := r.c.queryMatrix(ctx, q, detectionRange(g))
			warnings = append(warnings, ws...)
			if err != nil {
				if unsupported(err) {
					return nil, "the source could not answer the query that finds the irregular series of " + strings.Join(names, ", ") + ": " + err.Error(), nil
				}
				return nil, "", err
			}
			for _, ss := range found {
				added += addIrregular(ss.Metric)
			}
		}
		if len(gaps) <= maxGapProbes {
			found, ws, err := r.probeGaps(ctx, gaps)
			warnings = append(warnings, ws...)
			if err != nil {
				if unsupported(err) {
					return nil, "the source could not answer the query that finds series with gaps: " + err.Error(), nil
				}
				return nil, "", err
			}
			for _, smp := range found {
				added += addIrregular(smp.Metric)
			}
		}
		if added == 0 {
			return nil, gapReason(gaps), nil
		}
	}
}

// maxShapedConcurrent bounds the concurrent queries of the shaped sums
// and the detection: all of them at once (a sum and a count per family,
// four families, and the detection), as a Grafana dashboard asks its
// panels' queries; 4 at a time made them three round trips after one
// another. A browser holds at most 6 requests per host at once over
// HTTP/1.1 and queues the others.
const maxShapedConcurrent = 2*4 + 1

// maxGapProbes bounds the grid points probed for series with gaps.
const maxGapProbes = 16

// shapedGap is a grid point at which a group's steady series were fewer
// than at the grid's start.
type shapedGap struct {
	fam    compute.Family
	t      int64
	group  string
	was, n float64
}

func gapReason(gaps []shapedGap) string {
	g := gaps[0]
	return fmt.Sprintf("a series that is neither new, gone nor reset has a gap longer than the lookback in group %s (%g series at the window's start, %g at %s)",
		g.group, g.was, g.n, time.UnixMilli(g.t).UTC().Format(time.RFC3339))
}

func cloneVals(vals map[shapedKey]*shapedVals) map[shapedKey]*shapedVals {
	if vals == nil {
		return nil
	}
	out := make(map[shapedKey]*shapedVals, len(vals))
	for k, v := range vals {
		out[k] = &shapedVals{groupVals: v.groupVals, sum: slices.Clone(v.sum), cnt: slices.Clone(v.cnt), have: slices.Clone(v.have)}
	}
	return out
}

// probeGaps finds the label sets with a value at the grid's start but
// none at one of the gaps' grid points (one instant query at the grid's
// end, offsets back to each point).
func (r *shapedRead) probeGaps(ctx context.Context, gaps []shapedGap) (model.Vector, []string, error) {
	g := r.g
	w := dur(Lookback(time.Duration(g.Step) * time.Millisecond))
	times := map[int64]bool{}
	for _, gp := range gaps {
		times[gp.t] = true
	}
	ts := make([]int64, 0, len(times))
	for t := range times {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	var terms []string
	for _, name := range r.s.Names() {
		sel, err := Selector([]string{name}, r.filters)
		if err != nil {
			return nil, nil, err
		}
		atStart := "last_over_time(" + sel + "[" + w + "] offset " + dur(time.Duration(g.End-g.Start)*time.Millisecond) + ")"
		for _, t := range ts {
			at := "last_over_time(" + sel + "[" + w + "]"
			if t < g.End {
				at += " offset " + dur(time.Duration(g.End-t)*time.Millisecond)
			}
			terms = append(terms, "("+atStart+" unless "+at+"))")
		}
	}
	r.count()
	return r.c.queryVector(ctx, "count without("+r.s.PositionLabel+") ("+strings.Join(terms, " or ")+")", time.UnixMilli(g.End))
}

// assemble takes the irregular label sets irr out of the shaped sums vals
// and, for a selection that mixes k, of the drafts per position dap (both
// modified), checks that what is left is steady, and builds the answer on
// out. gaps lists the grid points at which a group has fewer steady
// series than at the start (then out is not complete).
func (r *shapedRead) assemble(ctx context.Context, out *Shaped, vals map[shapedKey]*shapedVals, order []shapedKey, dap map[shapedKey]*shapedVals, irr map[string]map[string]string) (*Shaped, []shapedGap, string, error) {
	g := r.g
	n := g.Buckets() + 1
	out.Irregular = len(irr)
	out.Series, out.SourceSeries = nil, 0
	out.engines = map[string]int{}
	var irrSeries []compute.Series
	var data *irregularData
	if len(irr) > 0 {
		var err error
		data, err = r.readIrregular(ctx, irr, &out.Warnings)
		if err != nil {
			if unsupported(err) {
				return nil, nil, "the source could not answer the queries of the series that restarted, started or stopped: " + err.Error(), nil
			}
			return nil, nil, "", err
		}
		irrSeries = data.steps
	}
	at := func(t int64) time.Time { return time.UnixMilli(t).UTC() }

	// Take the irregular series out of the sums, as the source summed them.
	type irrEngine struct {
		group  string
		drafts []float64
		hasD   []bool
		pos    map[int][]bool // position -> present at point i
	}
	engines := map[string]*irrEngine{}
	irrGroups := map[string]map[string]bool{}
	for _, s := range irrSeries {
		id := labelString(s.Labels)
		gv := make([]string, len(r.groupBy))
		for i, l := range r.groupBy {
			gv[i] = s.Labels[l]
		}
		gk := groupKey(gv)
		if irrGroups[gk] == nil {
			irrGroups[gk] = map[string]bool{}
		}
		irrGroups[gk][id] = true
		e := engines[id]
		if e == nil {
			e = &irrEngine{group: gk, drafts: make([]float64, n), hasD: make([]bool, n), pos: map[int][]bool{}}
			engines[id] = e
		}
		k := shapedKey{fam: s.Family, pos: -1, group: gk}
		if s.Family == compute.AcceptedPerPosition {
			k.pos = s.Position
			e.pos[s.Position] = make([]bool, n)
		}
		for _, p := range s.Points {
			i := (p.T - g.Start) / g.Step // on the grid: readIrregular checked
			switch s.Family {
			case compute.Drafts:
				e.drafts[i], e.hasD[i] = p.V, true
			case compute.AcceptedPerPosition:
				e.pos[s.Position][i] = true
			}
			v := vals[k]
			if v == nil || !v.have[i] {
				return nil, nil, fmt.Sprintf("the shaped sums lack series %s at %s although it has a value there", compute.LabelString(s.Labels), at(p.T).Format(time.RFC3339)), nil
			}
			v.sum[i] -= p.V
			v.cnt[i]--
		}
	}
	if dap != nil {
		for _, e := range engines {
			for j, present := range e.pos {
				for i := range n {
					if !present[i] || !e.hasD[i] {
						continue
					}
					v := dap[shapedKey{fam: compute.Drafts, pos: j, group: e.group}]
					if v == nil || !v.have[i] {
						return nil, nil, fmt.Sprintf("the summed drafts per position lack an irregular series at %s", at(g.Start+int64(i)*g.Step).Format(time.RFC3339)), nil
					}
					v.sum[i] -= e.drafts[i]
				}
			}
		}
	}

	// The steady sums: the same series at every grid point, never falling.
	var gaps []shapedGap
	steadyEngines := map[string]float64{}
	type steady struct {
		vals   []string
		fam    map[compute.Family]*shapedVals // families other than per position
		pos    map[int]*shapedVals
		counts map[compute.Family]float64
	}
	groups := map[string]*steady{}
	var groupOrder []string
	for _, k := range order {
		v := vals[k]
		c0 := v.cnt[0]
		gap := false
		for i := range n {
			if v.cnt[i] != c0 {
				gaps = append(gaps, shapedGap{fam: k.fam, t: g.Start + int64(i)*g.Step, group: groupName(r.groupBy, v.groupVals), was: c0, n: v.cnt[i]})
				gap = true
				break
			}
		}
		if gap {
			continue
		}
		for i := range n {
			if c0 > 0 && (!v.have[i] || (i > 0 && v.sum[i] < v.sum[i-1])) {
				return nil, nil, fmt.Sprintf("the summed steady series of group %s fall at %s", groupName(r.groupBy, v.groupVals), at(g.Start+int64(i)*g.Step).Format(time.RFC3339)), nil
			}
		}
		if c0 == 0 {
			continue
		}
		if k.fam != compute.AcceptedPerPosition {
			steadyEngines[k.group+"\x00"+strconv.Itoa(int(k.fam))] += c0
		}
		st := groups[k.group]
		if st == nil {
			st = &steady{vals: v.groupVals, fam: map[compute.Family]*shapedVals{}, pos: map[int]*shapedVals{}}
			groups[k.group] = st
			groupOrder = append(groupOrder, k.group)
		}
		if k.fam == compute.AcceptedPerPosition {
			st.pos[k.pos] = v
		} else {
			st.fam[k.fam] = v
		}
		out.SourceSeries += int(c0)
	}
	if len(gaps) > 0 {
		return nil, gaps, "", nil
	}
	seen := map[compute.Family]bool{}
	emit := func(st *steady, fam compute.Family, pos int, k string, vals []float64) {
		labels := make(map[string]string, len(r.groupBy)+1)
		for i, l := range r.groupBy {
			labels[l] = st.vals[i]
		}
		if k != "" {
			labels[KLabel] = k
		}
		s := compute.Series{Family: fam, Position: pos, Labels: labels, Points: make([]compute.Point, n)}
		for i := range n {
			s.Points[i] = compute.Point{T: g.Start + int64(i)*g.Step, V: vals[i]}
		}
		seen[fam] = true
		out.Series = append(out.Series, s)
	}
	for _, gk := range groupOrder {
		st := groups[gk]
		split, reason := r.splitByK(st.fam[compute.Drafts], st.pos, dap, gk, n)
		if reason != "" {
			return nil, nil, reason, nil
		}
		for _, f := range families {
			if v := st.fam[f]; v != nil && (f != compute.Drafts || split == nil) {
				emit(st, f, -1, "", v.sum)
			}
		}
		kMax := 0
		for p := range st.pos {
			kMax = max(kMax, p+1)
		}
		for p := range kMax {
			if v := st.pos[p]; v != nil {
				label := ""
				if split != nil {
					label = strconv.Itoa(kMax)
				}
				emit(st, compute.AcceptedPerPosition, p, label, v.sum)
			}
		}
		for _, ks := range split {
			emit(st, compute.Drafts, -1, strconv.Itoa(ks.k), ks.drafts)
			if ks.k > 0 && ks.k < kMax {
				// The identity of k: one position series (zero) gives
				// compute.Aggregate its k; the per-position counts are
				// all under kMax's.
				emit(st, compute.AcceptedPerPosition, ks.k-1, strconv.Itoa(ks.k), make([]float64, n))
			}
		}
	}
	out.SourceSeries += len(irrSeries)
	// Engines per group: the steady ones (the family most of them have)
	// and the irregular ones.
	for key, c := range steadyEngines {
		gk, _, _ := strings.Cut(key, "\x00")
		out.engines[gk] = max(out.engines[gk], int(c))
	}
	for gk, ids := range irrGroups {
		out.engines[gk] += len(ids)
	}

	// The irregular series, exact from their samples.
	exact, resets := data.exactSeries(r.s, g)
	out.Resets = resets
	for _, s := range exact {
		seen[s.Family] = true
	}
	out.Series = append(out.Series, exact...)
	out.Warnings = append(out.Warnings, missingFamilies(r.s, seen, len(out.Series) > 0)...)
	out.Warnings = append(out.Warnings, startWarnings(irrSeries, g)...)
	sortSeries(out.Series)
	r.mu.Lock()
	out.Queries = r.queries
	r.mu.Unlock()
	return out, nil, "", nil
}

// kDrafts is the summed drafts (at each grid point) of a group's steady
// label sets of one k (0: without per-position series).
type kDrafts struct {
	k      int
	drafts []float64
}

// splitByK splits a group's steady drafts by k when its steady label sets
// mix k, nil when they do not: from the number of steady series at each
// position (N_p, non-increasing) and with drafts (N_d), the label sets of
// k are N_(k-1) - N_k (k 0: N_d - N_0), and their drafts are the drafts
// per position dap (residual) at k-1 minus those at k (k 0: the drafts
// minus those at position 0). A non-empty reason says the answer is
// inconsistent.
func (r *shapedRead) splitByK(drafts *shapedVals, pos map[int]*shapedVals, dap map[shapedKey]*shapedVals, gk string, n int) ([]kDrafts, string) {
	if drafts == nil || len(pos) == 0 {
		return nil, ""
	}
	kMax := 0
	for p := range pos {
		kMax = max(kMax, p+1)
	}
	count := func(p int) float64 {
		if v := pos[p]; v != nil {
			return v.cnt[0]
		}
		return 0
	}
	nd := drafts.cnt[0]
	mixed := false
	for p := range kMax {
		if count(p) != nd {
			mixed = true
		}
	}
	if !mixed {
		return nil, ""
	}
	name := groupName(r.groupBy, drafts.groupVals)
	if dap == nil {
		return nil, fmt.Sprintf("the steady series of group %s mix k, which the first look at the window did not show", name)
	}
	at := func(p int) ([]float64, bool) {
		if p >= kMax {
			return make([]float64, n), true
		}
		v := dap[shapedKey{fam: compute.Drafts, pos: p, group: gk}]
		if v == nil {
			return nil, false
		}
		for i := range n {
			if !v.have[i] {
				return nil, false
			}
		}
		return v.sum, true
	}
	var out []kDrafts
	for k := 0; k <= kMax; k++ {
		engines := nd - count(0)
		if k > 0 {
			engines = count(k-1) - count(k)
		}
		if engines == 0 {
			continue
		}
		hi, ok1 := drafts.sum, true
		if k > 0 {
			hi, ok1 = at(k - 1)
		}
		lo, ok2 := at(k)
		if engines < 0 || !ok1 || !ok2 {
			return nil, fmt.Sprintf("the summed drafts per position of group %s do not match its series of each k", name)
		}
		d := make([]float64, n)
		for i := range n {
			d[i] = hi[i] - lo[i]
			if d[i] < 0 || (i > 0 && d[i] < d[i-1]) {
				return nil, fmt.Sprintf("the summed drafts of k %d in group %s fall", k, name)
			}
		}
		out = append(out, kDrafts{k: k, drafts: d})
	}
	return out, ""
}

// groupName prints a group for a message.
func groupName(groupBy, vals []string) string {
	l := map[string]string{}
	for i, n := range groupBy {
		l[n] = vals[i]
	}
	return compute.LabelString(l)
}

// missingFamilies are SeriesFromMatrix's warnings of schema families
// without series while others have some.
func missingFamilies(schema Schema, seen map[compute.Family]bool, any bool) []string {
	var out []string
	if !any {
		return nil
	}
	for _, f := range families {
		if n, ok := schema.Metrics[f]; ok && !seen[f] {
			msg := fmt.Sprintf("metric %s has no series here while the other speculative-decoding counters do; the numbers that need it are undefined", n)
			if schema.ID == LlamaCpp.ID && f == compute.AcceptedPerPosition {
				msg += " (llama.cpp exports it only after the first speculative request completes)"
			}
			out = append(out, msg)
		}
	}
	return out
}

// sortSeries sorts by family, labels and position, as SeriesFromMatrix.
func sortSeries(out []compute.Series) {
	keys := make([]string, len(out))
	idx := make([]int, len(out))
	for i, s := range out {
		keys[i], idx[i] = labelString(s.Labels), i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := out[idx[a]], out[idx[b]]
		if x.Family != y.Family {
			return x.Family < y.Family
		}
		if keys[idx[a]] != keys[idx[b]] {
			return keys[idx[a]] < keys[idx[b]]
		}
		return x.Position < y.Position
	})
	cp := make([]compute.Series, len(out))
	for i, j := range idx {
		cp[i] = out[j]
	}
	copy(out, cp)
}

// queryVector runs an instant query that must return a vector.
func (c *Client) queryVector(ctx context.Context, q string, at time.Time) (model.Vector, []string, error) {
	val, warns, _, err := c.api.Query(ctx, q, at)
	warnings := append([]string(nil), warns...)
	if err != nil {
		return nil, warnings, wrapErr("query", c.address, err)
	}
	vec, ok := val.(model.Vector)
	if !ok {
		return nil, warnings, &APIError{Op: "query", Address: c.address, Kind: BadResponse,
			Msg: fmt.Sprintf("expected a vector, got %v", typeName(val))}
	}
	return vec, warnings, nil
}

// queryRawSamples runs an instant query that must return a matrix (a
// range selector: raw samples).
func (c *Client) queryRawSamples(ctx context.Context, q string, at time.Time) (model.Matrix, []string, error) {
	val, warns, _, err := c.api.Query(ctx, q, at)
	warnings := append([]string(nil), warns...)
	if err != nil {
		return nil, warnings, wrapErr("query", c.address, err)
	}
	m, ok := val.(model.Matrix)
	if !ok {
		return nil, warnings, &APIError{Op: "query", Address: c.address, Kind: BadResponse,
			Msg: fmt.Sprintf("expected a matrix, got %v", typeName(val))}
	}
	return m, warnings, nil
}

// FetchShapedAuto is Fetch with the counters read by FetchShaped: it
// detects the schema over r.Grid (Detect) and reads concurrently the
// schema's counters grouped by groupBy (FetchShaped), its Extra metrics
// (their plain selector over the grid, as Fetch) and, when r.Labels is
// set, the label lists of the filter menus (SeriesLabels, unfiltered);
// those of the client's schema while Detect runs, those of another schema
// Detect finds after it.
// The Fetched holds the shaped series (compute.Aggregate them by the same
// groupBy, or use the Shaped's Groups and KMix), the Extra series, the
// labels and every warning (detection, shaped read, Extra metrics). It
// always reads the whole window (r.Prev, r.Settled and r.LabelsMaxAge are
// not used; Fetched.Incremental is false). A gauge schema has no Shaped
// (nil). Errors: those of Fetch and FetchShaped; a schema whose counters
// have no series while its Extra metrics have some is not an error.
func (c *Client) FetchShapedAuto(ctx context.Context, r FetchRequest, groupBy []string) (*Fetched, *Shaped, error) {
	g := r.Grid
	if err := ValidateGrid(g); err != nil {
		return nil, nil, err
	}
	if _, err := specLikeSelector(r.Filters); err != nil {
		return nil, nil, err
	}
	start, end := time.UnixMilli(g.Start), time.UnixMilli(g.End)
	// The reads of the client's schema run while Detect runs (a round trip
	// less), and are kept when Detect finds that schema; another schema is
	// read after Detect.
	var wg sync.WaitGroup
	da := c.startDetect(ctx, &wg, true, r.Filters, start, end)
	var rd shapedAutoRead
	early := len(c.schema.Metrics) > 0 || len(extraNames(c.schema)) > 0
	if early {
		rd = c.shapedAutoRead(ctx, c.schema, r, groupBy)
	}
	wg.Wait()
	if da.err != nil {
		return nil, nil, da.err
	}
	det := da.d
	s := det.Schema
	if !early || s.ID != c.schema.ID {
		rd = c.shapedAutoRead(ctx, s, r, groupBy)
	}
	sh, shErr, extra, extraWs, extraErr, labels := rd.sh, rd.shErr, rd.extra, rd.extraWs, rd.extraErr, rd.labels
	if extraErr != nil {
		return nil, nil, extraErr
	}
	f := &Fetched{Detection: det, AveragedOverTime: s.Kind == Gauges}
	f.Warnings = append(f.Warnings, det.Warnings()...)
	var miss *MissingMetricsError
	switch {
	case shErr != nil && !(errors.As(shErr, &miss) && len(extra) > 0):
		return nil, nil, shErr
	case sh != nil:
		f.Series = sh.Series
		f.Warnings = append(f.Warnings, sh.Warnings...)
	}
	if len(extraNames(s)) > 0 {
		f.Warnings = append(f.Warnings, extraWs...)
		f.Extra = extraFromMatrix(extra, s)
		if len(f.Series) == 0 && len(f.Extra) == 0 {
			sel, err := s.Selector(r.Filters)
			if err != nil {
				return nil, nil, err
			}
			return nil, nil, c.WithSchema(s).diagnose(ctx, s.AllNames(), sel, r.Filters, start, end)
		}
		seenRole := map[Role]bool{}
		for _, es := range f.Extra {
			seenRole[es.Role] = true
		}
		for _, role := range roles {
			if n, ok := s.Extra[role]; ok && !seenRole[role] {
				f.Warnings = append(f.Warnings, fmt.Sprintf("metric %s has no series here; the numbers that need it are undefined", n))
			}
		}
	}
	if r.Labels {
		f.Labels, f.LabelsErr = labels.m, labels.err
	}
	return f, sh, nil
}

// shapedAutoRead is what FetchShapedAuto reads of one schema, concurrently:
// the shaped counters, the Extra metrics and the label lists.
type shapedAutoRead struct {
	sh       *Shaped
	shErr    error
	extra    model.Matrix
	extraWs  []string
	extraErr error
	labels   *labelsAnswer
}

// shapedAutoRead reads schema s's shaped counters (FetchShaped), its Extra
// metrics (their plain selector over the grid, as Fetch) and, when
// r.Labels is set, the label lists, concurrently.
func (c *Client) shapedAutoRead(ctx context.Context, s Schema, r FetchRequest, groupBy []string) shapedAutoRead {
	g := r.Grid
	start, end := time.UnixMilli(g.Start), time.UnixMilli(g.End)
	var (
		wg  sync.WaitGroup
		out shapedAutoRead
	)
	out.labels = c.startLabels(ctx, &wg, s, r.Labels, start, end)
	if names := extraNames(s); len(names) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sel, err := Selector(names, r.Filters)
			if err != nil {
				out.extraErr = err
				return
			}
			out.extra, out.extraWs, out.extraErr = c.queryMatrix(ctx, sel, v1.Range{Start: start, End: end, Step: time.Duration(g.Step) * time.Millisecond})
		}()
	}
	if len(s.Metrics) > 0 {
		out.sh, out.shErr = c.WithSchema(s).FetchShaped(ctx, g, r.Filters, groupBy)
	}
	wg.Wait()
	return out
}
