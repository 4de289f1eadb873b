//go:build !js

package metricsclient

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/promtest"
)

const nativeITL = "vllm:inter_token_latency_seconds"

// nativeTarget serves two native histograms named nativeITL (engines 0 and
// 1; bucket factors 1.1 and 2, so schemas 3 and 0) through promhttp, which
// speaks protobuf to a Prometheus that asks for it.
func nativeTarget(t *testing.T) (addr string, e0, e1 prometheus.Histogram) {
	reg := prometheus.NewRegistry()
	mk := func(engine string, factor float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: nativeITL, Help: "Histogram of inter-token latency in seconds.",
			ConstLabels:                 prometheus.Labels{"engine": engine},
			NativeHistogramBucketFactor: factor,
		})
		reg.MustRegister(h)
		return h
	}
	e0, e1 = mk("0", 1.1), mk("1", 2)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), e0, e1
}

// nativeSamples polls srv until cond holds for the native samples of
// nativeITL over the last 5 minutes (one entry per series, the samples'
// timestamps and counts), with a generous deadline; the last answer.
func nativeSamples(t *testing.T, srv *promtest.Server, what string, cond func(model.Matrix) bool) model.Matrix {
	t.Helper()
	a := srv.API(t)
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	last := "nothing"
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		v, _, _, err := a.Query(ctx, nativeITL+"[5m]", time.Now())
		cancel()
		if err == nil {
			if m, ok := v.(model.Matrix); ok {
				if cond(m) {
					return m
				}
				last = m.String()
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: last answer %s", what, last)
		}
		select {
		case <-tick.C:
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
	}
}

// samplesWithCount counts the samples of each series whose count is want[engine].
func samplesWithCount(m model.Matrix, want map[string]float64) map[string]int {
	out := map[string]int{}
	for _, ss := range m {
		e := string(ss.Metric["engine"])
		for _, h := range ss.Histograms {
			if float64(h.Histogram.Count) == want[e] {
				out[e]++
			}
		}
	}
	return out
}

// TestNativeHistogramAgainstPrometheus: Prometheus 2.42 with
// --enable-feature=native-histograms scrapes two native histograms of
// vLLM's ITL (schemas 3 and 0, a 0 s observation in the zero bucket).
// After a first set of observations (state A, at least three scrapes) a
// second set is observed (state B). Over a window from a step point in
// state A to one in state B, FetchOptional reads the native samples (one
// pass over the answer, equal to client_golang's v1 decoding),
// specdash's increase holds exactly the 13 observations of B with their
// sum, summed in the coarser schema 0, and its p50/p95/p99 and mean equal
// Prometheus' own histogram_quantile(q, sum(rate(x[w]))) and
// sum(increase(x[w])) at the window's end, w reaching back exactly to the
// sample specdash starts from (both series share scrape timestamps, so
// rate's extrapolation scales them alike and quantiles do not move).
func TestNativeHistogramAgainstPrometheus(t *testing.T) {
	addr, e0, e1 := nativeTarget(t)
	a0 := []float64{0.01, 0.02, 0.03, 0.05, 0.08}
	a1 := []float64{0.015, 0.04}
	b0 := []float64{0.012, 0.018, 0.025, 0.033, 0.07, 0.09, 0.11, 0.2}
	b1 := []float64{0, 0.02, 0.045, 0.06, 0.3}
	for _, v := range a0 {
		e0.Observe(v)
	}
	for _, v := range a1 {
		e1.Observe(v)
	}
	srv := promtest.Start(t, promtest.Options{Targets: []string{addr}, ExtraFlags: []string{"--enable-feature=native-histograms"}})
	stateA := map[string]float64{"0": 5, "1": 2}
	nativeSamples(t, srv, "three scrapes of state A", func(m model.Matrix) bool {
		n := samplesWithCount(m, stateA)
		return n["0"] >= 3 && n["1"] >= 3
	})
	for _, v := range b0 {
		e0.Observe(v)
	}
	for _, v := range b1 {
		e1.Observe(v)
	}
	stateB := map[string]float64{"0": 13, "1": 7}
	m := nativeSamples(t, srv, "three scrapes of state B", func(m model.Matrix) bool {
		n := samplesWithCount(m, stateB)
		return n["0"] >= 3 && n["1"] >= 3
	})

	// The step points: T0 the first whole second at or after A's first
	// sample, T1 the last whole second at or before B's last sample (A and
	// B have three samples a second apart, so T0 is in state A and T1 in
	// B, a few grid buckets apart); s0 the last sample at or before T0.
	var as, bs []int64
	for _, ss := range m {
		if ss.Metric["engine"] != "0" {
			continue
		}
		for _, h := range ss.Histograms {
			switch float64(h.Histogram.Count) {
			case stateA["0"]:
				as = append(as, int64(h.Timestamp))
			case stateB["0"]:
				bs = append(bs, int64(h.Timestamp))
			}
		}
	}
	t0 := (as[0] + 999) / 1000 * 1000
	t1 := bs[len(bs)-1] / 1000 * 1000
	s0 := int64(0)
	for _, ts := range as {
		if ts <= t0 {
			s0 = ts
		}
	}
	if s0 == 0 || t0 >= bs[0] || t1 < bs[0] {
		t.Fatalf("step points %d, %d do not fall in states A and B: A %v, B %v", t0, t1, as, bs)
	}

	c, err := New(Config{Address: srv.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := compute.Grid{Start: t0, End: t1, Step: 1000}
	f, err := c.FetchOptional(t.Context(), VLLMV1, g, nil, InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	fam, ok := f.Families[InterTokenLatency]
	if !ok || !fam.Native() || fam.Name != nativeITL || len(fam.Natives) != 2 || len(fam.Histograms) != 0 {
		t.Fatalf("family %+v, warnings %q", fam, f.Warnings)
	}
	if s := fam.Natives[0].Samples; len(s) == 0 || s[0].H.Schema != 3 || fam.Natives[1].Samples[0].H.Schema != 0 {
		t.Errorf("schemas: engine 0 %+v", fam.Natives[0].Samples)
	}
	h := compute.SumOverBuckets(fam.HistogramIncreases(g))
	wantSum := 0.0
	for _, v := range append(append([]float64(nil), b0...), b1...) {
		wantSum += v
	}
	if !h.IsNative() || h.Native.Schema != 0 || h.Count != 13 || h.Observations() != 13 || math.Abs(h.Sum-wantSum) > 1e-12 || h.Native.ZeroCount != 1 {
		t.Fatalf("increase %+v native %+v, want 13 observations, sum %v, schema 0, 1 in the zero bucket", h, h.Native, wantSum)
	}
	sum := h.Summarize()
	t.Logf("window (%d, %d], rate window %d ms: p50 %v p95 %v p99 %v mean %v", t0, t1, t1-s0, sum.P50, sum.P95, sum.P99, sum.Mean)

	at := time.UnixMilli(t1)
	w := fmt.Sprintf("%dms", t1-s0)
	for _, fn := range []string{"rate", "increase"} {
		agg := fmt.Sprintf("sum(%s(%s[%s]))", fn, nativeITL, w)
		for q, got := range map[float64]compute.Value{0.5: sum.P50, 0.95: sum.P95, 0.99: sum.P99} {
			vec := srv.QueryVector(t, fmt.Sprintf("histogram_quantile(%v, %s)", q, agg), at)
			if len(vec) != 1 || !got.OK || !closeTo(got.V, float64(vec[0].Value)) {
				t.Errorf("%s q %v: specdash %v, Prometheus %v", fn, q, got, vec)
			}
		}
		vec := srv.QueryVector(t, fmt.Sprintf("histogram_sum(%s) / histogram_count(%s)", agg, agg), at)
		if len(vec) != 1 || !sum.Mean.OK || !closeTo(sum.Mean.V, float64(vec[0].Value)) || !closeTo(sum.Mean.V, wantSum/13) {
			t.Errorf("%s mean: specdash %v, Prometheus %v, observed %v", fn, sum.Mean, vec, wantSum/13)
		}
	}

	// The one-pass decoder reads native samples as client_golang's v1 does.
	r := v1.Range{Start: time.UnixMilli(t0), End: time.UnixMilli(t1), Step: time.Second}
	one, _, err := queryRangeMatrix(t.Context(), c.raw, nativeITL, r)
	if err != nil {
		t.Fatal(err)
	}
	ref, _, _, err := v1.NewAPI(c.raw).QueryRange(t.Context(), nativeITL, r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, ref) || len(one) != 2 || len(one[0].Histograms) == 0 {
		t.Errorf("one pass %v\nv1 %v", one, ref)
	}
}

// TestMixedHistogramKindsAgainstPrometheus: Prometheus 2.42 with
// --enable-feature=native-histograms scrapes vLLM's ITL as a classic
// histogram from one target (engine 0) and as native histograms from
// another (engines 1 and 2; 2.42 reads a family as one kind, so each kind
// has its own target, as each server would). FetchOptional reads the
// classic one (3 observations) and says in a warning that the two native
// series, named, are not included.
func TestMixedHistogramKindsAgainstPrometheus(t *testing.T) {
	serve := func(hs ...prometheus.Histogram) string {
		reg := prometheus.NewRegistry()
		for _, h := range hs {
			reg.MustRegister(h)
		}
		srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	itl := func(engine string, buckets []float64, factor float64, obs ...float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: nativeITL, Help: "Histogram of inter-token latency in seconds.",
			ConstLabels: prometheus.Labels{"engine": engine}, Buckets: buckets, NativeHistogramBucketFactor: factor,
		})
		for _, v := range obs {
			h.Observe(v)
		}
		return h
	}
	classicAddr := serve(itl("0", []float64{0.01, 0.05, 0.1}, 0, 0.02, 0.03, 0.2))
	nativeAddr := serve(itl("1", nil, 2, 0.04), itl("2", nil, 2, 0.04))
	srv := promtest.Start(t, promtest.Options{Targets: []string{classicAddr, nativeAddr}, ExtraFlags: []string{"--enable-feature=native-histograms"}})

	// Three scrapes of each: the natives' samples, and the classic count's.
	m := nativeSamples(t, srv, "three scrapes of the native histograms", func(m model.Matrix) bool {
		n := samplesWithCount(m, map[string]float64{"1": 1, "2": 1})
		return n["1"] >= 3 && n["2"] >= 3
	})
	srv.WaitFor(t, "count_over_time("+nativeITL+`_count{engine="0"}[5m]) >= 3`, nil, 2*time.Minute)
	var first int64
	for _, ss := range m {
		if ts := int64(ss.Histograms[0].Timestamp); ts > first {
			first = ts // the later of the two series' first samples
		}
	}
	g := compute.Grid{Start: (first + 999) / 1000 * 1000, End: time.Now().UnixMilli() / 1000 * 1000, Step: 1000}
	if g.End <= g.Start {
		t.Fatalf("grid %+v: no whole second between the first sample and now", g)
	}

	c, err := New(Config{Address: srv.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.FetchOptional(t.Context(), VLLMV1, g, nil, InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	fam, ok := f.Families[InterTokenLatency]
	if !ok || fam.Native() || len(fam.Histograms) != 1 || fam.Histograms[0].Labels["engine"] != "0" {
		t.Fatalf("family %+v, warnings %q; want the classic series of engine 0", fam, f.Warnings)
	}
	if n := fam.Histograms[0].Count; len(n) == 0 || n[len(n)-1].V != 3 {
		t.Errorf("classic count %v, want 3 at the end", n)
	}
	series := func(engine string) string {
		return compute.LabelString(map[string]string{"engine": engine, "instance": nativeAddr, "job": "vllm"})
	}
	want := nativeITL + " has 2 native histogram series here too (" + series("1") + ", " + series("2") +
		"); showing the 1 classic histogram series of " + nativeITL + " only (the two kinds are not combined)"
	if len(f.Warnings) != 1 || f.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", f.Warnings, want)
	}
}
