package compute

import (
	"fmt"
	"math"
	"slices"
)

// CustomSample is one sample of a native histogram with custom buckets
// (Prometheus 3's schema -53, e.g. a classic histogram stored so by
// convert_classic_histograms_to_nhcb) as the HTTP API writes it: the
// observations' Count and Sum and the non-empty buckets (the API leaves
// empty ones out): the first [-Inf, b0], then (b[i-1], b[i]], the last
// (bn, +Inf].
type CustomSample struct {
	T          int64
	Count, Sum float64
	Buckets    []NativeBucket
}

// ClassicFromCustom turns the samples of one native histogram series with
// custom buckets into the classic histogram series the same observations
// make (HistogramSeries: a cumulative counter per upper bound, _sum,
// _count): at each sample, bound u counts the observations of the buckets
// whose upper bound is at most u (a bound absent from a sample is an empty
// bucket there), for every bound any sample has, and +Inf counts them all.
// Prometheus computes histogram_quantile of such a histogram as of a
// classic one (linear interpolation in the bucket, the first bucket from 0
// when its upper bound is positive), so the classic rules apply from here
// (Histogram.Quantile). Errors: a bucket whose bounds are not ordered or
// are NaN.
func ClassicFromCustom(labels map[string]string, samples []CustomSample) (HistogramSeries, error) {
	out := HistogramSeries{Labels: labels}
	var bounds []float64
	for _, s := range samples {
		for _, b := range s.Buckets {
			if math.IsNaN(b.Lower) || math.IsNaN(b.Upper) || !(b.Lower < b.Upper) {
				return HistogramSeries{}, fmt.Errorf("custom bucket [%g, %g] is not an interval", b.Lower, b.Upper)
			}
			if !math.IsInf(b.Upper, 1) && !slices.Contains(bounds, b.Upper) {
				bounds = append(bounds, b.Upper)
			}
		}
	}
	slices.Sort(bounds)
	bounds = append(bounds, math.Inf(1))
	out.Buckets = make([]HistogramBucketSeries, len(bounds))
	for i, u := range bounds {
		out.Buckets[i].UpperBound = u
	}
	for _, s := range samples {
		for i, u := range bounds {
			c := 0.0
			for _, b := range s.Buckets {
				if b.Upper <= u {
					c += b.Count
				}
			}
			out.Buckets[i].Points = append(out.Buckets[i].Points, Point{T: s.T, V: c})
		}
		out.Sum = append(out.Sum, Point{T: s.T, V: s.Sum})
		out.Count = append(out.Count, Point{T: s.T, V: s.Count})
	}
	return out, nil
}
