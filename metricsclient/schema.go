package metricsclient

import (
	"sort"

	"specdash/compute"
)

// Schema names the speculative-decoding counters of one serving engine, one
// metric name per compute.Family, so that other engines (llama.cpp, vLLM under
// Ray Serve) can be added as values without changing the client.
type Schema struct {
	// Name is shown in messages, e.g. "vLLM V1".
	Name string
	// Metrics maps each family to the exposed sample name (with its _total
	// suffix; never the _created family).
	Metrics map[compute.Family]string
	// PositionLabel is the label carrying the 0-based draft position of the
	// compute.AcceptedPerPosition family ("position" in vLLM).
	PositionLabel string
}

// VLLMV1 is vLLM V1's schema: the four counters of class SpecDecodingProm in
// vllm/v1/spec_decode/metrics.py, as exposed by prometheus_client (with the
// _total suffix). Labels: engine, model_name, and position for the
// per-position counter. Source: shared/reference/metrics.md.
var VLLMV1 = Schema{
	Name: "vLLM V1",
	Metrics: map[compute.Family]string{
		compute.Drafts:              "vllm:spec_decode_num_drafts_total",
		compute.DraftTokens:         "vllm:spec_decode_num_draft_tokens_total",
		compute.AcceptedTokens:      "vllm:spec_decode_num_accepted_tokens_total",
		compute.AcceptedPerPosition: "vllm:spec_decode_num_accepted_tokens_per_pos_total",
	},
	PositionLabel: "position",
}

// families lists the families in their canonical order.
var families = []compute.Family{compute.Drafts, compute.DraftTokens, compute.AcceptedTokens, compute.AcceptedPerPosition}

// Names returns the schema's metric names in family order (Drafts,
// DraftTokens, AcceptedTokens, AcceptedPerPosition), skipping families the
// schema does not define.
func (s Schema) Names() []string {
	var out []string
	for _, f := range families {
		if n, ok := s.Metrics[f]; ok && n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Family returns the family of metric name, and false when the name is not
// one of the schema's.
func (s Schema) Family(name string) (compute.Family, bool) {
	for f, n := range s.Metrics {
		if n == name {
			return f, true
		}
	}
	return 0, false
}

// Selector returns the PromQL selector of the schema's metrics restricted by
// filters (see the package function Selector).
func (s Schema) Selector(filters []Filter) (string, error) {
	return Selector(s.Names(), filters)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
