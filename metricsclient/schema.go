package metricsclient

import (
	"sort"

	"specdash/compute"
)

// Kind says how a schema's numbers are computed.
type Kind int

const (
	// Counters: the schema's families are monotonic counters; a window's
	// numbers are ratios of sums of exact increases (compute.Aggregate).
	Counters Kind = iota
	// Gauges: the schema exports ratios as gauges that each cover one of
	// the server's logging windows (SGLang). They can only be averaged over
	// time (compute.AverageGauge); never rate(), and never a ratio of sums
	// across series.
	Gauges
)

// String returns "counters" or "gauges".
func (k Kind) String() string {
	if k == Gauges {
		return "gauges"
	}
	return "counters"
}

// Role names a metric of a schema that is not one of the four counter
// families of compute.Family.
type Role string

const (
	// EmittedTokens is vLLM V0's counter
	// vllm:spec_decode_num_emitted_tokens_total (tokens).
	EmittedTokens Role = "emitted_tokens"
	// LifetimeAcceptanceRate is vLLM V0's gauge
	// vllm:spec_decode_draft_acceptance_rate: accepted / draft tokens since
	// the server started (ratio 0..1), not windowed.
	LifetimeAcceptanceRate Role = "lifetime_acceptance_rate"
	// LifetimeEfficiency is vLLM V0's gauge vllm:spec_decode_efficiency:
	// system efficiency since the server started (ratio 0..1), not windowed.
	LifetimeEfficiency Role = "lifetime_efficiency"
	// WindowAcceptLength is SGLang's gauge sglang:spec_accept_length: mean
	// acceptance length (tokens per draft, bonus token included) over one
	// decode-log window.
	WindowAcceptLength Role = "window_accept_length"
	// WindowAcceptRate is SGLang's gauge sglang:spec_accept_rate: acceptance
	// rate (ratio 0..1) over one decode-log window.
	WindowAcceptRate Role = "window_accept_rate"
)

// roles lists the roles in their canonical order.
var roles = []Role{EmittedTokens, LifetimeAcceptanceRate, LifetimeEfficiency, WindowAcceptLength, WindowAcceptRate}

// Schema names the speculative-decoding metrics of one serving engine, so
// that engines are values, not code: the counter families (compute.Family)
// and, for engines that export more or other metrics, the Extra metrics by
// Role. Metric names are exposed sample names (with the _total suffix of
// counters; never a _created family). Source of every name:
// docs/METRICS.md ("Engines and schemas").
type Schema struct {
	// Name is the human name shown in the UI and in messages, e.g.
	// "vLLM V1", "vLLM (Ray Serve)".
	Name string
	// ID is a short stable identifier for URLs and JSON, e.g. "vllm-v1".
	ID string
	// Kind says whether the numbers come from counters or time-averaged
	// gauges.
	Kind Kind
	// Metrics maps each counter family the schema has to its sample name.
	// Families absent from the map are not exported by the engine.
	Metrics map[compute.Family]string
	// PositionLabel is the label carrying the 0-based draft position of the
	// compute.AcceptedPerPosition family ("position"); "" when the schema
	// has no per-position family.
	PositionLabel string
	// Extra maps roles to sample names: V0's emitted-tokens counter and
	// lifetime gauges, SGLang's windowed gauges.
	Extra map[Role]string
	// Signature are the names whose presence identifies the schema (a
	// subset of its names: vLLM V0 and V1 share two counter names).
	Signature []string
	// Labels are the identifying labels the engine puts on its series
	// (besides position and the job/instance labels Prometheus adds); empty
	// for llama.cpp, which has none.
	Labels []string
	// Limits are sentences saying what cannot be computed from this schema
	// and why (empty for vLLM V1).
	Limits []string
	// Unverified is set when the metric names were not checked against the
	// engine's code or output.
	Unverified bool
	// Optional are metrics next to the spec-decode counters that a
	// dashboard may show (latency, output, load, an engine's further
	// speculative-decoding counters), by role: each role lists its names,
	// newest first (vLLM renamed its inter-token latency histogram), and all
	// are looked for. FetchAuto never reads them and their absence is no
	// warning; OptionalNames and Client.FetchOptional find them. Histogram
	// roles hold the base name (without _bucket, _sum, _count).
	Optional map[OptionalRole][]string
}

// vLLMOptional are the optional families of vLLM V1 (vllm/v1/metrics/loggers.py)
// under prefix: the inter-token latency histogram under its name since vLLM
// 0.11 and its former name, output tokens, running requests, and tokens per
// engine step.
func vLLMOptional(prefix string) map[OptionalRole][]string {
	return map[OptionalRole][]string{
		InterTokenLatency: {prefix + "inter_token_latency_seconds", prefix + "time_per_output_token_seconds"},
		GenerationTokens:  {prefix + "generation_tokens_total"},
		RequestsRunning:   {prefix + "num_requests_running"},
		IterationTokens:   {prefix + "iteration_tokens_total"},
	}
}

func v1Like(name, id, prefix string, labels []string) Schema {
	return Schema{
		Name: name,
		ID:   id,
		Kind: Counters,
		Metrics: map[compute.Family]string{
			compute.Drafts:              prefix + "spec_decode_num_drafts_total",
			compute.DraftTokens:         prefix + "spec_decode_num_draft_tokens_total",
			compute.AcceptedTokens:      prefix + "spec_decode_num_accepted_tokens_total",
			compute.AcceptedPerPosition: prefix + "spec_decode_num_accepted_tokens_per_pos_total",
		},
		PositionLabel: "position",
		Signature: []string{
			prefix + "spec_decode_num_drafts_total",
			prefix + "spec_decode_num_accepted_tokens_per_pos_total",
		},
		Labels: labels,
	}
}

// VLLMV1 is vLLM V1's schema: the four counters of class SpecDecodingProm in
// vllm/v1/spec_decode/metrics.py, as exposed by prometheus_client (with the
// _total suffix). Labels: engine, model_name, and position for the
// per-position counter. Source: docs/METRICS.md ("vLLM V1").
var VLLMV1 = func() Schema {
	s := v1Like("vLLM V1", "vllm-v1", "vllm:", []string{"model_name", "engine"})
	s.Optional = vLLMOptional("vllm:")
	return s
}()

// RayVLLM is vLLM V1 served by Ray Serve: the same four counters with the
// prefix "ray_vllm:" instead of "vllm:" (docs/METRICS.md, "vLLM under Ray
// Serve"). Ray adds its own labels (replica, worker ids).
var RayVLLM = func() Schema {
	s := v1Like("vLLM (Ray Serve)", "ray-vllm", "ray_vllm:", []string{"model_name", "engine"})
	s.Optional = vLLMOptional("ray_vllm:")
	return s
}()

// RayVLLMUnderscore is vLLM under later Ray Serve versions, which use the
// prefix "ray_vllm_" (docs/METRICS.md, "vLLM under Ray Serve").
var RayVLLMUnderscore = func() Schema {
	s := v1Like("vLLM (Ray Serve, ray_vllm_ prefix)", "ray-vllm-underscore", "ray_vllm_", []string{"model_name", "engine"})
	s.Optional = vLLMOptional("ray_vllm_")
	return s
}()

// LlamaCpp is the llama.cpp server's schema (llama.cpp PR 26389, 2026;
// docs/METRICS.md "llama.cpp server"): vLLM V1's four counters with the
// prefix "llamacpp:" and no model_name or engine label. The per-position family is absent until the first speculative
// request completes: its absence then is not an error.
var LlamaCpp = func() Schema {
	s := v1Like("llama.cpp", "llamacpp", "llamacpp:", nil)
	s.Signature = s.Names()
	s.Limits = []string{"llama.cpp puts no model_name or engine label on its series: group or filter by job or instance instead",
		"llama.cpp exports the per-position counter only after the first speculative request completes",
		"llama.cpp drafts have variable length (the draft stops below --draft-p-min): per-position rates are shares of all drafts, and as acceptance rates of a position they are lower bounds when draft tokens < k x drafts (compute.CheckDraftLengths)"}
	s.Optional = map[OptionalRole][]string{
		GenerationTokens: {"llamacpp:tokens_predicted_total"},
		RequestsRunning:  {"llamacpp:requests_processing"},
	}
	return s
}()

// LMDeploy is LMDeploy's schema (LMDeploy PR 4625, lmdeploy/metrics/loggers.py;
// docs/METRICS.md "LMDeploy"): vLLM V1's four counters with the prefix
// "lmdeploy:", labels model_name and engine. Its gauges
// lmdeploy:spec_decode_mean_accept_rate, ..._mean_accept_length and
// ..._per_position_accept_rate are lifetime ratios of the same counters and
// are not read (the counters give windowed numbers).
var LMDeploy = func() Schema {
	s := v1Like("LMDeploy", "lmdeploy", "lmdeploy:", []string{"model_name", "engine"})
	s.Limits = []string{"LMDeploy's gauges lmdeploy:spec_decode_mean_accept_rate, lmdeploy:spec_decode_mean_accept_length and lmdeploy:spec_decode_per_position_accept_rate are lifetime ratios (since the server started); specdash computes windowed numbers from the counters instead",
		"LMDeploy exports no _created samples and creates the per-position counter at its first speculative step: a series that starts inside the window loses what it counted before its first sample"}
	s.Optional = map[OptionalRole][]string{
		InterTokenLatency:  {"lmdeploy:iter_token_latency"},
		TimePerOutputToken: {"lmdeploy:time_per_output_token_seconds"},
		GenerationTokens:   {"lmdeploy:generation_tokens_total"},
		RequestsRunning:    {"lmdeploy:num_requests_running"},
		IterationTokens:    {"lmdeploy:iteration_tokens_total"},
	}
	return s
}()

// TensorRTLLM is TensorRT-LLM's schema, served by trtllm-serve at
// /prometheus/metrics (names from tensorrt_llm/metrics/collector.py, class
// MetricsCollector; docs/METRICS.md "TensorRT-LLM"). The counters
// trtllm_spec_decode_num_draft_tokens_total and
// trtllm_spec_decode_num_accepted_tokens_total are per iteration
// (enable_iter_perf_stats). There is no drafts counter. The per-position
// counters trtllm_spec_decode_drafted_tokens_total{token_position} and
// trtllm_spec_decode_accepted_tokens_total{token_position} (TensorRT-LLM PR
// 12636) are counted per request when it finishes (return_perf_metrics),
// so they are Optional, not mixed with the per-iteration counters: from
// them drafts = drafted at token_position 0 (every draft drafts position 0)
// and the per-position rates accepted_i / drafted_i are exact
// (compute.ConditionalPerPosition).
var TensorRTLLM = Schema{
	Name: "TensorRT-LLM",
	ID:   "trtllm",
	Kind: Counters,
	Metrics: map[compute.Family]string{
		compute.DraftTokens:    "trtllm_spec_decode_num_draft_tokens_total",
		compute.AcceptedTokens: "trtllm_spec_decode_num_accepted_tokens_total",
	},
	Signature: []string{"trtllm_spec_decode_num_draft_tokens_total", "trtllm_spec_decode_num_accepted_tokens_total"},
	Labels:    []string{"model_name", "engine_type"},
	Limits: []string{
		"TensorRT-LLM exports no drafts counter per iteration: mean acceptance length and drafts/s are undefined from its iteration counters",
		"TensorRT-LLM's per-position counters (trtllm_spec_decode_drafted_tokens_total and trtllm_spec_decode_accepted_tokens_total by token_position) count finished requests only, and only with return_perf_metrics: per-position rates come from them alone (accepted / drafted at each position), not from the iteration counters",
		"trtllm_spec_decode_acceptance_length is a gauge of the last iteration, not a windowed number; specdash does not average it",
	},
	Optional: map[OptionalRole][]string{
		DraftedPerPosition:   {"trtllm_spec_decode_drafted_tokens_total"},
		AcceptedPerPosition:  {"trtllm_spec_decode_accepted_tokens_total"},
		GenerationTokens:     {"trtllm_generation_tokens_total"},
		RequestsRunning:      {"trtllm_num_requests_running"},
		TimePerOutputToken:   {"trtllm_time_per_output_token_seconds"},
		LastAcceptanceLength: {"trtllm_spec_decode_acceptance_length"},
	},
}

// VLLMV0 is vLLM V0's schema (removed in V1; docs/METRICS.md): counters of
// accepted, draft and emitted tokens, and the lifetime gauges
// vllm:spec_decode_draft_acceptance_rate and vllm:spec_decode_efficiency;
// label model_name only. There is no drafts counter and no per-position
// data, so the acceptance rate comes from the counters and the windowed
// system efficiency = emitted / ((draft / k) * (k + 1)) needs k, which V0
// does not export.
var VLLMV0 = Schema{
	Name: "vLLM V0",
	ID:   "vllm-v0",
	Kind: Counters,
	Metrics: map[compute.Family]string{
		compute.DraftTokens:    "vllm:spec_decode_num_draft_tokens_total",
		compute.AcceptedTokens: "vllm:spec_decode_num_accepted_tokens_total",
	},
	Extra: map[Role]string{
		EmittedTokens:          "vllm:spec_decode_num_emitted_tokens_total",
		LifetimeAcceptanceRate: "vllm:spec_decode_draft_acceptance_rate",
		LifetimeEfficiency:     "vllm:spec_decode_efficiency",
	},
	Signature: []string{"vllm:spec_decode_num_emitted_tokens_total", "vllm:spec_decode_draft_acceptance_rate", "vllm:spec_decode_efficiency"},
	Labels:    []string{"model_name"},
	Limits: []string{
		"vLLM V0 exports no drafts counter and no per-position counter: mean acceptance length, per-position acceptance rates and drafts/s are undefined",
		"the windowed system efficiency = emitted / ((draft tokens / k) * (k + 1)) needs k (num_speculative_tokens), which vLLM V0 does not export",
		"vllm:spec_decode_draft_acceptance_rate and vllm:spec_decode_efficiency are lifetime ratios (since the server started), not windowed",
	},
}

// SGLang is SGLang's schema (docs/METRICS.md): gauges sglang:spec_accept_length
// (mean acceptance length, bonus token included) and sglang:spec_accept_rate,
// each covering one decode-log window; labels model_name, engine_type,
// tp_rank, pp_rank, dp_rank. Its numbers are averages over time of these
// values (compute.AverageGauge), never rate(), and never a ratio of sums
// across series (the gauges carry no counts to sum).
var SGLang = Schema{
	Name: "SGLang",
	ID:   "sglang",
	Kind: Gauges,
	Extra: map[Role]string{
		WindowAcceptLength: "sglang:spec_accept_length",
		WindowAcceptRate:   "sglang:spec_accept_rate",
	},
	Signature: []string{"sglang:spec_accept_length", "sglang:spec_accept_rate"},
	Labels:    []string{"model_name", "engine_type", "tp_rank", "pp_rank", "dp_rank"},
	Limits: []string{
		"SGLang exports gauges that each cover one decode-log window: the numbers are their average over time (each series' values at the step points), not counts; series are averaged together, never combined as a ratio of sums",
		"SGLang exports no token or draft counts: throughputs and per-position acceptance rates are undefined",
		"sglang:spec_verify_calls_total (newer SGLang) counts verification steps per request, i.e. drafts, added when a request finishes; with no accepted or draft token counter it gives drafts/s and, with sglang:generation_tokens_total and sglang:num_requests_total counted at the same moment, a mean acceptance length of finished requests (compute.MeanLengthFromVerifyCalls), not an acceptance rate",
	},
	Optional: map[OptionalRole][]string{
		VerifyCalls:       {"sglang:spec_verify_calls_total"},
		FinishedRequests:  {"sglang:num_requests_total"},
		GenerationTokens:  {"sglang:generation_tokens_total"},
		RequestsRunning:   {"sglang:num_running_reqs"},
		InterTokenLatency: {"sglang:inter_token_latency_seconds"},
	},
}

// Schemas lists every known schema in order of preference: when several
// have series in a window, Detect picks the first.
var Schemas = []Schema{VLLMV1, RayVLLM, RayVLLMUnderscore, LlamaCpp, LMDeploy, TensorRTLLM, VLLMV0, SGLang}

// SchemaByID returns the schema of Schemas with the given ID (or Name), and
// false when there is none.
func SchemaByID(id string) (Schema, bool) {
	for _, s := range Schemas {
		if s.ID == id || s.Name == id {
			return s, true
		}
	}
	return Schema{}, false
}

// families lists the families in their canonical order.
var families = []compute.Family{compute.Drafts, compute.DraftTokens, compute.AcceptedTokens, compute.AcceptedPerPosition}

// Names returns the schema's counter-family metric names in family order
// (Drafts, DraftTokens, AcceptedTokens, AcceptedPerPosition), skipping
// families the schema does not define.
func (s Schema) Names() []string {
	var out []string
	for _, f := range families {
		if n, ok := s.Metrics[f]; ok && n != "" {
			out = append(out, n)
		}
	}
	return out
}

// AllNames returns Names followed by the Extra metric names in role order.
func (s Schema) AllNames() []string {
	out := s.Names()
	for _, r := range roles {
		if n, ok := s.Extra[r]; ok && n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Family returns the family of metric name, and false when the name is not
// one of the schema's counter families.
func (s Schema) Family(name string) (compute.Family, bool) {
	for f, n := range s.Metrics {
		if n == name {
			return f, true
		}
	}
	return 0, false
}

// Role returns the role of metric name among the schema's Extra metrics,
// and false when it is not one of them.
func (s Schema) Role(name string) (Role, bool) {
	for r, n := range s.Extra {
		if n == name {
			return r, true
		}
	}
	return "", false
}

// HasFamily reports whether the schema exports family f.
func (s Schema) HasFamily(f compute.Family) bool { return s.Metrics[f] != "" }

// Selector returns the PromQL selector of all the schema's metrics
// (AllNames) restricted by filters (see the package function Selector).
func (s Schema) Selector(filters []Filter) (string, error) {
	return Selector(s.AllNames(), filters)
}

// CounterSelector returns the PromQL selector of the schema's counter
// families only (Names) restricted by filters.
func (s Schema) CounterSelector(filters []Filter) (string, error) {
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
