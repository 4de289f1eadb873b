package metricsclient

import (
	"testing"

	"github.com/prometheus/common/model"

	"specdash/compute"
)

// TestNativeDecodeAndConvert: a query_range answer with native histogram
// samples, as Prometheus writes it, decodes in one pass (rangedecode.go)
// into SampleStream.Histograms; nativeFromMatrix converts the schema-0
// series (buckets (0.5, 1] 1 and (1, 2] 2 at t = 10 s, 3 and 2 at 20 s)
// into index buckets 0 and 1, a name whose buckets fit no exponential
// schema is read as custom buckets, and a float series is ignored.
func TestNativeDecodeAndConvert(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"matrix","result":[
{"metric":{"__name__":"vllm:inter_token_latency_seconds","engine":"0"},"histograms":[
 [10,{"count":"3","sum":"4.5","buckets":[[0,"0.5","1","1"],[0,"1","2","2"]]}],
 [20,{"count":"5","sum":"6","buckets":[[0,"0.5","1","3"],[0,"1","2","2"]]}]]},
{"metric":{"__name__":"vllm:time_per_output_token_seconds","engine":"0"},"histograms":[
 [10,{"count":"1","sum":"0.2","buckets":[[0,"0.1","0.25","1"]]}]]},
{"metric":{"__name__":"vllm:generation_tokens_total","engine":"0"},"values":[[10,"1"]]}]}}`
	a, err := decodeRangeAnswer([]byte(body))
	if err != nil || !a.matrix || len(a.result) != 3 || len(a.result[0].Histograms) != 2 {
		t.Fatalf("decoded %+v, %v", a, err)
	}
	got, errs := nativeFromMatrix(a.result)
	ns := got.exp["vllm:inter_token_latency_seconds"]
	if len(ns) != 1 || len(ns[0].Samples) != 2 || ns[0].Labels["engine"] != "0" || ns[0].Samples[1].T != 20000 {
		t.Fatalf("series %+v", ns)
	}
	h := ns[0].Samples[1].H
	if h.Schema != 0 || h.Count != 5 || h.Sum != 6 || len(h.Positive) != 2 || h.Positive[0].Index != 0 || h.Positive[0].Count != 3 || h.Positive[1].Index != 1 {
		t.Errorf("sample %+v", h)
	}
	// Buckets that fit no exponential schema: custom buckets, read as the
	// classic series of the same observations (le 0.25 and +Inf).
	cs := got.custom["vllm:time_per_output_token_seconds"]
	if _, ok := got.exp["vllm:time_per_output_token_seconds"]; ok || len(errs) != 0 || len(cs) != 1 || len(cs[0].Buckets) != 2 ||
		cs[0].Buckets[0].UpperBound != 0.25 || cs[0].Buckets[0].Points[0].V != 1 || cs[0].Buckets[1].Points[0].V != 1 {
		t.Errorf("custom buckets: %+v, %v", cs, errs)
	}
	if _, ok := got.exp["vllm:generation_tokens_total"]; ok {
		t.Error("float series converted")
	}
}

// TestNativeLeftOut: the native series a classic read leaves out are
// named, at most three and a count of the rest; a native series with the
// labels of a classic one of the same name (a source storing both kinds of
// one histogram) is the same observations and is not named; none left out
// is no warning.
func TestNativeLeftOut(t *testing.T) {
	const n = "vllm:inter_token_latency_seconds"
	classic := func(engine string) *model.SampleStream {
		return &model.SampleStream{Metric: model.Metric{model.MetricNameLabel: n + "_bucket", "engine": model.LabelValue(engine), "le": "0.1"},
			Values: []model.SamplePair{{Timestamp: 1000, Value: 1}}}
	}
	byName := map[string]model.Matrix{n: {classic("0"), classic("1")}}
	native := nativeRead{exp: map[string][]compute.NativeHistogramSeries{}, custom: map[string][]compute.HistogramSeries{}}
	for _, e := range []string{"0", "1", "2", "3", "4"} {
		native.exp[n] = append(native.exp[n], compute.NativeHistogramSeries{Labels: map[string]string{"engine": e}})
	}
	native.custom[n] = []compute.HistogramSeries{{Labels: map[string]string{"engine": "5"}}}
	got := nativeLeftOut([]string{n, "vllm:time_per_output_token_seconds"}, byName, native, n, 2)
	want := n + ` has 4 native histogram series here too ({engine="2"}, {engine="3"}, {engine="4"} and 1 more); showing the 2 classic histogram series of ` + n + " only (the two kinds are not combined)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant [%q]", got, want)
	}
	native.exp[n], native.custom[n] = native.exp[n][:2], nil
	if got := nativeLeftOut([]string{n}, byName, native, n, 2); len(got) != 0 {
		t.Errorf("both kinds of the same series: %q, want no warning", got)
	}
}
