package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/common/expfmt"
)

// ContentType is the Content-Type of /metrics: Prometheus text format 0.0.4,
// as prometheus_client's CONTENT_TYPE_LATEST.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// HELP texts of the families written, from vLLM V1
// (vllm/v1/spec_decode/metrics.py, vllm/v1/metrics/loggers.py).
const (
	HelpDrafts         = "Number of spec decoding drafts."
	HelpDraftTokens    = "Number of draft tokens."
	HelpAcceptedTokens = "Number of accepted tokens."
	HelpAcceptedPerPos = "Accepted tokens per draft position."
	HelpRunning        = "Number of requests in model execution batches."
	HelpWaiting        = "Number of requests waiting to be processed."
	HelpGeneration     = "Number of generation tokens processed."
	helpMultiprocess   = "Multiprocess metric"
)

type sample struct {
	labels [][2]string // sorted by label name
	value  float64
}

type family struct {
	name    string // without _total
	help    string
	counter bool
	samples []sample  // values
	created []float64 // _created values, parallel to samples (counters only)
}

// WriteMetrics writes the current state in Config.Format (see Format); for
// the default FormatVLLM in the exact bytes Python's
// prometheus_client generate_latest (text format 0.0.4) writes for vLLM V1:
// per family "# HELP", "# TYPE", the samples (counters with "_total"), and
// for counters a separate "<name>_created" family of TYPE gauge holding the
// Unix creation time in seconds. Labels are sorted by name (engine,
// model_name, position) and escaped; values are formatted by
// FloatToGoString. Series are in creation order: models in Config order,
// engines, positions. Families: num_requests_running, num_requests_waiting
// (gauges), generation_tokens, spec_decode_num_drafts,
// spec_decode_num_draft_tokens, spec_decode_num_accepted_tokens,
// spec_decode_num_accepted_tokens_per_pos (counters), each with
// Config.Prefix.
func (s *Simulator) WriteMetrics(w io.Writer) error {
	_, err := w.Write(s.exposition())
	return err
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

func (s *Simulator) metricsText() []byte {
	s.mu.Lock()
	p := s.cfg.Prefix
	running := family{name: p + "num_requests_running", help: HelpRunning}
	waiting := family{name: p + "num_requests_waiting", help: HelpWaiting}
	gen := family{name: p + "generation_tokens", help: HelpGeneration, counter: true}
	drafts := family{name: p + "spec_decode_num_drafts", help: HelpDrafts, counter: true}
	dtok := family{name: p + "spec_decode_num_draft_tokens", help: HelpDraftTokens, counter: true}
	acc := family{name: p + "spec_decode_num_accepted_tokens", help: HelpAcceptedTokens, counter: true}
	pos := family{name: p + "spec_decode_num_accepted_tokens_per_pos", help: HelpAcceptedPerPos, counter: true}
	for _, sr := range s.series {
		ls := [][2]string{{"engine", sr.engine}, {"model_name", sr.model}}
		cr := unixSeconds(sr.created)
		c := sr.exposed
		running.add(ls, float64(sr.running))
		waiting.add(ls, 0)
		gen.addCounter(ls, float64(c.GenerationTokens), cr)
		drafts.addCounter(ls, float64(c.Drafts), cr)
		dtok.addCounter(ls, float64(c.DraftTokens), cr)
		acc.addCounter(ls, float64(c.AcceptedTokens), cr)
		for i, v := range c.AcceptedPerPosition {
			pls := [][2]string{ls[0], ls[1], {"position", strconv.Itoa(i)}}
			pos.addCounter(pls, float64(v), cr)
		}
	}
	multi := s.cfg.Multiprocess
	s.mu.Unlock()

	var b bytes.Buffer
	for _, f := range []*family{&running, &waiting, &gen, &drafts, &dtok, &acc, &pos} {
		if multi {
			f.help = helpMultiprocess
			f.created = nil
		}
		f.write(&b)
	}
	return b.Bytes()
}

func (f *family) add(ls [][2]string, v float64) {
	f.samples = append(f.samples, sample{labels: ls, value: v})
}

func (f *family) addCounter(ls [][2]string, v, created float64) {
	f.add(ls, v)
	f.created = append(f.created, created)
}

func (f *family) write(b *bytes.Buffer) {
	name, typ := f.name, "gauge"
	if f.counter {
		name, typ = f.name+"_total", "counter"
	}
	help := escapeHelp(f.help)
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	for _, sm := range f.samples {
		writeSample(b, name, sm.labels, sm.value)
	}
	if len(f.created) == 0 {
		return
	}
	cname := f.name + "_created"
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n", cname, help, cname)
	for i, sm := range f.samples {
		writeSample(b, cname, sm.labels, f.created[i])
	}
}

func writeSample(b *bytes.Buffer, name string, labels [][2]string, v float64) {
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l[0])
			b.WriteString(`="`)
			b.WriteString(escapeLabelValue(l[1]))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(FloatToGoString(v))
	b.WriteByte('\n')
}

// ServeHTTP serves:
//   - GET /metrics (/prometheus/metrics for FormatTRTLLM): WriteMetrics,
//     Content-Type Config.Format's ContentType; with
//     Config.NativeHistograms the protobuf exposition to a scraper that
//     negotiates it;
//   - GET /truth: Truth as JSON (times in RFC 3339);
//   - POST /control/pause, POST /control/resume: Pause, Resume;
//   - POST /control/reset?model=NAME&engine=ID: ResetCounters (engine
//     optional: all engines of the model); 404 with the error for an
//     unknown model or engine;
//   - POST /control/pattern?mode=PATTERN&model=NAME: SetPattern (see
//     ParsePattern; model optional: every model); 400 with the error.
//
// Other paths get 404; other methods 405.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	post := r.Method == http.MethodPost
	switch r.URL.Path {
	case "/metrics", "/prometheus/metrics":
		if r.URL.Path != s.cfg.Format.MetricsPath() {
			http.Error(w, "not found: this simulator ("+string(s.cfg.Format)+") serves its metrics at "+s.cfg.Format.MetricsPath(), http.StatusNotFound)
			return
		}
		if !get {
			methodNotAllowed(w, "GET")
			return
		}
		if s.cfg.NativeHistograms && s.cfg.Latency && s.cfg.Format == FormatVLLM && wantsProtobuf(r) {
			body, err := s.protobufExposition()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Type", s.cfg.Format.ContentType())
		_, _ = w.Write(s.exposition())
	case "/truth":
		if !get {
			methodNotAllowed(w, "GET")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s.Truth())
	case "/control/pattern":
		s.servePattern(w, r)
	case "/control/pause", "/control/resume", "/control/reset":
		if !post {
			methodNotAllowed(w, "POST")
			return
		}
		switch r.URL.Path {
		case "/control/pause":
			s.Pause()
		case "/control/resume":
			s.Resume()
		default:
			q := r.URL.Query()
			if err := s.ResetCounters(q.Get("model"), q.Get("engine")); err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
		}
		_, _ = io.WriteString(w, "ok\n")
	default:
		http.Error(w, "not found: this vLLM simulator serves /metrics, /truth, POST /control/{pause,resume,reset,pattern}", http.StatusNotFound)
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed; use "+allow, http.StatusMethodNotAllowed)
}
