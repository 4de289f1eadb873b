package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecurityHeaders: pages, assets, go-app's files and error pages carry
// the page policy; /prom answers the sandbox one.
func TestSecurityHeaders(t *testing.T) {
	rec := newRecorder(t, nil)
	s := newServer(t, Config{PrometheusURL: rec.srv.URL, PreRenderTimeout: -1})
	for _, c := range []struct {
		path string
		code int
		csp  string
	}{
		{"/", 200, PageCSP},
		{"/logs", 200, PageCSP},
		{"/app.js", 200, PageCSP},
		{"/app-worker.js", 200, PageCSP},
		{"/web/specdash.css", 200, PageCSP},
		{"/web/nope.css", 404, PageCSP},
		{"/robots.txt", 404, PageCSP},
		{"/metrics", 200, PageCSP},
		{"/-/healthy", 200, PageCSP},
		{"/prom/api/v1/query?query=up", 200, ProxyCSP},
		{"/prom/api/v1/admin/tsdb/delete_series", 404, ProxyCSP},
	} {
		resp, err := http.Get(s.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != c.code {
			t.Errorf("%s: status %d, want %d", c.path, resp.StatusCode, c.code)
		}
		if got := h.Get("Content-Security-Policy"); got != c.csp {
			t.Errorf("%s: Content-Security-Policy %q, want %q", c.path, got, c.csp)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if got := h.Get(k); got != v {
				t.Errorf("%s: %s %q, want %q", c.path, k, got, v)
			}
		}
	}
	// The page policy runs no inline or foreign script and frames nowhere.
	for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval';", "frame-ancestors 'none'", "object-src 'none'", "connect-src 'self'", "base-uri 'none'"} {
		if !strings.Contains(PageCSP, want) {
			t.Errorf("PageCSP lacks %q", want)
		}
	}
	if strings.Contains(strings.ReplaceAll(PageCSP, "'wasm-unsafe-eval'", ""), "unsafe-eval") {
		t.Errorf("PageCSP allows eval of strings: %s", PageCSP)
	}
	if strings.Count(PageCSP, "unsafe-inline") != 1 || !strings.Contains(PageCSP, "style-src-attr 'unsafe-inline'") {
		t.Errorf("PageCSP allows more inline content than style attributes: %s", PageCSP)
	}
}
