package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Upstream answers a real Prometheus never gives: a source that is not
// Prometheus (a web page, an image), a broken one, a hostile one. The
// proxy must pass only Prometheus API JSON and answer everything else as
// an API error that names the source.

const hostileHTML = `<!doctype html><html><body><script>window.pwned=1;fetch("/prom/s/good/api/v1/query?query=secret")</script></body></html>`

const hostileSVG = `<svg xmlns="http://www.w3.org/2000/svg"><script>window.pwned=1</script></svg>`

// checkProxyHeaders checks what every /prom answer carries.
func checkProxyHeaders(t *testing.T, name string, h http.Header) {
	t.Helper()
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", name, got)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q, want nosniff", name, got)
	}
	if got := h.Get("Content-Security-Policy"); got != ProxyCSP || !strings.HasPrefix(got, "sandbox; default-src 'none'") {
		t.Errorf("%s: Content-Security-Policy %q, want %q", name, got, ProxyCSP)
	}
	if got := h.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("%s: X-Frame-Options %q, want DENY", name, got)
	}
}

// apiError decodes a Prometheus API error body.
func apiError(t *testing.T, name string, body []byte) (errorType, msg string) {
	t.Helper()
	var e struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Status != "error" || e.ErrorType == "" {
		t.Errorf("%s: body %.200q is not a Prometheus API error (%v)", name, body, err)
	}
	return e.ErrorType, e.Error
}

func TestProxyRefusesNonAPIAnswers(t *testing.T) {
	bigJSON := func(w http.ResponseWriter) {
		// 50 MB of a JSON answer, over the default 32 MiB limit.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[`)
		chunk := []byte(strings.Repeat(`{"metric":{"a":"b"},"values":[[1,"1"]]},`, 1000))
		for n := 0; n < 50<<20; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the proxy stopped reading at its limit
			}
		}
		io.WriteString(w, `{}]}}`)
	}
	cases := []struct {
		name   string
		reply  func(w http.ResponseWriter, r *http.Request)
		status int
		etype  string
		want   string
	}{
		{"html-script", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, hostileHTML)
		}, 502, "bad_response", fmt.Sprintf("source hostile answered 200 text/html (%d bytes) where the Prometheus API answers JSON", len(hostileHTML))},
		{"svg-script", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			io.WriteString(w, hostileSVG)
		}, 502, "bad_response", fmt.Sprintf("source hostile answered 200 image/svg+xml (%d bytes) where the Prometheus API answers JSON", len(hostileSVG))},
		{"no-content-type-html", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil // no sniffing by net/http either
			io.WriteString(w, hostileHTML)
		}, 502, "bad_response", fmt.Sprintf("source hostile answered 200 no content type (%d bytes) where", len(hostileHTML))},
		{"text", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "up 1\n")
		}, 502, "bad_response", "source hostile answered 200 text/plain (5 bytes) where the Prometheus API answers JSON"},
		{"json-array", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `["<script>window.pwned=1</script>"]`)
		}, 502, "bad_response", "source hostile answered 200 application/json (35 bytes) that is not a Prometheus API answer: a JSON array instead of an object"},
		{"json-scalar", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `42`)
		}, 502, "bad_response", "not a Prometheus API answer: a JSON number instead of an object"},
		{"json-no-status", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{"resultType":"vector","result":[]}}`)
		}, 502, "bad_response", `not a Prometheus API answer: no "status"`},
		{"json-error-without-type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			io.WriteString(w, `{"status":"error","message":"boom"}`)
		}, 502, "bad_response", `status "error" without "errorType" and "error"`},
		{"invalid-json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":"success","data":{"resultType":"vector","result":[}<script>`)
		}, 502, "bad_response", "not a Prometheus API answer: invalid JSON"},
		{"html-error-page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(503)
			io.WriteString(w, "<html>upstream 10.1.2.3:9090 down<script>window.pwned=1</script></html>")
		}, 503, "bad_response", "source hostile answered HTTP 503 Service Unavailable without an API error body"},
		{"50MB", func(w http.ResponseWriter, r *http.Request) { bigJSON(w) },
			502, "bad_response", "source hostile: Prometheus' answer is larger than the proxy's limit of 32 MiB"},
		{"slow-trickle", func(w http.ResponseWriter, r *http.Request) {
			// A valid start, then a byte now and then, never finishing:
			// the proxy's deadline (1 s here) ends it.
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":"success","data":{"resultType":"vector","result":[`)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				http.NewResponseController(w).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					io.WriteString(w, " ")
				}
			}
		}, 504, "timeout", "source hostile: Prometheus did not answer in time"},
	}
	good := newRecorder(t, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hostile := newRecorder(t, c.reply)
			reg := prometheus.NewRegistry()
			// The proxy's upstream timeout: a minute, so that no answer but
			// the endless trickle's depends on the machine's speed.
			timeout := time.Minute
			if c.name == "slow-trickle" {
				timeout = time.Second
			}
			s := newServer(t, Config{
				Sources: []Source{
					{Name: "good", URL: good.srv.URL},
					{Name: "hostile", URL: hostile.srv.URL},
				},
				UpstreamTimeout: timeout,
				Registry:        reg,
				CacheTTL:        time.Hour,
			})
			for i := range 2 { // the second must go upstream again: refusals are not cached
				resp, err := http.Get(s.URL + SourcePrefix("hostile") + "/api/v1/query?query=up")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.status {
					t.Errorf("status %d, want %d (%.200q)", resp.StatusCode, c.status, body)
				}
				checkProxyHeaders(t, c.name, resp.Header)
				etype, msg := apiError(t, c.name, body)
				if etype != c.etype || !strings.HasPrefix(msg, "specdash proxy: ") || !strings.Contains(msg, c.want) {
					t.Errorf("request %d: error %s %q, want %s saying %q", i, etype, msg, c.etype, c.want)
				}
				for _, leak := range []string{"<script", "pwned", "10.1.2.3", strings.TrimPrefix(hostile.srv.URL, "http://")} {
					if bytes.Contains(body, []byte(leak)) {
						t.Errorf("answer %.200q quotes the upstream (%s)", body, leak)
					}
				}
			}
			if n := len(hostile.requests()); n != 2 {
				t.Errorf("upstream asked %d times for 2 requests, want 2 (a refused answer is never cached)", n)
			}
			if got := counterValue(t, reg, "specdash_upstream_requests_total", map[string]string{"source": "hostile", "result": "error"}); got != 2 {
				t.Errorf("specdash_upstream_requests_total{source=hostile,result=error} = %v, want 2", got)
			}
		})
	}
}

// TestProxyPassesAPIAnswers: what Prometheus and its look-alikes send
// passes unchanged (status first or not, a charset, an API error with its
// status), and a valid answer is still cached.
func TestProxyPassesAPIAnswers(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		status            int
		cached            bool
	}{
		{"prometheus", "application/json", `{"status":"success","data":{"resultType":"vector","result":[]}}`, 200, true},
		{"charset", "application/json; charset=utf-8", `{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}`, 200, true},
		{"victoriametrics", "application/json", `{"status":"success","isPartial":false,"data":{"resultType":"vector","result":[]},"stats":{"seriesFetched":"0"}}`, 200, true},
		{"status-last", "application/json", `{"data":["a","b"],"warnings":["w"],"status":"success"}`, 200, true},
		{"bad-data", "application/json", `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": parse error"}`, 400, false},
		{"unavailable", "application/json", `{"status":"error","errorType":"unavailable","error":"TSDB not ready"}`, 503, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			})
			s := newServer(t, Config{PrometheusURL: up.srv.URL, CacheTTL: time.Hour})
			for range 2 {
				resp, err := http.Get(s.URL + "/prom/api/v1/labels")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.status || string(body) != c.body || resp.Header.Get("Content-Type") != c.ctype {
					t.Errorf("got %d %s %q, want %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status, c.ctype, c.body)
				}
				checkProxyHeaders(t, c.name, resp.Header)
			}
			want := 2
			if c.cached {
				want = 1
			}
			if n := len(up.requests()); n != want {
				t.Errorf("upstream asked %d times for 2 identical requests, want %d", n, want)
			}
		})
	}
}

// TestProxyOwnErrorsAreAPIErrors: the proxy's own refusals (path, method)
// are API errors with the same headers.
func TestProxyOwnErrorsAreAPIErrors(t *testing.T) {
	rec := newRecorder(t, nil)
	h, err := New(Config{PrometheusURL: rec.srv.URL, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		status       int
		etype, want  string
	}{
		{"GET", "/prom/api/v1/admin/tsdb/snapshot", 404, "not_found", "only the read-only query API is proxied"},
		{"GET", "/prom/s/nope/api/v1/query", 404, "not_found", "no such source"},
		{"DELETE", "/prom/api/v1/query", 405, "bad_data", "method not allowed"},
		{"GET", "/prom/api/v1/%71uery", 400, "bad_data", "escaped characters"},
	} {
		w := do(t, h, c.method, c.path, nil, nil)
		name := c.method + " " + c.path
		if w.Code != c.status {
			t.Errorf("%s: status %d, want %d", name, w.Code, c.status)
		}
		checkProxyHeaders(t, name, w.Header())
		if etype, msg := apiError(t, name, w.Body.Bytes()); etype != c.etype || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %s %q, want %s saying %q", name, etype, msg, c.etype, c.want)
		}
	}
}

func TestAPIShape(t *testing.T) {
	for body, want := range map[string]string{
		`{"status":"success","data":null}`:               "",
		` {"status":"success","data":{}} `:               "",
		`{"status":"error","errorType":"x","error":"y"}`: "",
		`{"status":"success"}`:                           `status "success" without "data"`,
		`{"status":1,"data":{}}`:                         `"status" is not a string`,
		`{"status":"weird","data":{}}`:                   `status "weird" (want success or error)`,
		`null`:                                           "a JSON null instead of an object",
		`"<svg>"`:                                        "a JSON string instead of an object",
		`true`:                                           "a JSON boolean instead of an object",
		``:                                               "invalid JSON",
		`{"status":"success","data":{}}{"status":"error"}`: "invalid JSON",
	} {
		err := apiShape([]byte(body))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("apiShape(%q) = %q, want %q", body, got, want)
		}
	}
}

// BenchmarkAPIShape: the check of a large matrix answer (about 30 MB)
// against a plain validating scan (json.Valid) of it.
func BenchmarkAPIShape(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for i := 0; buf.Len() < 30<<20; i++ {
		fmt.Fprintf(&buf, `{"metric":{"__name__":"vllm:spec_decode_num_accepted_tokens_per_pos_total","position":"%d","model_name":"m"},"values":[`, i%8)
		for j := range 200 {
			fmt.Fprintf(&buf, `[%d,"%d"],`, 1700000000+15*j, j*7)
		}
		buf.WriteString(`[1,"1"]]},`)
	}
	buf.WriteString(`{"metric":{},"values":[]}]}}`)
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	b.Run("apiShape", func(b *testing.B) {
		for b.Loop() {
			if err := apiShape(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var v struct {
				Status string          `json:"status"`
				Data   json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
