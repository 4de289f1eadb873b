package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"specdash/embedded"
	"specdash/internal/promtest"
)

// TestReadyWaitsForDefaultSource: with Config.Ready unset (as in `specdash
// serve`), /-/ready answers 503 until the default source has answered once,
// with a message that says why without the upstream's address; a real
// Prometheus started later makes it ready, and it stays ready when that
// Prometheus stops again. /-/healthy is 200 throughout. An embedded source
// is ready once its engine is open; a default source answering 5xx is not.
func TestReadyWaitsForDefaultSource(t *testing.T) {
	get := func(base, path string) (int, string) {
		t.Helper()
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	prom := promtest.Start(t, promtest.Options{})
	prom.Stop()
	// The default source is the stopped Prometheus; another source is up
	// (a named source's answers do not make the default ready).
	up := newRecorder(t, nil)
	s := newServer(t, Config{DefaultSource: "main", Sources: []Source{
		{Name: "other", URL: up.srv.URL},
		{Name: "main", URL: prom.URL},
	}})
	for range 2 {
		code, body := get(s.URL, "/-/ready")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "default source main has not answered yet") ||
			!strings.Contains(body, "connection refused") || strings.Contains(body, prom.Addr) {
			t.Errorf("/-/ready with the default source stopped: %d %q; want 503 naming the source and the reason, not its address %s", code, body, prom.Addr)
		}
	}
	if code, _ := get(s.URL, "/prom/s/other/api/v1/query?query=1"); code != 200 {
		t.Fatalf("query to the other source: %d", code)
	}
	if code, _ := get(s.URL, "/-/ready"); code != http.StatusServiceUnavailable {
		t.Errorf("/-/ready after only another source answered: %d, want 503", code)
	}
	if code, _ := get(s.URL, "/-/healthy"); code != 200 {
		t.Errorf("/-/healthy while the source is down: %d, want 200", code)
	}

	prom.Restart(t)
	if code, body := get(s.URL, "/-/ready"); code != 200 || !strings.Contains(body, "Ready") {
		t.Errorf("/-/ready with the default source up: %d %q, want 200", code, body)
	}
	prom.Stop()
	if code, body := get(s.URL, "/-/ready"); code != 200 {
		t.Errorf("/-/ready after the default source answered once, then stopped: %d %q, want 200 (ready stays)", code, body)
	}

	// A viewer's query that succeeds makes the server ready without a probe.
	prom.Restart(t)
	s2 := newServer(t, Config{PrometheusURL: prom.URL})
	if code, _ := get(s2.URL, "/prom/api/v1/query?query=up"); code != 200 {
		t.Fatalf("query through the proxy: %d", code)
	}
	prom.Stop()
	if code, body := get(s2.URL, "/-/ready"); code != 200 {
		t.Errorf("/-/ready after a viewer's query succeeded: %d %q, want 200", code, body)
	}

	// An upstream that answers 5xx is not ready.
	broken := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"status":"error","errorType":"unavailable","error":"starting"}`)
	})
	s3 := newServer(t, Config{PrometheusURL: broken.srv.URL})
	if code, body := get(s3.URL, "/-/ready"); code != 503 || !strings.Contains(body, "HTTP 503") {
		t.Errorf("/-/ready with the default source answering 503: %d %q, want 503 naming HTTP 503", code, body)
	}

	// Embedded: ready once the engine is open.
	e, err := embedded.New(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s4 := newServer(t, Config{Sources: []Source{{Name: "embedded", Handler: e.Handler(), ScrapeInterval: e.ScrapeInterval()}}})
	if code, body := get(s4.URL, "/-/ready"); code != 200 {
		t.Errorf("/-/ready with an open embedded engine: %d %q, want 200", code, body)
	}
}
