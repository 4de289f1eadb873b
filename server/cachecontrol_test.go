package server

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hashedURL matches the content-hashed asset URLs the page links to.
var hashedURL = regexp.MustCompile(`/web/h-([0-9a-zA-Z_-]+)/([A-Za-z0-9_./-]+)`)

// TestCacheLifetimes: content-hashed assets (/web/h-<hash>/<name>, the URLs
// the page links to) are cached for a year and immutable; the page, go-app's
// scripts, unhashed asset names and a stale hash are revalidated on every
// use (no-cache), so a new release shows on the next load.
func TestCacheLifetimes(t *testing.T) {
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:9"})
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	maxAge := func(cc string) int {
		for _, d := range strings.Split(cc, ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(d), "max-age="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return -1
				}
				return n
			}
		}
		return -1
	}
	longLived := func(cc string) bool {
		return strings.Contains(cc, "immutable") && strings.Contains(cc, "public") && maxAge(cc) >= 365*24*3600
	}
	revalidated := func(cc string) bool {
		return !strings.Contains(cc, "immutable") &&
			(strings.Contains(cc, "no-cache") || strings.Contains(cc, "no-store") || maxAge(cc) == 0)
	}

	resp, page := get("/")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	if cc := resp.Header.Get("Cache-Control"); !revalidated(cc) {
		t.Errorf("GET /: Cache-Control %q, want the page revalidated (no-cache)", cc)
	}
	// The page links every asset by its hash: ECharts, the stylesheet and
	// the icon; app.js the wasm.
	_, appJS := get("/app.js")
	names := map[string]string{}
	for _, m := range hashedURL.FindAllStringSubmatch(page+appJS, -1) {
		names[m[2]] = m[0]
	}
	for _, want := range []string{"app.wasm", "echarts.min.js", "specdash.css", "icon.svg"} {
		if names[want] == "" {
			t.Errorf("page does not link %s by a content hash (hashed URLs found: %v)", want, names)
		}
	}
	a := newAssets(testAssets)
	for name, u := range names {
		if want := "/web/h-" + hashOf(t, a, name) + "/" + name; u != want {
			t.Errorf("page links %s, want %s (the hash of its content)", u, want)
		}
		resp, body := get(u)
		cc := resp.Header.Get("Cache-Control")
		if resp.StatusCode != 200 || !longLived(cc) {
			t.Errorf("GET %s: %d, Cache-Control %q; want 200, public, max-age of a year, immutable", u, resp.StatusCode, cc)
		}
		if f, err := testAssets.Open(assetPathForTest(name)); err == nil {
			raw, _ := io.ReadAll(f)
			f.Close()
			if body != string(raw) {
				t.Errorf("GET %s: body differs from the asset", u)
			}
		}
		// The same file by its plain name, or under an old hash: served,
		// but revalidated (it may change with a release).
		for _, p := range []string{"/web/" + name, "/web/h-0123456789abcdef/" + name} {
			resp, _ := get(p)
			if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != 200 || !revalidated(cc) {
				t.Errorf("GET %s: %d, Cache-Control %q; want 200 and no-cache", p, resp.StatusCode, cc)
			}
		}
	}
	// go-app's own files and the server's endpoints are never long-lived.
	for _, p := range []string{"/app.js", "/wasm_exec.js", "/manifest.webmanifest", "/app-worker.js", "/-/ready", "/-/healthy"} {
		resp, _ := get(p)
		if cc := resp.Header.Get("Cache-Control"); !revalidated(cc) {
			t.Errorf("GET %s: %d, Cache-Control %q; want no-cache or no-store", p, resp.StatusCode, cc)
		}
	}
	// Proxy answers are never cached by the browser (the server caches).
	if resp, _ := get("/prom/api/v1/query?query=1"); !strings.Contains(resp.Header.Get("Cache-Control"), "no-store") {
		t.Errorf("proxy answer (%d): Cache-Control %q, want no-store", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// assetPathForTest is where name lives in testAssets (dist/ then static/).
func assetPathForTest(name string) string {
	if _, ok := testAssets["dist/"+name]; ok {
		return "dist/" + name
	}
	return "static/" + name
}
