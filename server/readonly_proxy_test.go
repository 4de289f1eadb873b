package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/crypto/bcrypt"

	"specdash/internal/testwait"
)

// TestSSRF: every way to make the proxy reach something else is refused,
// and nothing refused reaches the configured upstream.
func TestSSRF(t *testing.T) {
	rec := newRecorder(t, nil)
	redir := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusTemporaryRedirect)
	})
	h, err := New(Config{Assets: testAssets, Sources: []Source{
		{Name: "ok", URL: rec.srv.URL},
		{Name: "redir", URL: redir.srv.URL},
		{Name: "metadata", URL: "http://169.254.169.254"},
		{Name: "metadata6", URL: "http://[fd00:ec2::254]"},
		{Name: "linklocal6", URL: "http://[fe80::1]:9090"},
		{Name: "zero", URL: "http://0.0.0.0:9090"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, path string
		want               int
		say                string
	}{
		{"other host in path", "GET", "/prom/http://evil.example/api/v1/query", 400, ""},
		{"other host as source", "GET", "/prom/s/evil.example/api/v1/query", 404, "no such source"},
		{"unknown source", "GET", "/prom/s/nope/api/v1/query?query=up", 404, "no such source"},
		{"metadata address", "GET", "/prom/s/metadata/api/v1/query?query=up", 502, "link-local"},
		{"metadata IPv6", "GET", "/prom/s/metadata6/api/v1/query?query=up", 502, "link-local"},
		{"link-local IPv6", "GET", "/prom/s/linklocal6/api/v1/query?query=up", 502, "link-local"},
		{"unspecified", "GET", "/prom/s/zero/api/v1/query?query=up", 502, "link-local"},
		{"redirect to metadata", "GET", "/prom/s/redir/api/v1/query?query=up", 502, "redirect"},
		{"admin delete", "POST", "/prom/s/ok/api/v1/admin/tsdb/delete_series?match[]=up", 404, ""},
		{"admin snapshot", "PUT", "/prom/api/v1/admin/tsdb/snapshot", 404, ""},
		{"lifecycle quit", "POST", "/prom/-/quit", 404, ""},
		{"lifecycle reload", "POST", "/prom/s/ok/-/reload", 404, ""},
		{"remote write", "POST", "/prom/api/v1/write", 404, ""},
		{"targets of a Prometheus", "GET", "/prom/api/v1/targets", 404, ""},
		{"config", "GET", "/prom/api/v1/status/config", 404, ""},
		{"PUT query", "PUT", "/prom/api/v1/query", 405, ""},
		{"DELETE series", "DELETE", "/prom/s/ok/api/v1/series", 405, ""},
		{"dot-dot", "GET", "/prom/api/v1/query/../admin/tsdb/snapshot", 400, ""},
		{"dot-dot source", "GET", "/prom/s/ok/../../api/v1/query", 400, ""},
		{"encoded slash", "GET", "/prom/api%2Fv1%2Fquery", 400, ""},
		{"encoded dots", "GET", "/prom/s/ok/api/v1/%2e%2e/%2e%2e/-/quit", 400, ""},
		{"encoded source", "GET", "/prom/s/o%6b/api/v1/query", 400, ""},
		{"double slash", "GET", "/prom/s//api/v1/query", 400, ""},
	}
	for _, c := range cases {
		w := do(t, h, c.method, c.path, nil, nil)
		if w.Code != c.want || !strings.Contains(w.Body.String(), c.say) {
			t.Errorf("%s: %s %s: %d %q, want %d saying %q", c.name, c.method, c.path, w.Code, w.Body.String(), c.want, c.say)
		}
		for _, leak := range []string{"169.254", "fd00", "fe80", "0.0.0.0", strings.TrimPrefix(redir.srv.URL, "http://")} {
			if strings.Contains(w.Body.String(), leak) {
				t.Errorf("%s: answer %q leaks the address %s", c.name, w.Body.String(), leak)
			}
		}
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("%d refused requests reached the upstream", n)
	}
	if n := len(redir.requests()); n != 1 {
		t.Errorf("redirecting upstream saw %d requests, want 1 (not followed)", n)
	}
	for _, a := range []string{"169.254.169.254", "fe80::1", "fd00:ec2::254", "100.100.100.200", "0.0.0.0", "::", "224.0.0.1", "::ffff:169.254.169.254"} {
		if !ForbiddenIP(netip.MustParseAddr(a)) {
			t.Errorf("ForbiddenIP(%s) = false", a)
		}
	}
	for _, a := range []string{"127.0.0.1", "::1", "10.0.0.5", "192.168.1.2", "8.8.8.8"} {
		if ForbiddenIP(netip.MustParseAddr(a)) {
			t.Errorf("ForbiddenIP(%s) = true", a)
		}
	}
}

// TestNamedSources: a config file's sources, with their headers, params,
// credentials and path prefixes, each reached only through its own name.
func TestNamedSources(t *testing.T) {
	a := newRecorder(t, nil)
	b := newRecorder(t, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("tok-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yml := `default_source: mimir
sources:
  - name: mimir
    url: ` + a.srv.URL + `/prometheus
    scrape_interval: 30s
    http_headers:
      X-Scope-OrgID: {values: [team-a]}
    authorization: {type: Bearer, credentials_file: token}
  - name: thanos
    url: ` + b.srv.URL + `
    params: {partial_response: "false", dedup: "true"}
    basic_auth: {username: u, password: p}
web:
  cache_ttl: 0s
`
	path := filepath.Join(dir, "specdash.yml")
	os.WriteFile(path, []byte(yml), 0o600)
	fc, err := LoadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []Source
	for _, s := range fc.Sources {
		srcs = append(srcs, s.Source())
	}
	if fc.Web.CacheTTL == nil || *fc.Web.CacheTTL != 0 {
		t.Fatalf("cache_ttl: 0s read as %v", fc.Web.CacheTTL)
	}
	s := newServer(t, Config{Sources: srcs, DefaultSource: fc.DefaultSource, CacheTTL: -1})
	req, _ := http.NewRequest("GET", s.URL+"/prom/api/v1/query?query=up", nil)
	req.Header.Set("Authorization", "Bearer browser")
	req.Header.Set("Cookie", "c=1")
	req.Header.Set("X-Scope-OrgID", "someone-else")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("default source: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Post(s.URL+"/prom/s/thanos/api/v1/query_range", "application/x-www-form-urlencoded", strings.NewReader("query=up&dedup=false"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("thanos: %v %v", resp, err)
	}
	resp.Body.Close()
	ra, rb := a.requests(), b.requests()
	if len(ra) != 1 || len(rb) != 1 {
		t.Fatalf("requests: mimir %d, thanos %d, want 1 each", len(ra), len(rb))
	}
	if ra[0].URL.Path != "/prometheus/api/v1/query" || ra[0].Header.Get("X-Scope-OrgID") != "team-a" ||
		ra[0].Header.Get("Authorization") != "Bearer tok-from-file" || ra[0].Header.Get("Cookie") != "" {
		t.Errorf("mimir got %s %v", ra[0].URL, ra[0].Header)
	}
	q := rb[0].URL.Query()
	if rb[0].URL.Path != "/api/v1/query_range" || q.Get("partial_response") != "false" || q.Get("dedup") != "true" {
		t.Errorf("thanos got %s", rb[0].URL)
	}
	if u, p, ok := rb[0].BasicAuth(); !ok || u != "u" || p != "p" {
		t.Errorf("thanos auth %q", rb[0].Header.Get("Authorization"))
	}
	// The page lists both sources and never the credentials.
	resp, _ = http.Get(s.URL + "/app.js")
	js, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, bad := range []string{"tok-from-file", `"p"`, "team-a"} {
		if bytes.Contains(js, []byte(bad)) {
			t.Errorf("app.js leaks %s", bad)
		}
	}
	if !bytes.Contains(js, []byte("thanos")) || !bytes.Contains(js, []byte("mimir")) {
		t.Errorf("app.js does not list the sources")
	}

	for _, bad := range []struct{ yml, want string }{
		{"sources: []", "no sources"},
		{"sources:\n  - name: a\n", "give url or embedded"},
		{"sources:\n  - name: a b\n    url: http://x\n", "source name"},
		{"sources:\n  - name: a\n    url: http://x\n  - name: a\n    url: http://y\n", "twice"},
		{"default_source: z\nsources:\n  - name: a\n    url: http://x\n", "default_source"},
		{"sources:\n  - name: a\n    url: http://x\n    bogus: 1\n", "bogus"},
		{"sources:\n  - name: a\n    embedded: {targets: []}\n", "at least one target"},
		{"sources:\n  - name: a\n    url: http://x\nweb:\n  basic_auth_users: {a: plain}\n", "bcrypt"},
	} {
		if _, err := ParseConfig([]byte(bad.yml)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseConfig(%q): %v, want %q", bad.yml, err, bad.want)
		}
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for k, v := range labels {
				if !hasLabel(m, k, v) {
					continue next
				}
			}
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

func hasLabel(m *dto.Metric, k, v string) bool {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == k && lp.GetValue() == v {
			return true
		}
	}
	return false
}

// TestCoalescingCacheGzipMetrics: identical concurrent requests cost one
// upstream request; a cached answer is served until the TTL; big answers
// are gzipped; /metrics counts it all; health endpoints answer.
func TestCoalescingCacheGzipMetrics(t *testing.T) {
	release := make(chan struct{})
	big := `{"status":"success","data":{"resultType":"vector","result":[` + strings.Repeat(`{"metric":{"a":"b"},"value":[1,"1"]},`, 200) + `{"metric":{},"value":[1,"1"]}]}}`
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, big)
	})
	reg := prometheus.NewRegistry()
	h, err := New(Config{PrometheusURL: rec.srv.URL, Registry: reg, CacheTTL: time.Hour, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	var arrived atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer s.Close()
	const n = 50
	var wg sync.WaitGroup
	bodies := make([][]byte, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Same parameters, different order and transport (query
			// string vs form).
			var resp *http.Response
			var err error
			if i%2 == 0 {
				resp, err = http.Get(s.URL + "/prom/api/v1/query_range?query=up&start=60&end=120&step=15")
			} else {
				resp, err = http.Get(s.URL + "/prom/api/v1/query_range?step=15&end=120&start=60&query=up")
			}
			if err != nil {
				t.Error(err)
				return
			}
			bodies[i], _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}(i)
	}
	// The upstream answers once all n requests reached the server (any
	// that has not joined the flight by then is a cache hit: the counts
	// below hold either way).
	testwait.For(t, "all requests at the server and one upstream", 0, func() bool {
		return arrived.Load() == n && len(rec.requests()) == 1
	})
	close(release)
	wg.Wait()
	for i, b := range bodies {
		if string(b) != big {
			t.Fatalf("viewer %d got %d bytes, want the upstream answer", i, len(b))
		}
	}
	if got := len(rec.requests()); got != 1 {
		t.Errorf("%d identical requests cost %d upstream requests, want 1", n, got)
	}
	// Cached afterwards.
	resp, _ := http.Get(s.URL + "/prom/api/v1/query_range?query=up&start=60&end=120&step=15")
	resp.Body.Close()
	if got := len(rec.requests()); got != 1 {
		t.Errorf("cached request went upstream (%d)", got)
	}
	hits := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "hit"})
	shared := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "coalesced"})
	miss := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "miss"})
	if hits+shared+miss != n+1 || miss != 1 || hits < 1 {
		t.Errorf("cache counters hit=%v coalesced=%v miss=%v, want %d requests, 1 miss", hits, shared, miss, n+1)
	}
	if up := counterValue(t, reg, "specdash_upstream_requests_total", map[string]string{"source": "default", "endpoint": "query_range", "result": "ok"}); up != 1 {
		t.Errorf("upstream counter %v, want 1", up)
	}

	// gzip for clients that take it.
	req, _ := http.NewRequest("GET", s.URL+"/prom/api/v1/query_range?query=up&start=60&end=120&step=15", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err = (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || len(raw) >= len(big) {
		t.Errorf("Content-Encoding %q, %d bytes for %d", resp.Header.Get("Content-Encoding"), len(raw), len(big))
	} else {
		zr, _ := gzip.NewReader(bytes.NewReader(raw))
		plain, _ := io.ReadAll(zr)
		if string(plain) != big {
			t.Errorf("gzipped answer differs")
		}
	}

	// /metrics, health, readiness.
	resp, _ = http.Get(s.URL + "/metrics")
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`specdash_http_requests_total{code="200",handler="proxy",method="get"}`, "specdash_upstream_request_duration_seconds_bucket", `specdash_proxy_cache_requests_total{result="hit"}`} {
		if !bytes.Contains(m, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, p := range []string{"/-/healthy", "/-/ready"} {
		resp, _ := http.Get(s.URL + p)
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
		resp.Body.Close()
	}
	notReady := newServer(t, Config{PrometheusURL: rec.srv.URL, Ready: func() error { return context.DeadlineExceeded }})
	resp, _ = http.Get(notReady.URL + "/-/ready")
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("/-/ready when not ready: %d", resp.StatusCode)
	}
}

func TestOversizedAnswer(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","data":"`+strings.Repeat("x", 5000)+`"}`)
	})
	h, err := New(Config{PrometheusURL: rec.srv.URL, MaxResponseBytes: 4096, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	w := do(t, h, "GET", "/prom/api/v1/query?query=up", nil, nil)
	checkBadGateway(t, "oversized", w, "larger than the proxy's limit of 4 KiB", strings.TrimPrefix(rec.srv.URL, "http://"))

	// A load balancer's HTML error page is not passed on (it names hosts).
	lb := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(503)
		io.WriteString(w, "<html>upstream 10.1.2.3:9090 down</html>")
	})
	h, _ = New(Config{PrometheusURL: lb.srv.URL, Assets: testAssets})
	w = do(t, h, "GET", "/prom/api/v1/query?query=up", nil, nil)
	if w.Code != 503 || strings.Contains(w.Body.String(), "10.1.2.3") || !strings.Contains(w.Body.String(), "HTTP 503") {
		t.Errorf("LB error page: %d %q", w.Code, w.Body.String())
	}
}

func TestAuth(t *testing.T) {
	rec := newRecorder(t, nil)
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	hash := string(h)
	s := newServer(t, Config{PrometheusURL: rec.srv.URL, Auth: AuthConfig{BasicAuthUsers: map[string]string{"alice": hash}}})
	get := func(path, user, pass string) int {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		path, user, pass string
		want             int
	}{
		{"/", "", "", 401}, {"/prom/api/v1/query?query=up", "", "", 401}, {"/metrics", "", "", 401},
		{"/", "alice", "wrong", 401}, {"/", "bob", "pw", 401},
		{"/", "alice", "pw", 200}, {"/prom/api/v1/query?query=up", "alice", "pw", 200},
		{"/-/healthy", "", "", 200}, {"/-/ready", "", "", 200},
	} {
		if got := get(c.path, c.user, c.pass); got != c.want {
			t.Errorf("%s as %q/%q: %d, want %d", c.path, c.user, c.pass, got, c.want)
		}
	}
	// The upstream never sees the browser's credentials.
	for _, r := range rec.requests() {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("browser Authorization forwarded")
		}
	}

	th := newServer(t, Config{PrometheusURL: rec.srv.URL, Auth: AuthConfig{TrustedHeader: "X-Forwarded-User"}})
	req, _ := http.NewRequest("GET", th.URL+"/", nil)
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("trusted header absent: %d", resp.StatusCode)
	}
	req.Header.Set("X-Forwarded-User", "alice@example.com")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("trusted header set: %d", resp.StatusCode)
	}
	if _, err := New(Config{PrometheusURL: rec.srv.URL, Auth: AuthConfig{TrustedHeader: "X", BasicAuthUsers: map[string]string{"a": hash}}}); err == nil {
		t.Errorf("both auth modes accepted")
	}
}
