package metricsclient

// Exact counts of the summed read's irregular series across restarts: see
// samplesAroundRestarts.

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"

	"specdash/compute"
)

// maxRestartRuns bounds the sample reads of one irregular label set: with
// more runs of restart buckets than this (an engine restarting in a
// loop), its samples are read from its first such bucket to its last in
// one query.
const maxRestartRuns = 8

// samplesAroundRestarts makes the summed read's irregular series (irrM:
// histogram buckets, sums and counts, counters and their _created
// gauges, at the grid's points, named by sample name; the raw read's
// series, gauges among them) count exactly as
// the counters' shaped read does, where their values at the grid's points
// alone cannot:
//
//   - a restart inside a bucket (the value falls, or its _created value
//     changes, from one grid point to the next): what the old process
//     counted after the last grid point was lost, and a new process whose
//     first value is above the old one was not seen at all;
//   - a restart across a gap (the _created value differs on both sides):
//     the value after it counts from 0;
//   - a series that starts inside the window without a _created gauge:
//     its first sample, not its first grid point, is the base of its
//     counts.
//
// For the first two it reads the samples of the buckets concerned (runs
// of buckets per label set, one instant query of a range selector each)
// and returns each value series rebuilt as a running total that never
// falls (its first value kept): the increases from bucket to bucket are
// the exact ones, reset by reset and _created by _created. For the third
// it reads the samples of the bucket of the first grid point and puts the
// first sample's value at the grid point before it. createdOf maps each
// counter's sample name (a histogram's buckets, sum and count, a counter)
// to the name of its _created gauge ("" for none); other series (gauges,
// the _created gauges) come back as they are.
func (c *Client) samplesAroundRestarts(ctx context.Context, g compute.Grid, filters []Filter, createdOf map[string]string, irrM model.Matrix) (model.Matrix, []string, error) {
	var names []string
	isCreated := map[string]bool{}
	for n, cn := range createdOf {
		names = append(names, n)
		if cn != "" && !isCreated[cn] {
			isCreated[cn] = true
			names = append(names, cn)
		}
	}
	slices.Sort(names)
	counter := func(name string) bool { _, ok := createdOf[name]; return ok }
	for _, ss := range irrM {
		for _, sp := range ss.Values {
			if t := int64(sp.Timestamp); t < g.Start || t > g.End || (t-g.Start)%g.Step != 0 {
				return irrM, []string{"the source answered off the grid: the latency, output and load families are counted from the step points only, not across restarts"}, nil
			}
		}
	}
	n := g.Buckets() + 1
	idx := func(t model.Time) int { return int((int64(t) - g.Start) / g.Step) }
	key := func(ss *model.SampleStream) string {
		return compute.LabelString(plainLabels(ss.Metric, string(model.BucketLabel)))
	}
	// The grid values of each label set's _created gauges.
	created := map[string]map[string][]float64{} // label set -> created name -> value per grid point (NaN: none)
	for _, ss := range irrM {
		name := string(ss.Metric[model.MetricNameLabel])
		if !isCreated[name] {
			continue
		}
		k := key(ss)
		if created[k] == nil {
			created[k] = map[string][]float64{}
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = math.NaN()
		}
		for _, sp := range ss.Values {
			v[idx(sp.Timestamp)] = float64(sp.Value)
		}
		created[k][name] = v
	}
	createdAtPoint := func(k, name string, i int) float64 {
		if v := created[k][createdOf[name]]; createdOf[name] != "" && v != nil && i >= 0 && i < n {
			return v[i]
		}
		return math.NaN()
	}
	// The buckets (by the index of the grid point ending them) whose
	// samples each label set needs: restarts, and a start without
	// _created.
	need := map[string]map[int]bool{}
	labels := map[string]map[string]string{}
	// rebuild are the label sets whose series are rebuilt: those with
	// samples to read, and those restarted across a gap.
	rebuild := map[string]bool{}
	mark := func(ss *model.SampleStream, i int) {
		rebuild[key(ss)] = true
		k := key(ss)
		if need[k] == nil {
			need[k] = map[int]bool{}
			labels[k] = plainLabels(ss.Metric, string(model.BucketLabel))
		}
		need[k][i] = true
	}
	for _, ss := range irrM {
		name := string(ss.Metric[model.MetricNameLabel])
		if !counter(name) || len(ss.Values) == 0 {
			continue
		}
		k := key(ss)
		if first := idx(ss.Values[0].Timestamp); first > 0 && created[k][createdOf[name]] == nil {
			mark(ss, first)
		}
		for p := 1; p < len(ss.Values); p++ {
			i, ip := idx(ss.Values[p].Timestamp), idx(ss.Values[p-1].Timestamp)
			c, cp := createdAtPoint(k, name, i), createdAtPoint(k, name, ip)
			restarted := !math.IsNaN(c) && !math.IsNaN(cp) && c != cp
			switch {
			case ip != i-1:
				// A gap: no samples to read (none in it); a restart
				// across it counts from 0.
				if restarted {
					rebuild[k] = true
				}
			case ss.Values[p].Value < ss.Values[p-1].Value || restarted:
				mark(ss, i)
			}
		}
	}
	if len(rebuild) == 0 {
		return irrM, nil, nil
	}

	// The samples of those buckets: runs of buckets per label set.
	type read struct {
		k        string
		from, to int // grid points: samples in (t_from, t_to]
	}
	var reads []read
	for k, set := range need {
		is := make([]int, 0, len(set))
		for i := range set {
			is = append(is, i)
		}
		slices.Sort(is)
		var runs []read
		for _, i := range is {
			if len(runs) > 0 && runs[len(runs)-1].to == i-1 {
				runs[len(runs)-1].to = i
				continue
			}
			runs = append(runs, read{k: k, from: i - 1, to: i})
		}
		if len(runs) > maxRestartRuns {
			runs = []read{{k: k, from: runs[0].from, to: runs[len(runs)-1].to}}
		}
		reads = append(reads, runs...)
	}
	sr := &shapedRead{c: c, filters: filters}
	answers := make([]model.Matrix, len(reads))
	warns := make([][]string, len(reads))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxConcurrent)
	for ri, rd := range reads {
		f := sr.irregularBatches(map[string]map[string]string{rd.k: labels[rd.k]})[0]
		sel, err := Selector(names, f)
		if err != nil {
			return nil, nil, err
		}
		q := sel + "[" + dur(time.Duration(int64(rd.to-rd.from)*g.Step)*time.Millisecond) + "]"
		at := time.UnixMilli(g.Start + int64(rd.to)*g.Step)
		eg.Go(func() error {
			var err error
			answers[ri], warns[ri], err = c.queryRawSamples(ectx, q, at)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, nil, err
	}
	var warnings []string
	// samples: label set -> sample name (with le) -> samples in time order.
	samples := map[string]map[string][]model.SamplePair{}
	for ri, m := range answers {
		warnings = append(warnings, warns[ri]...)
		for _, ss := range m {
			k := key(ss)
			if k != reads[ri].k {
				continue // a label set the batch's selector also matched
			}
			if samples[k] == nil {
				samples[k] = map[string][]model.SamplePair{}
			}
			id := seriesID(ss.Metric)
			samples[k][id] = append(samples[k][id], ss.Values...)
		}
	}
	for _, bySeries := range samples {
		for id, sps := range bySeries {
			slices.SortFunc(sps, func(a, b model.SamplePair) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
			bySeries[id] = slices.CompactFunc(sps, func(a, b model.SamplePair) bool { return a.Timestamp == b.Timestamp })
		}
	}

	out := make(model.Matrix, 0, len(irrM))
	for _, ss := range irrM {
		name := string(ss.Metric[model.MetricNameLabel])
		k := key(ss)
		if !counter(name) || !rebuild[k] || len(ss.Values) == 0 {
			out = append(out, ss)
			continue
		}
		own := samples[k][seriesID(ss.Metric)]
		cr := samples[k][createdID(createdOf[name])]
		in := func(from, to int) []model.SamplePair { // samples in (t_from, t_to]
			lo, hi := model.Time(g.Start+int64(from)*g.Step), model.Time(g.Start+int64(to)*g.Step)
			a, _ := slices.BinarySearchFunc(own, lo+1, func(sp model.SamplePair, t model.Time) int { return cmp.Compare(sp.Timestamp, t) })
			b, _ := slices.BinarySearchFunc(own, hi+1, func(sp model.SamplePair, t model.Time) int { return cmp.Compare(sp.Timestamp, t) })
			return own[a:b]
		}
		createdAt := func(t model.Time) float64 {
			if i, ok := slices.BinarySearchFunc(cr, t, func(sp model.SamplePair, t model.Time) int { return cmp.Compare(sp.Timestamp, t) }); ok {
				return float64(cr[i].Value)
			}
			return math.NaN()
		}
		vals := make([]model.SamplePair, 0, len(ss.Values)+1)
		if first := idx(ss.Values[0].Timestamp); first > 0 && need[k][first] && created[k][createdOf[name]] == nil {
			if s := in(first-1, first); len(s) > 0 {
				// Its first sample is the base, at the grid point before.
				vals = append(vals, model.SamplePair{Timestamp: model.Time(g.Start + int64(first-1)*g.Step), Value: s[0].Value})
			}
		}
		total := float64(ss.Values[0].Value)
		if len(vals) > 0 {
			total = float64(vals[0].Value)
			total += restartIncrease(float64(vals[0].Value), math.NaN(), in(idx(ss.Values[0].Timestamp)-1, idx(ss.Values[0].Timestamp)), createdAt)
		}
		vals = append(vals, model.SamplePair{Timestamp: ss.Values[0].Timestamp, Value: model.SampleValue(total)})
		for p := 1; p < len(ss.Values); p++ {
			cur, prev := ss.Values[p], ss.Values[p-1]
			i, ip := idx(cur.Timestamp), idx(prev.Timestamp)
			c, cp := createdAtPoint(k, name, i), createdAtPoint(k, name, ip)
			var inc float64
			switch s := in(ip, i); {
			case ip == i-1 && need[k][i] && len(s) > 0:
				inc = restartIncrease(float64(prev.Value), cp, s, createdAt)
			case cur.Value < prev.Value || (!math.IsNaN(c) && !math.IsNaN(cp) && c != cp):
				inc = float64(cur.Value) // a restart: counted from 0
			default:
				inc = float64(cur.Value - prev.Value)
			}
			total += inc
			vals = append(vals, model.SamplePair{Timestamp: cur.Timestamp, Value: model.SampleValue(total)})
		}
		out = append(out, &model.SampleStream{Metric: ss.Metric, Values: vals})
	}
	return out, warnings, nil
}

// restartIncrease is what a counter whose value was prev (with _created
// value prevCreated, NaN unknown) counted over the samples s (in time
// order): a value below the one before it, or a _created value other than
// the one before it, is a restart, counted from 0.
func restartIncrease(prev, prevCreated float64, s []model.SamplePair, createdAt func(model.Time) float64) float64 {
	inc := 0.0
	for _, sp := range s {
		v, c := float64(sp.Value), createdAt(sp.Timestamp)
		if v < prev || (!math.IsNaN(c) && !math.IsNaN(prevCreated) && c != prevCreated) {
			inc += v
		} else {
			inc += v - prev
		}
		prev = v
		if !math.IsNaN(c) {
			prevCreated = c
		}
	}
	return inc
}

// seriesID identifies a sample stream of one label set by sample name
// and le.
func seriesID(m model.Metric) string {
	return string(m[model.MetricNameLabel]) + "\xff" + string(m[model.BucketLabel])
}

// createdID is seriesID of the _created gauge named name (in the same
// label set).
func createdID(name string) string { return name + "\xff" }
