package chartopt

import (
	"time"

	"specdash/compute"
	"specdash/model"
)

// ITLLines are the inter-token latency quantiles per bucket of l
// (model.Latency.Buckets): p50, p95 and p99 in seconds.
func ITLLines(l *model.Latency) []model.Line {
	if l == nil || len(l.Buckets) == 0 {
		return nil
	}
	p50, p95, p99 := make([]compute.Value, len(l.Buckets)), make([]compute.Value, len(l.Buckets)), make([]compute.Value, len(l.Buckets))
	for j, b := range l.Buckets {
		p50[j], p95[j], p99[j] = b.P50, b.P95, b.P99
	}
	return []model.Line{{Name: "ITL p50", Values: p50}, {Name: "ITL p95", Values: p95}, {Name: "ITL p99", Values: p99}}
}

// InterTokenLatency is the latency panel's chart: the inter-token latency
// p50, p95 and p99 of each bucket (histogram_quantile of the bucket's
// increases summed over series) in milliseconds, 0-based y axis; buckets
// without observations are gaps, from complete on drawn as incomplete.
// Nil when l has no histogram.
func InterTokenLatency(g compute.Grid, l *model.Latency, complete int, loc *time.Location, p Palette) *Option {
	lines := ITLLines(l)
	if lines == nil {
		return nil
	}
	return Lines(g, lines, complete, 1000, 2, "ms", 0, nil, loc, p)
}
