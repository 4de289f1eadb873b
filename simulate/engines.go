package simulate

import (
	"bytes"
	"fmt"
	"strconv"
)

// Format is the exposition a Simulator speaks: which engine it looks like
// to a scraper. Names and formats: docs/METRICS.md ("Engines and schemas").
type Format string

const (
	// FormatVLLM is vLLM V1's Python front end: prometheus_client text
	// format 0.0.4 with _created families (the default; WriteMetrics'
	// bytes).
	FormatVLLM Format = "vllm"
	// FormatVLLMRust is vLLM's Rust front end (Rust prometheus-client
	// crate): OpenMetrics text, "# TYPE" lines with the base name (no
	// _total), samples with _total, integer values, no _created, "# EOF".
	FormatVLLMRust Format = "vllm-rust"
	// FormatLlamaCpp is the llama.cpp server (llama.cpp PR 26389, with
	// --metrics): hand-written text format 0.0.4, "# TYPE" lines with the
	// sample name (_total included), no labels, integer values, one set of
	// counters for the whole server (every simulated series summed); the
	// per-position family appears only after the first draft.
	FormatLlamaCpp Format = "llamacpp"
	// FormatTRTLLM is trtllm-serve (tensorrt_llm/metrics/collector.py):
	// prometheus_client text at /prometheus/metrics, prefix trtllm_, labels
	// engine_type and model_name (engines of a model summed), per-position
	// counters with label token_position created at their first increment.
	FormatTRTLLM Format = "trtllm"
	// FormatLMDeploy is LMDeploy (PR 4625): vLLM's counters with the prefix
	// lmdeploy:, no _created, the per-position counter from the first
	// draft on, and its lifetime ratio gauges.
	FormatLMDeploy Format = "lmdeploy"
	// FormatSGLang is SGLang: prometheus_client text; gauges
	// sglang:spec_accept_length and sglang:spec_accept_rate (lifetime
	// ratios here; SGLang's cover one decode-log window), the counter
	// sglang:spec_verify_calls_total (= drafts, per model), gauge labels
	// dp_rank (the engine), engine_type, model_name, pp_rank, tp_rank.
	FormatSGLang Format = "sglang"
)

// Formats lists every Format, the default first.
var Formats = []Format{FormatVLLM, FormatVLLMRust, FormatLlamaCpp, FormatTRTLLM, FormatLMDeploy, FormatSGLang}

// ParseFormat returns the Format named s ("" is FormatVLLM), or an error
// listing the formats.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatVLLM, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("simulate: unknown format %q, want one of %v", s, Formats)
}

// MetricsPath is where the format's engine serves its metrics:
// /prometheus/metrics for TensorRT-LLM, /metrics otherwise.
func (f Format) MetricsPath() string {
	if f == FormatTRTLLM {
		return "/prometheus/metrics"
	}
	return "/metrics"
}

// OpenMetricsContentType is the Content-Type of OpenMetrics 1.0 text.
const OpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// ContentType is the Content-Type the format's engine answers with.
func (f Format) ContentType() string {
	if f == FormatVLLMRust {
		return OpenMetricsContentType
	}
	return ContentType
}

// snap is one series' exposed state.
type snap struct {
	model, engine string
	c             Counts
	created       float64
	running       int
}

func (s *Simulator) snapshot() []snap {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]snap, len(s.series))
	for i, sr := range s.series {
		out[i] = snap{model: sr.model, engine: sr.engine, c: sr.exposed.clone(), created: unixSeconds(sr.created), running: sr.running}
	}
	return out
}

// exposition returns the current /metrics body in the configured format.
func (s *Simulator) exposition() []byte {
	switch s.cfg.Format {
	case FormatVLLMRust:
		return s.rustText()
	case FormatLlamaCpp:
		return s.llamaCppText()
	case FormatTRTLLM:
		return s.trtllmText()
	case FormatSGLang:
		return s.sglangText()
	case FormatLMDeploy:
		return s.lmdeployText()
	}
	if s.cfg.Latency {
		return append(s.metricsText(), s.latencyText()...)
	}
	return s.metricsText()
}

// addCounts adds o into c (per position elementwise, growing c).
func addCounts(c *Counts, o Counts) {
	c.Drafts += o.Drafts
	c.DraftTokens += o.DraftTokens
	c.AcceptedTokens += o.AcceptedTokens
	c.GenerationTokens += o.GenerationTokens
	for i, v := range o.AcceptedPerPosition {
		for len(c.AcceptedPerPosition) <= i {
			c.AcceptedPerPosition = append(c.AcceptedPerPosition, 0)
		}
		c.AcceptedPerPosition[i] += v
	}
}

// perModel sums the snapshots of each model over its engines, in model
// order; created is the earliest.
func perModel(ss []snap) []snap {
	var out []snap
	idx := map[string]int{}
	for _, x := range ss {
		i, ok := idx[x.model]
		if !ok {
			idx[x.model] = len(out)
			out = append(out, snap{model: x.model, created: x.created})
			i = len(out) - 1
		}
		addCounts(&out[i].c, x.c)
		out[i].running += x.running
		out[i].created = min(out[i].created, x.created)
	}
	return out
}

func ratioOr0(num, den int64) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// rustText writes the Rust prometheus-client crate's OpenMetrics text for
// vLLM's families (unverified in detail, docs/METRICS.md "vLLM's Rust
// front end"): HELP text with the crate's trailing ".", TYPE with the base
// name, counter samples with _total, integers, no _created, "# EOF".
func (s *Simulator) rustText() []byte {
	p := s.cfg.Prefix
	var b bytes.Buffer
	ss := s.snapshot()
	type sample struct {
		labels [][2]string
		v      int64
	}
	fam := func(name, help, typ string, value func(snap) []sample) {
		fmt.Fprintf(&b, "# HELP %s %s.\n# TYPE %s %s\n", name, escapeHelp(trimDot(help)), name, typ)
		sn := name
		if typ == "counter" {
			sn += "_total"
		}
		for _, x := range ss {
			for _, sm := range value(x) {
				writeRaw(&b, sn, sm.labels, strconv.FormatInt(sm.v, 10))
			}
		}
	}
	base := func(x snap) [][2]string { return [][2]string{{"model_name", x.model}, {"engine", x.engine}} }
	one := func(get func(snap) int64) func(snap) []sample {
		return func(x snap) []sample { return []sample{{base(x), get(x)}} }
	}
	fam(p+"num_requests_running", HelpRunning, "gauge", one(func(x snap) int64 { return int64(x.running) }))
	fam(p+"generation_tokens", HelpGeneration, "counter", one(func(x snap) int64 { return x.c.GenerationTokens }))
	fam(p+"spec_decode_num_drafts", HelpDrafts, "counter", one(func(x snap) int64 { return x.c.Drafts }))
	fam(p+"spec_decode_num_draft_tokens", HelpDraftTokens, "counter", one(func(x snap) int64 { return x.c.DraftTokens }))
	fam(p+"spec_decode_num_accepted_tokens", HelpAcceptedTokens, "counter", one(func(x snap) int64 { return x.c.AcceptedTokens }))
	fam(p+"spec_decode_num_accepted_tokens_per_pos", HelpAcceptedPerPos, "counter", func(x snap) []sample {
		var out []sample
		for i, v := range x.c.AcceptedPerPosition {
			out = append(out, sample{append(base(x), [2]string{"position", strconv.Itoa(i)}), v})
		}
		return out
	})
	b.WriteString("# EOF\n")
	return b.Bytes()
}

func trimDot(s string) string {
	if n := len(s); n > 0 && s[n-1] == '.' {
		return s[:n-1]
	}
	return s
}

// writeRaw writes one sample line with an already formatted value.
func writeRaw(b *bytes.Buffer, name string, labels [][2]string, v string) {
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l[0] + `="` + escapeLabelValue(l[1]) + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + v + "\n")
}

// HELP texts of llama.cpp's speculative-decoding counters (llama.cpp PR
// 26389, tools/server; docs/METRICS.md "llama.cpp server").
const (
	llamaHelpDrafts      = "Speculative: Total speculative decoding verification steps"
	llamaHelpDraftTokens = "Speculative: Total draft tokens generated"
	llamaHelpAccepted    = "Speculative: Total draft tokens accepted by the target model"
	llamaHelpPerPos      = "Accepted tokens per draft position"
)

// llamaCppText writes the llama.cpp server's /metrics: the whole server's
// counts (every simulated series summed), no labels.
func (s *Simulator) llamaCppText() []byte {
	var c Counts
	running := 0
	for _, x := range s.snapshot() {
		addCounts(&c, x.c)
		running += x.running
	}
	var b bytes.Buffer
	item := func(name, help, typ string, v int64) {
		fmt.Fprintf(&b, "# HELP llamacpp:%s %s\n# TYPE llamacpp:%s %s\nllamacpp:%s %d\n", name, help, name, typ, name, v)
	}
	item("tokens_predicted_total", "Number of generation tokens processed.", "counter", c.GenerationTokens)
	item("spec_decode_num_drafts_total", llamaHelpDrafts, "counter", c.Drafts)
	item("spec_decode_num_draft_tokens_total", llamaHelpDraftTokens, "counter", c.DraftTokens)
	item("spec_decode_num_accepted_tokens_total", llamaHelpAccepted, "counter", c.AcceptedTokens)
	item("requests_processing", "Number of requests processing.", "gauge", int64(running))
	if c.Drafts > 0 {
		n := "llamacpp:spec_decode_num_accepted_tokens_per_pos_total"
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", n, llamaHelpPerPos, n)
		for i, v := range c.AcceptedPerPosition {
			fmt.Fprintf(&b, "%s{position=\"%d\"} %d\n", n, i, v)
		}
	}
	return b.Bytes()
}

// trtllmText writes trtllm-serve's /prometheus/metrics (prometheus_client
// text): per model, engines summed. Per-position series exist only once
// they counted something (TensorRT-LLM creates a child at its first
// increment). Every draft drafts all k positions here (fixed-length
// drafting), so drafted at each position = drafts.
func (s *Simulator) trtllmText() []byte {
	running := family{name: "trtllm_num_requests_running", help: "Number of active requests"}
	gen := family{name: "trtllm_generation_tokens", help: "Cumulative number of generation (output) tokens produced.", counter: true}
	dtok := family{name: "trtllm_spec_decode_num_draft_tokens", help: "Total number of draft tokens in speculative decoding", counter: true}
	acc := family{name: "trtllm_spec_decode_num_accepted_tokens", help: "Total number of accepted tokens in speculative decoding", counter: true}
	alen := family{name: "trtllm_spec_decode_acceptance_length", help: "Acceptance length in speculative decoding"}
	dpos := family{name: "trtllm_spec_decode_drafted_tokens", help: "Total drafted tokens per speculative decoding position.", counter: true}
	apos := family{name: "trtllm_spec_decode_accepted_tokens", help: "Total accepted tokens per speculative decoding position.", counter: true}
	for _, x := range perModel(s.snapshot()) {
		ls := [][2]string{{"engine_type", "trtllm"}, {"model_name", x.model}}
		running.add(ls, float64(x.running))
		gen.addCounter(ls, float64(x.c.GenerationTokens), x.created)
		dtok.addCounter(ls, float64(x.c.DraftTokens), x.created)
		acc.addCounter(ls, float64(x.c.AcceptedTokens), x.created)
		alen.add(ls, 1+ratioOr0(x.c.AcceptedTokens, x.c.Drafts))
		for i, v := range x.c.AcceptedPerPosition {
			pls := [][2]string{ls[0], ls[1], {"token_position", strconv.Itoa(i)}}
			if x.c.Drafts > 0 {
				dpos.addCounter(pls, float64(x.c.Drafts), x.created)
			}
			if v > 0 {
				apos.addCounter(pls, float64(v), x.created)
			}
		}
	}
	var b bytes.Buffer
	for _, f := range []*family{&running, &gen, &dtok, &acc, &alen, &dpos, &apos} {
		f.write(&b)
	}
	return b.Bytes()
}

// sglangText writes SGLang's /metrics (prometheus_client text; names
// from python/sglang/srt/observability/metrics_collector.py): the
// scheduler's gauges per data-parallel rank (labels dp_rank = the engine,
// engine_type, model_name, pp_rank, tp_rank), the tokenizer's counters per
// model (engines summed; generation tokens with is_streaming).
func (s *Simulator) sglangText() []byte {
	running := family{name: "sglang:num_running_reqs", help: "The number of running requests."}
	alen := family{name: "sglang:spec_accept_length", help: "The average acceptance length of speculative decoding."}
	arate := family{name: "sglang:spec_accept_rate", help: "The average acceptance rate of speculative decoding (`accepted tokens / total draft tokens` in batch)."}
	gen := family{name: "sglang:generation_tokens", help: "Number of generation tokens processed.", counter: true}
	verify := family{name: "sglang:spec_verify_calls", help: "Number of speculative decoding verification calls.", counter: true}
	ss := s.snapshot()
	for _, x := range ss {
		ls := [][2]string{{"dp_rank", x.engine}, {"engine_type", "unified"}, {"model_name", x.model}, {"pp_rank", "0"}, {"tp_rank", "0"}}
		running.add(ls, float64(x.running))
		l := 0.0
		if x.c.Drafts > 0 {
			l = 1 + ratioOr0(x.c.AcceptedTokens, x.c.Drafts)
		}
		alen.add(ls, l)
		arate.add(ls, ratioOr0(x.c.AcceptedTokens, x.c.DraftTokens))
	}
	for _, x := range perModel(ss) {
		gen.addCounter([][2]string{{"is_streaming", "false"}, {"model_name", x.model}}, float64(x.c.GenerationTokens), x.created)
		verify.addCounter([][2]string{{"model_name", x.model}}, float64(x.c.Drafts), x.created)
	}
	var b bytes.Buffer
	for _, f := range []*family{&running, &alen, &arate, &gen, &verify} {
		f.write(&b)
	}
	return b.Bytes()
}

// lmdeployText writes LMDeploy's /metrics (lmdeploy/metrics/loggers.py,
// PrometheusStatLogger): prometheus_client text without _created
// (LMDeploy calls disable_created_metrics), labels engine and model_name,
// the per-position counter and gauge only after the first draft (their
// children are created at the first speculative step), and the lifetime
// ratio gauges.
func (s *Simulator) lmdeployText() []byte {
	p := s.cfg.Prefix
	running := family{name: p + "num_requests_running", help: HelpRunning}
	gen := family{name: p + "generation_tokens", help: HelpGeneration, counter: true}
	drafts := family{name: p + "spec_decode_num_drafts", help: "Number of speculative decoding drafts.", counter: true}
	dtok := family{name: p + "spec_decode_num_draft_tokens", help: "Number of speculative decoding draft tokens.", counter: true}
	acc := family{name: p + "spec_decode_num_accepted_tokens", help: "Number of speculative decoding accepted tokens.", counter: true}
	pos := family{name: p + "spec_decode_num_accepted_tokens_per_pos", help: "Number of accepted speculative decoding tokens per draft position.", counter: true}
	rate := family{name: p + "spec_decode_mean_accept_rate", help: "Mean speculative decoding acceptance rate. 1 means 100 percent accepted."}
	length := family{name: p + "spec_decode_mean_accept_length", help: "Mean speculative decoding acceptance length, including the bonus token."}
	for _, x := range s.snapshot() {
		ls := [][2]string{{"engine", x.engine}, {"model_name", x.model}}
		running.add(ls, float64(x.running))
		gen.add(ls, float64(x.c.GenerationTokens))
		drafts.add(ls, float64(x.c.Drafts))
		dtok.add(ls, float64(x.c.DraftTokens))
		acc.add(ls, float64(x.c.AcceptedTokens))
		rate.add(ls, ratioOr0(x.c.AcceptedTokens, x.c.DraftTokens))
		length.add(ls, 1+ratioOr0(x.c.AcceptedTokens, x.c.Drafts))
		if x.c.Drafts > 0 {
			for i, v := range x.c.AcceptedPerPosition {
				pos.add([][2]string{ls[0], ls[1], {"position", strconv.Itoa(i)}}, float64(v))
			}
		}
	}
	var b bytes.Buffer
	for _, f := range []*family{&running, &gen, &drafts, &dtok, &acc, &pos, &rate, &length} {
		f.write(&b)
	}
	return b.Bytes()
}
