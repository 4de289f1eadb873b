package server

import (
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"specdash/web"
)

// TestBootScript: the page's head runs web/static/boot.js (a classic script
// from /web/, no inline code, not async: it must run before app.js) with the content-hashed URL of app.wasm in
// data-wasm, the URL go-app's app.js fetches; both URLs serve their files.
// Without a wasm build the page has no boot script.
func TestBootScript(t *testing.T) {
	boot, err := fs.ReadFile(web.FS, "static/boot.js")
	if err != nil {
		t.Fatalf("web.FS lacks static/boot.js: %v", err)
	}
	withBoot := fstest.MapFS{"static/boot.js": {Data: boot}}
	for k, v := range testAssets {
		withBoot[k] = v
	}
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", PreRenderTimeout: -1, Assets: withBoot})
	page := getOK(t, s.URL+"/")
	m := regexp.MustCompile(`<script src="(/web/h-[0-9a-f]+/boot\.js)" data-wasm="(/web/h-[0-9a-f]+/app\.wasm)"></script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no boot script with a hashed wasm URL in the page:\n%.2000s", page)
	}
	head, _, _ := strings.Cut(page, "<body")
	if !strings.Contains(head, m[0]) {
		t.Errorf("boot script outside the page's head")
	}
	appJS := getOK(t, s.URL+"/app.js")
	if !strings.Contains(appJS, `"`+m[2]+`"`) {
		t.Errorf("app.js does not fetch %s, the boot script's data-wasm", m[2])
	}
	if got := getOK(t, s.URL+m[1]); got != string(boot) {
		t.Errorf("%s: %d bytes, want boot.js (%d bytes)", m[1], len(got), len(boot))
	}
	resp, err := http.Get(s.URL + m[2])
	if err != nil {
		t.Fatal(err)
	}
	wasm, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/wasm" || string(wasm) != string(testAssets["dist/app.wasm"].Data) {
		t.Errorf("%s: Content-Type %q, %d bytes; want application/wasm (compileStreaming needs it) and the wasm", m[2], ct, len(wasm))
	}

	noWasm := fstest.MapFS{}
	for k, v := range withBoot {
		if k != "dist/app.wasm" {
			noWasm[k] = v
		}
	}
	s2 := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", PreRenderTimeout: -1, Assets: noWasm})
	if page := getOK(t, s2.URL+"/"); strings.Contains(page, "boot.js") {
		t.Errorf("page without a wasm build runs boot.js")
	}
}

// getOK is the body of a GET that must answer 200.
func getOK(t *testing.T, u string) string {
	t.Helper()
	code, _, body := get(t, u)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d", u, code)
	}
	return body
}
