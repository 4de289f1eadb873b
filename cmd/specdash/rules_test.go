//go:build !wasm

package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
)

func defaultRulesArgs() rulesArgs {
	return rulesArgs{detectRange: "1d", window: "10m", dropOffset: "1d", runbookURL: "docs/ALERTING.md", timeout: "30s", th: compute.DefaultHealthThresholds}
}

// TestRunRulesOffline: --schema=vllm writes vLLM V1 rules with the _total
// names; --for=0s drops every for:; bad flags say what is wrong.
func TestRunRulesOffline(t *testing.T) {
	r := defaultRulesArgs()
	r.schema = "vllm"
	var b bytes.Buffer
	if err := runRules(context.Background(), r, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"rate(vllm:spec_decode_num_drafts_total[10m])", "alert: SpecDecodeAcceptanceCollapsed", "for: 5m", "name: specdash-vllm-v1-alerts"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	r.forDur = "0s"
	b.Reset()
	if err := runRules(context.Background(), r, &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "for:") {
		t.Error("--for=0s left a for:")
	}
	for _, tc := range []struct {
		mod  func(*rulesArgs)
		says string
	}{
		{func(r *rulesArgs) { r.schema = "" }, "give --schema"},
		{func(r *rulesArgs) { r.schema = "vllm-v2" }, `--schema="vllm-v2": unknown; want one of vllm-v1,`},
		{func(r *rulesArgs) { r.schema = "sglang" }, "SGLang exports gauges"},
		{func(r *rulesArgs) { r.schema = "vllm"; r.window = "soon" }, `--window="soon"`},
		{func(r *rulesArgs) { r.schema = "vllm"; r.specdashURL = "specdash:8080" }, `specdash URL "specdash:8080"`},
		{func(r *rulesArgs) { r.schema = "vllm"; r.th.LoopRate = 97 }, "loop rate threshold 97"},
	} {
		r := defaultRulesArgs()
		tc.mod(&r)
		err := runRules(context.Background(), r, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("error %v, want one containing %q", err, tc.says)
		}
	}
}

// TestRunRulesDetects: with --prometheus.url the schema comes from the
// data (here llama.cpp's names, backfilled into a real Prometheus), and a
// Prometheus without speculative-decoding series is an error that says so.
func TestRunRulesDetects(t *testing.T) {
	ts := time.Now().Add(-30 * time.Minute).Unix()
	var om strings.Builder
	for _, n := range []string{"drafts", "draft_tokens", "accepted_tokens"} {
		fmt.Fprintf(&om, "# TYPE llamacpp:spec_decode_num_%s counter\n", n)
		fmt.Fprintf(&om, "llamacpp:spec_decode_num_%s_total 10 %d\nllamacpp:spec_decode_num_%s_total 20 %d\n", n, ts, n, ts+60)
	}
	om.WriteString("# EOF\n")
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om.String())})
	r := defaultRulesArgs()
	r.url = prom.URL
	var b bytes.Buffer
	if err := runRules(context.Background(), r, &b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "sum by (job) (rate(llamacpp:spec_decode_num_drafts_total[10m]))") || !strings.Contains(out, "name: specdash-llamacpp-alerts") {
		t.Errorf("detected rules are not llama.cpp's:\n%s", out)
	}

	empty := promtest.Start(t, promtest.Options{})
	r.url = empty.URL
	err := runRules(context.Background(), r, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "detect the schema at "+empty.URL) {
		t.Errorf("empty Prometheus: %v", err)
	}
}
