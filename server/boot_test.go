package server

import (
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"specdash/web"
)

// TestBootScript: the page's head runs web/static/boot.js (a classic script
// from /web/, no inline code, not async: it must run before app.js) with the content-hashed URL of app.wasm in
// data-wasm, the URL go-app's app.js fetches, and that of its compile
// worker (web/static/compile.js) in data-compiler; the URLs serve their
// files. Without a compile worker the page names none (boot.js then
// compiles on the main thread); without a wasm build the page has no boot
// script. data-wasm-length is the raw wasm's size, for the loader's progress.
func TestBootScript(t *testing.T) {
	boot, err := fs.ReadFile(web.FS, "static/boot.js")
	if err != nil {
		t.Fatalf("web.FS lacks static/boot.js: %v", err)
	}
	compiler, err := fs.ReadFile(web.FS, "static/compile.js")
	if err != nil {
		t.Fatalf("web.FS lacks static/compile.js: %v", err)
	}
	withBoot := fstest.MapFS{"static/boot.js": {Data: boot}, "static/compile.js": {Data: compiler}}
	for k, v := range testAssets {
		withBoot[k] = v
	}
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", PreRenderTimeout: -1, Assets: withBoot})
	page := getOK(t, s.URL+"/")
	m := regexp.MustCompile(`<script src="(/web/h-[0-9a-f]+/boot\.js)" data-wasm="(/web/h-[0-9a-f]+/app\.wasm)" data-wasm-length="([0-9]+)" data-compiler="(/web/h-[0-9a-f]+/compile\.js)"></script>`).FindStringSubmatch(page)
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
	if got := getOK(t, s.URL+m[4]); got != string(compiler) {
		t.Errorf("%s: %d bytes, want compile.js (%d bytes)", m[4], len(got), len(compiler))
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
	// The loader's progress (boot.js) divides by the raw wasm's length.
	if want := strconv.Itoa(len(testAssets["dist/app.wasm"].Data)); m[3] != want {
		t.Errorf("data-wasm-length %s, want the wasm's %s bytes", m[3], want)
	}

	noCompiler := fstest.MapFS{}
	for k, v := range withBoot {
		if k != "static/compile.js" {
			noCompiler[k] = v
		}
	}
	s1 := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", PreRenderTimeout: -1, Assets: noCompiler})
	if page := getOK(t, s1.URL+"/"); !regexp.MustCompile(`<script src="/web/h-[0-9a-f]+/boot\.js" data-wasm="/web/h-[0-9a-f]+/app\.wasm" data-wasm-length="[0-9]+"></script>`).MatchString(page) {
		t.Errorf("page without a compile worker: want boot.js without data-compiler:\n%.2000s", page)
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
