package metricsclient

import "testing"

// TestLooksSpec: "accept" alone does not make a name speculative-decoding
// related (Prometheus' own connection counters), accepted tokens do.
func TestLooksSpec(t *testing.T) {
	for name, want := range map[string]bool{
		"net_conntrack_listener_conn_accepted_total":       false,
		"prometheus_http_requests_total":                   false,
		"myprefix_spec_decode_num_accepted_tokens_total":   true,
		"myengine_num_accepted_tokens_total":               true,
		"myengine_draft_steps_total":                       true,
		"sglang:spec_accept_rate":                          true,
		"foo_acceptance_rate":                              true,
		"foo_accept_length":                                true,
		"vllm:spec_decode_num_accepted_tokens_per_pos_tot": true,
		"vllm:spec_decode_num_drafts_created":              false,
		"myprefix_spec_decode_num_accepted_tokens_created": false,
	} {
		if got := looksSpec(name); got != want {
			t.Errorf("looksSpec(%q) = %v, want %v", name, got, want)
		}
	}
}
