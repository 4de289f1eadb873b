package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"specdash/internal/testwait"
)

// goldenState builds a tiny fixed state: two models, one engine, acceptance
// forced to 0/1 so the counts are certain, 5 s at 1 draft/s, then paused,
// 2 s later the second model restarts.
func goldenState(t *testing.T) *Simulator {
	t.Helper()
	s, err := New(Config{
		Models:          []string{"org/model b", "say \"hi\"\\\n"},
		Engines:         1,
		K:               2,
		Acceptance:      []float64{1, 0},
		PerModel:        map[string]ModelOptions{"say \"hi\"\\\n": {K: 1, Acceptance: []float64{0}}},
		DraftsPerSecond: 1,
		Start:           time.Unix(1732890000, 500_000_000),
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Step(5 * time.Second)
	s.Pause()
	s.Step(2 * time.Second)
	if err := s.ResetCounters("say \"hi\"\\\n", "0"); err != nil {
		t.Fatal(err)
	}
	return s
}

// golden is written by hand from prometheus_client's generate_latest rules:
// model 1 (k=2, always accepts exactly 1): 5 drafts, 10 draft tokens,
// 5 accepted = [5, 0], generation 5 + 5 bonus = 10, created at
// 1732890000.5; model 2 (k=1, never accepts) was reset at +7 s: all 0,
// created 1732890007.5.
const golden = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="org/model b"} 0.0
vllm:num_requests_running{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="org/model b"} 0.0
vllm:num_requests_waiting{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="org/model b"} 10.0
vllm:generation_tokens_total{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:generation_tokens_created Number of generation tokens processed.
# TYPE vllm:generation_tokens_created gauge
vllm:generation_tokens_created{engine="0",model_name="org/model b"} 1.7328900005e+09
vllm:generation_tokens_created{engine="0",model_name="say \"hi\"\\\n"} 1.7328900075e+09
# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="org/model b"} 5.0
vllm:spec_decode_num_drafts_total{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:spec_decode_num_drafts_created Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_created gauge
vllm:spec_decode_num_drafts_created{engine="0",model_name="org/model b"} 1.7328900005e+09
vllm:spec_decode_num_drafts_created{engine="0",model_name="say \"hi\"\\\n"} 1.7328900075e+09
# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="org/model b"} 10.0
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:spec_decode_num_draft_tokens_created Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_created gauge
vllm:spec_decode_num_draft_tokens_created{engine="0",model_name="org/model b"} 1.7328900005e+09
vllm:spec_decode_num_draft_tokens_created{engine="0",model_name="say \"hi\"\\\n"} 1.7328900075e+09
# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="org/model b"} 5.0
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="say \"hi\"\\\n"} 0.0
# HELP vllm:spec_decode_num_accepted_tokens_created Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_created gauge
vllm:spec_decode_num_accepted_tokens_created{engine="0",model_name="org/model b"} 1.7328900005e+09
vllm:spec_decode_num_accepted_tokens_created{engine="0",model_name="say \"hi\"\\\n"} 1.7328900075e+09
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="org/model b",position="0"} 5.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="org/model b",position="1"} 0.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="say \"hi\"\\\n",position="0"} 0.0
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_created Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_created gauge
vllm:spec_decode_num_accepted_tokens_per_pos_created{engine="0",model_name="org/model b",position="0"} 1.7328900005e+09
vllm:spec_decode_num_accepted_tokens_per_pos_created{engine="0",model_name="org/model b",position="1"} 1.7328900005e+09
vllm:spec_decode_num_accepted_tokens_per_pos_created{engine="0",model_name="say \"hi\"\\\n",position="0"} 1.7328900075e+09
`

func TestGolden(t *testing.T) {
	s := goldenState(t)
	var b bytes.Buffer
	if err := s.WriteMetrics(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != golden {
		gl, wl := strings.Split(got, "\n"), strings.Split(golden, "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got %q\nwant %q", i+1, g, w)
			}
		}
	}
	tr := s.Truth()
	if tr.Series[1].Total.Drafts != 5 || tr.Series[1].Exposed.Drafts != 0 || tr.Series[1].Resets != 1 {
		t.Errorf("truth of the reset series: %+v", tr.Series[1])
	}
}

func TestMultiprocessAndPrefix(t *testing.T) {
	s, err := New(Config{Models: []string{"m"}, K: 1, Acceptance: []float64{0.5}, Multiprocess: true, Prefix: "ray_vllm:", Start: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_ = s.WriteMetrics(&b)
	out := b.String()
	if strings.Contains(out, "_created") {
		t.Errorf("multiprocess output has _created:\n%s", out)
	}
	want := "# HELP ray_vllm:spec_decode_num_drafts_total Multiprocess metric\n# TYPE ray_vllm:spec_decode_num_drafts_total counter\nray_vllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} 0.0\n"
	if !strings.Contains(out, want) {
		t.Errorf("missing\n%s\nin\n%s", want, out)
	}
}

func mustNew(t testing.TB, cfg Config) *Simulator {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// parse reads /metrics with the Prometheus text parser.
func parse(t *testing.T, s *Simulator) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type = %q", ct)
	}
	if f := expfmt.ResponseFormat(resp.Header).FormatType(); f != expfmt.TypeTextPlain {
		t.Errorf("format %v, want text", f)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestParsedEqualsTruth(t *testing.T) {
	models := []string{`Llama 3 "chat" 8B`, "org/model-b", "back\\slash\nnewline"}
	s := mustNew(t, Config{
		Models: models, Engines: 2, K: 4, Acceptance: []float64{0.8, 0.7, 0.6, 0.5},
		PerModel:        map[string]ModelOptions{"org/model-b": {K: 3, Acceptance: []float64{0.5}}},
		DraftsPerSecond: 37, Seed: 7, Start: time.Unix(1748736000, 0),
	})
	s.Step(90 * time.Second)
	if err := s.ResetCounters("org/model-b", "1"); err != nil {
		t.Fatal(err)
	}
	s.Step(13500 * time.Millisecond)
	fams := parse(t, s)
	tr := s.Truth()
	if len(tr.Series) != 6 {
		t.Fatalf("%d series, want 6", len(tr.Series))
	}
	find := func(fam string, model, engine, pos string) (float64, bool) {
		f := fams[fam]
		if f == nil {
			t.Fatalf("family %s missing; have %d families", fam, len(fams))
		}
		for _, m := range f.GetMetric() {
			l := labelsOf(m)
			if l["model_name"] == model && l["engine"] == engine && l["position"] == pos {
				if f.GetType() == dto.MetricType_COUNTER {
					return m.GetCounter().GetValue(), true
				}
				return m.GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	for _, ts := range tr.Series {
		c := ts.Exposed
		for fam, want := range map[string]int64{
			"vllm:spec_decode_num_drafts_total":          c.Drafts,
			"vllm:spec_decode_num_draft_tokens_total":    c.DraftTokens,
			"vllm:spec_decode_num_accepted_tokens_total": c.AcceptedTokens,
			"vllm:generation_tokens_total":               c.GenerationTokens,
		} {
			got, ok := find(fam, ts.Model, ts.Engine, "")
			if !ok || got != float64(want) {
				t.Errorf("%s{%q,%s} = %v (found %v), want %d", fam, ts.Model, ts.Engine, got, ok, want)
			}
		}
		for i, want := range c.AcceptedPerPosition {
			got, ok := find("vllm:spec_decode_num_accepted_tokens_per_pos_total", ts.Model, ts.Engine, string(rune('0'+i)))
			if !ok || got != float64(want) {
				t.Errorf("per_pos{%q,%s,%d} = %v, want %d", ts.Model, ts.Engine, i, got, want)
			}
		}
		if _, ok := find("vllm:spec_decode_num_accepted_tokens_per_pos_total", ts.Model, ts.Engine, string(rune('0'+ts.K))); ok {
			t.Errorf("%q engine %s: a series at position %d = k", ts.Model, ts.Engine, ts.K)
		}
		cr, ok := find("vllm:spec_decode_num_drafts_created", ts.Model, ts.Engine, "")
		if !ok || math.Abs(cr-float64(ts.Created.UnixNano())/1e9) > 1e-6 {
			t.Errorf("_created{%q,%s} = %v, want %v", ts.Model, ts.Engine, cr, ts.Created)
		}
		if fams["vllm:spec_decode_num_drafts_created"].GetType() != dto.MetricType_GAUGE {
			t.Errorf("_created family is not a gauge")
		}
		// 37 drafts/s for 103.5 s: floor(3829.5) = 3829 in total.
		if ts.Total.Drafts != 3829 {
			t.Errorf("%q engine %s: total drafts %d, want 3829", ts.Model, ts.Engine, ts.Total.Drafts)
		}
		wantExposed := int64(3829)
		if ts.Model == "org/model-b" && ts.Engine == "1" {
			wantExposed = 3829 - 3330 // reset after 90 s = 3330 drafts
		}
		if c.Drafts != wantExposed {
			t.Errorf("%q engine %s: exposed drafts %d, want %d", ts.Model, ts.Engine, c.Drafts, wantExposed)
		}
	}
}

// checkInvariants asserts the invariants of docs/METRICS.md on one set of
// counts.
func checkInvariants(t *testing.T, what string, k int, c Counts) {
	t.Helper()
	var sum int64
	for i, v := range c.AcceptedPerPosition {
		sum += v
		if i > 0 && v > c.AcceptedPerPosition[i-1] {
			t.Errorf("%s: per_pos increases at %d: %v", what, i, c.AcceptedPerPosition)
		}
		if v > c.Drafts {
			t.Errorf("%s: per_pos[%d] = %d > drafts %d", what, i, v, c.Drafts)
		}
	}
	if len(c.AcceptedPerPosition) != k {
		t.Errorf("%s: %d positions, want k = %d", what, len(c.AcceptedPerPosition), k)
	}
	if sum != c.AcceptedTokens {
		t.Errorf("%s: sum per_pos %d != accepted %d", what, sum, c.AcceptedTokens)
	}
	if c.DraftTokens != int64(k)*c.Drafts {
		t.Errorf("%s: draft tokens %d != k*drafts %d", what, c.DraftTokens, int64(k)*c.Drafts)
	}
	if c.AcceptedTokens > c.DraftTokens {
		t.Errorf("%s: accepted %d > draft tokens %d", what, c.AcceptedTokens, c.DraftTokens)
	}
	if c.GenerationTokens != c.AcceptedTokens+c.Drafts {
		t.Errorf("%s: generation %d != accepted + drafts", what, c.GenerationTokens)
	}
}

func TestInvariantsAndDeterminism(t *testing.T) {
	cfg := Config{Models: []string{"a", "b"}, Engines: 3, K: 5, Acceptance: []float64{0.9, 0.1, 0.95, 0.3, 1}, DraftsPerSecond: 13.3, Seed: 42, Start: time.Unix(0, 0)}
	s1, s2 := mustNew(t, cfg), mustNew(t, cfg)
	// Same total time split differently: same counts.
	for i := 0; i < 100; i++ {
		s1.Step(700 * time.Millisecond)
	}
	s2.Step(30 * time.Second)
	s2.Step(40 * time.Second)
	t1, t2 := s1.Truth(), s2.Truth()
	for i := range t1.Series {
		a, b := t1.Series[i].Total, t2.Series[i].Total
		if a.Drafts != 931 || b.Drafts != 931 { // floor(13.3 * 70) = 931
			t.Errorf("series %d: drafts %d / %d, want 931", i, a.Drafts, b.Drafts)
		}
		if a.AcceptedTokens != b.AcceptedTokens || a.AcceptedPerPosition[2] != b.AcceptedPerPosition[2] {
			t.Errorf("series %d: not deterministic: %+v vs %+v", i, a, b)
		}
		checkInvariants(t, t1.Series[i].Model+"/"+t1.Series[i].Engine, 5, a)
	}
	if t1.Series[0].Total.AcceptedTokens == t1.Series[1].Total.AcceptedTokens &&
		t1.Series[1].Total.AcceptedTokens == t1.Series[2].Total.AcceptedTokens {
		t.Errorf("all engines drew the same accepted counts: the series share a random stream?")
	}
	s3 := mustNew(t, Config{Models: []string{"a", "b"}, Engines: 3, K: 5, Acceptance: cfg.Acceptance, DraftsPerSecond: 13.3, Seed: 43})
	s3.Step(70 * time.Second)
	if s3.Truth().Series[0].Total.AcceptedTokens == t1.Series[0].Total.AcceptedTokens &&
		s3.Truth().Series[1].Total.AcceptedTokens == t1.Series[1].Total.AcceptedTokens {
		t.Errorf("seed 43 gave the same draws as seed 42")
	}
}

func TestResetKeepsTotal(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 10, Seed: 1, Start: time.Unix(100, 0)})
	s.Step(10 * time.Second)
	before := s.Truth().Series[0]
	if err := s.ResetCounters("m", ""); err != nil {
		t.Fatal(err)
	}
	s.Step(5 * time.Second)
	after := s.Truth().Series[0]
	if after.Exposed.Drafts != 50 || after.Total.Drafts != 150 || before.Total.Drafts != 100 {
		t.Errorf("drafts: exposed %d (want 50), total %d (want 150), before %d", after.Exposed.Drafts, after.Total.Drafts, before.Total.Drafts)
	}
	if !after.Created.Equal(time.Unix(110, 0)) || after.Resets != 1 {
		t.Errorf("created %v resets %d, want 110 s and 1", after.Created, after.Resets)
	}
	if got := after.Total.AcceptedTokens - before.Total.AcceptedTokens; got != after.Exposed.AcceptedTokens {
		t.Errorf("accepted since reset: total grew by %d, exposed %d", got, after.Exposed.AcceptedTokens)
	}
	checkInvariants(t, "exposed", 3, after.Exposed)
	if s.Truth().Series[1].Resets != 1 {
		t.Errorf("engine 1 not reset by engine \"\"")
	}
	if err := s.ResetCounters("nope", "0"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown model: err = %v", err)
	}
	if err := s.ResetCounters("m", "7"); err == nil {
		t.Errorf("unknown engine: no error")
	}
}

func TestPauseResume(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.5}, DraftsPerSecond: 2, Start: time.Unix(0, 0)})
	s.Step(10 * time.Second)
	s.Pause()
	s.Step(100 * time.Second)
	if got := s.Truth().Series[0].Total.Drafts; got != 20 {
		t.Errorf("paused: drafts %d, want 20", got)
	}
	s.Resume()
	s.Step(5 * time.Second)
	tr := s.Truth()
	if got := tr.Series[0].Total.Drafts; got != 30 {
		t.Errorf("resumed: drafts %d, want 30", got)
	}
	if !tr.Time.Equal(time.Unix(115, 0)) {
		t.Errorf("clock %v, want 115 s", tr.Time)
	}
}

// TestConvergence: per-position acceptance rates computed from the counts of
// a large deterministic run approach the configured model (rate[i] =
// product of the conditional probabilities up to i).
func TestConvergence(t *testing.T) {
	acc := []float64{0.8, 0.7, 0.6, 0.5}
	s := mustNew(t, Config{Models: []string{"m", "single p"}, Engines: 1, K: 4, Acceptance: acc,
		PerModel:        map[string]ModelOptions{"single p": {Acceptance: []float64{0.6}}},
		DraftsPerSecond: 1000, Seed: 3, Start: time.Unix(0, 0)})
	s.Step(100 * time.Second) // 100,000 drafts per series
	want := map[string][]float64{
		"m":        {0.8, 0.56, 0.336, 0.168},
		"single p": {0.6, 0.36, 0.216, 0.1296},
	}
	for _, ts := range s.Truth().Series {
		c := ts.Total
		if c.Drafts != 100000 {
			t.Fatalf("drafts %d", c.Drafts)
		}
		var mean float64
		for i, w := range want[ts.Model] {
			got := float64(c.AcceptedPerPosition[i]) / float64(c.Drafts)
			// standard error <= 0.0016 for 1e5 drafts; 0.01 is > 6 sigma.
			if math.Abs(got-w) > 0.01 {
				t.Errorf("%s: rate[%d] = %.4f, want %.4f +- 0.01", ts.Model, i, got, w)
			}
			mean += w
		}
		gotMean := float64(c.AcceptedTokens) / float64(c.Drafts)
		if math.Abs(gotMean-mean) > 0.03 {
			t.Errorf("%s: accepted/drafts = %.4f, want %.4f", ts.Model, gotMean, mean)
		}
		checkInvariants(t, ts.Model, 4, c)
	}
}

func TestNewErrors(t *testing.T) {
	ok := Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.5}}
	for _, c := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no models", func(c *Config) { c.Models = nil }, "no models"},
		{"empty model", func(c *Config) { c.Models = []string{""} }, "empty model"},
		{"dup model", func(c *Config) { c.Models = []string{"a", "a"} }, `"a" given twice`},
		{"k=0", func(c *Config) { c.K = 0 }, "k = 0"},
		{"k too big", func(c *Config) { c.K = 65 }, "k = 65"},
		{"acc len", func(c *Config) { c.Acceptance = []float64{0.5, 0.5, 0.5} }, "acceptance has 3 values"},
		{"acc none", func(c *Config) { c.Acceptance = nil }, "acceptance has 0 values"},
		{"acc range", func(c *Config) { c.Acceptance = []float64{1.5} }, "acceptance[0] = 1.5"},
		{"acc nan", func(c *Config) { c.Acceptance = []float64{math.NaN()} }, "acceptance[0] = NaN"},
		{"rate", func(c *Config) { c.DraftsPerSecond = -1 }, "drafts per second = -1"},
		{"rate inf", func(c *Config) { c.DraftsPerSecond = math.Inf(1) }, "drafts per second = +Inf"},
		{"rate too high", func(c *Config) { c.DraftsPerSecond = 1e9 }, "drafts per second = 1e+09 for each of 1 series (1e+09 in all), want at most 200000 in all"},
		{"rate in all", func(c *Config) { c.DraftsPerSecond, c.Engines = 1000, 256 }, "drafts per second = 1000 for each of 256 series (256000 in all)"},
		{"engines", func(c *Config) { c.Engines = -2 }, "engines = -2"},
		{"engine ids", func(c *Config) { c.EngineIDs = []string{"1", "1"} }, "unique"},
		{"per model", func(c *Config) { c.PerModel = map[string]ModelOptions{"x": {K: 2}} }, `model "x"`},
		{"per model k", func(c *Config) { c.PerModel = map[string]ModelOptions{"m": {K: 3, Acceptance: []float64{.1, .2}}} }, `model "m": acceptance has 2 values`},
		{"tick", func(c *Config) { c.Tick = -time.Second }, "tick"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// The bound itself is allowed.
	mustNew(t, Config{Models: []string{"m", "n"}, K: 2, Acceptance: []float64{0.5}, DraftsPerSecond: 100_000})
	s := mustNew(t, Config{Models: []string{"m"}, EngineIDs: []string{"3"}, K: 1, Acceptance: []float64{1}})
	if e := s.Truth().Series[0].Engine; e != "3" {
		t.Errorf("engine %q, want 3", e)
	}
}

func TestHTTP(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"m"}, K: 2, Acceptance: []float64{1}, DraftsPerSecond: 1, Start: time.Unix(1000, 0)})
	s.Step(3 * time.Second)
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/truth")
	if err != nil {
		t.Fatal(err)
	}
	var tr Truth
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(tr.Series) != 1 || tr.Series[0].Total.Drafts != 3 || tr.Series[0].Total.AcceptedPerPosition[1] != 3 {
		t.Errorf("/truth: %+v", tr)
	}
	post := func(path string) int {
		r, err := http.Post(srv.URL+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if c := post("/control/pause"); c != 200 || !s.Paused() {
		t.Errorf("pause: %d %v", c, s.Paused())
	}
	if c := post("/control/resume"); c != 200 || s.Paused() {
		t.Errorf("resume: %d %v", c, s.Paused())
	}
	if c := post("/control/reset?model=m&engine=0"); c != 200 || s.Truth().Series[0].Resets != 1 {
		t.Errorf("reset: %d", c)
	}
	if c := post("/control/reset?model=zz"); c != 404 {
		t.Errorf("reset unknown: %d", c)
	}
	if c := post("/metrics"); c != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d", c)
	}
	r, _ := http.Get(srv.URL + "/nope")
	r.Body.Close()
	if r.StatusCode != 404 {
		t.Errorf("/nope: %d", r.StatusCode)
	}
}

// TestRun checks that Run advances in real time and returns on cancel
// (a bounded poll for liveness, no timing assertion).
func TestRun(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.5}, DraftsPerSecond: 1000, Tick: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	testwait.For(t, "Run to produce drafts", 0, func() bool { return s.Truth().Series[0].Total.Drafts > 0 })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v", err)
	}
	checkInvariants(t, "run", 2, s.Truth().Series[0].Total)
}

func TestTruthSum(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"a", "b"}, Engines: 2, K: 2, Acceptance: []float64{1},
		PerModel: map[string]ModelOptions{"b": {K: 3}}, DraftsPerSecond: 1, Start: time.Unix(0, 0)})
	s.Step(10 * time.Second)
	if err := s.ResetCounters("b", "1"); err != nil {
		t.Fatal(err)
	}
	s.Step(5 * time.Second)
	tr := s.Truth()
	// Every draft accepts everything: a has k=2, b has k=3; 15 drafts per series.
	if got := tr.Sum("a", false); got.Drafts != 30 || got.DraftTokens != 60 || got.AcceptedTokens != 60 || got.AcceptedPerPosition[1] != 30 {
		t.Errorf("Sum(a) = %+v", got)
	}
	got := tr.Sum("", false)
	if got.Drafts != 60 || got.DraftTokens != 60+90 || len(got.AcceptedPerPosition) != 3 ||
		got.AcceptedPerPosition[0] != 60 || got.AcceptedPerPosition[2] != 30 {
		t.Errorf("Sum(all) = %+v", got)
	}
	// Exposed: b/1 restarted after 10 s, so it shows 5 drafts.
	if got := tr.Sum("b", true); got.Drafts != 20 || got.AcceptedPerPosition[2] != 20 {
		t.Errorf("Sum(b, exposed) = %+v", got)
	}
}
