package metricsclient

import (
	"math"
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
func (w *Window) Restarted(scrape time.Duration) bool {
	if w == nil {
		return false
	}
	between := time.Duration(w.grid.Step)*time.Millisecond > scrape
	// The counters' values by series (labels and base name) and time, to
	// tell a _created change that a visible drop counts from one that it
	// does not.
	key := func(ss *model.SampleStream, suffix string) string {
		m := ss.Metric.Clone()
		name := strings.TrimSuffix(string(m[model.MetricNameLabel]), suffix)
		delete(m, model.MetricNameLabel)
		return name + m.String()
	}
	values := map[string]map[model.Time]float64{}
	for _, ss := range w.counters {
		if strings.HasSuffix(string(ss.Metric[model.MetricNameLabel]), "_created") {
			continue
		}
		at := make(map[model.Time]float64, len(ss.Values))
		prev, have := 0.0, false
		for _, p := range ss.Values {
			v := float64(p.Value)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if have && between && v < prev {
				return true
			}
			at[p.Timestamp] = v
			prev, have = v, true
		}
		values[key(ss, "_total")] = at
	}
	for _, ss := range w.counters {
		if !strings.HasSuffix(string(ss.Metric[model.MetricNameLabel]), "_created") {
			continue
		}
		counter := values[key(ss, "_created")]
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
				before, ok1 := counter[prev.Timestamp]
				after, ok2 := counter[p.Timestamp]
				if between || !ok1 || !ok2 || after >= before {
					return true
				}
			}
			prev, have = p, true
		}
	}
	return false
}
