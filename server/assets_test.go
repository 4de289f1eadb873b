package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
)

func brotliBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var o bytes.Buffer
	w := brotli.NewWriterLevel(&o, brotli.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return o.Bytes()
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var o bytes.Buffer
	w, _ := gzip.NewWriterLevel(&o, gzip.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return o.Bytes()
}

// TestPrecompressedAssets: dist/<name>.br and .gz (bench/cmd/precompress)
// are sent as they are for Accept-Encoding br / gzip, the raw file
// otherwise, with Content-Encoding, Content-Length, Vary and a per-coding
// ETag; a sidecar that does not decompress to the file is never sent.
func TestPrecompressedAssets(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 precompressed wasm body "), 400)
	js := []byte("window.echarts = {version: '5.6.0'}; // echarts stand-in, long enough to compress well")
	br, gz := brotliBytes(t, wasm), gzipBytes(t, wasm)
	fsys := fstest.MapFS{
		"dist/app.wasm":    {Data: wasm},
		"dist/app.wasm.br": {Data: br},
		"dist/app.wasm.gz": {Data: gz},
		// Stale sidecars (of another build): never served.
		"dist/echarts.min.js":    {Data: js},
		"dist/echarts.min.js.br": {Data: brotliBytes(t, []byte("old echarts"))},
		"dist/echarts.min.js.gz": {Data: []byte("not gzip at all")},
		"static/specdash.css":    {Data: []byte("body{}")},
	}
	a := newAssets(fsys)
	get := func(method, path, accept string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		return rec
	}
	decode := func(coding string, b []byte) []byte {
		var r io.Reader
		switch coding {
		case "br":
			r = brotli.NewReader(bytes.NewReader(b))
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("gzip: %v", err)
			}
			r = zr
		default:
			return b
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		return out
	}

	for _, tc := range []struct {
		path, accept string
		coding       string // "" = identity
		body         []byte // exact bytes on the wire
		raw          []byte
	}{
		{"/web/app.wasm", "br", "br", br, wasm},
		{"/web/app.wasm", "gzip, deflate, br, zstd", "br", br, wasm}, // Chromium's header
		{"/web/app.wasm", "gzip", "gzip", gz, wasm},
		{"/web/app.wasm", "br;q=0, gzip", "gzip", gz, wasm},
		{"/web/app.wasm", "BR;Q=0.5", "br", br, wasm},
		{"/web/app.wasm", "*", "br", br, wasm},
		{"/web/app.wasm", "", "", wasm, wasm},
		{"/web/app.wasm", "identity", "", wasm, wasm},
		{"/web/app.wasm", "br;q=0, gzip;q=0", "", wasm, wasm},
		{"/web/h-" + hashOf(t, a, "app.wasm") + "/app.wasm", "br", "br", br, wasm},
		// Stale sidecars: brotli not offered, gzip compressed on the fly.
		{"/web/echarts.min.js", "br", "", js, js},
		{"/web/echarts.min.js", "br, gzip", "gzip", nil, js},
		// No sidecars: gzip on the fly, brotli not offered.
		{"/web/specdash.css", "br", "", []byte("body{}"), []byte("body{}")},
	} {
		rec := get(http.MethodGet, tc.path, tc.accept)
		res := rec.Result()
		body := rec.Body.Bytes()
		name := tc.path + " [" + tc.accept + "]"
		if res.StatusCode != 200 {
			t.Errorf("%s: status %d", name, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Encoding"); got != tc.coding {
			t.Errorf("%s: Content-Encoding %q, want %q", name, got, tc.coding)
		}
		if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s: Vary %q, want Accept-Encoding", name, got)
		}
		if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("%s: Content-Length %q for %d bytes", name, got, len(body))
		}
		if tc.body != nil && !bytes.Equal(body, tc.body) {
			t.Errorf("%s: %d bytes on the wire, want the %d bytes of the expected file", name, len(body), len(tc.body))
		}
		if !bytes.Equal(decode(tc.coding, body), tc.raw) {
			t.Errorf("%s: body does not decode to the asset", name)
		}
	}

	// ETags differ per coding; each revalidates to 304 with its own.
	tags := map[string]bool{}
	for _, accept := range []string{"br", "gzip", ""} {
		etag := get(http.MethodGet, "/web/app.wasm", accept).Header().Get("ETag")
		if tags[etag] {
			t.Errorf("ETag %s repeated for Accept-Encoding %q", etag, accept)
		}
		tags[etag] = true
		if rec := get(http.MethodGet, "/web/app.wasm", accept, "If-None-Match", etag); rec.Code != http.StatusNotModified {
			t.Errorf("If-None-Match %s [%s]: %d, want 304", etag, accept, rec.Code)
		}
	}

	// HEAD: headers of the brotli answer, no body.
	rec := get(http.MethodHead, "/web/app.wasm", "br")
	if rec.Header().Get("Content-Encoding") != "br" || rec.Header().Get("Content-Length") != strconv.Itoa(len(br)) || rec.Body.Len() != 0 {
		t.Errorf("HEAD br: encoding %q length %q body %d", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Length"), rec.Body.Len())
	}
}

func hashOf(t *testing.T, a *assets, name string) string {
	t.Helper()
	f, err := a.file(name)
	if err != nil {
		t.Fatal(err)
	}
	return f.hash
}
