package metricsclient

import (
	"context"
	"sort"
	"time"

	"github.com/prometheus/common/model"
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
// separately). One request to the series API (/api/v1/series with match[] =
// the schema's selector), so every label name and value a filter or a
// group-by could use comes back at once.
//
// No matching series gives an empty, non-nil map. A label a series lacks is
// not listed for it; filter on the value "" to select such series (PromQL
// semantics). Errors: an invalid filter, an *APIError.
func (c *Client) SeriesLabels(ctx context.Context, filters []Filter, start, end time.Time) (map[string][]string, error) {
	sel, err := c.schema.Selector(filters)
	if err != nil {
		return nil, err
	}
	sets, _, _, err := c.api.Series(ctx, []string{sel}, start, end)
	if err != nil {
		return nil, wrapErr("series", c.address, err)
	}
	seen := map[string]map[string]bool{}
	for _, ls := range sets {
		for k, v := range ls {
			if k == model.MetricNameLabel || string(k) == c.schema.PositionLabel {
				continue
			}
			m := seen[string(k)]
			if m == nil {
				m = map[string]bool{}
				seen[string(k)] = m
			}
			m[string(v)] = true
		}
	}
	out := make(map[string][]string, len(seen))
	for k, vals := range seen {
		list := make([]string, 0, len(vals))
		for v := range vals {
			list = append(list, v)
		}
		sort.Strings(list)
		out[k] = list
	}
	return out, nil
}
