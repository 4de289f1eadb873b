package metricsclient

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Restarted reports whether a counter the window holds restarted inside
// it in a way its points cannot count exactly: a _created gauge whose
// value changed (a restart whose first value is above the old one, read
// as a small increase), or, when the grid's step is longer than the
// scrape interval, a counter value lower than the one before it (the
// counts between the last step point before the restart and the
// process's end are not in the points). At a step of one scrape interval
// every sample is a point and a decrease loses nothing. A caller that
// needs exact counts reads such a window shaped instead (FetchShaped
// reads the raw samples around each restart). Stale markers and
// non-finite values are skipped.
//
// Cost: one pass over the points; a counter's own points are looked up
// (binary search) only when its _created gauge changed.
func (w *Window) Restarted(scrape time.Duration) bool {
	if w == nil {
		return false
	}
	between := time.Duration(w.grid.Step)*time.Millisecond > scrape
	isCreated := func(ss *model.SampleStream) bool {
		return strings.HasSuffix(string(ss.Metric[model.MetricNameLabel]), "_created")
	}
	if between {
		for _, ss := range w.counters {
			if isCreated(ss) {
				continue
			}
			prev, have := 0.0, false
			for _, p := range ss.Values {
				v := float64(p.Value)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				if have && v < prev {
					return true
				}
				prev, have = v, true
			}
		}
	}
	// The counters by series (labels and base name), made at the first
	// _created change, to tell one that a visible drop counts from one
	// that it does not.
	var counters map[string]*model.SampleStream
	key := func(ss *model.SampleStream, suffix string) string {
		m := ss.Metric.Clone()
		name := strings.TrimSuffix(string(m[model.MetricNameLabel]), suffix)
		delete(m, model.MetricNameLabel)
		return name + m.String()
	}
	for _, ss := range w.counters {
		if !isCreated(ss) {
			continue
		}
		var prev model.SamplePair
		have := false
		for _, p := range ss.Values {
			v := float64(p.Value)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if have && v != float64(prev.Value) {
				// A restart: counted exactly only when the counter
				// visibly dropped between the same two points (at a
				// step of one scrape interval).
				if between {
					return true
				}
				if counters == nil {
					counters = map[string]*model.SampleStream{}
					for _, c := range w.counters {
						if !isCreated(c) {
							counters[key(c, "_total")] = c
						}
					}
				}
				counter := counters[key(ss, "_created")]
				before, ok1 := finiteAt(counter, prev.Timestamp)
				after, ok2 := finiteAt(counter, p.Timestamp)
				if !ok1 || !ok2 || after >= before {
					return true
				}
			}
			prev, have = p, true
		}
	}
	return false
}

// finiteAt is ss's finite value at t (its points are in ascending time);
// false when it has none there or ss is nil.
func finiteAt(ss *model.SampleStream, t model.Time) (float64, bool) {
	if ss == nil {
		return 0, false
	}
	i := sort.Search(len(ss.Values), func(i int) bool { return ss.Values[i].Timestamp >= t })
	if i == len(ss.Values) || ss.Values[i].Timestamp != t {
		return 0, false
	}
	v := float64(ss.Values[i].Value)
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}
