package model

import (
	"math"
	"testing"

	"specdash/compute"
)

// TestITLReason: a window with observations but no quantiles says why
// (classic and native buckets mixed: a source that changed its histogram
// kind; buckets without +Inf), not the generic "no drafts in window";
// without observations it says that; with quantiles there is no reason.
func TestITLReason(t *testing.T) {
	classic := compute.Histogram{Buckets: []compute.HistogramBucket{{UpperBound: 0.01, Count: 5}, {UpperBound: 0.1, Count: 9}, {UpperBound: math.Inf(1), Count: 10}}, Sum: 0.3, Count: 10}
	native := compute.Histogram{Native: &compute.NativeHistogram{Schema: 0, Count: 10, Sum: 0.3, Positive: []compute.NativeIndexBucket{{Index: -5, Count: 10}}}, Sum: 0.3, Count: 10}
	noInf := compute.Histogram{Buckets: []compute.HistogramBucket{{UpperBound: 0.01, Count: 5}, {UpperBound: 0.1, Count: 10}}, Sum: 0.3, Count: 10}
	for _, c := range []struct {
		name string
		h    compute.Histogram
		want string
	}{
		{"classic", classic, ""},
		{"native", native, ""},
		{"mixed", compute.SumOverBuckets([]compute.Histogram{classic, native}), "classic and native histogram buckets both in the window: no quantiles"},
		{"no +Inf", noInf, "no quantiles from these buckets (no +Inf bucket)"},
		{"empty", compute.Histogram{}, "no inter-token latency observations in the window"},
	} {
		s := c.h.Summarize()
		if got := itlReason(c.h, s); got != c.want {
			t.Errorf("%s (p50 %v, mean %v): reason %q, want %q", c.name, s.P50, s.Mean, got, c.want)
		}
	}
}
