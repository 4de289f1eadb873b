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
	step := time.Duration(g.Step) * time.Millisecond
	q, ok, err := c.schema.SampleCountQuery(filters, step)
	if err != nil || !ok {
		return nil, nil, err
	}
	r := v1.Range{Start: time.UnixMilli(g.Start + g.Step), End: time.UnixMilli(g.End), Step: step}
	m, warnings, err := c.queryMatrix(ctx, q, r)
	if err != nil {
		return nil, warnings, err
	}
	out := make([]float64, g.Buckets())
	for _, ss := range m {
		for _, sp := range ss.Values {
			if j := g.BucketAt(int64(sp.Timestamp)); j < len(out) {
				out[j] += float64(sp.Value)
			}
		}
	}
	return out, warnings, nil
}

// SchemaSampleCounts is SampleCounts of schema s's selection (for a
// client whose schema was detected per load).
func (c *Client) SchemaSampleCounts(ctx context.Context, s Schema, g compute.Grid, filters []Filter) ([]float64, []string, error) {
	return c.WithSchema(s).SampleCounts(ctx, g, filters)
}
