package embedded

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestCustomBucketHistograms: the engine (Prometheus' own scrape loop and
// TSDB) stores the simulator's classic ITL histogram as a native histogram
// with custom buckets (convert_classic_histograms_to_nhcb, schema -53),
// so the source has no _bucket series; metricsclient reads it as the
// classic histogram of the same observations (CustomBuckets), and its
// summed increase's p50/p95/p99 and mean over a window of whole seconds
// equal the engine's own histogram_quantile(q, sum(rate(x[w]))), w
// reaching back to the sample the window starts from (one target:
// the series share scrape timestamps, so rate's extrapolation scales every
// series alike and leaves quantiles unchanged).
func TestCustomBucketHistograms(t *testing.T) {
	const itl = "vllm:inter_token_latency_seconds"
	sim, hs := newSim(t, simulate.Config{Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7},
		DraftsPerSecond: 20, Seed: 5, Tick: 20 * time.Millisecond, Latency: true})
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second, convertToNHCB: true})
	sim.Resume()

	// Five scrapes of both series, stored as histograms.
	var ts []int64
	var last any
	if !testwait.Until(2*time.Minute, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		v, _, _, err := e.API.Query(ctx, itl+"[5m]", time.Now())
		last = v
		m, ok := v.(model.Matrix)
		if err != nil || !ok || len(m) != 2 || len(m[0].Histograms) < 5 || len(m[1].Histograms) < 5 {
			return false
		}
		for _, h := range m[0].Histograms {
			ts = append(ts, int64(h.Timestamp))
		}
		return true
	}) {
		t.Fatalf("no five scrapes of two custom-bucket series: %v", last)
	}
	if v, _, _, err := e.API.Query(context.Background(), "count("+itl+"_bucket)", time.Now()); err != nil || len(v.(model.Vector)) != 0 {
		t.Fatalf("classic series stored too: %v %v", v, err)
	}
	t0 := (ts[0] + 999) / 1000 * 1000
	t1 := ts[len(ts)-1] / 1000 * 1000
	var s0 int64
	for _, x := range ts {
		if x <= t0 {
			s0 = x
		}
	}
	if t1-t0 < 2000 || s0 == 0 {
		t.Fatalf("samples %v give no window", ts)
	}

	c := client(t, e.URL, time.Second)
	g := compute.Grid{Start: t0, End: t1, Step: 1000}
	f, err := c.FetchOptional(context.Background(), metricsclient.VLLMV1, g, nil, metricsclient.InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	fam, ok := f.Families[metricsclient.InterTokenLatency]
	if !ok || !fam.CustomBuckets || fam.Name != itl || len(fam.Histograms) != 2 || len(fam.Natives) != 0 {
		t.Fatalf("family %+v, warnings %q", fam, f.Warnings)
	}
	h := compute.SumOverBuckets(fam.HistogramIncreases(g))
	if h.Count == 0 {
		t.Fatalf("no observations in (%d, %d]", t0, t1)
	}
	at := time.UnixMilli(t1)
	// Prometheus 3's range selectors are left-open, (t1-w, t1]: 1 ms more
	// takes in the sample at s0 (and scales every series alike).
	agg := fmt.Sprintf("sum(rate(%s[%dms]))", itl, t1-s0+1)
	query := func(q string) float64 {
		t.Helper()
		v, _, _, err := e.API.Query(context.Background(), q, at)
		vec, ok := v.(model.Vector)
		if err != nil || !ok || len(vec) != 1 {
			t.Fatalf("%s: %v %v", q, v, err)
		}
		return float64(vec[0].Value)
	}
	for _, q := range []float64{0.503, 0.951, 0.991} { // ranks off the buckets' edges (see model TestNativeLatencyFromSimulator)
		want := query(fmt.Sprintf("histogram_quantile(%v, %s)", q, agg))
		if got := h.Quantile(q); !got.OK || math.Abs(got.V-want) > 1e-9*math.Max(1, want) {
			t.Errorf("q %v: specdash %v, Prometheus %v", q, got, want)
		}
	}
	want := query(fmt.Sprintf("histogram_sum(%s) / histogram_count(%s)", agg, agg))
	if got := h.Mean(); !got.OK || math.Abs(got.V-want) > 1e-9*math.Max(1, want) {
		t.Errorf("mean: specdash %v, Prometheus %v", got, want)
	}
}
