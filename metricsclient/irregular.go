package metricsclient

// The irregular series of a shaped read (FetchShaped): the label sets
// that reset, restarted, started, stopped or had a gap inside the window,
// read alone and turned into exact step-aligned series.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// irregularBatches splits the label sets of irr into batches whose
// selection is exact: in each batch the sets share every label but one,
// L, the label that leaves the fewest batches (for example the engine of
// each restarted instance), so the batch's filters are r's filters, one
// value for each other label ("" for a set without it) and L's values.
// Series of other label sets may still match (a label set with more
// labels); callers keep only irr's label sets.
func (r *shapedRead) irregularBatches(irr map[string]map[string]string) [][]Filter {
	names := map[string]bool{}
	for _, l := range irr {
		for n := range l {
			names[n] = true
		}
	}
	all := sortedKeys(names)
	if len(all) == 0 {
		// The one label set without labels: selected by a label it
		// lacks.
		all = []string{"instance"}
	}
	ids := make([]string, 0, len(irr))
	for id := range irr {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// rest is the key of a label set without label skip.
	rest := func(l map[string]string, skip string) string {
		var b strings.Builder
		for _, n := range all {
			if n != skip {
				b.WriteString(strconv.Quote(l[n]))
				b.WriteByte(',')
			}
		}
		return b.String()
	}
	best, bestN := "", len(irr)+1
	for _, n := range all {
		keys := map[string]bool{}
		for _, l := range irr {
			keys[rest(l, n)] = true
		}
		if len(keys) < bestN {
			best, bestN = n, len(keys)
		}
	}
	var out [][]Filter
	index := map[string]int{}
	for _, id := range ids {
		l := irr[id]
		k := rest(l, best)
		i, ok := index[k]
		if ok && len(out[i][len(out[i])-1].Values) >= maxBatch {
			ok = false // a new batch: each answer stays small
		}
		if !ok {
			f := append([]Filter(nil), r.filters...)
			for _, n := range all {
				if n != best {
					f = append(f, Filter{Name: n, Values: []string{l[n]}})
				}
			}
			f = append(f, Filter{Name: best})
			i = len(out)
			index[k] = i
			out = append(out, f)
		}
		last := &out[i][len(out[i])-1]
		last.Values = append(last.Values, l[best])
	}
	return out
}

// maxBatch bounds the label sets of one batch of irregular series, so
// that no answer comes near a proxy's response limit (64 engines of k 8
// over 600 grid points: about 12 MB of values).
const maxBatch = 64

// maxRunBuckets bounds the buckets of one raw-sample query (a longer run
// of buckets to read sample by sample is split).
const maxRunBuckets = 8

// maxConcurrent bounds the concurrent queries of the irregular series.
const maxConcurrent = 4

// irregularData is what readIrregular read of the irregular label sets.
type irregularData struct {
	// steps are their series as the raw path reads them: the last value
	// in each grid point's lookback window, with Created.
	steps []compute.Series
	// created holds, per counter series (seriesKey), its _created value
	// at each grid point (Unix ms -> seconds).
	created map[string]map[int64]float64
	// flagged holds, per label set (labelString), the buckets in which a
	// counter reset or a _created value changed (or may have: the test
	// window reaches back one lookback).
	flagged map[string][]bool
	// samples are the raw samples of the buckets whose increase is read
	// sample by sample (see needsSamples), counters and _created gauges.
	samples model.Matrix
}

// seriesKey identifies a counter series: its labels with the counter's
// name as __name__ (a _created gauge's series gives its counter's key with
// the counter's name). Only compared with other seriesKey results: the
// name, then the other labels sorted by name with quoted values.
func seriesKey(m model.Metric, name string) string {
	names := make([]string, 0, len(m))
	size := len(name) + 2
	for k, v := range m {
		if k != model.MetricNameLabel {
			names = append(names, string(k))
			size += len(k) + len(v) + 4
		}
	}
	slices.Sort(names)
	b := make([]byte, 0, size)
	b = append(b, name...)
	b = append(b, '{')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
		b = append(b, '=')
		b = strconv.AppendQuote(b, string(m[model.LabelName(n)]))
	}
	b = append(b, '}')
	return string(b)
}

// metricOf returns the model.Metric of a compute.Series of schema s.
func metricOf(st compute.Series, s Schema) model.Metric {
	m := model.Metric{}
	for k, v := range st.Labels {
		m[model.LabelName(k)] = model.LabelValue(v)
	}
	if st.Family == compute.AcceptedPerPosition {
		m[model.LabelName(s.PositionLabel)] = model.LabelValue(strconv.Itoa(st.Position))
	}
	m[model.MetricNameLabel] = model.LabelValue(s.Metrics[st.Family])
	return m
}

// needsSamples returns the buckets of a series whose increase is read
// from raw samples: those flagged for its label set, and those in which
// it reappears (no value at the bucket's start, one at its end: the first
// appearance, or the end of a gap longer than the lookback, whose samples
// may hold a restart).
func needsSamples(st compute.Series, flagged []bool, g compute.Grid) []bool {
	n := g.Buckets()
	out := make([]bool, n)
	copy(out, flagged)
	have := make([]bool, n+1)
	for _, p := range st.Points {
		have[(p.T-g.Start)/g.Step] = true
	}
	for j := range n {
		if have[j+1] && !have[j] {
			out[j] = true
		}
	}
	return out
}

// readIrregular reads, for each batch of irregular label sets
// (irregularBatches), their values at the grid points (as the shaped sums
// saw them: last_over_time per metric, each name in partLabel since `or`
// ignores __name__ and some sources drop it) and, per grid point, whether
// a counter reset or a _created value changed within the step and the
// lookback before it; then the raw samples of the buckets that need them
// (needsSamples), one instant query per run of consecutive buckets. Series
// of other label sets (a batch's selection may hold more) are dropped.
func (r *shapedRead) readIrregular(ctx context.Context, irr map[string]map[string]string, warnings *[]string) (*irregularData, error) {
	g := r.g
	step := time.Duration(g.Step) * time.Millisecond
	w := Lookback(step)
	rng := v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: step}
	names := append(r.s.Names(), r.s.CreatedNames()...)
	batches := r.irregularBatches(irr)
	type answer struct {
		vm, fm model.Matrix
		warns  []string
		err    error
	}
	answers := make([]answer, len(batches))
	sem := make(chan struct{}, maxConcurrent)
	var wg sync.WaitGroup
	run := func(i int, q func() (model.Matrix, []string, error), set func(*answer, model.Matrix)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r.count()
			m, ws, err := q()
			r.mu.Lock()
			defer r.mu.Unlock()
			a := &answers[i]
			set(a, m)
			a.warns = append(a.warns, ws...)
			if err != nil && a.err == nil {
				a.err = err
			}
		}()
	}
	for i, f := range batches {
		var terms, flags []string
		for _, name := range names {
			sel, err := Selector([]string{name}, f)
			if err != nil {
				return nil, err
			}
			terms = append(terms, fmt.Sprintf(`label_replace(last_over_time(%s[%s]), %q, %q, "", "")`, sel, dur(w), partLabel, name))
			fn := "resets"
			if strings.HasSuffix(name, "_created") {
				fn = "changes"
			}
			flags = append(flags, fmt.Sprintf("(%s(%s[%s]) > 0)", fn, sel, dur(step+w)))
		}
		vq := strings.Join(terms, " or ")
		fq := "count without(" + r.s.PositionLabel + ") (" + strings.Join(flags, " or ") + ")"
		run(i, func() (model.Matrix, []string, error) { return r.c.queryMatrix(ctx, vq, rng) },
			func(a *answer, m model.Matrix) { a.vm = m })
		run(i, func() (model.Matrix, []string, error) { return r.c.queryMatrix(ctx, fq, rng) },
			func(a *answer, m model.Matrix) { a.fm = m })
	}
	wg.Wait()
	labelsOf := func(m model.Metric) map[string]string {
		l := map[string]string{}
		for k, v := range m {
			if k != model.MetricNameLabel && k != partLabel && string(k) != r.s.PositionLabel {
				l[string(k)] = string(v)
			}
		}
		return l
	}
	keep := func(m model.Metric) bool {
		_, ok := irr[labelString(labelsOf(m))]
		return ok
	}
	createdOf := map[string]string{} // _created name -> counter name
	for _, n := range r.s.Names() {
		if cn := CreatedName(n); cn != "" {
			createdOf[cn] = n
		}
	}
	n := g.Buckets()
	out := &irregularData{created: map[string]map[int64]float64{}, flagged: map[string][]bool{}}
	var vk model.Matrix
	for _, a := range answers {
		*warnings = append(*warnings, a.warns...)
		if a.err != nil {
			return nil, a.err
		}
		for _, ss := range a.vm {
			m := model.Metric{}
			for k, v := range ss.Metric {
				if k != partLabel {
					m[k] = v
				}
			}
			name := string(ss.Metric[partLabel])
			m[model.MetricNameLabel] = model.LabelValue(name)
			if !keep(m) {
				continue
			}
			for _, p := range ss.Values {
				if t := int64(p.Timestamp); (t-g.Start)%g.Step != 0 || t < g.Start || t > g.End {
					return nil, &APIError{Op: "query_range", Address: r.c.address, Kind: BadResponse, Msg: "points off the grid"}
				}
			}
			if cn, ok := createdOf[name]; ok {
				vals := map[int64]float64{}
				for _, p := range ss.Values {
					vals[int64(p.Timestamp)] = float64(p.Value)
				}
				out.created[seriesKey(m, cn)] = vals
			}
			vk = append(vk, &model.SampleStream{Metric: m, Values: ss.Values})
		}
		for _, ss := range a.fm {
			if !keep(ss.Metric) {
				continue
			}
			id := labelString(labelsOf(ss.Metric))
			fl := out.flagged[id]
			if fl == nil {
				fl = make([]bool, n)
				out.flagged[id] = fl
			}
			for _, p := range ss.Values {
				if j := (int64(p.Timestamp)-g.Start)/g.Step - 1; j >= 0 && j < int64(n) {
					fl[j] = true
				}
			}
		}
	}
	steps, _, err := SeriesFromMatrix(vk, r.s)
	if err != nil {
		return nil, err
	}
	out.steps = steps

	// Runs of buckets that need samples, per batch.
	need := map[string][]bool{} // label set -> buckets
	for _, st := range steps {
		id := labelString(st.Labels)
		b := needsSamples(st, out.flagged[id], g)
		if cur := need[id]; cur != nil {
			for j := range b {
				b[j] = b[j] || cur[j]
			}
		}
		need[id] = b
	}
	var sm []model.Matrix
	var smu sync.Mutex
	var errs []error
	for _, f := range batches {
		// The batch's label sets by the value of its varying label (the
		// last filter).
		vary := f[len(f)-1]
		byValue := map[string][]bool{}
		union := make([]bool, n)
		for id, b := range need {
			if batchHolds(f, irr[id]) {
				byValue[irr[id][vary.Name]] = b
				for j := range b {
					union[j] = union[j] || b[j]
				}
			}
		}
		for j := 0; j < n; {
			if !union[j] {
				j++
				continue
			}
			k := j
			for k < n && union[k] && k-j < maxRunBuckets {
				k++
			}
			// Buckets j..k-1: samples in (BucketStart(j), BucketEnd(k-1)]
			// of the label sets that need one of them.
			sub := append([]Filter(nil), f[:len(f)-1]...)
			var vals []string
			for _, v := range vary.Values {
				if slices.Contains(byValue[v][j:k], true) {
					vals = append(vals, v)
				}
			}
			sub = append(sub, Filter{Name: vary.Name, Values: vals})
			all, err := Selector(names, sub)
			if err != nil {
				return nil, err
			}
			q := all + "[" + dur(time.Duration(g.BucketEnd(k-1)-g.BucketStart(j))*time.Millisecond) + "]"
			at := time.UnixMilli(g.BucketEnd(k - 1))
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				r.count()
				m, ws, err := r.c.queryRawSamples(ctx, q, at)
				smu.Lock()
				defer smu.Unlock()
				*warnings = append(*warnings, ws...)
				if err != nil {
					errs = append(errs, err)
				}
				sm = append(sm, m)
			}()
			j = k
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	for _, m := range sm {
		for _, ss := range m {
			if keep(ss.Metric) {
				out.samples = append(out.samples, ss)
			}
		}
	}
	return out, nil
}

// batchHolds reports whether the label set l is selected by the batch's
// filters (the batch's own ones: one or more values per label).
func batchHolds(f []Filter, l map[string]string) bool {
	for _, fl := range f {
		if len(fl.Values) > 0 && !slices.Contains(fl.Values, l[fl.Name]) {
			return false
		}
	}
	return true
}

// exactSeries turns each irregular series into a step-aligned cumulative
// series whose bucket increases are exact. A bucket that needs no
// samples (needsSamples) has the raw path's increase, the difference of
// the values at its ends, which nothing can have disturbed. A bucket read
// sample by sample counts each sample's increase over the one before (the
// last value before the bucket, carried over a gap): a decrease, or a
// changed _created value, is a restart, the new value being the increase.
// Before the series' first value the base is 0 when its _created says it
// started inside the window (its first sample counts in full, as in
// compute.IncreaseSince), else its first sample (not counted). The result
// starts at the series' first grid point (so first-bucket logic sees what
// the raw path sees), ends at its last, and, when it starts after g.Start,
// has Created when its counts start: its _created time when inside the
// window, else its first grid point (either way compute counts its first
// value, the increases up to there, in full). The restarts found (a decrease, or a
// changed _created value) are returned as compute.Resets finds decreases,
// one Reset per series, with the bucket of each.
func (d *irregularData) exactSeries(s Schema, g compute.Grid) ([]compute.Series, []compute.Reset) {
	if d == nil {
		return nil, nil
	}
	var resets []compute.Reset
	type raw struct {
		pts     []model.SamplePair
		created map[int64]float64
	}
	byKey := map[string]*raw{}
	get := func(k string) *raw {
		r := byKey[k]
		if r == nil {
			r = &raw{created: map[int64]float64{}}
			byKey[k] = r
		}
		return r
	}
	createdOf := map[string]string{}
	for _, n := range s.Names() {
		if cn := CreatedName(n); cn != "" {
			createdOf[cn] = n
		}
	}
	for _, ss := range d.samples {
		name := string(ss.Metric[model.MetricNameLabel])
		if cn, ok := createdOf[name]; ok {
			r := get(seriesKey(ss.Metric, cn))
			for _, p := range ss.Values {
				r.created[int64(p.Timestamp)] = float64(p.Value)
			}
			continue
		}
		r := get(seriesKey(ss.Metric, name))
		r.pts = append(r.pts, ss.Values...)
	}
	for _, r := range byKey {
		sort.Slice(r.pts, func(i, j int) bool { return r.pts[i].Timestamp < r.pts[j].Timestamp })
	}
	n := g.Buckets()
	usableV := func(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
	var out []compute.Series
	for _, st := range d.steps {
		if len(st.Points) == 0 {
			continue
		}
		m := metricOf(st, s)
		key := seriesKey(m, string(m[model.MetricNameLabel]))
		rw := byKey[key]
		if rw == nil {
			rw = &raw{created: map[int64]float64{}}
		}
		createdAtPt := d.created[key]
		need := needsSamples(st, d.flagged[labelString(st.Labels)], g)
		val := make([]float64, n+1)
		have := make([]bool, n+1)
		for _, p := range st.Points {
			i := (p.T - g.Start) / g.Step
			val[i], have[i] = p.V, true
		}
		first := (st.Points[0].T - g.Start) / g.Step
		last := (st.Points[len(st.Points)-1].T - g.Start) / g.Step
		inc := make([]float64, n)
		var restarts []int
		explained := 0 // restarts a changed _created shows
		// prev: the last value seen (a grid value or a sample), with its
		// _created value when known.
		var prev, prevC float64
		havePrev, haveC := false, false
		if first == 0 {
			prev, havePrev = val[0], true
			prevC, haveC = createdAtPt[g.Start]
		} else if st.Created > g.Start {
			havePrev = true // from 0
		}
		si := 0
		for j := range n {
			end := g.BucketEnd(j)
			if !need[j] {
				if have[j+1] {
					if have[j] {
						inc[j] = compute.Increase([]compute.Point{{T: g.BucketStart(j), V: val[j]}, {T: end, V: val[j+1]}}, g.BucketStart(j), end)
					}
					prev, havePrev = val[j+1], true
					prevC, haveC = createdAtPt[end]
				}
				continue
			}
			for ; si < len(rw.pts) && int64(rw.pts[si].Timestamp) <= end; si++ {
				p := rw.pts[si]
				t, v := int64(p.Timestamp), float64(p.Value)
				if t <= g.BucketStart(j) || !usableV(v) {
					continue
				}
				c, hc := rw.created[t]
				if havePrev {
					dv := v - prev
					if v < prev || (hc && haveC && c != prevC) {
						dv = v
						restarts = append(restarts, j)
						if hc && haveC && c != prevC {
							explained++
						}
					}
					inc[j] += dv
				}
				prev, havePrev = v, true
				prevC, haveC = c, hc
			}
			if have[j+1] {
				// The grid value at the bucket's end is its last sample.
				prev, havePrev = val[j+1], true
				if c, ok := createdAtPt[end]; ok {
					prevC, haveC = c, true
				}
			}
		}
		cs := compute.Series{Family: st.Family, Position: st.Position, Labels: st.Labels}
		if first > 0 {
			// When its counts start: its _created time when it started
			// from 0 inside the window, else its first grid point. Both lie
			// after g.Start, so compute counts its first value (the exact
			// increases up to there) in full; the view's rates are per
			// second from there (model's DataFrom).
			cs.Created = st.Points[0].T
			if st.Created > g.Start && st.Created < cs.Created {
				cs.Created = st.Created
			}
		}
		sum := 0.0
		for i := int64(0); i <= last; i++ {
			if i > 0 {
				sum += inc[i-1]
			}
			if i >= first {
				cs.Points = append(cs.Points, compute.Point{T: g.Start + i*g.Step, V: sum})
			}
		}
		out = append(out, cs)
		if len(restarts) > 0 {
			resets = append(resets, compute.Reset{Labels: st.Labels, Family: st.Family, Position: st.Position, Count: len(restarts), Buckets: restarts,
				Steps: int(last - first), Explained: explained})
		}
	}
	compute.SortResets(resets)
	return out, resets
}
