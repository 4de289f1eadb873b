package metricsclient

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
)

func TestSchemaSelectors(t *testing.T) {
	cases := []struct {
		s        Schema
		all, cnt string
	}{
		{VLLMV1, `{__name__=~"vllm:spec_decode_num_drafts_total|vllm:spec_decode_num_draft_tokens_total|vllm:spec_decode_num_accepted_tokens_total|vllm:spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`, ""},
		{RayVLLM, `{__name__=~"ray_vllm:spec_decode_num_drafts_total|ray_vllm:spec_decode_num_draft_tokens_total|ray_vllm:spec_decode_num_accepted_tokens_total|ray_vllm:spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`, ""},
		{RayVLLMUnderscore, `{__name__=~"ray_vllm_spec_decode_num_drafts_total|ray_vllm_spec_decode_num_draft_tokens_total|ray_vllm_spec_decode_num_accepted_tokens_total|ray_vllm_spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`, ""},
		{LlamaCpp, `{__name__=~"llamacpp:spec_decode_num_drafts_total|llamacpp:spec_decode_num_draft_tokens_total|llamacpp:spec_decode_num_accepted_tokens_total|llamacpp:spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`, ""},
		{LMDeploy, `{__name__=~"lmdeploy:spec_decode_num_drafts_total|lmdeploy:spec_decode_num_draft_tokens_total|lmdeploy:spec_decode_num_accepted_tokens_total|lmdeploy:spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`, ""},
		{TensorRTLLM, `{__name__=~"trtllm_spec_decode_num_draft_tokens_total|trtllm_spec_decode_num_accepted_tokens_total", model_name="m"}`, ""},
		{VLLMV0, `{__name__=~"vllm:spec_decode_num_draft_tokens_total|vllm:spec_decode_num_accepted_tokens_total|vllm:spec_decode_num_emitted_tokens_total|vllm:spec_decode_draft_acceptance_rate|vllm:spec_decode_efficiency", model_name="m"}`,
			`{__name__=~"vllm:spec_decode_num_draft_tokens_total|vllm:spec_decode_num_accepted_tokens_total", model_name="m"}`},
		{SGLang, `{__name__=~"sglang:spec_accept_length|sglang:spec_accept_rate", model_name="m"}`, "error"},
	}
	f := []Filter{{Name: "model_name", Values: []string{"m"}}}
	for _, c := range cases {
		got, err := c.s.Selector(f)
		if err != nil || got != c.all {
			t.Errorf("%s: Selector = %s, %v\nwant %s", c.s.Name, got, err, c.all)
		}
		want := c.cnt
		if want == "" {
			want = c.all
		}
		got, err = c.s.CounterSelector(f)
		if want == "error" {
			if err == nil {
				t.Errorf("%s: CounterSelector of a gauge schema = %s, want an error", c.s.Name, got)
			}
		} else if err != nil || got != want {
			t.Errorf("%s: CounterSelector = %s, %v\nwant %s", c.s.Name, got, err, want)
		}
		// Every signature name is one of the schema's names; every name
		// has a family or a role.
		for _, n := range c.s.Signature {
			if !slices.Contains(c.s.AllNames(), n) {
				t.Errorf("%s: signature name %s is not among its names", c.s.Name, n)
			}
		}
		for _, n := range c.s.AllNames() {
			_, fam := c.s.Family(n)
			_, role := c.s.Role(n)
			if fam == role {
				t.Errorf("%s: name %s has family %v and role %v", c.s.Name, n, fam, role)
			}
		}
		if got, ok := SchemaByID(c.s.ID); !ok || got.Name != c.s.Name {
			t.Errorf("SchemaByID(%s) = %v, %v", c.s.ID, got.Name, ok)
		}
		if c.s.Name == "" || c.s.ID == "" {
			t.Errorf("schema without name or ID: %+v", c.s)
		}
	}
	if len(Schemas) != len(cases) {
		t.Errorf("%d schemas, %d tested", len(Schemas), len(cases))
	}
	if _, ok := SchemaByID("nope"); ok {
		t.Error("SchemaByID(nope) found something")
	}
	for _, s := range Schemas {
		if s.Unverified {
			t.Errorf("%s is marked unverified; every schema's names are checked against its engine's code (docs/METRICS.md)", s.Name)
		}
	}
	if VLLMV1.Limits != nil || len(VLLMV0.Limits) == 0 || len(SGLang.Limits) == 0 || SGLang.Kind != Gauges || VLLMV0.Kind != Counters {
		t.Error("limits or kinds wrong")
	}
}

func names(ss []Schema) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

func TestDetectIn(t *testing.T) {
	cases := []struct {
		present []string
		want    []string // IDs in preference order
	}{
		{[]string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total"}, []string{"vllm-v1"}},
		// V0's signature; the shared counter names alone identify nothing.
		{[]string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_efficiency"}, []string{"vllm-v0"}},
		{[]string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_accepted_tokens_total"}, []string{}},
		{[]string{"sglang:spec_accept_rate", "vllm:spec_decode_num_emitted_tokens_total", "llamacpp:spec_decode_num_draft_tokens_total",
			"ray_vllm_spec_decode_num_drafts_total", "ray_vllm:spec_decode_num_accepted_tokens_per_pos_total", "trtllm_spec_decode_num_accepted_tokens_total",
			"vllm:spec_decode_num_accepted_tokens_per_pos_total", "lmdeploy:spec_decode_num_drafts_total"},
			[]string{"vllm-v1", "ray-vllm", "ray-vllm-underscore", "llamacpp", "lmdeploy", "trtllm", "vllm-v0", "sglang"}},
		{[]string{"myprefix_spec_decode_num_drafts_total", "vllm:num_requests_running"}, []string{}},
	}
	for _, c := range cases {
		found, _, spec := detectIn(c.present)
		if got := names(found); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: found %v, want %v", c.present, got, c.want)
		}
		for _, n := range spec {
			if n == "vllm:num_requests_running" {
				t.Errorf("%s is not spec-like", n)
			}
		}
	}
}

// startSchemas backfills openMetrics into a fresh Prometheus and returns a
// client for it.
func startSchemas(t *testing.T, openMetrics string) *Client {
	t.Helper()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, openMetrics)})
	c, err := New(Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func schemaGrid(from, to int64) compute.Grid {
	return compute.Grid{Start: from * 1000, End: to * 1000, Step: 15000}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func checkValue(t *testing.T, what string, got, want compute.Value) {
	t.Helper()
	if got.OK != want.OK || (want.OK && !near(got.V, want.V)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// checkCounterAnswer compares the derived total of series over g with want.
func checkCounterAnswer(t *testing.T, name string, series []compute.Series, g compute.Grid, want fixtures.SchemaAnswer) {
	t.Helper()
	total := compute.Sum(compute.Aggregate(series, nil, g))
	if !reflect.DeepEqual(total.Total, want.Counts) {
		t.Errorf("%s: counts %+v, want %+v", name, total.Total, want.Counts)
	}
	st := total.TotalStats(g, compute.WithBonus)
	checkValue(t, name+" acceptance rate", st.AcceptanceRate, want.AcceptanceRate)
	checkValue(t, name+" mean acceptance length", st.MeanAcceptanceLength, want.MeanAcceptanceLength)
	checkValue(t, name+" accepted tokens/s", st.AcceptedThroughput, want.AcceptedPerSecond)
	checkValue(t, name+" drafted tokens/s", st.DraftedThroughput, want.DraftedPerSecond)
	if len(st.PerPositionAcceptanceRate) != len(want.PerPositionRate) {
		t.Errorf("%s: per position %v, want %v", name, st.PerPositionAcceptanceRate, want.PerPositionRate)
	}
	for i, v := range want.PerPositionRate {
		if i < len(st.PerPositionAcceptanceRate) {
			checkValue(t, name+" per position", st.PerPositionAcceptanceRate[i], compute.Value{V: v, OK: true})
		}
	}
	if len(st.Violations) != 0 {
		t.Errorf("%s: violations %q", name, st.Violations)
	}
}

// TestDetectEachSchema backfills each schema's fixture alone into a real
// Prometheus: Detect names it, FetchAuto returns its data, and the numbers
// are the fixture's hand-computed answers.
func TestDetectEachSchema(t *testing.T) {
	ctx := t.Context()
	for _, fx := range fixtures.AllSchemaFixtures() {
		t.Run(fx.ID, func(t *testing.T) {
			c := startSchemas(t, fixtures.SchemaOpenMetrics(fx))
			from := fixtures.SchemaStartUnix
			if fx.ID == LlamaCpp.ID {
				from = fixtures.LlamaCppFromUnix
			}
			g := schemaGrid(from, fixtures.SchemaEndUnix)
			det, err := c.Detect(ctx, nil, time.Unix(from, 0), time.Unix(fixtures.SchemaEndUnix, 0))
			if err != nil {
				t.Fatal(err)
			}
			if det.Schema.ID != fx.ID || det.Schema.Name != fx.Schema || len(det.Others) != 0 {
				t.Fatalf("detected %s (%s), others %v; want %s", det.Schema.Name, det.Schema.ID, det.OtherNames(), fx.Schema)
			}
			f, err := c.FetchAuto(ctx, g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Schema().ID != fx.ID || len(f.Warnings) != 0 {
				t.Errorf("FetchAuto: schema %s, warnings %q", f.Schema().Name, f.Warnings)
			}
			if f.AveragedOverTime != (fx.ID == SGLang.ID) {
				t.Errorf("AveragedOverTime = %v", f.AveragedOverTime)
			}
			switch fx.ID {
			case SGLang.ID:
				if len(f.Series) != 0 || len(f.Extra) != 4 {
					t.Fatalf("SGLang: %d counter series, %d gauge series; want 0 and 4", len(f.Series), len(f.Extra))
				}
				var length, rate [][]compute.Point
				for _, es := range f.Extra {
					if es.Labels["dp_rank"] == "" || es.Labels["__name__"] != "" {
						t.Errorf("labels %v", es.Labels)
					}
					switch es.Role {
					case WindowAcceptLength:
						length = append(length, es.Points)
					case WindowAcceptRate:
						rate = append(rate, es.Points)
					}
				}
				l := compute.AverageGauge(length, g.Start, g.End)
				r := compute.AverageGauge(rate, g.Start, g.End)
				checkValue(t, "SGLang mean acceptance length", l.Value, fx.Total.MeanAcceptanceLength)
				checkValue(t, "SGLang acceptance rate", r.Value, fx.Total.AcceptanceRate)
				if l.Samples != fx.Total.Samples || r.Samples != fx.Total.Samples || l.Series != 2 {
					t.Errorf("samples %d, %d (series %d), want %d", l.Samples, r.Samples, l.Series, fx.Total.Samples)
				}
			case VLLMV0.ID:
				checkCounterAnswer(t, fx.ID, f.Series, g, fx.Total)
				var emitted float64
				roles := map[Role]int{}
				for _, es := range f.Extra {
					roles[es.Role]++
					if es.Role == EmittedTokens {
						emitted += compute.Increase(es.Points, g.Start, g.End)
					}
				}
				if emitted != fx.Total.EmittedTokens || roles[LifetimeAcceptanceRate] != 1 || roles[LifetimeEfficiency] != 1 {
					t.Errorf("V0 extras: emitted %v (want %v), roles %v", emitted, fx.Total.EmittedTokens, roles)
				}
			default:
				checkCounterAnswer(t, fx.ID, f.Series, g, fx.Total)
				if len(f.Extra) != 0 {
					t.Errorf("extra series %v", f.Extra)
				}
			}
			// The schema-specific client reads the same counters through
			// the unchanged FetchSeries.
			if fx.ID != SGLang.ID {
				series, _, err := c.WithSchema(det.Schema).FetchSeries(ctx, g, nil)
				if err != nil {
					t.Fatal(err)
				}
				checkCounterAnswer(t, fx.ID+" via FetchSeries", series, g, fx.Total)
			} else if _, _, err := c.WithSchema(det.Schema).FetchSeries(ctx, g, nil); err == nil || !strings.Contains(err.Error(), "use FetchAuto") {
				t.Errorf("FetchSeries on SGLang: %v", err)
			}
		})
	}
}

// TestLlamaCppLatePerPosition: before the first speculative request
// llama.cpp has no per-position series; that is a warning, not an error.
// Over the whole window the per-position family starts inside it and its
// first value is not an increase, which Check reports.
func TestLlamaCppLatePerPosition(t *testing.T) {
	ctx := t.Context()
	c := startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaLlamaCpp()))
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.LlamaCppEarlyEndUnix)
	f, err := c.FetchAuto(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Schema().ID != LlamaCpp.ID || len(f.Warnings) != 1 ||
		!strings.Contains(f.Warnings[0], "llamacpp:spec_decode_num_accepted_tokens_per_pos_total has no series here") ||
		!strings.Contains(f.Warnings[0], "only after the first speculative request") {
		t.Errorf("early window: schema %s, warnings %q", f.Schema().Name, f.Warnings)
	}
	total := compute.Sum(compute.Aggregate(f.Series, nil, g))
	if st := total.TotalStats(g, compute.WithBonus); st.Drafts != 0 || st.K != 0 || st.AcceptanceRate.OK || st.MeanAcceptanceLength.OK {
		t.Errorf("early window stats %+v", st)
	}

	g = schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)
	f, err = c.FetchAuto(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	total = compute.Sum(compute.Aggregate(f.Series, nil, g))
	if !reflect.DeepEqual(total.Total, fixtures.LlamaCppWhole) {
		t.Errorf("whole window counts %+v, want %+v", total.Total, fixtures.LlamaCppWhole)
	}
	if v := compute.Check(total.Total); len(v) == 0 {
		t.Error("whole window: per position sums to 245 of 252 accepted, but Check found nothing")
	}
}

// TestDetectSeveralSchemas: with several schemas present the preferred one
// is read (its numbers alone) and the others are reported.
func TestDetectSeveralSchemas(t *testing.T) {
	ctx := t.Context()
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)

	c := startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaSGLang(), fixtures.SchemaTensorRTLLM(), fixtures.SchemaRayUnderscore(),
		fixtures.SchemaRay(), fixtures.SchemaVLLMV1()))
	f, err := c.FetchAuto(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantOthers := []string{"vLLM (Ray Serve)", "vLLM (Ray Serve, ray_vllm_ prefix)", "TensorRT-LLM", "SGLang"}
	if f.Schema().Name != "vLLM V1" || !reflect.DeepEqual(f.Detection.OtherNames(), wantOthers) {
		t.Fatalf("schema %s, others %v; want vLLM V1 and %v", f.Schema().Name, f.Detection.OtherNames(), wantOthers)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "series of vLLM (Ray Serve), vLLM (Ray Serve, ray_vllm_ prefix), TensorRT-LLM, SGLang are present too; showing vLLM V1") {
		t.Errorf("warnings %q", f.Warnings)
	}
	checkCounterAnswer(t, "V1 among others", f.Series, g, fixtures.SchemaVLLMV1().Total)
	if !slices.Contains(f.Detection.SpecLike, "sglang:spec_accept_rate") || !slices.Contains(f.Detection.Present, "ray_vllm_spec_decode_num_drafts_total") {
		t.Errorf("present %v, spec-like %v", f.Detection.Present, f.Detection.SpecLike)
	}
	// Filters decide what is detected: only the Ray model.
	f, err = c.FetchAuto(ctx, g, []Filter{{Name: "model_name", Values: []string{"m-ray"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Schema().ID != RayVLLM.ID || len(f.Detection.Others) != 0 {
		t.Errorf("filtered: %s, others %v", f.Schema().Name, f.Detection.OtherNames())
	}
	checkCounterAnswer(t, "Ray filtered", f.Series, g, fixtures.SchemaRay().Total)

	// V0 before SGLang.
	c = startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaSGLang(), fixtures.SchemaVLLMV0()))
	det, err := c.Detect(ctx, nil, time.Unix(fixtures.SchemaStartUnix, 0), time.Unix(fixtures.SchemaEndUnix, 0))
	if err != nil {
		t.Fatal(err)
	}
	if det.Schema.ID != VLLMV0.ID || !reflect.DeepEqual(det.OtherNames(), []string{"SGLang"}) {
		t.Errorf("V0+SGLang: %s, others %v", det.Schema.Name, det.OtherNames())
	}
}

// TestDetectPrefersExported: a schema whose series all end inside the
// window (its engines stopped; Prometheus still lists its names) gives way
// to one still exported at the window's end, and the warning says why; a
// window that ends while both are exported keeps the order of preference.
func TestDetectPrefersExported(t *testing.T) {
	ctx := t.Context()
	const stop = fixtures.SchemaStartUnix + 150 // vLLM's last sample: t_10
	var v1 strings.Builder
	for line := range strings.Lines(fixtures.SchemaVLLMV1().Body) {
		f := strings.Fields(line)
		if ts, err := strconv.ParseInt(f[len(f)-1], 10, 64); !strings.HasPrefix(line, "#") && err == nil && ts > stop {
			continue
		}
		v1.WriteString(line)
	}
	c := startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaSGLang(), fixtures.SchemaFixture{Body: v1.String()}))

	start := time.Unix(fixtures.SchemaStartUnix, 0)
	det, err := c.Detect(ctx, nil, start, time.Unix(fixtures.SchemaEndUnix, 0))
	if err != nil {
		t.Fatal(err)
	}
	if det.Schema.ID != SGLang.ID || !reflect.DeepEqual(det.OtherNames(), []string{"vLLM V1"}) || !reflect.DeepEqual(det.Ended, []string{"vLLM V1"}) {
		t.Errorf("vLLM stopped: %s, others %v, ended %v; want SGLang, then vLLM V1 (ended)", det.Schema.Name, det.OtherNames(), det.Ended)
	}
	if w := det.Warnings(); len(w) != 1 || w[0] != "series of vLLM V1 are present too, but none has a value at the window's end (their engines stopped); showing SGLang, whose series have" {
		t.Errorf("warnings %q", w)
	}

	// Both exported at the window's end: vLLM V1 first, as preferred.
	det, err = c.Detect(ctx, nil, start, time.Unix(stop, 0))
	if err != nil {
		t.Fatal(err)
	}
	if det.Schema.ID != VLLMV1.ID || !reflect.DeepEqual(det.OtherNames(), []string{"SGLang"}) || len(det.Ended) != 0 {
		t.Errorf("both exported: %s, others %v, ended %v; want vLLM V1, then SGLang", det.Schema.Name, det.OtherNames(), det.Ended)
	}
	if w := det.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "series of SGLang are present too; showing vLLM V1 (specdash prefers") {
		t.Errorf("warnings %q", w)
	}
}

// TestDetectNothing: the typed diagnosis when no schema matches.
func TestDetectNothing(t *testing.T) {
	ctx := t.Context()
	g := schemaGrid(fixtures.SchemaStartUnix, fixtures.SchemaEndUnix)
	start, end := time.Unix(fixtures.SchemaStartUnix, 0), time.Unix(fixtures.SchemaEndUnix, 0)

	// Speculative decoding off: only vllm:num_requests_running.
	c := startSchemas(t, fixtures.NoSpecDecode())
	_, err := c.FetchAuto(ctx, g, nil)
	var me *MissingMetricsError
	if !errors.As(err, &me) {
		t.Fatalf("no spec decode: %v, want *MissingMetricsError", err)
	}
	if me.Cause != CauseSpecDecodingOff || !reflect.DeepEqual(me.EngineMetrics, []string{"vllm:num_requests_running"}) || len(me.SpecLike) != 0 {
		t.Errorf("no spec decode: cause %q, engine metrics %v, spec-like %v", me.Cause, me.EngineMetrics, me.SpecLike)
	}
	if !reflect.DeepEqual(me.Schemas, []string{"vLLM V1", "vLLM (Ray Serve)", "vLLM (Ray Serve, ray_vllm_ prefix)", "llama.cpp", "LMDeploy", "TensorRT-LLM", "vLLM V0", "SGLang"}) {
		t.Errorf("schemas looked for %v", me.Schemas)
	}
	for _, s := range []string{"no speculative-decoding metrics of any known schema (vLLM V1, ", "looked for vllm:spec_decode_num_drafts_total, ",
		"sglang:spec_accept_rate", "likely cause: the serving engine's metrics are there (vllm:num_requests_running) but no speculative-decoding ones: speculative decoding looks off"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q:\n%s", s, err)
		}
	}

	// Renamed by relabelling.
	c = startSchemas(t, fixtures.RenamedSpecDecode())
	_, err = c.Detect(ctx, nil, start, end)
	if !errors.As(err, &me) {
		t.Fatalf("renamed: %v, want *MissingMetricsError", err)
	}
	if me.Cause != CauseRenamed || !slices.Contains(me.SpecLike, "myprefix_spec_decode_num_drafts_total") || len(me.SpecLike) != 4 {
		t.Errorf("renamed: cause %q, spec-like %v", me.Cause, me.SpecLike)
	}
	if !strings.Contains(err.Error(), "metrics found instead: myprefix_spec_decode_num_accepted_tokens_per_pos_total, ") ||
		!strings.Contains(err.Error(), "relabelling (metric_relabel_configs)") {
		t.Errorf("renamed message:\n%s", err)
	}
	// Outside the window.
	_, err = c.Detect(ctx, nil, end.Add(2*time.Hour), end.Add(3*time.Hour))
	if !errors.As(err, &me) || me.Cause != CauseRenamed && me.Cause != CauseNoMetrics {
		t.Errorf("renamed, later window: %v", err)
	}

	// A filter that excludes the schema: which values exist.
	c = startSchemas(t, fixtures.SchemaOpenMetrics(fixtures.SchemaVLLMV1(), fixtures.SchemaLlamaCpp()))
	_, err = c.Detect(ctx, []Filter{{Name: "model_name", Values: []string{"absent"}}}, start, end)
	if !errors.As(err, &me) {
		t.Fatalf("filtered: %v", err)
	}
	if me.Cause != CauseFiltered || !reflect.DeepEqual(me.FilterValues["model_name"], []string{"m-v1"}) || me.Schema != "vLLM V1" {
		t.Errorf("filtered: cause %q, schema %q, values %v", me.Cause, me.Schema, me.FilterValues)
	}
	if !strings.Contains(err.Error(), `model_name values present: "m-v1"`) || !strings.Contains(err.Error(), "likely cause: the label filters exclude") {
		t.Errorf("filtered message:\n%s", err)
	}
	// Outside the window: the schema's series exist earlier.
	later := end.Add(24 * time.Hour)
	_, err = c.Detect(ctx, nil, later, later.Add(time.Hour))
	if !errors.As(err, &me) || me.Cause != CauseOutsideWindow || !strings.Contains(err.Error(), "widen the range or move its end") {
		t.Errorf("outside window: %v", err)
	}
}
