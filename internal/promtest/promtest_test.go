package promtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// backfillText holds three samples of one counter, 15 s apart, in the past
// (2025-06-01T00:00:00Z = 1748736000), including an exponent-form value and
// a label value with a space and escaped quotes.
const backfillText = `# HELP demo_requests Demo counter.
# TYPE demo_requests counter
demo_requests_total{model_name="Llama 3 \"chat\" 8B"} 1.0 1748736000
demo_requests_total{model_name="Llama 3 \"chat\" 8B"} 2.5 1748736015
demo_requests_total{model_name="Llama 3 \"chat\" 8B"} 6.491797e+06 1748736030
# EOF
`

func TestBackfillAndQuery(t *testing.T) {
	dir := Backfill(t, backfillText)
	s := Start(t, Options{DataDir: dir})
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want loopback", s.URL)
	}
	base := time.Unix(1748736000, 0)
	for _, c := range []struct {
		off  int64
		want float64
	}{{0, 1}, {15, 2.5}, {30, 6491797}, {20, 2.5}} {
		vec := s.QueryVector(t, `demo_requests_total`, base.Add(time.Duration(c.off)*time.Second))
		if len(vec) != 1 {
			t.Fatalf("at +%ds: got %d samples, want 1: %v", c.off, len(vec), vec)
		}
		if got := float64(vec[0].Value); got != c.want {
			t.Errorf("at +%ds: value %v, want %v", c.off, got, c.want)
		}
		if got := vec[0].Metric["model_name"]; got != `Llama 3 "chat" 8B` {
			t.Errorf("model_name = %q", got)
		}
	}
	// A raw range selector returns every stored sample unchanged.
	m, ok := s.Query(t, `demo_requests_total[1m]`, base.Add(30*time.Second)).(model.Matrix)
	if !ok || len(m) != 1 || len(m[0].Values) != 3 {
		t.Fatalf("range selector: %v", m)
	}
	if m[0].Values[0].Timestamp != model.TimeFromUnix(1748736000) || m[0].Values[2].Value != 6491797 {
		t.Errorf("raw samples: %v", m[0].Values)
	}

	// Restart: same address, same data.
	addr := s.Addr
	s.Restart(t)
	if s.Addr != addr {
		t.Fatalf("restart moved from %s to %s", addr, s.Addr)
	}
	vec := s.QueryVector(t, `demo_requests_total`, base.Add(15*time.Second))
	if len(vec) != 1 || float64(vec[0].Value) != 2.5 {
		t.Fatalf("after restart: %v", vec)
	}
}

func TestScrapeTarget(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"b\"} 42.0\n")
	})}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Shutdown(context.Background()) })

	s := Start(t, Options{Targets: []string{l.Addr().String()}, ScrapeInterval: 500 * time.Millisecond})
	vec := s.WaitFor(t, `x_total{job="vllm"}`, nil, 2*time.Minute)
	if len(vec) != 1 || vec[0].Value != 42 || vec[0].Metric["a"] != "b" {
		t.Fatalf("scraped: %v", vec)
	}
	if got := string(vec[0].Metric["instance"]); got != l.Addr().String() {
		t.Errorf("instance = %q, want %q", got, l.Addr().String())
	}
}

func TestConfigYAML(t *testing.T) {
	got := configYAML(Options{Targets: []string{"127.0.0.1:9400"}, ScrapeInterval: 2 * time.Second})
	want := `global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: vllm
    metrics_path: /metrics
    honor_labels: false
    static_configs:
      - targets:
          - "127.0.0.1:9400"
`
	if got != want {
		t.Errorf("config:\n%s\nwant:\n%s", got, want)
	}
}
