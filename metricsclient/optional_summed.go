package metricsclient

// The summed read of the optional families (FetchOptionalSummed): the
// source sums the steady series, specdash reads only the irregular ones
// series by series. See docs/ARCHITECTURE.md, "Query plan".

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"

	"specdash/compute"
)

// summable reports whether a role's series are only ever summed over the
// selection (so that the source may sum them): the histograms, and the
// counters and gauges that carry no label of their own (not TensorRT-LLM's
// per-position counters, nor its last acceptance length).
func summable(r OptionalRole) bool {
	switch r {
	case DraftedPerPosition, AcceptedPerPosition, LastAcceptanceLength:
		return false
	}
	return true
}

// FetchOptionalSummed is FetchOptionalSince for callers that sum each
// role's series over the selection (the dashboard, the report): the
// source sums the steady series, so that what is read grows with the
// histograms' buckets and the grid's points, not with the number of
// engines. A family then holds one summed series (labels: none but le)
// standing for every steady series, and each irregular series of its own:
//
//   - one step-local range query over the grid's points finds the
//     irregular label sets of the histograms (from _count) and counters,
//     as FetchShaped's detection does (detectionQuery): a series that
//     reset, whose _created changed, or that has a value at one grid
//     point and none at the next or the other way round;
//   - concurrently, one range query sums per sample name and le the last
//     value in each step's lookback window (the raw read's values),
//     another counts the series of each histogram's _count, counter and
//     gauge, and reads the native histograms as FetchOptionalSince reads
//     them;
//   - the irregular label sets are then read series by series (values at
//     the grid's points, with their _created) and taken out of the sums.
//     A live window's refresh reads those it read before only from its
//     continuation point on.
//
// A histogram's or counter's summed series is therefore the sum of the
// series that neither reset, restarted, started nor stopped inside the
// window, and compute's per-series increases of the family equal the raw
// read's (to the rounding of the summed _sum seconds). A gauge (running
// requests) is summed whole, with the number of series summed at each
// point (OptionalFamily.GaugeCounts, for OptionalFamily.BucketAverages).
//
// The raw read (FetchOptionalSince) is taken instead, with a warning that
// says why, when the source cannot answer these queries, when a steady
// sum falls or a steady series is missing at a grid point (a restart or a
// gap the detection did not see), when a role is not summable (summable),
// and when a name has both classic and native histogram series (their
// label sets are compared series by series). OptionalFetch.Summed says
// which it was. A live window that slid forward (prev, as for
// FetchOptionalSince) reads the sums only from one step before prev's last
// final point on, and detects over the new points only (with prev's
// irregular label sets; over the whole window again a minute of data
// later: summedDetectMaxAge); the irregular series are read over the
// whole window each time.
func (c *Client) FetchOptionalSummed(ctx context.Context, prev *Window, s Schema, g compute.Grid, filters []Filter, roles ...OptionalRole) (*OptionalFetch, error) {
	pl, err := newOptionalPlan(s, g, roles)
	if err != nil {
		return nil, err
	}
	if len(pl.names) == 0 || !slices.ContainsFunc(pl.roles, func(r OptionalRole) bool { return len(s.Optional[r]) > 0 }) {
		return &OptionalFetch{Families: map[OptionalRole]OptionalFamily{}}, nil
	}
	for _, r := range pl.roles {
		if !summable(r) {
			return c.FetchOptionalSince(ctx, prev, s, g, filters, roles...)
		}
	}
	if _, err := Selector(pl.names, filters); err != nil {
		return nil, err
	}
	out, reason, err := c.fetchSummed(ctx, prev, pl, g, filters)
	if err != nil || reason == "" {
		return out, err
	}
	raw, err := c.FetchOptionalSince(ctx, nil, s, g, filters, roles...)
	if err != nil {
		return nil, err
	}
	raw.Warnings = append(raw.Warnings, "latency, output and load families: every series was read one by one (a cost that grows with the number of engines) because "+reason)
	return raw, nil
}

// summedKey is one series of the summed read's answer: a sample name and
// its le ("" for all but a histogram's buckets).
type summedKey struct{ name, le string }

// fetchSummed is FetchOptionalSummed's summed read. A non-empty reason
// means: read the raw way.
func (c *Client) fetchSummed(ctx context.Context, prev *Window, pl *optionalPlan, g compute.Grid, filters []Filter) (*OptionalFetch, string, error) {
	s := pl.s
	step := time.Duration(g.Step) * time.Millisecond
	w := Lookback(step)
	gauge := map[string]bool{}
	// countOf is the sample name whose series are counted for each
	// summed sample name: a histogram's _count stands for its buckets and
	// _sum (one scrape exposes them together).
	countOf := map[string]string{}
	var sumNames, countNames, detNames, detCreated, irrNames []string
	for _, r := range pl.roles {
		for _, n := range s.Optional[r] {
			switch r.Kind() {
			case OptionalHistogram:
				sumNames = append(sumNames, n+"_bucket", n+"_sum", n+"_count")
				for _, sn := range []string{n + "_bucket", n + "_sum", n + "_count"} {
					countOf[sn] = n + "_count"
				}
				countNames = append(countNames, n+"_count")
				detNames, detCreated = append(detNames, n+"_count"), append(detCreated, n+"_created")
				irrNames = append(irrNames, n+"_bucket", n+"_sum", n+"_count", n+"_created")
			case OptionalGauge:
				sumNames, countNames = append(sumNames, n), append(countNames, n)
				countOf[n] = n
				gauge[n] = true
			default:
				sumNames, countNames = append(sumNames, n), append(countNames, n)
				countOf[n] = n
				detNames, detCreated = append(detNames, n), append(detCreated, CreatedName(n))
				irrNames = append(irrNames, n)
				if cn := CreatedName(n); cn != "" {
					irrNames = append(irrNames, cn)
				}
			}
		}
	}
	raw := &optionalRaw{schemaID: s.ID, roles: "summed:" + roleKey(pl.roles), grid: g}
	p, read, from, cont := prev.continueOptional(c, raw, g, filters)
	// The sums and the counts are two queries, which the source
	// evaluates at once (the terms of one `or` query one after the other).
	query := func(names []string, agg string) (string, error) {
		var terms []string
		for _, n := range names {
			sel, err := Selector([]string{n}, filters)
			if err != nil {
				return "", err
			}
			terms = append(terms, fmt.Sprintf(`label_replace(%s (last_over_time(%s[%s])), %q, %q, "", "")`, agg, sel, dur(w), partLabel, n))
		}
		return strings.Join(terms, " or "), nil
	}
	sq, err := query(sumNames, "sum by (le)")
	if err != nil {
		return nil, "", err
	}
	cq, err := query(countNames, "count")
	if err != nil {
		return nil, "", err
	}
	// The native histograms are read with the counts (the plain names of
	// the histogram roles, as nativeMatrix reads them; their series carry
	// no part label): one request fewer for the browser, which runs at
	// most six at once.
	var natives []string
	for _, r := range pl.roles {
		if r.Kind() == OptionalHistogram {
			natives = append(natives, s.Optional[r]...)
		}
	}
	if len(natives) > 0 {
		sel, err := Selector(natives, filters)
		if err != nil {
			return nil, "", err
		}
		cq += " or " + sel
	}
	// A continued read detects over the points it reads (from the
	// continuation point on: samples newer than prev's read come after
	// it) and keeps prev's irregular label sets: a series that is
	// irregular in the new window reset, restarted, started or stopped
	// either there or inside prev's window (prev's steady series had a
	// value at every one of prev's grid points, the new start among
	// them). Label sets that became steady stay irregular (read series by
	// series, which is exact) until the next whole-window detection,
	// summedDetectMaxAge later.
	detG, whole := g, true
	if cont && p.irregular != nil && g.End-p.detectedAt < summedDetectMaxAge.Milliseconds() {
		detG, whole = compute.Grid{Start: from, End: g.End, Step: g.Step}, false
	}
	var dq string
	if len(detNames) > 0 {
		if dq, err = detectionQuery(detG, filters, string(model.BucketLabel), detNames, detCreated); err != nil {
			return nil, "", err
		}
	}
	var (
		sm, cm model.Matrix
		dm     model.Matrix
		warns  [4][]string
	)
	rng := v1.Range{Start: time.UnixMilli(read.Start), End: time.UnixMilli(read.End), Step: step}
	eg, ectx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		var err error
		sm, warns[0], err = c.queryMatrix(ectx, sq, rng)
		return err
	})
	eg.Go(func() error {
		var err error
		cm, warns[3], err = c.queryMatrix(ectx, cq, rng)
		return err
	})
	if dq != "" && detG.End > detG.Start {
		eg.Go(func() error {
			var err error
			dm, warns[1], err = c.queryMatrix(ectx, dq, detectionRange(detG))
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		if ctx.Err() == nil && unsupported(err) {
			return nil, "the source could not answer the summed queries: " + err.Error(), nil
		}
		return nil, "", err
	}
	out := &OptionalFetch{Families: map[OptionalRole]OptionalFamily{}, Summed: true}
	if cont {
		sm = MergeMatrix(p.sums, sm, g.Start, from)
		cm = MergeMatrix(p.counts, cm, g.Start, from)
		out.Incremental = true
	}
	raw.sums, raw.counts = sm, cm
	var nm model.Matrix
	cm = slices.DeleteFunc(slices.Clone(cm), func(ss *model.SampleStream) bool {
		if _, ok := ss.Metric[partLabel]; !ok {
			nm = append(nm, ss)
			return true
		}
		return false
	})

	// Sums per sample name and le; counts per counted name.
	n := g.Buckets() + 1
	vals := map[summedKey][]float64{}
	cnts := map[string][]float64{}
	onGrid := func(m model.Matrix, at func(ss *model.SampleStream) []float64) bool {
		for _, ss := range m {
			v := at(ss)
			for _, sp := range ss.Values {
				t := int64(sp.Timestamp)
				if t < g.Start || t > g.End || (t-g.Start)%g.Step != 0 {
					return false
				}
				v[(t-g.Start)/g.Step] = float64(sp.Value)
			}
		}
		return true
	}
	if !onGrid(sm, func(ss *model.SampleStream) []float64 {
		k := summedKey{name: string(ss.Metric[partLabel]), le: string(ss.Metric[model.BucketLabel])}
		if vals[k] == nil {
			vals[k] = make([]float64, n)
		}
		return vals[k]
	}) || !onGrid(cm, func(ss *model.SampleStream) []float64 {
		k := string(ss.Metric[partLabel])
		if cnts[k] == nil {
			cnts[k] = make([]float64, n)
		}
		return cnts[k]
	}) {
		return nil, "the source answered the summed query off the grid", nil
	}

	// The irregular label sets, read series by series.
	irr := map[string]map[string]string{}
	raw.detectedAt = g.End
	if !whole {
		for k, l := range p.irregular {
			irr[k] = l
		}
		raw.detectedAt = p.detectedAt
	}
	raw.irregular = irr
	for _, ss := range dm {
		l := plainLabels(ss.Metric, string(model.BucketLabel))
		irr[compute.LabelString(l)] = l
	}
	// The irregular series: those prev read too continue prev's read
	// (from the continuation point on), the others are read over the
	// whole window.
	var irrM model.Matrix
	if len(irr) > 0 {
		again, fresh := map[string]map[string]string{}, map[string]map[string]string{}
		for k, l := range irr {
			if cont && p.irrM != nil && p.irregular[k] != nil {
				again[k] = l
			} else {
				fresh[k] = l
			}
		}
		var (
			am, fm        model.Matrix
			awarn, fwarns []string
		)
		ig, ictx := errgroup.WithContext(ctx)
		if len(again) > 0 {
			ig.Go(func() error {
				var err error
				am, awarn, err = c.readOptionalIrregular(ictx, read, filters, irrNames, again)
				return err
			})
		}
		if len(fresh) > 0 {
			ig.Go(func() error {
				var err error
				fm, fwarns, err = c.readOptionalIrregular(ictx, g, filters, irrNames, fresh)
				return err
			})
		}
		if err := ig.Wait(); err != nil {
			if ctx.Err() == nil && unsupported(err) {
				return nil, "the source could not answer the queries of the series that restarted, started or stopped: " + err.Error(), nil
			}
			return nil, "", err
		}
		warns[2] = append(awarn, fwarns...)
		if len(again) > 0 {
			var old model.Matrix
			for _, ss := range p.irrM {
				if again[compute.LabelString(plainLabels(ss.Metric, string(model.BucketLabel)))] != nil {
					old = append(old, ss)
				}
			}
			am = MergeMatrix(old, am, g.Start, from)
		}
		irrM = append(am, fm...)
		sort.Slice(irrM, func(i, j int) bool { return irrM[i].Metric.String() < irrM[j].Metric.String() })
	}
	// The irregular series are subtracted point by point: a hostile or
	// broken source's point off the grid would index outside the sums.
	for _, ss := range irrM {
		for _, sp := range ss.Values {
			if t := int64(sp.Timestamp); t < g.Start || t > g.End || (t-g.Start)%g.Step != 0 {
				return nil, "the source answered the irregular series' query off the grid", nil
			}
		}
	}
	raw.irrM = irrM
	for _, ws := range warns {
		out.Warnings = append(out.Warnings, ws...)
	}
	raw.cacheable = len(out.Warnings) == 0
	out.Irregular = len(irr)

	at := func(i int) string { return time.UnixMilli(g.Start + int64(i)*g.Step).UTC().Format(time.RFC3339) }
	// Take the irregular series out of the sums, as the source summed
	// them; what is left must be steady.
	for _, ss := range irrM {
		k := summedKey{name: string(ss.Metric[model.MetricNameLabel]), le: string(ss.Metric[model.BucketLabel])}
		sum, cnt := vals[k], cnts[k.name]
		if sum == nil || gauge[k.name] {
			continue
		}
		for _, sp := range ss.Values {
			i := (int64(sp.Timestamp) - g.Start) / g.Step
			sum[i] -= float64(sp.Value)
			if cnt != nil && countOf[k.name] == k.name {
				cnt[i]--
			}
		}
	}
	// The steady series of each counted name are the same at every point.
	for _, cn := range countNames {
		cnt := cnts[cn]
		if gauge[cn] || cnt == nil {
			continue
		}
		for i := range n {
			if cnt[i] != cnt[0] {
				return nil, fmt.Sprintf("%s has %g steady series at the window's start and %g at %s (a gap longer than the lookback, or a restart the detection did not see)",
					cn, cnt[0], cnt[i], at(i)), nil
			}
		}
	}
	keys := make([]summedKey, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].name != keys[j].name {
			return keys[i].name < keys[j].name
		}
		return keys[i].le < keys[j].le
	})
	// The irregular series count as the counters' shaped read does
	// across restarts (their samples around them).
	exact, ws, err := c.samplesAroundRestarts(ctx, g, filters, pl.createdOf(), irrM)
	if err != nil {
		if ctx.Err() == nil && unsupported(err) {
			return nil, "the source could not answer the samples around restarts: " + err.Error(), nil
		}
		return nil, "", err
	}
	out.Warnings = append(out.Warnings, ws...)
	m := slices.Clone(exact)
	counts := map[string][]compute.Point{}
	for _, k := range keys {
		sum, cnt := vals[k], cnts[countOf[k.name]]
		metric := model.Metric{model.MetricNameLabel: model.LabelValue(k.name)}
		if k.le != "" {
			metric[model.BucketLabel] = model.LabelValue(k.le)
		}
		ss := &model.SampleStream{Metric: metric}
		switch {
		case cnt == nil:
			return nil, fmt.Sprintf("the source summed %s but did not count %s", k.name, countOf[k.name]), nil
		case gauge[k.name]:
			for i := range n {
				if cnt[i] > 0 {
					t := g.Start + int64(i)*g.Step
					ss.Values = append(ss.Values, model.SamplePair{Timestamp: model.Time(t), Value: model.SampleValue(sum[i])})
					counts[k.name] = append(counts[k.name], compute.Point{T: t, V: cnt[i]})
				}
			}
		case cnt[0] == 0:
			continue // every series of it is irregular
		default:
			for i := range n {
				if i > 0 && falls(sum[i-1], sum[i], strings.HasSuffix(k.name, "_sum")) {
					return nil, fmt.Sprintf("the steady series' sum of %s%s falls at %s (a restart the detection did not see)", k.name, leSuffix(k.le), at(i)), nil
				}
				t := g.Start + int64(i)*g.Step
				ss.Values = append(ss.Values, model.SamplePair{Timestamp: model.Time(t), Value: model.SampleValue(sum[i])})
			}
		}
		if len(ss.Values) > 0 {
			m = append(m, ss)
		}
	}

	native, bad := nativeFromMatrix(nm)
	for _, err := range bad {
		out.Warnings = append(out.Warnings, "not read: "+err.Error())
	}
	for _, ss := range m {
		if o := pl.owner[string(ss.Metric[model.MetricNameLabel])]; o.role.Kind() == OptionalHistogram && (len(native.exp[o.name]) > 0 || len(native.custom[o.name]) > 0) {
			return nil, o.name + " has both classic and native histogram series", nil
		}
	}
	if err := pl.convert(out, m, native); err != nil {
		return nil, "", err
	}
	for r, fam := range out.Families {
		if r.Kind() == OptionalGauge {
			fam.GaugeCounts = counts[fam.Name]
			if fam.GaugeCounts == nil {
				fam.GaugeCounts = []compute.Point{}
			}
			out.Families[r] = fam
		}
	}
	out.raw = raw
	return out, "", nil
}

// summedDetectMaxAge is how far (in the data's time) a continued summed
// read may be from the last detection over a whole window
// (FetchOptionalSummed): a whole-window detection reads every sample of
// the window (a day's at 24 h) on every refresh; the continued one only
// the new points', but keeps label sets that became steady.
const summedDetectMaxAge = time.Minute

// leSuffix prints a bucket's le for a message.
func leSuffix(le string) string {
	if le == "" {
		return ""
	}
	return `{le="` + le + `"}`
}

// falls reports whether a steady sum falls from a to b: for counts, any
// decrease; for a histogram's _sum (seconds, summed in floating point
// with the irregular series taken out), one beyond the rounding.
func falls(a, b float64, float bool) bool {
	if !float {
		return b < a
	}
	return b < a-1e-9*math.Max(1, math.Abs(a))
}

// readOptionalIrregular reads the series of names (sample names) of the
// label sets irr over g, at the grid's points as the raw read does, in
// batches whose selection is exact (FetchShaped's irregularBatches), and
// returns those of irr's label sets, named by their sample name.
func (c *Client) readOptionalIrregular(ctx context.Context, g compute.Grid, filters []Filter, names []string, irr map[string]map[string]string) (model.Matrix, []string, error) {
	step := time.Duration(g.Step) * time.Millisecond
	rng := v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: step}
	sr := &shapedRead{c: c, filters: filters}
	batches := sr.irregularBatches(irr)
	answers := make([]model.Matrix, len(batches))
	warns := make([][]string, len(batches))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxConcurrent)
	for i, f := range batches {
		var terms []string
		for _, name := range names {
			sel, err := Selector([]string{name}, f)
			if err != nil {
				return nil, nil, err
			}
			terms = append(terms, fmt.Sprintf(`label_replace(last_over_time(%s[%s]), %q, %q, "", "")`, sel, dur(Lookback(step)), partLabel, name))
		}
		q := strings.Join(terms, " or ")
		eg.Go(func() error {
			var err error
			answers[i], warns[i], err = c.queryMatrix(ectx, q, rng)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, nil, err
	}
	var out model.Matrix
	var warnings []string
	seen := map[model.Fingerprint]bool{}
	for i, m := range answers {
		warnings = append(warnings, warns[i]...)
		for _, ss := range m {
			if irr[compute.LabelString(plainLabels(ss.Metric, partLabel, string(model.BucketLabel)))] == nil {
				continue
			}
			metric := model.Metric{}
			for k, v := range ss.Metric {
				if k != partLabel {
					metric[k] = v
				}
			}
			metric[model.MetricNameLabel] = ss.Metric[partLabel]
			if fp := metric.Fingerprint(); !seen[fp] {
				seen[fp] = true
				out = append(out, &model.SampleStream{Metric: metric, Values: ss.Values})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric.String() < out[j].Metric.String() })
	return out, warnings, nil
}

// BucketAverages returns a gauge role's average per bucket of g over its
// series (compute.BucketAverageGauge of the source's series; for a gauge
// read summed, compute.BucketAverageSums of the sum and GaugeCounts).
func (f OptionalFamily) BucketAverages(g compute.Grid) []compute.GaugeAverage {
	if f.GaugeCounts != nil {
		var sums []compute.Point
		if len(f.Series) > 0 {
			sums = f.Series[0].Points
		}
		return compute.BucketAverageSums(sums, f.GaugeCounts, g)
	}
	pts := make([][]compute.Point, len(f.Series))
	for i, es := range f.Series {
		pts[i] = es.Points
	}
	return compute.BucketAverageGauge(pts, g)
}
