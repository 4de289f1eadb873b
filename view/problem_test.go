package view

import (
	"strings"
	"testing"

	"specdash/metricsclient"
)

// Missing metrics read as a short checklist: the likely cause first, what
// was looked for in one line (the names folded), what was found instead;
// an unreachable server in the browser is specdash, not Prometheus.
func TestDescribeProblem(t *testing.T) {
	miss := &metricsclient.MissingMetricsError{
		Schema: "vLLM V1",
		Wanted: []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
			"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total"},
		EngineMetrics: []string{"vllm:num_requests_running", "vllm:generation_tokens_total"},
		Cause:         metricsclient.CauseSpecDecodingOff,
	}
	p := DescribeProblem(miss, true)
	if p.Kind != ProblemNoMetrics || !strings.Contains(p.Cause, "speculative decoding looks off") {
		t.Errorf("missing metrics: %+v", p)
	}
	if len(p.Facts) != 2 || p.Facts[0] != "Looked for: 4 counters of vLLM V1, e.g. vllm:spec_decode_num_drafts_total" ||
		!strings.Contains(p.Facts[1], "vllm:num_requests_running") {
		t.Errorf("facts %q", p.Facts)
	}
	if len(p.Folded) != 1 || !strings.Contains(p.Folded[0], "vllm:spec_decode_num_accepted_tokens_per_pos_total") {
		t.Errorf("folded %q, want every name looked for", p.Folded)
	}

	down := &metricsclient.APIError{Op: "query_range", Address: "/prom", Kind: metricsclient.Unreachable, Msg: "fetch failed"}
	if p := DescribeProblem(down, true); p.Kind != ProblemServerDown || !strings.Contains(p.Title, "specdash server is unreachable") {
		t.Errorf("browser, no answer: %+v, want the specdash server named", p)
	}
	if p := DescribeProblem(down, false); p.Kind != ProblemPrometheusDown {
		t.Errorf("server side, no answer: %+v, want Prometheus down", p)
	}
	proxy := &metricsclient.APIError{Op: "query_range", Address: "/prom", Kind: metricsclient.Proxy, Msg: "Prometheus is unreachable: connection refused (is it running?)"}
	if p := DescribeProblem(proxy, true); p.Kind != ProblemPrometheusDown || p.Title != "Prometheus is unreachable" {
		t.Errorf("proxy says Prometheus is down: %+v", p)
	}
	if p := DescribeProblem(nil, true); p.Kind != "" {
		t.Errorf("no error: %+v", p)
	}
}
