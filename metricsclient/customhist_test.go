//go:build !js

package metricsclient

import (
	"fmt"
	"math"
	"strings"
	"testing"

	jsoniter "github.com/json-iterator/go"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser/posrange"
	"github.com/prometheus/prometheus/util/jsonutil"

	"specdash/compute"
)

// nhcb is a native histogram with custom buckets (schema -53) with bounds
// 0.01, 0.05, 0.1 and the given bucket counts (not cumulative; the last is
// the +Inf bucket).
func nhcb(sum float64, counts ...float64) *histogram.FloatHistogram {
	h := &histogram.FloatHistogram{Schema: histogram.CustomBucketsSchema, Sum: sum,
		CustomValues:    []float64{0.01, 0.05, 0.1},
		PositiveSpans:   []histogram.Span{{Offset: 0, Length: uint32(len(counts))}},
		PositiveBuckets: counts}
	for _, c := range counts {
		h.Count += c
	}
	return h
}

// TestCustomBucketsAgainstPrometheus: native histograms with custom
// buckets (Prometheus 3's schema -53, as convert_classic_histograms_to_nhcb
// stores classic histograms), written by Prometheus' own JSON encoder
// (empty buckets left out, the first bucket from -Inf), decode in one pass
// and read as classic series; the summed increase's quantiles over two
// engines equal Prometheus' histogram_quantile of the same increase
// (promql.HistogramQuantile), and the count and sum are exact.
func TestCustomBucketsAgainstPrometheus(t *testing.T) {
	series := map[string][2]*histogram.FloatHistogram{
		"0": {nhcb(0.3, 4, 6), nhcb(1.3, 4, 16, 8, 2)},
		"1": {nhcb(0.1, 1, 0, 1), nhcb(2.9, 7, 3, 9, 11)},
	}
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	first := true
	for _, engine := range []string{"0", "1"} {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, `{"metric":{"__name__":"vllm:inter_token_latency_seconds","engine":%q},"histograms":[`, engine)
		for i, h := range series[engine] {
			stream := jsoniter.ConfigCompatibleWithStandardLibrary.BorrowStream(nil)
			jsonutil.MarshalHistogram(h, stream)
			fmt.Fprintf(&b, `[%d,%s]`, 10*(i+1), stream.Buffer())
			jsoniter.ConfigCompatibleWithStandardLibrary.ReturnStream(stream)
			if i == 0 {
				b.WriteString(",")
			}
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	a, err := decodeRangeAnswer([]byte(b.String()))
	if err != nil || !a.matrix || len(a.result) != 2 {
		t.Fatalf("decoded %+v, %v\n%s", a, err, b.String())
	}
	got, errs := nativeFromMatrix(a.result)
	cs := got.custom["vllm:inter_token_latency_seconds"]
	if len(errs) != 0 || len(got.exp) != 0 || len(cs) != 2 {
		t.Fatalf("custom %+v exp %+v errs %v", cs, got.exp, errs)
	}
	g := compute.Grid{Start: 10_000, End: 20_000, Step: 10_000}
	inc := compute.SumOverBuckets(compute.HistogramIncreases(cs, g))

	// Prometheus' own: the increase of each series, summed.
	var want *histogram.FloatHistogram
	for _, engine := range []string{"0", "1"} {
		d, _, _, err := series[engine][1].Copy().Sub(series[engine][0])
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = d
		} else if want, _, _, err = want.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if inc.Count != want.Count || math.Abs(inc.Sum-want.Sum) > 1e-12 {
		t.Errorf("count %v sum %v, want Prometheus' %v %v", inc.Count, inc.Sum, want.Count, want.Sum)
	}
	for _, q := range []float64{0.1, 0.5, 0.75, 0.9, 0.95, 0.99} {
		w, _ := promql.HistogramQuantile(q, want, "vllm:inter_token_latency_seconds", posrange.PositionRange{})
		if got := inc.Quantile(q); !got.OK || math.Abs(got.V-w) > 1e-9 {
			t.Errorf("q %v: specdash %v, Prometheus %v", q, got, w)
		}
	}
}
