package server

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"specdash/internal/panics"
)

// panicTransport is an upstream transport that panics (a bug in a
// transport or in what it calls: a real upstream cannot make the proxy
// panic).
type panicTransport struct{}

func (panicTransport) RoundTrip(*http.Request) (*http.Response, error) { panic("transport bug") }

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestPanicInHandler: a panicking handler answers 500, is counted in
// /metrics, and the server serves the next request.
func TestPanicInHandler(t *testing.T) {
	httpBefore := testutil.ToFloat64(panics.Total.WithLabelValues("http"))
	proxyBefore := testutil.ToFloat64(panics.Total.WithLabelValues("proxy"))
	reg := prometheus.NewRegistry()
	rec := newRecorder(t, nil)
	s := newServer(t, Config{
		Sources: []Source{
			{Name: "ok", URL: rec.srv.URL},
			{Name: "buggy", URL: rec.srv.URL, Transport: panicTransport{}},
		},
		Registry: reg,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		// /-/ready runs this in the request's handler.
		Ready: func() error { panic("readiness bug") },
	})

	code, hdr, body := get(t, s.URL+"/-/ready")
	if code != 500 || !strings.Contains(body, "internal error while answering /-/ready") {
		t.Errorf("panicking /-/ready: %d %q, want 500 saying internal error", code, body)
	}
	if hdr.Get("Content-Security-Policy") != PageCSP || hdr.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("panic answer lacks the security headers: %v", hdr)
	}
	if got := testutil.ToFloat64(panics.Total.WithLabelValues("http")) - httpBefore; got != 1 {
		t.Errorf("specdash_panics_total{where=http} rose by %v, want 1", got)
	}
	if got := counterValue(t, reg, "specdash_panics_total", map[string]string{"where": "http"}); got != httpBefore+1 {
		t.Errorf("/metrics registry: specdash_panics_total{where=http} = %v, want %v", got, httpBefore+1)
	}

	// The proxy's fetch runs in singleflight's goroutine, where a panic
	// would end the process: it becomes a 502 API error.
	code, hdr, body = get(t, s.URL+SourcePrefix("buggy")+"/api/v1/query?query=up")
	if code != 502 || hdr.Get("Content-Type") != "application/json" || !strings.Contains(body, `"error":"specdash proxy: source buggy: internal error while asking the source (logged on the server)"`) {
		t.Errorf("panicking transport: %d %s %q, want a 502 API error", code, hdr.Get("Content-Type"), body)
	}
	if got := testutil.ToFloat64(panics.Total.WithLabelValues("proxy")) - proxyBefore; got != 1 {
		t.Errorf("specdash_panics_total{where=proxy} rose by %v, want 1", got)
	}

	// Still serving.
	if code, _, body := get(t, s.URL+SourcePrefix("ok")+"/api/v1/query?query=up"); code != 200 || !strings.Contains(body, `"status":"success"`) {
		t.Errorf("after the panics: %d %q, want the upstream's answer", code, body)
	}
	code, _, body = get(t, s.URL+"/metrics")
	if code != 200 || !strings.Contains(body, `specdash_panics_total{where="http"}`) {
		t.Errorf("/metrics: %d, lacks specdash_panics_total{where=\"http\"}", code)
	}
}

// TestRecoverGuardFormats: under /prom the 500 is a Prometheus API error;
// a panic after the answer started drops the connection (no truncated
// answer that looks whole); http.ErrAbortHandler is not counted.
func TestRecoverGuardFormats(t *testing.T) {
	before := testutil.ToFloat64(panics.Total.WithLabelValues("http"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mux := http.NewServeMux()
	mux.HandleFunc("/prom/api/v1/query", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip") // set before the panic: must not stay
		var m map[string]int
		m["x"] = 1 // nil map: a real runtime panic
	})
	mux.HandleFunc("/late", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, "partial")
		http.NewResponseController(w).Flush()
		panic("late")
	})
	mux.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	mux.HandleFunc("/fine", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fine") })
	s := httptest.NewServer(securityHeaders(recoverGuard(log, mux)))
	defer s.Close()

	code, hdr, body := get(t, s.URL+"/prom/api/v1/query?query=up")
	if code != 500 || hdr.Get("Content-Type") != "application/json" || hdr.Get("Content-Encoding") != "" ||
		body != `{"status":"error","errorType":"internal","error":"specdash proxy: internal error while answering /prom/api/v1/query (logged on the server)"}` {
		t.Errorf("/prom panic: %d %v %q", code, hdr, body)
	}
	checkProxyHeaders(t, "/prom panic", hdr)

	resp, err := http.Get(s.URL + "/late")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("panic after the answer started: read error %v, want the connection dropped", err)
	}
	if resp, err := http.Get(s.URL + "/abort"); err == nil {
		resp.Body.Close()
		t.Errorf("http.ErrAbortHandler: got an answer %d, want the connection dropped", resp.StatusCode)
	}
	if code, _, body := get(t, s.URL+"/fine"); code != 200 || body != "fine" {
		t.Errorf("after the panics: %d %q", code, body)
	}
	if got := testutil.ToFloat64(panics.Total.WithLabelValues("http")) - before; got != 2 {
		t.Errorf("specdash_panics_total{where=http} rose by %v, want 2 (the abort is not a bug)", got)
	}
}
