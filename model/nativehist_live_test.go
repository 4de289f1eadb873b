//go:build !js

package model

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestNativeLatencyFromSimulator: the simulator (--latency
// --native-histograms) scraped by Prometheus 2.42 with native histograms
// enabled: Compute over a window of whole seconds reads the ITL as a native
// histogram (ITLNative, ITLKind "native", no missing family), its
// observations are the drafts drafted in the window (one per draft), and
// its p50/p95/p99 and mean equal Prometheus' own
// histogram_quantile(q, sum(rate(x[w]))) at the window's end, w reaching
// back exactly to the sample the window starts from (one target: the
// series share scrape timestamps). Every bucket's ITL is defined or has
// no observations, never NaN.
func TestNativeLatencyFromSimulator(t *testing.T) {
	sim, err := simulate.New(simulate.Config{Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7},
		DraftsPerSecond: 20, Seed: 3, Tick: 20 * time.Millisecond, Latency: true, NativeHistograms: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sim.Run(ctx)
	hs := httptest.NewServer(sim)
	defer hs.Close()
	srv := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(hs.URL, "http://")}, ExtraFlags: []string{"--enable-feature=native-histograms"}})
	const itl = "vllm:inter_token_latency_seconds"

	// Wait for five scrapes of both native series (and so of the
	// counters, scraped with them).
	a := srv.API(t)
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var ts []int64
	for {
		qctx, qcancel := context.WithTimeout(ctx, 20*time.Second)
		v, _, _, err := a.Query(qctx, itl+"[5m]", time.Now())
		qcancel()
		if m, ok := v.(model.Matrix); err == nil && ok && len(m) == 2 && len(m[0].Histograms) >= 5 && len(m[1].Histograms) >= 5 {
			for _, h := range m[0].Histograms {
				ts = append(ts, int64(h.Timestamp))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no five scrapes of two native series: %v %v", v, err)
		}
		<-tick.C
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

	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := compute.Grid{Start: t0, End: t1, Step: 1000}
	m, err := Compute(ctx, c, Request{Grid: g})
	if err != nil {
		t.Fatal(err)
	}
	l := m.Latency
	if l == nil || l.Err != nil || l.ITLMetric != itl || !l.ITLNative || l.ITLKind() != "native" || len(l.Missing) != 0 {
		t.Fatalf("latency %+v", l)
	}
	s := l.ITL
	if s.Observations != m.Total.Total.Drafts || s.Observations == 0 || l.Histogram.Native == nil || l.Histogram.Native.Schema != simulate.NativeITLSchema {
		t.Errorf("window (%d, %d]: %v observations for %v drafts; native %+v", t0, t1, s.Observations, m.Total.Total.Drafts, l.Histogram.Native)
	}
	at := time.UnixMilli(t1)
	agg := fmt.Sprintf("sum(rate(%s[%dms]))", itl, t1-s0)
	for q, got := range map[float64]compute.Value{0.5: s.P50, 0.95: s.P95, 0.99: s.P99} {
		if want := l.Histogram.Quantile(q); got != want {
			t.Errorf("p%v shown %v, the window's histogram gives %v", q*100, got, want)
		}
	}
	// Against Prometheus at ranks that are not whole numbers: rate's
	// extrapolation scales every bucket alike, but a rank exactly on a
	// bucket's edge (q x count equal to a cumulative count, as the
	// simulator's round counts make likely at p50) can then fall into the
	// next bucket by a rounding error; 2.42 cannot subtract histograms for
	// an unextrapolated increase.
	for _, q := range []float64{0.503, 0.951, 0.991} {
		vec := srv.QueryVector(t, fmt.Sprintf("histogram_quantile(%v, %s)", q, agg), at)
		if got := l.Histogram.Quantile(q); len(vec) != 1 || !got.OK || !closeTo(got.V, float64(vec[0].Value)) {
			t.Errorf("q %v: specdash %v, Prometheus %v", q, got, vec)
		}
	}
	vec := srv.QueryVector(t, fmt.Sprintf("histogram_sum(%s) / histogram_count(%s)", agg, agg), at)
	if len(vec) != 1 || !s.Mean.OK || !closeTo(s.Mean.V, float64(vec[0].Value)) {
		t.Errorf("mean: specdash %v, Prometheus %v", s.Mean, vec)
	}
	if len(l.Buckets) != g.Buckets() {
		t.Fatalf("%d bucket summaries, want %d", len(l.Buckets), g.Buckets())
	}
	for j, b := range l.Buckets {
		if b.Observations > 0 != b.P50.OK || b.Observations > 0 != b.Mean.OK {
			t.Errorf("bucket %d: %+v", j, b)
		}
	}
}
