package metricsclient

import (
	"context"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// SampleCountQuery returns the PromQL query whose value at each step point
// t of a grid is the number of samples the selection's series stored in the
// bucket (t - step, t]: one counter family's count_over_time over one step,
// summed over series. The family is the first of drafts, draft tokens and
// accepted tokens that the schema has. A bucket with no sample while the
// buckets around it have some is a data gap (compute.FindGaps): the counts
// of the gap land in the bucket after it. ok is false when the schema has
// no counter family.
func (s Schema) SampleCountQuery(filters []Filter, step time.Duration) (q string, ok bool, err error) {
	for _, f := range []compute.Family{compute.Drafts, compute.DraftTokens, compute.AcceptedTokens} {
		name, has := s.Metrics[f]
		if !has {
			continue
		}
		sel, err := Selector([]string{name}, filters)
		if err != nil {
			return "", false, err
		}
		// One millisecond short of the step: Prometheus 2 closes range
		// selectors at both ends ([t-w, t]), Prometheus 3 and
		// VictoriaMetrics open them at the left ((t-w, t]); with w = step -
		// 1 ms every version counts each sample (ms timestamps) in exactly
		// one bucket.
		w := model.Duration(step.Round(time.Millisecond) - time.Millisecond).String()
		return "sum(count_over_time(" + sel + "[" + w + "]))", true, nil
	}
	return "", false, nil
}

// SampleCounts returns, for each bucket of g, the number of samples the
// selection stored in it (SampleCountQuery): 0 for a bucket without any.
// Groups × buckets is one series, so the answer is small at any fleet size.
// It returns nil, without error, when the schema has no counter family.
func (c *Client) SampleCounts(ctx context.Context, g compute.Grid, filters []Filter) ([]float64, []string, error) {
	sc, err := c.SchemaSampleCounts(ctx, c.schema, g, filters, nil)
	if sc == nil {
		return nil, nil, err
	}
	return sc.Counts, sc.Warnings, err
}

// SampleCounts is SchemaSampleCounts' answer.
type SampleCounts struct {
	// Counts are the samples in each bucket of the grid (nil when the
	// schema has no counter family).
	Counts []float64
	// Warnings are the source's.
	Warnings []string
	// Incremental says that only the newest buckets were read: the
	// others are the previous load's (SchemaSampleCounts' prev).
	Incremental bool
	schemaID    string
	grid        compute.Grid
	cacheable   bool
}

// SchemaSampleCounts is SampleCounts of schema s's selection (for a
// client whose schema was detected per load).
//
// prev is the Window of the previous load of the same view, or nil. When
// it holds this query's answer over its own grid (Window.WithReads) and g
// continues it (Window.ContinuesAt: the same source, filters and step, a
// live window that slid forward), only the buckets from one step before
// prev's last final point on are read; the older ones, final, are
// prev's. The result equals a full read as long as the samples prev held
// as final did not change (the counters' incremental read makes the same
// assumption). Errors: those of SampleCounts.
func (c *Client) SchemaSampleCounts(ctx context.Context, s Schema, g compute.Grid, filters []Filter, prev *Window) (*SampleCounts, error) {
	step := time.Duration(g.Step) * time.Millisecond
	q, ok, err := s.SampleCountQuery(filters, step)
	if err != nil {
		return nil, err
	}
	out := &SampleCounts{schemaID: s.ID, grid: g}
	if !ok {
		return out, nil
	}
	out.Counts = make([]float64, g.Buckets())
	readFrom := g.Start + g.Step // the point of bucket 0
	if p := prev.samplesFor(s); p != nil {
		if from, ok := prev.ContinuesAt(c, g, filters); ok {
			// Bucket j's count is the query's value at its end point.
			for j, v := range p.Counts {
				t := p.grid.Start + int64(j+1)*p.grid.Step
				if t >= from {
					break
				}
				if t > g.Start {
					out.Counts[g.BucketAt(t)] = v
				}
			}
			readFrom, out.Incremental = max(from, readFrom), true
		}
	}
	r := v1.Range{Start: time.UnixMilli(readFrom), End: time.UnixMilli(g.End), Step: step}
	m, warnings, err := c.queryMatrix(ctx, q, r)
	out.Warnings = warnings
	if err != nil {
		out.Counts = nil
		return out, err
	}
	out.cacheable = len(warnings) == 0
	for _, ss := range m {
		for _, sp := range ss.Values {
			if t := int64(sp.Timestamp); t >= readFrom {
				if j := g.BucketAt(t); j < len(out.Counts) {
					out.Counts[j] += float64(sp.Value)
				}
			}
		}
	}
	return out, nil
}

// SelectionSize returns the number of counter series of the known schemas
// (their Names: every family, no _created gauge) that match filters at
// g's start or at its end, whichever is larger: an instant query reading
// one sample per series, to choose how to read the window (model.Compute
// reads a small live selection series by series, a large one through
// FetchShaped) before reading it. Series that both start and stop inside
// the window are not counted. Errors: an invalid filter, an *APIError.
func (c *Client) SelectionSize(ctx context.Context, g compute.Grid, filters []Filter) (int, error) {
	seen := map[string]bool{}
	var names []string
	for _, s := range Schemas {
		for _, n := range s.Names() {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sel, err := Selector(names, filters)
	if err != nil {
		return 0, err
	}
	q := `label_replace(count(` + sel + `), "at", "end", "", "")`
	if span := time.Duration(g.End-g.Start) * time.Millisecond; span > 0 {
		q += ` or label_replace(count(` + sel + ` offset ` + dur(span) + `), "at", "start", "", "")`
	}
	v, _, err := c.queryVector(ctx, q, time.UnixMilli(g.End))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range v {
		n = max(n, int(s.Value))
	}
	return n, nil
}
