package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// built lists the files of web/dist that the build produces, with the make
// target that produces them: a request for one that is missing gets a 503
// that says what to run.
var built = map[string]string{
	"app.wasm":       "make build",
	"echarts.min.js": "make build",
}

// assets serves web.FS under /web/: /web/<name> is dist/<name>, else
// static/<name>.
type assets struct {
	fsys        fs.FS
	version     string // short hash of app.wasm, go-app's Version
	wasmLength  string // raw size of app.wasm in bytes, for go-app's progress bar
	wasmMissing bool

	mu    sync.Mutex
	files map[string]*asset
}

type asset struct {
	body []byte
	etag string
	hash string // 16 hex digits of the body's SHA-256: the h-<hash> URL part

	// Precompressed sidecars from the build (dist/<name>.br, .gz; see
	// bench/cmd/precompress), used only when they decompress to body
	// (checked once): a stale sidecar is never served.
	brSide, gzSide []byte
	checkOnce      sync.Once
	br             []byte // nil: no valid .br, brotli not offered

	gzOnce sync.Once
	gz     []byte
}

// newAssets serves fsys (web.FS: dist/ and static/).
func newAssets(fsys fs.FS) *assets {
	a := &assets{fsys: fsys, files: map[string]*asset{}}
	wasm, err := fs.ReadFile(a.fsys, "dist/app.wasm")
	if err != nil {
		a.wasmMissing = true
		a.version = "no-wasm"
		return a
	}
	sum := sha256.Sum256(wasm)
	a.version = hex.EncodeToString(sum[:6])
	a.wasmLength = strconv.Itoa(len(wasm))
	return a
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/web/")
	// /web/h-<hash>/<name>: the content-hashed URL (hashResolver).
	wantHash := ""
	if rest, ok := strings.CutPrefix(name, "h-"); ok {
		var found bool
		wantHash, name, found = strings.Cut(rest, "/")
		if !found || wantHash == "" {
			http.NotFound(w, r)
			return
		}
	}
	if !cleanAssetName(name) || r.URL.RawPath != "" {
		http.NotFound(w, r)
		return
	}
	f, err := a.file(name)
	if err != nil {
		if target, ok := built[name]; ok {
			http.Error(w, name+" not built: run "+target, http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
		return
	}

	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".wasm" {
		ctype = "application/wasm"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	if wantHash != "" && wantHash == f.hash {
		// The URL names this exact content: it never changes.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// Unhashed, or an old hash after an upgrade: revalidate.
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("X-Content-Type-Options", "nosniff")

	body, etag := f.body, f.etag
	switch path.Ext(name) {
	case ".wasm", ".js", ".css", ".svg", ".json":
		h.Add("Vary", "Accept-Encoding")
		f.checkSidecars()
		switch {
		case f.br != nil && accepts(r, "br"):
			body, etag = f.br, strings.TrimSuffix(f.etag, `"`)+`-br"`
			h.Set("Content-Encoding", "br")
		case accepts(r, "gzip"):
			body, etag = f.gzipped(), strings.TrimSuffix(f.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if h.Get("Content-Encoding") != "" {
		// http.ServeContent leaves Content-Length out for encoded bodies
		// and would apply a Range to the encoded bytes: serve the whole
		// encoded file, with its length (304s drop it again).
		h.Set("Content-Length", strconv.Itoa(len(body)))
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// file returns the named asset, read and hashed once.
func (a *assets) file(name string) (*asset, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.files[name]; ok {
		return f, nil
	}
	body, err := fs.ReadFile(a.fsys, "dist/"+name)
	if err != nil {
		body, err = fs.ReadFile(a.fsys, "static/"+name)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:8])
	f := &asset{body: body, etag: `"` + hash + `"`, hash: hash}
	f.brSide, _ = fs.ReadFile(a.fsys, "dist/"+name+".br")
	f.gzSide, _ = fs.ReadFile(a.fsys, "dist/"+name+".gz")
	a.files[name] = f
	return f, nil
}

// checkSidecars keeps the precompressed .br and .gz files that decompress
// to the body (once; a brotli decode of the 20 MB wasm takes ~0.1 s).
func (f *asset) checkSidecars() {
	f.checkOnce.Do(func() {
		if f.brSide != nil && sameContent(brotli.NewReader(bytes.NewReader(f.brSide)), f.body) {
			f.br = f.brSide
		}
		if f.gzSide != nil {
			if zr, err := gzip.NewReader(bytes.NewReader(f.gzSide)); err == nil && sameContent(zr, f.body) {
				f.gzOnce.Do(func() { f.gz = f.gzSide })
			}
		}
		f.brSide, f.gzSide = nil, nil
	})
}

// sameContent reports whether r yields exactly want.
func sameContent(r io.Reader, want []byte) bool {
	got, err := io.ReadAll(io.LimitReader(r, int64(len(want))+1))
	return err == nil && bytes.Equal(got, want)
}

// gzipped compresses the body once, on first use (unless a valid
// precompressed .gz was found).
func (f *asset) gzipped() []byte {
	f.gzOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
		zw.Write(f.body)
		zw.Close()
		f.gz = b.Bytes()
	})
	return f.gz
}

// cleanAssetName accepts a plain relative file name: no empty, dot or
// dot-dot segments, no hidden files, no backslashes.
func cleanAssetName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return path.Clean(name) == name
}

// accepts reports whether the request's Accept-Encoding lists coding
// (case-insensitive) with a non-zero q (RFC 9110 12.5.3; "*" counts when
// the coding is not listed).
func accepts(r *http.Request, coding string) bool {
	star := false
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		enc = strings.ToLower(strings.TrimSpace(enc))
		ok := true
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.ReplaceAll(p, " ", ""), "=")
			if strings.EqualFold(k, "q") {
				if q, err := strconv.ParseFloat(v, 64); err != nil || q <= 0 {
					ok = false
				}
			}
		}
		switch enc {
		case coding:
			return ok
		case "*":
			star = ok
		}
	}
	return star
}

func acceptsGzip(r *http.Request) bool { return accepts(r, "gzip") }
