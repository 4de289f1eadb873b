package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

func schemaClient(t *testing.T, openMetrics string) *metricsclient.Client {
	t.Helper()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, openMetrics)})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func sameValue(t *testing.T, what string, got, want compute.Value) {
	t.Helper()
	if got.OK != want.OK || (want.OK && !approx(got.V, want.V)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// jsonNumberOrNull reads doc[key] as a compute.Value (null: undefined).
func jsonValue(t *testing.T, obj map[string]any, key string) compute.Value {
	t.Helper()
	v, ok := obj[key]
	if !ok {
		t.Errorf("JSON lacks %q", key)
		return compute.Value{}
	}
	if v == nil {
		return compute.Value{}
	}
	f, ok := v.(float64)
	if !ok {
		t.Errorf("JSON %q = %v, want a number or null", key, v)
	}
	return compute.Value{V: f, OK: true}
}

// TestBuildEachSchema: report.Build on each schema's fixture (alone in a
// real Prometheus) names the schema and gives the hand-computed numbers, in
// Go and in the JSON; what the schema cannot give is null and listed.
func TestBuildEachSchema(t *testing.T) {
	ctx := t.Context()
	end := time.Unix(fixtures.SchemaEndUnix, 0)
	for _, fx := range fixtures.AllSchemaFixtures() {
		t.Run(fx.ID, func(t *testing.T) {
			c := schemaClient(t, fixtures.SchemaOpenMetrics(fx))
			rng := time.Duration(fixtures.SchemaEndUnix-fixtures.SchemaStartUnix) * time.Second
			if fx.ID == metricsclient.LlamaCpp.ID {
				rng = time.Duration(fixtures.SchemaEndUnix-fixtures.LlamaCppFromUnix) * time.Second
			}
			o := Options{Range: rng, End: end, Step: 15 * time.Second, K: fx.Total.K}
			r, err := Build(ctx, c, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Schema != fx.Schema || r.SchemaID != fx.ID || len(r.OtherSchemas) != 0 || len(r.Warnings) != 0 {
				t.Errorf("schema %q (%q), others %v, warnings %q; want %q", r.Schema, r.SchemaID, r.OtherSchemas, r.Warnings, fx.Schema)
			}
			want := fx.Total
			sameValue(t, "acceptance rate", r.Total.AcceptanceRate, want.AcceptanceRate)
			sameValue(t, "mean acceptance length", r.Total.MeanAcceptanceLength, want.MeanAcceptanceLength)
			sameValue(t, "accepted tokens/s", r.Total.AcceptedThroughput, want.AcceptedPerSecond)
			sameValue(t, "drafted tokens/s", r.Total.DraftedThroughput, want.DraftedPerSecond)
			sameValue(t, "drafts/s", r.Total.DraftsPerSecond, want.DraftsPerSecond)
			if fx.ID != metricsclient.SGLang.ID {
				if r.Total.Drafts != want.Counts.Drafts || r.Total.DraftTokens != want.Counts.DraftTokens || r.Total.AcceptedTokens != want.Counts.AcceptedTokens {
					t.Errorf("counts %v %v %v, want %+v", r.Total.Drafts, r.Total.DraftTokens, r.Total.AcceptedTokens, want.Counts)
				}
			}
			if r.AveragedOverTime != (fx.ID == metricsclient.SGLang.ID) {
				t.Errorf("averaged_over_time = %v", r.AveragedOverTime)
			}

			var b bytes.Buffer
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc["schema"] != fx.Schema || doc["schema_id"] != fx.ID {
				t.Errorf("JSON schema %v (%v), want %q", doc["schema"], doc["schema_id"], fx.Schema)
			}
			total := doc["total"].(map[string]any)
			sameValue(t, "JSON acceptance rate", jsonValue(t, total, "acceptance_rate"), want.AcceptanceRate)
			sameValue(t, "JSON mean acceptance length", jsonValue(t, total, "mean_acceptance_length"), want.MeanAcceptanceLength)
			sameValue(t, "JSON drafts/s", jsonValue(t, total, "drafts_per_second"), want.DraftsPerSecond)
			if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
				t.Errorf("NaN/Inf in JSON:\n%s", b.String())
			}
			unavailable, _ := doc["unavailable"].([]any)
			switch fx.ID {
			case metricsclient.VLLMV1.ID, metricsclient.RayVLLM.ID, metricsclient.RayVLLMUnderscore.ID, metricsclient.LlamaCpp.ID:
				if len(unavailable) != 0 {
					t.Errorf("unavailable %v", unavailable)
				}
			case metricsclient.TensorRTLLM.ID, metricsclient.VLLMV0.ID:
				wantU := []any{"accepted_per_position", "drafts", "drafts_per_second", "k", "mean_acceptance_length", "per_position_acceptance_rate"}
				if !reflect.DeepEqual(unavailable, wantU) {
					t.Errorf("unavailable %v, want %v", unavailable, wantU)
				}
			case metricsclient.SGLang.ID:
				if len(unavailable) != 9 {
					t.Errorf("unavailable %v", unavailable)
				}
			}

			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			hasSchemaLine := strings.Contains(text.String(), "\nschema: "+fx.Schema+"\n")
			if hasSchemaLine == (fx.ID == metricsclient.VLLMV1.ID) {
				t.Errorf("text (schema line only when not vLLM V1):\n%s", text.String())
			}
		})
	}
}

// TestBuildV0: vLLM V0's known answer (docs/METRICS.md: k = 3, accepted 8547,
// draft 13311, emitted 10616 -> acceptance 0.642, system efficiency 0.598)
// with k given, and what is null without it.
func TestBuildV0(t *testing.T) {
	ctx := t.Context()
	fx := fixtures.SchemaVLLMV0()
	c := schemaClient(t, fixtures.SchemaOpenMetrics(fx))
	o := Options{Range: 10 * time.Minute, End: time.Unix(fixtures.SchemaEndUnix, 0), Step: 15 * time.Second, K: 3, GroupBy: []string{"model_name"}}
	r, err := Build(ctx, c, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*V0Stats{r.TotalV0, r.Groups[0].V0} {
		if v == nil {
			t.Fatal("no V0 numbers")
		}
		if v.EmittedTokens != fx.Total.EmittedTokens {
			t.Errorf("emitted %v, want %v", v.EmittedTokens, fx.Total.EmittedTokens)
		}
		sameValue(t, "system efficiency", v.SystemEfficiency, fx.Total.SystemEfficiency)
		sameValue(t, "lifetime acceptance rate", v.LifetimeAcceptanceRate, fx.Total.LifetimeAcceptanceRate)
		sameValue(t, "lifetime efficiency", v.LifetimeSystemEfficiency, fx.Total.LifetimeEfficiency)
		sameValue(t, "emitted tokens/s", v.EmittedThroughput, compute.Value{V: 10616.0 / 600, OK: true})
		if math.Round(v.SystemEfficiency.V*1000) != 598 || math.Round(r.Total.AcceptanceRate.V*1000) != 642 {
			t.Errorf("printed values: efficiency %.3f, acceptance %.3f; want 0.598, 0.642", v.SystemEfficiency.V, r.Total.AcceptanceRate.V)
		}
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"schema: vLLM V0\n", "  limit: vLLM V0 exports no drafts counter",
		"  vLLM V0: emitted 10616 tokens (17.7 tokens/s), system efficiency 0.598, lifetime acceptance rate 0.642, lifetime system efficiency 0.598\n",
		"Avg Draft acceptance rate: 64.2%"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}

	// Without k: the efficiency is null, and says why.
	o.K = 0
	r, err = Build(ctx, c, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TotalV0 map[string]any `json:"total_v0"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	reasons, _ := doc.TotalV0["reasons"].(map[string]any)
	if doc.TotalV0["system_efficiency"] != nil || !strings.Contains(reasons["system_efficiency"].(string), "needs k (num_speculative_tokens)") ||
		doc.TotalV0["lifetime_system_efficiency"] == nil {
		t.Errorf("without k: %v", doc.TotalV0)
	}
}

// TestBuildSGLang: time-averaged gauges per dp_rank and in total, labelled.
func TestBuildSGLang(t *testing.T) {
	ctx := t.Context()
	fx := fixtures.SchemaSGLang()
	c := schemaClient(t, fixtures.SchemaOpenMetrics(fx))
	for _, conv := range []compute.Convention{compute.WithBonus, compute.WithoutBonus} {
		o := Options{Range: 10 * time.Minute, End: time.Unix(fixtures.SchemaEndUnix, 0), Step: 15 * time.Second, GroupBy: []string{fx.GroupLabel}, Convention: conv}
		r, err := Build(ctx, c, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.AveragedOverTime || r.TotalAveraged == nil || !r.TotalAveraged.AveragedOverTime || len(r.Groups) != 2 {
			t.Fatalf("averaged %v, total %+v, %d groups", r.AveragedOverTime, r.TotalAveraged, len(r.Groups))
		}
		bonus := 0.0
		if conv == compute.WithoutBonus {
			bonus = 1
		}
		check := func(name string, st compute.Stats, gs *GaugeStats, want fixtures.SchemaAnswer) {
			sameValue(t, name+" averaged length", gs.MeanAcceptanceLength.Value, want.MeanAcceptanceLength)
			sameValue(t, name+" averaged rate", gs.AcceptanceRate.Value, want.AcceptanceRate)
			if gs.MeanAcceptanceLength.Samples != want.Samples || gs.AcceptanceRate.Samples != want.Samples {
				t.Errorf("%s: %d and %d values, want %d", name, gs.MeanAcceptanceLength.Samples, gs.AcceptanceRate.Samples, want.Samples)
			}
			sameValue(t, name+" stats length", st.MeanAcceptanceLength, compute.Value{V: want.MeanAcceptanceLength.V - bonus, OK: true})
			sameValue(t, name+" stats rate", st.AcceptanceRate, want.AcceptanceRate)
			if st.AcceptedThroughput.OK || st.DraftsPerSecond.OK || st.K != 0 {
				t.Errorf("%s: throughputs defined: %+v", name, st)
			}
		}
		check("total", r.Total, r.TotalAveraged, fx.Total)
		for i, rank := range []string{"0", "1"} {
			g := r.Groups[i]
			if g.Labels[fx.GroupLabel] != rank || g.Averaged == nil {
				t.Fatalf("group %d: %v", i, g.Labels)
			}
			check("dp_rank "+rank, g.Stats, g.Averaged, fx.ByGroup[rank])
		}
		var text bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"schema: SGLang\n", "never combined as a ratio of sums",
			"total: SGLang gauges averaged over time: mean acceptance length 3.00 tokens/draft (bonus token included; 80 values), acceptance rate 65.0 % (80 values)\n",
			`{dp_rank="1"}: SGLang gauges averaged over time: mean acceptance length 3.50`} {
			if !strings.Contains(text.String(), s) {
				t.Errorf("text lacks %q:\n%s", s, text.String())
			}
		}
	}
}

// TestBuildSeveralSchemas: the preferred schema is read and the others
// named in the JSON.
func TestBuildSeveralSchemas(t *testing.T) {
	c := schemaClient(t, fixtures.SchemaOpenMetrics(fixtures.SchemaLlamaCpp(), fixtures.SchemaRay(), fixtures.SchemaSGLang()))
	r, err := Build(t.Context(), c, Options{Range: 10 * time.Minute, End: time.Unix(fixtures.SchemaEndUnix, 0), Step: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != "vLLM (Ray Serve)" || !reflect.DeepEqual(r.OtherSchemas, []string{"llama.cpp", "SGLang"}) {
		t.Errorf("schema %q, others %v", r.Schema, r.OtherSchemas)
	}
	want := fixtures.SchemaRay().Total
	if r.Total.Drafts != want.Counts.Drafts || r.Total.AcceptedTokens != want.Counts.AcceptedTokens {
		t.Errorf("counts %v, %v; want Ray's alone %+v", r.Total.Drafts, r.Total.AcceptedTokens, want.Counts)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"other_schemas": [
    "llama.cpp",
    "SGLang"
  ]`) || !strings.Contains(b.String(), `"schema": "vLLM (Ray Serve)"`) {
		t.Errorf("JSON:\n%s", b.String())
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "series of llama.cpp, SGLang are present too; showing vLLM (Ray Serve)") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestBuildNoSchema: the typed diagnosis reaches the report's caller.
func TestBuildNoSchema(t *testing.T) {
	c := schemaClient(t, fixtures.NoSpecDecode())
	_, err := Build(t.Context(), c, Options{Range: 10 * time.Minute, End: time.Unix(fixtures.SchemaEndUnix, 0)})
	var me *metricsclient.MissingMetricsError
	if !errors.As(err, &me) || me.Cause != metricsclient.CauseSpecDecodingOff || !strings.Contains(err.Error(), "speculative decoding looks off") {
		t.Errorf("no spec decode: %v", err)
	}
}

// TestStatsLineOneValue: a gauge average of one value says "1 value".
func TestStatsLineOneValue(t *testing.T) {
	r := &Result{SchemaInfo: SchemaInfo{Schema: "SGLang"}}
	gs := &GaugeStats{AveragedOverTime: true,
		MeanAcceptanceLength: compute.GaugeAverage{Value: compute.Value{V: 3, OK: true}, Samples: 1, Series: 1},
		AcceptanceRate:       compute.GaugeAverage{Value: compute.Value{V: 0.65, OK: true}, Samples: 2, Series: 1}}
	got := r.statsLine(compute.Stats{}, gs)
	want := "SGLang gauges averaged over time: mean acceptance length 3.00 tokens/draft (bonus token included; 1 value), acceptance rate 65.0 % (2 values)"
	if got != want {
		t.Errorf("statsLine:\n got %q\nwant %q", got, want)
	}
}
