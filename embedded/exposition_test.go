package embedded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"specdash/metricsclient"
	"specdash/report"
	"specdash/simulate"
)

// rawModel needs quoting in the exposition and in PromQL.
const rawModel = `Llama 3 "chat" 8B`

// rawVLLM is vLLM V1 exposition as prometheus_client writes it (text 0.0.4):
// counters with _total, `_created` as separate gauge families, exponent
// notation, and sample timestamps (ms). Phase A, then phase B with +1000
// drafts, +3000 draft tokens, +1500 accepted, per position +[700, 500, 300].
func rawVLLM(phaseB bool, tsMillis int64) string {
	m := `engine="0",model_name="Llama 3 \"chat\" 8B"`
	drafts, draftTok, acc := "2.163933e+06", "6.491797e+06", "4.1e+06"
	pos := []string{"1.8e+06", "1.4e+06", "900000.0"}
	if phaseB {
		drafts, draftTok, acc = "2.164933e+06", "6.494797e+06", "4.1015e+06"
		pos = []string{"1.8007e+06", "1.4005e+06", "900300.0"}
	}
	var b strings.Builder
	fam := func(name, help, typ string, lines ...string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, l := range lines {
			fmt.Fprintf(&b, "%s %d\n", l, tsMillis)
		}
	}
	created := "1.7487300005e+09"
	for _, f := range []struct{ name, help, val string }{
		{"vllm:spec_decode_num_drafts", simulate.HelpDrafts, drafts},
		{"vllm:spec_decode_num_draft_tokens", simulate.HelpDraftTokens, draftTok},
		{"vllm:spec_decode_num_accepted_tokens", simulate.HelpAcceptedTokens, acc},
	} {
		fam(f.name+"_total", f.help, "counter", fmt.Sprintf("%s_total{%s} %s", f.name, m, f.val))
		fam(f.name+"_created", f.help, "gauge", fmt.Sprintf("%s_created{%s} %s", f.name, m, created))
	}
	var lines, clines []string
	for i, v := range pos {
		lines = append(lines, fmt.Sprintf(`vllm:spec_decode_num_accepted_tokens_per_pos_total{%s,position="%d"} %s`, m, i, v))
		clines = append(clines, fmt.Sprintf(`vllm:spec_decode_num_accepted_tokens_per_pos_created{%s,position="%d"} %s`, m, i, created))
	}
	fam("vllm:spec_decode_num_accepted_tokens_per_pos_total", simulate.HelpAcceptedPerPos, "counter", lines...)
	fam("vllm:spec_decode_num_accepted_tokens_per_pos_created", simulate.HelpAcceptedPerPos, "gauge", clines...)
	fam("vllm:num_requests_running", simulate.HelpRunning, "gauge", fmt.Sprintf(`vllm:num_requests_running{engine="0",model_name="Llama 3 \"chat\" 8B"} 3.0`))
	return b.String()
}

// rawTarget serves rawVLLM; Switch moves it to phase B with a new
// timestamp.
type rawTarget struct {
	mu     sync.Mutex
	phaseB bool
	ts     int64
}

func (r *rawTarget) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	r.mu.Lock()
	body := rawVLLM(r.phaseB, r.ts)
	r.mu.Unlock()
	w.Header().Set("Content-Type", simulate.ContentType)
	_, _ = w.Write([]byte(body))
}

// TestRawVLLMExposition: exposition text written by hand in vLLM's form
// gives the right values, timestamps and report numbers.
func TestRawVLLMExposition(t *testing.T) {
	tsA := time.Now().Add(-time.Second).UnixMilli()
	rt := &rawTarget{ts: tsA}
	hs := httptest.NewServer(rt)
	defer hs.Close()
	began := time.Now()
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second})

	sel := `{model_name="Llama 3 \"chat\" 8B"}`
	waitFor(t, e.API, `vllm:spec_decode_num_draft_tokens_total`+sel, equals(6491797), 2*time.Minute)
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_created`+sel, equals(1748730000.5), 2*time.Minute)
	waitFor(t, e.API, `vllm:spec_decode_num_accepted_tokens_per_pos_total{position="2"}`, equals(900000), 2*time.Minute)
	// The exposed timestamp is kept (honor_timestamps).
	waitFor(t, e.API, `timestamp(vllm:spec_decode_num_drafts_total)`, equals(float64(tsA)/1000), 2*time.Minute)

	tsB := time.Now().UnixMilli()
	rt.mu.Lock()
	rt.phaseB, rt.ts = true, tsB
	rt.mu.Unlock()
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total`, equals(2164933), 2*time.Minute)
	waitFor(t, e.API, `timestamp(vllm:spec_decode_num_drafts_total)`, equals(float64(tsB)/1000), 2*time.Minute)

	end := time.Now().Add(2 * time.Second)
	res, err := report.Build(context.Background(), client(t, e.URL, time.Second),
		report.Options{Range: end.Sub(began) + 10*time.Second, End: end, GroupBy: []string{"model_name"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.Groups[0].Labels["model_name"] != rawModel {
		t.Fatalf("groups %+v, want one for %q", res.Groups, rawModel)
	}
	// The series start inside the window: phase A is the base.
	want := simulate.Counts{Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 1500, AcceptedPerPosition: []int64{700, 500, 300}}
	checkCounts(t, "raw exposition", res.Total, want, res.CoveredSeconds)
	if res.Total.MeanAcceptanceLength.V != 2.5 || res.Total.AcceptanceRate.V != 0.5 {
		t.Errorf("mean acceptance length %v, rate %v, want 2.5 and 0.5", res.Total.MeanAcceptanceLength, res.Total.AcceptanceRate)
	}
}

// TestNoSpecDecodeMetrics: a vLLM without speculative decoding exposes no
// spec_decode families; report.Build says so (MissingMetricsError) rather
// than returning empty numbers.
func TestNoSpecDecodeMetrics(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", simulate.ContentType)
		fmt.Fprintf(w, "# HELP vllm:num_requests_running %s\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1.0\n", simulate.HelpRunning)
	}))
	defer hs.Close()
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second})
	waitFor(t, e.API, `vllm:num_requests_running`, nonEmpty, 2*time.Minute)
	_, err := report.Build(context.Background(), client(t, e.URL, time.Second), report.Options{Range: time.Minute})
	var missing *metricsclient.MissingMetricsError
	if !errors.As(err, &missing) {
		t.Fatalf("report.Build: %v (%T), want *metricsclient.MissingMetricsError", err, err)
	}
}
