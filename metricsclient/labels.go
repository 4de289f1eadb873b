package metricsclient

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"
)

// SchemaLabels is SeriesLabels of schema s without filters: the label
// names and values of s's series between start and end (the filter menus
// when the filters exclude every series).
func (c *Client) SchemaLabels(ctx context.Context, s Schema, start, end time.Time) (map[string][]string, error) {
	return c.WithSchema(s).SeriesLabels(ctx, nil, start, end)
}

// SeriesLabels returns the labels found on the schema's series that match
// filters and have samples between start and end: a map from label name to
// its distinct values, sorted, without __name__ and without the schema's
// position label (specdash selects metric names itself and reports positions
// separately). It asks the label names API (/api/v1/labels) and then, for
// each name, the label values API (/api/v1/label/<name>/values), both with
// match[] = the schema's selector, a few names at a time: answers that grow
// with the distinct values, not with the series (the series API's answer
// lists every series: 1.7 MB at 1,024 engines; docs/PERFORMANCE.md, Scale).
//
// No matching series gives an empty, non-nil map. A label a series lacks is
// not listed for it; filter on the value "" to select such series (PromQL
// semantics). Errors: an invalid filter, an *APIError.
func (c *Client) SeriesLabels(ctx context.Context, filters []Filter, start, end time.Time) (map[string][]string, error) {
	sel, err := c.schema.Selector(filters)
	if err != nil {
		return nil, err
	}
	names, _, _, err := c.api.LabelNames(ctx, []string{sel}, start, end)
	if err != nil {
		return nil, wrapErr("label names", c.address, err)
	}
	var (
		mu  sync.Mutex
		out = make(map[string][]string, len(names))
	)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxLabelConcurrent)
	for _, ln := range names {
		name := string(ln)
		if name == model.MetricNameLabel || name == c.schema.PositionLabel {
			continue
		}
		eg.Go(func() error {
			vals, err := c.labelValues(ectx, name, []string{sel}, start, end)
			if err != nil {
				return err
			}
			// The values of the series that have the label: a source
			// may list "" for the others.
			vals = slices.DeleteFunc(vals, func(v string) bool { return v == "" })
			if len(vals) > 0 {
				mu.Lock()
				out[name] = vals
				mu.Unlock()
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// maxLabelConcurrent bounds the concurrent label values requests of
// SeriesLabels.
const maxLabelConcurrent = 4
