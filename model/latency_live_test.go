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
	srv, c := backfilledClient(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")
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
	// A window twice as long, whose first half has no data: output
	// tokens/s is per second of data, as the cards' rates.
	long := g
	long.Start -= g.End - g.Start
	ml, err := Compute(t.Context(), c, Request{Grid: long, Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{"m-v1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The counts start at the fixture's first samples (600 s before the
	// end), not at the window's start 1200 s before.
	cov := ml.CoveredSeconds()
	ll := ml.Latency
	if ll == nil {
		t.Fatal("long window: no latency")
	}
	if ll.GenerationTokens != want.GenerationTokens || cov != 600 || ll.OutputPerSecond != compute.Defined(400.0/600) {
		t.Errorf("long window: covered %v s; want 600; output tokens %v, per second %v; want 400, 400/600", cov, ll.GenerationTokens, ll.OutputPerSecond)
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
	_, c := backfilledClient(t, fixtures.SchemaVLLMV1().Body+"# EOF\n")
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

// measuredOpenMetrics: vLLM V1 without speculation over (t_0, t_20] (no
// spec-decode series until t_20, where they start at 0) and with it over
// (t_20, t_40] (+4 drafts, +12 draft tokens, +6 accepted [3, 2, 1] per 15
// s), and an inter-token latency histogram throughout: +20 steps per 15 s
// of 30 ms each before t_20 and 40 ms each after.
func measuredOpenMetrics(t0 int64) string {
	var b strings.Builder
	const ls = `engine="0",model_name="m"`
	counter := func(name string, lbl string, per float64) {
		fmt.Fprintf(&b, "# TYPE %s counter\n", name)
		for j := 20; j <= 40; j++ {
			fmt.Fprintf(&b, "%s_total{%s} %v %d\n", name, lbl, per*float64(j-20), t0+int64(j)*15)
		}
	}
	counter("vllm:spec_decode_num_drafts", ls, 4)
	counter("vllm:spec_decode_num_draft_tokens", ls, 12)
	counter("vllm:spec_decode_num_accepted_tokens", ls, 6)
	fmt.Fprintf(&b, "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n")
	for p, per := range []float64{3, 2, 1} {
		for j := 20; j <= 40; j++ {
			fmt.Fprintf(&b, "vllm:spec_decode_num_accepted_tokens_per_pos_total{%s,position=\"%d\"} %v %d\n", ls, p, per*float64(j-20), t0+int64(j)*15)
		}
	}
	fmt.Fprintf(&b, "# TYPE vllm:inter_token_latency_seconds histogram\n")
	for j := 0; j <= 40; j++ {
		ts := t0 + int64(j)*15
		n := float64(20 * j)
		sum := 0.6 * float64(min(j, 20))
		if j > 20 {
			sum += 0.8 * float64(j-20)
		}
		fmt.Fprintf(&b, "vllm:inter_token_latency_seconds_bucket{%s,le=\"0.025\"} 0 %d\n", ls, ts)
		fmt.Fprintf(&b, "vllm:inter_token_latency_seconds_bucket{%s,le=\"0.05\"} %v %d\n", ls, n, ts)
		fmt.Fprintf(&b, "vllm:inter_token_latency_seconds_bucket{%s,le=\"+Inf\"} %v %d\n", ls, n, ts)
		fmt.Fprintf(&b, "vllm:inter_token_latency_seconds_sum{%s} %v %d\n", ls, sum, ts)
		fmt.Fprintf(&b, "vllm:inter_token_latency_seconds_count{%s} %v %d\n", ls, n, ts)
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// TestMeasuredSpeedup: with a baseline window without drafts but with
// inter-token latency, the speedup shown is measured: time per output
// token 12 s / 400 steps = 30 ms without drafts (one token per step), and
// 16 s / (400 steps + 120 accepted tokens) = 30.8 ms with them; speedup
// 0.03 / (16 / 520) = 0.975, labelled "measured" (lower than 1: honest).
// A baseline with drafts gives the estimate and says why.
func TestMeasuredSpeedup(t *testing.T) {
	t0 := fixtures.SchemaStartUnix
	_, c := backfilledClient(t, measuredOpenMetrics(t0))
	cur := compute.Grid{Start: (t0 + 300) * 1000, End: (t0 + 600) * 1000, Step: 15000}
	base := compute.Grid{Start: t0 * 1000, End: (t0 + 300) * 1000, Step: 15000}
	m, err := Compute(t.Context(), c, Request{Grid: cur, Baseline: &base})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.Drafts != 80 || m.Stats.AcceptedTokens != 120 || m.Latency == nil || !closeTo(m.Latency.ITL.Mean.V, 0.04) {
		t.Fatalf("drafts %v accepted %v latency %+v", m.Stats.Drafts, m.Stats.AcceptedTokens, m.Latency)
	}
	me := m.Measured
	if me == nil || me.Reason != "" || !closeTo(me.BaselinePerToken.V, 0.03) || !closeTo(me.CurrentPerToken.V, 16.0/520) || !closeTo(me.Speedup.V, 0.03/(16.0/520)) {
		t.Fatalf("measured %+v", me)
	}
	sh := m.SpeedupShown(compute.EstimateSpeedup(m.Total.Total, 0.05))
	if !sh.Measured || sh.Value != me.Speedup || !strings.HasPrefix(sh.Label, "measured: time per output token without drafts (baseline window) 30.0 ms / with drafts 30.8 ms") {
		t.Errorf("shown %+v", sh)
	}

	// Baseline with drafts: estimated, and why.
	b2 := compute.Grid{Start: (t0 + 300) * 1000, End: (t0 + 450) * 1000, Step: 15000}
	m, err = Compute(t.Context(), c, Request{Grid: cur, Baseline: &b2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Measured == nil || m.Measured.Speedup.OK || !strings.Contains(m.Measured.Reason, "baseline window has drafts") {
		t.Errorf("measured with a speculative baseline: %+v", m.Measured)
	}
	if sh := m.SpeedupShown(compute.EstimateSpeedup(m.Total.Total, 0.05)); sh.Measured || !strings.HasPrefix(sh.Label, "estimated (Leviathan formula") {
		t.Errorf("shown %+v", sh)
	}
}
