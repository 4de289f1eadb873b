//go:build !js

package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// *metricsclient.Client reads the optional families.
var _ OptionalSource = (*metricsclient.Client)(nil)

func latencyGrid() compute.Grid {
	return compute.Grid{Start: fixtures.SchemaStartUnix * 1000, End: fixtures.SchemaEndUnix * 1000, Step: 15000}
}

// TestLatencyAgainstPrometheus: Compute over vLLM V1's counters and
// optional families (fixtures.Latency) in a real Prometheus gives the
// hand-computed ITL p50/p95/p99 and mean of both engines of m-v1 (a reset
// included), equal to Prometheus' own histogram_quantile over the same
// window; the exact output share (240 accepted of 400 output tokens) and
// output tokens/s; and the load bins of vllm:num_requests_running (j % 4
// at t_j: four bins of ten buckets, each bucket 6 of 12 draft tokens
// accepted and ITL 0.75 s over 24 steps).
func TestLatencyAgainstPrometheus(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := latencyGrid()
	m, err := Compute(t.Context(), c, Request{Grid: g, Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{"m-v1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	l := m.Latency
	if l == nil || l.Err != nil {
		t.Fatalf("latency %+v", l)
	}
	if l.ITLMetric != "vllm:inter_token_latency_seconds" || l.GenerationMetric != "vllm:generation_tokens_total" || l.LoadMetric != "vllm:num_requests_running" || len(l.Missing) != 0 {
		t.Errorf("metrics %q %q %q, missing %q", l.ITLMetric, l.GenerationMetric, l.LoadMetric, l.Missing)
	}
	want := fixtures.LatencyWhole
	s := l.ITL
	for name, p := range map[string][2]compute.Value{"p50": {s.P50, compute.Defined(want.P50)}, "p95": {s.P95, compute.Defined(want.P95)}, "p99": {s.P99, compute.Defined(want.P99)}, "mean": {s.Mean, compute.Defined(want.Mean)}} {
		if !p[0].OK || !closeTo(p[0].V, p[1].V) {
			t.Errorf("ITL %s = %v, want %v", name, p[0], p[1].V)
		}
	}
	if s.Observations != want.Count || l.Histogram.Count != want.Count || !closeTo(l.Histogram.Sum, want.Sum) {
		t.Errorf("observations %v count %v sum %v, want %v %v", s.Observations, l.Histogram.Count, l.Histogram.Sum, want.Count, want.Sum)
	}
	at := time.UnixMilli(g.End)
	for q, got := range map[float64]compute.Value{0.5: s.P50, 0.95: s.P95, 0.99: s.P99} {
		vec := srv.QueryVector(t, fmt.Sprintf(`histogram_quantile(%v, sum by (le) (increase(vllm:inter_token_latency_seconds_bucket{model_name="m-v1"}[10m])))`, q), at)
		if len(vec) != 1 || !closeTo(got.V, float64(vec[0].Value)) {
			t.Errorf("q %v: specdash %v, Prometheus %v", q, got, vec)
		}
	}
	if len(l.Buckets) != g.Buckets() {
		t.Fatalf("%d bucket summaries, want %d", len(l.Buckets), g.Buckets())
	}
	for j, b := range l.Buckets {
		if b.Observations != 24 || !closeTo(b.Mean.V, 0.75/24) {
			t.Errorf("bucket %d: %v observations, mean %v", j, b.Observations, b.Mean)
		}
	}
	if l.GenerationTokens != want.GenerationTokens || l.OutputShare != compute.Defined(240.0/400) || l.OutputPerSecond != compute.Defined(400.0/600) {
		t.Errorf("generation %v share %v per second %v", l.GenerationTokens, l.OutputShare, l.OutputPerSecond)
	}
	if len(l.Load) != 4 {
		t.Fatalf("load bins %+v", l.Load)
	}
	for i, b := range l.Load {
		if b.Lo != float64(i) || b.Buckets != 10 || b.Counts.DraftTokens != 120 || b.AcceptanceRate != compute.Defined(0.5) || !closeTo(b.MeanITL.V, 0.75/24) || !b.Speedup.Speedup.OK {
			t.Errorf("load bin %d: %+v", i, b)
		}
	}
	if len(l.Reasons) != 0 {
		t.Errorf("reasons %v", l.Reasons)
	}
	if sh := m.SpeedupShown(compute.EstimateSpeedup(m.Total.Total, 0.05)); sh.Measured || sh.Label != "estimated (Leviathan formula, draft cost c = 0.05)" || !sh.Value.OK {
		t.Errorf("speedup shown %+v", sh)
	}
}

// TestLatencyMissing: a vLLM source without the optional families gives
// the counters' numbers and sentences naming each family looked for,
// including the former ITL name; no latency value is defined and none is
// NaN.
func TestLatencyMissing(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+"# EOF\n")})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compute(t.Context(), c, Request{Grid: latencyGrid()})
	if err != nil {
		t.Fatal(err)
	}
	l := m.Latency
	if l == nil || m.Stats.Drafts != 160 {
		t.Fatalf("latency %+v, drafts %v", l, m.Stats.Drafts)
	}
	wantMsg := "inter-token latency: vllm:inter_token_latency_seconds not found (nor vllm:time_per_output_token_seconds); none of the latency, output or load metrics were found"
	if !slices.Contains(l.Missing, wantMsg) || len(l.Missing) != 3 || !strings.HasPrefix(l.Missing[1], "output tokens: vllm:generation_tokens_total not found") {
		t.Errorf("missing %q", l.Missing)
	}
	if l.ITL.P50.OK || l.ITL.Mean.OK || l.OutputShare.OK || l.OutputPerSecond.OK || len(l.Load) != 0 || math.IsNaN(l.ITL.P50.V) {
		t.Errorf("undefined values expected: %+v", l)
	}
	for _, k := range []string{"itl", "output_share", "output_per_second", "load"} {
		if l.Reasons[k] == "" {
			t.Errorf("no reason for %s: %v", k, l.Reasons)
		}
	}
}
