package metricsclient

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
)

func TestOptionalNames(t *testing.T) {
	if got := VLLMV1.OptionalNames(InterTokenLatency); len(got) != 2 || got[0] != "vllm:inter_token_latency_seconds" || got[1] != "vllm:time_per_output_token_seconds" {
		t.Errorf("vLLM V1 inter-token latency names %v", got)
	}
	for _, s := range []Schema{VLLMV1, RayVLLM, RayVLLMUnderscore} {
		for _, r := range []OptionalRole{InterTokenLatency, GenerationTokens, RequestsRunning, IterationTokens} {
			if len(s.OptionalNames(r)) == 0 {
				t.Errorf("%s has no %s", s.Name, r)
			}
		}
	}
	if got := SGLang.OptionalNames(VerifyCalls); len(got) != 1 || got[0] != "sglang:spec_verify_calls_total" {
		t.Errorf("SGLang verify calls %v", got)
	}
	if InterTokenLatency.Kind() != OptionalHistogram || RequestsRunning.Kind() != OptionalGauge || GenerationTokens.Kind() != OptionalCounter {
		t.Error("role kinds")
	}
	// Optional names never repeat a schema's own names or each other, and
	// counters end in _total.
	for _, s := range Schemas {
		seen := map[string]bool{}
		for _, n := range s.AllNames() {
			seen[n] = true
		}
		for r, ns := range s.Optional {
			for _, n := range ns {
				if seen[n] || n == "" {
					t.Errorf("%s: optional name %q of %s repeats", s.Name, n, r)
				}
				seen[n] = true
				if r.Kind() == OptionalCounter && !strings.HasSuffix(n, "_total") {
					t.Errorf("%s: counter %q of %s lacks _total", s.Name, n, r)
				}
			}
		}
	}
	got := sampleNames(InterTokenLatency, "vllm:inter_token_latency_seconds")
	if strings.Join(got, " ") != "vllm:inter_token_latency_seconds_bucket vllm:inter_token_latency_seconds_sum vllm:inter_token_latency_seconds_count vllm:inter_token_latency_seconds_created" {
		t.Errorf("histogram sample names %v", got)
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestFetchOptionalAgainstPrometheus backfills vLLM V1's counters with its
// latency, output and load families into a real Prometheus; FetchOptional
// reads them, specdash's quantiles equal the hand-computed answers and
// Prometheus' own histogram_quantile over the same data.
//
// Prometheus' increase() extrapolates towards the range's ends unless the
// samples reach them: the fixture has a sample exactly at both ends of the
// 10 m range evaluated at t_40 (Prometheus 2.x selects [t-10m, t], both
// ends included), so increase() is the exact reset-aware increase there;
// the test checks that on the _count first.
func TestFetchOptionalAgainstPrometheus(t *testing.T) {
	ctx := t.Context()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")})
	c, err := New(Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)
	of, err := c.FetchOptional(ctx, VLLMV1, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	itl, ok := of.Families[InterTokenLatency]
	if !ok || itl.Name != "vllm:inter_token_latency_seconds" || len(itl.Histograms) != 2 {
		t.Fatalf("inter-token latency: %+v", itl)
	}
	if len(of.Warnings) != 1 || !strings.Contains(of.Warnings[0], "vllm:time_per_output_token_seconds has series here too") {
		t.Errorf("warnings %q", of.Warnings)
	}
	if _, ok := of.Families[IterationTokens]; ok {
		t.Error("iteration tokens found, the fixture has none")
	}
	per := compute.HistogramIncreases(itl.Histograms, g)
	whole := compute.SumOverBuckets(per)
	check := func(what string, h compute.Histogram, want fixtures.LatencyAnswer) {
		t.Helper()
		var cum []float64
		for _, b := range h.Buckets {
			cum = append(cum, b.Count)
		}
		if fmt.Sprint(cum) != fmt.Sprint(want.Buckets) || h.Count != want.Count || !closeTo(h.Sum, want.Sum) {
			t.Errorf("%s: buckets %v count %v sum %v, want %v %v %v", what, cum, h.Count, h.Sum, want.Buckets, want.Count, want.Sum)
		}
		s := h.Summarize()
		for name, p := range map[string][2]float64{"p50": {s.P50.V, want.P50}, "p95": {s.P95.V, want.P95}, "p99": {s.P99.V, want.P99}, "mean": {s.Mean.V, want.Mean}} {
			if !closeTo(p[0], p[1]) {
				t.Errorf("%s %s = %v, want %v", what, name, p[0], p[1])
			}
		}
	}
	check("both engines", whole, fixtures.LatencyWhole)
	for _, hs := range itl.Histograms {
		if hs.Labels["engine"] == "1" {
			check("engine 1", hs.Increase(g.Start, g.End), fixtures.LatencyEngine1)
		}
	}

	// Prometheus' own answer on the same data.
	at := time.Unix(fixtures.SchemaEndUnix, 0)
	vec := srv.QueryVector(t, `sum(increase(vllm:inter_token_latency_seconds_count{model_name="m-v1"}[10m]))`, at)
	if len(vec) != 1 || float64(vec[0].Value) != fixtures.LatencyWhole.Count {
		t.Fatalf("Prometheus' increase of _count = %v, want %v (extrapolated?)", vec, fixtures.LatencyWhole.Count)
	}
	for _, q := range []float64{0.5, 0.95, 0.99, 0.3, 0.05} {
		for _, sel := range []string{`model_name="m-v1"`, `model_name="m-v1",engine="1"`} {
			pq := fmt.Sprintf(`histogram_quantile(%v, sum by (le) (increase(vllm:inter_token_latency_seconds_bucket{%s}[10m])))`, q, sel)
			vec := srv.QueryVector(t, pq, at)
			if len(vec) != 1 {
				t.Fatalf("%s: %v", pq, vec)
			}
			h := whole
			if strings.Contains(sel, "engine") {
				for _, hs := range itl.Histograms {
					if hs.Labels["engine"] == "1" {
						h = hs.Increase(g.Start, g.End)
					}
				}
			}
			if got := h.Quantile(q); !got.OK || !closeTo(got.V, float64(vec[0].Value)) {
				t.Errorf("%s: specdash %v, Prometheus %v", pq, got, vec[0].Value)
			}
		}
	}

	// The former name, for a server from before the rename.
	of, err = c.FetchOptional(ctx, VLLMV1, g, []Filter{{Name: "model_name", Values: []string{"m-old"}}}, InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	old := of.Families[InterTokenLatency]
	if old.Name != "vllm:time_per_output_token_seconds" || len(old.Histograms) != 1 || len(of.Warnings) != 0 {
		t.Fatalf("former name: %+v, warnings %q", old, of.Warnings)
	}
	check("former name", old.Histograms[0].Increase(g.Start, g.End), fixtures.LatencyOld)

	// Output share and output tokens/s with the spec-decode counters.
	of, err = c.FetchOptional(ctx, VLLMV1, g, nil, GenerationTokens, RequestsRunning)
	if err != nil {
		t.Fatal(err)
	}
	gen := of.Families[GenerationTokens]
	if len(gen.Series) != 1 || gen.Created != nil && len(gen.Created) != 0 {
		t.Fatalf("generation tokens %+v", gen)
	}
	out := gen.Increase(g.Start, g.End)
	if out != fixtures.LatencyWhole.GenerationTokens {
		t.Errorf("generation tokens %v, want %v", out, fixtures.LatencyWhole.GenerationTokens)
	}
	acc := fixtures.SchemaVLLMV1().Total.Counts.AcceptedTokens
	if v := compute.OutputShare(acc, out); !v.OK || v.V != 0.6 {
		t.Errorf("output share %v, want 240/400", v)
	}
	run := of.Families[RequestsRunning]
	if len(run.Series) != 1 || len(run.Series[0].Points) != fixtures.SchemaSamples || run.Series[0].Points[5].V != 1 {
		t.Errorf("running requests %+v", run)
	}
}

// TestFetchOptionalOneRoundTrip: FetchOptional reads the native
// histograms while it reads the classic series: in front of a real
// Prometheus, the classic read (last_over_time) is held until the native
// one (the plain names) has arrived; read one after the other, the
// classic read would wait until the deadline and fail. The answer equals
// an unhindered client's.
func TestFetchOptionalOneRoundTrip(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")})
	isRange := func(path string) bool { return strings.HasSuffix(path, "/api/v1/query_range") }
	gate := holdUntil(t, srv.URL,
		func(path, q string) bool { return isRange(path) && strings.HasPrefix(q, "last_over_time(") },
		func(path, q string) bool { return isRange(path) && !strings.HasPrefix(q, "last_over_time(") })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)
	plain, err := New(Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.FetchOptional(ctx, VLLMV1, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	gated, err := New(Config{Address: gate.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got, err := gated.FetchOptional(ctx, VLLMV1, g, nil)
	if err != nil {
		t.Fatalf("%v (the classic read waited for a native read that never came?)", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("answer differs from an unhindered client's:\n%+v\nwant\n%+v", got, want)
	}
	if len(got.Families) == 0 {
		t.Errorf("no family read: the test compares nothing")
	}
}

// TestTensorRTLLMPerPosition: TensorRT-LLM's per-position counters, read
// as optional families, give drafts = drafted at position 0 and exact
// per-position rates accepted / drafted.
func TestTensorRTLLMPerPosition(t *testing.T) {
	ctx := t.Context()
	c := startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaTensorRTLLM()))
	g := schemaGrid(fixtures.TRTLLMPerPositionFromUnix, fixtures.SchemaEndUnix)
	of, err := c.FetchOptional(ctx, TensorRTLLM, g, nil, DraftedPerPosition, AcceptedPerPosition)
	if err != nil {
		t.Fatal(err)
	}
	dr, err := of.Families[DraftedPerPosition].PositionIncreases(g.Start, g.End)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := of.Families[AcceptedPerPosition].PositionIncreases(g.Start, g.End)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dr) != fmt.Sprint(fixtures.TRTLLMDrafted) || fmt.Sprint(ac) != fmt.Sprint(fixtures.TRTLLMAccepted) {
		t.Fatalf("drafted %v accepted %v", dr, ac)
	}
	// Per bucket of 5 min: the two halves add up to the window.
	half := compute.Grid{Start: g.Start, End: g.End, Step: (g.End - g.Start) / 3}
	if b := of.Families[DraftedPerPosition].BucketIncreases(half); len(b) != 3 || b[0]+b[1]+b[2] != dr[0]+dr[1]+dr[2] {
		t.Errorf("bucket increases %v", b)
	}
	bad := OptionalFamily{Name: "x", Series: []ExtraSeries{{Labels: map[string]string{OptionalPositionLabel: "-1"}}}}
	if _, err := bad.PositionIncreases(g.Start, g.End); err == nil || !strings.Contains(err.Error(), "token_position") {
		t.Errorf("bad position: %v", err)
	}
	for i, v := range compute.ConditionalPerPosition(ac, dr) {
		if !v.OK || !closeTo(v.V, fixtures.TRTLLMConditionalRates[i]) {
			t.Errorf("rate %d = %v, want %v", i, v, fixtures.TRTLLMConditionalRates[i])
		}
	}
	// Variable draft lengths: 195 drafts, k = 3, 429 draft tokens (sum over
	// positions): 156 short; positions 2 and 3 are lower bounds.
	d := compute.CheckDraftLengths(compute.Counts{Drafts: dr[0], DraftTokens: dr[0] + dr[1] + dr[2], AcceptedPerPosition: ac})
	if !d.Variable || d.Shortfall != 3*195-429 || fmt.Sprint(d.LowerBound) != "[false true true]" {
		t.Errorf("draft lengths %+v", d)
	}
}

// TestSGLangVerifyCalls: SGLang's counters added at request finish, read as
// optional families, give drafts and the mean acceptance length of the
// finished requests.
func TestSGLangVerifyCalls(t *testing.T) {
	ctx := t.Context()
	c := startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaSGLang()))
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)
	of, err := c.FetchOptional(ctx, SGLang, g, nil, VerifyCalls, GenerationTokens, FinishedRequests, InterTokenLatency)
	if err != nil {
		t.Fatal(err)
	}
	inc := func(r OptionalRole) float64 {
		fam := of.Families[r]
		if len(fam.Series) != 1 {
			t.Fatalf("%s: %+v", r, fam)
		}
		return fam.Increase(g.Start, g.End)
	}
	v, gen, req := inc(VerifyCalls), inc(GenerationTokens), inc(FinishedRequests)
	if v != fixtures.SGLangVerifyCalls || gen != fixtures.SGLangGenerationTokens || req != fixtures.SGLangRequests {
		t.Errorf("verify calls %v, generation tokens %v, requests %v", v, gen, req)
	}
	if l := compute.MeanLengthFromVerifyCalls(gen, req, v); !l.OK || l.V != fixtures.SGLangMeanLength {
		t.Errorf("mean length %v, want %v", l, fixtures.SGLangMeanLength)
	}
	if _, ok := of.Families[InterTokenLatency]; ok || len(of.Warnings) != 0 {
		t.Errorf("latency found in a fixture without it; warnings %q", of.Warnings)
	}
	// FetchAuto still reads the gauges only.
	f, err := c.FetchAuto(ctx, g, nil)
	if err != nil || len(f.Series) != 0 || len(f.Extra) != 4 || len(f.Warnings) != 0 {
		t.Fatalf("FetchAuto: %v, %d series, %d gauges, warnings %q", err, len(f.Series), len(f.Extra), f.Warnings)
	}
}
