package rules

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"specdash/compute"
	"specdash/metricsclient"
)

// promtool finds promtool or fails the test: CI installs it (make deps),
// so a missing binary is an error, not a skip.
func promtool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("promtool"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/promtool"); err == nil {
		return "/usr/bin/promtool"
	}
	t.Fatal("promtool not found on PATH or at /usr/bin/promtool: install it: make deps")
	return ""
}

func runPromtool(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, promtool(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func generate(t *testing.T, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, o); err != nil {
		t.Fatalf("Write(%s): %v", o.Schema.ID, err)
	}
	return b.Bytes()
}

// TestPromtoolCheckRules: the rules of every counter schema pass
// `promtool check rules` and Prometheus' own rule-file parser.
func TestPromtoolCheckRules(t *testing.T) {
	dir := t.TempDir()
	for _, s := range metricsclient.Schemas {
		if s.Kind == metricsclient.Gauges {
			continue
		}
		y := generate(t, Options{Schema: s, SpecdashURL: "http://specdash.test/"})
		if _, errs := rulefmt.Parse(y, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.Default()); len(errs) > 0 {
			t.Errorf("%s: rulefmt.Parse: %v", s.ID, errs)
		}
		f := filepath.Join(dir, s.ID+".yml")
		if err := os.WriteFile(f, y, 0o644); err != nil {
			t.Fatal(err)
		}
		out := runPromtool(t, "check", "rules", f)
		if !strings.Contains(out, "SUCCESS") {
			t.Errorf("%s: promtool check rules: %s", s.ID, out)
		}
	}
}

// TestPromtoolTestRules runs testdata/vllm_alerts_test.yml (promtool's
// unit-test format) against the vLLM V1 rules: the alerts fire on
// collapse, cliff, loop and drop series with the expected labels and
// annotations, and stay quiet on healthy, idle and nearly idle series.
func TestPromtoolTestRules(t *testing.T) {
	dir := t.TempDir()
	y := generate(t, Options{Schema: metricsclient.VLLMV1, SpecdashURL: "http://specdash.test"})
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), y, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile("testdata/vllm_alerts_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "vllm_alerts_test.yml")
	if err := os.WriteFile(f, tests, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runPromtool(t, "test", "rules", f); !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules: %s", out)
	}
}

func ruleByName(g rulefmt.RuleGroups, name string) (rulefmt.Rule, bool) {
	for _, gr := range g.Groups {
		for _, r := range gr.Rules {
			if r.Record == name || r.Alert == name {
				return r, true
			}
		}
	}
	return rulefmt.Rule{}, false
}

// TestGenerate: the schema's real names, the idle guards, the levels, the
// For override and the errors.
func TestGenerate(t *testing.T) {
	g, err := Generate(Options{Schema: metricsclient.VLLMV1, For: 2 * time.Second, Interval: time.Second, Window: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"model:spec_decode_drafts:rate1m":                              "sum by (model_name) (rate(vllm:spec_decode_num_drafts_total[1m]))",
		"engine:spec_decode_accepted_tokens_per_pos:rate1m":            "sum by (job, instance, model_name, engine, position) (rate(vllm:spec_decode_num_accepted_tokens_per_pos_total[1m]))",
		"model:spec_decode_acceptance_rate:ratio_rate1m":               "model:spec_decode_accepted_tokens:rate1m / (model:spec_decode_draft_tokens:rate1m > 0)",
		"model:spec_decode_mean_acceptance_length:ratio_rate1m":        "1 + model:spec_decode_accepted_tokens:rate1m / (model:spec_decode_drafts:rate1m > 0)",
		"engine:spec_decode_per_position_acceptance_rate:ratio_rate1m": "engine:spec_decode_accepted_tokens_per_pos:rate1m / on (job, instance, model_name, engine) group_left () (engine:spec_decode_drafts:rate1m > 0)",
		AlertCollapse: "model:spec_decode_acceptance_rate:ratio_rate1m < 0.05\nand on (model_name)\nmodel:spec_decode_drafts:rate1m * 60 >= 50\nunless on (model_name)\nmodel:spec_decode_per_position_acceptance_rate:ratio_rate1m{position=\"0\"} >= 0.2",
	}
	for name, expr := range want {
		r, ok := ruleByName(g, name)
		if !ok || r.Expr != expr {
			t.Errorf("%s: got %q (found %v), want %q", name, r.Expr, ok, expr)
		}
	}
	if RecordName("model", "acceptance_rate", "ratio_rate", time.Minute) != "model:spec_decode_acceptance_rate:ratio_rate1m" {
		t.Error("RecordName disagrees with Generate")
	}
	for _, gr := range g.Groups {
		if time.Duration(gr.Interval) != time.Second {
			t.Errorf("group %s interval %v", gr.Name, gr.Interval)
		}
		for _, r := range gr.Rules {
			if r.Alert == "" {
				continue
			}
			if time.Duration(r.For) != 2*time.Second || r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["runbook_url"] == "" {
				t.Errorf("alert %s: for %v, labels %v, annotations %v", r.Alert, r.For, r.Labels, r.Annotations)
			}
			if _, ok := r.Annotations["specdash_url"]; ok {
				t.Errorf("alert %s has specdash_url without --specdash.url", r.Alert)
			}
		}
	}

	// vLLM V0: no drafts counter: no mean length, no cliff, a draft-token guard.
	g, err = Generate(Options{Schema: metricsclient.VLLMV0})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ruleByName(g, AlertCliff); ok {
		t.Error("vLLM V0 has a cliff alert without per-position data")
	}
	if _, ok := ruleByName(g, "model:spec_decode_mean_acceptance_length:ratio_rate10m"); ok {
		t.Error("vLLM V0 has a mean acceptance length without a drafts counter")
	}
	if r, _ := ruleByName(g, AlertCollapse); !strings.Contains(r.Expr, "model:spec_decode_draft_tokens:rate10m * 600 >= 200") {
		t.Errorf("vLLM V0 collapse guard: %q", r.Expr)
	}
	// llama.cpp: no model_name: per job, and per job and instance.
	g, err = Generate(Options{Schema: metricsclient.LlamaCpp, SpecdashURL: "https://d.example/specdash"})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := ruleByName(g, "model:spec_decode_drafts:rate10m"); r.Expr != "sum by (job) (rate(llamacpp:spec_decode_num_drafts_total[10m]))" {
		t.Errorf("llama.cpp model level: %q", r.Expr)
	}
	if r, _ := ruleByName(g, AlertCollapse); r.Annotations["specdash_url"] != "https://d.example/specdash/?range=1h&f.job={{ $labels.job | urlquery }}&group=instance" {
		t.Errorf("llama.cpp specdash_url: %q", r.Annotations["specdash_url"])
	}
	// Every counter name of a vLLM-like schema ends in _total.
	y := string(generate(t, Options{Schema: metricsclient.RayVLLM}))
	for _, n := range metricsclient.RayVLLM.Names() {
		if !strings.HasSuffix(n, "_total") || !strings.Contains(y, "rate("+n+"[10m])") {
			t.Errorf("ray-vllm rules lack rate(%s[10m])", n)
		}
	}

	for name, o := range map[string]Options{
		"no schema":  {},
		"sglang":     {Schema: metricsclient.SGLang},
		"bad url":    {Schema: metricsclient.VLLMV1, SpecdashURL: "specdash.example"},
		"bad thresh": {Schema: metricsclient.VLLMV1, SpecdashURL: "", RunbookURL: "x", MaxPositions: 4, DropOffset: time.Hour, Window: time.Minute, For: -1, Interval: 0, Thresholds: thresholds(2)},
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "sglang" && !strings.Contains(err.Error(), "SGLang exports gauges") {
			t.Errorf("sglang error: %v", err)
		}
	}
	// For < 0: no `for:`.
	g, _ = Generate(Options{Schema: metricsclient.VLLMV1, For: -1})
	if r, _ := ruleByName(g, AlertDrop); r.For != 0 {
		t.Errorf("For -1: drop for %v", r.For)
	}
	names := []string{}
	for _, gr := range g.Groups {
		names = append(names, gr.Name)
	}
	if !slices.Equal(names, []string{"specdash-vllm-v1-model", "specdash-vllm-v1-engine", "specdash-vllm-v1-alerts"}) {
		t.Errorf("groups %v", names)
	}
}

func thresholds(collapse float64) (th compute.HealthThresholds) {
	th.CollapseRate = collapse
	return th
}
