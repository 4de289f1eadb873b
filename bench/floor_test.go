//go:build !js

package bench

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/bench/cmd/floorapp/floor"
)

// The floor sites of BenchmarkInteractive (SPECDASH_BENCH_FLOOR): how much
// of specdash's time to a live dashboard is its stack's and how much its
// own code's. "floor" is bench/cmd/floorapp, the smallest honest program on
// the design card's stack that does what the dashboard's first live moment
// needs (one query_range through client_golang's api/v1, one go-echarts
// line option drawn by ECharts with an axis tooltip, the root marked
// ready); "floor-hello" is the same go-app program with none of that (its
// root is ready at mount). Each is built once per benchmark with
// specdash's wasm flags and served the way an un-tuned go-app program is:
// go-app's handler, page, loader (app.js) and service worker, as they
// come, with the compression specdash has (see floorAssets).

// floorWindow and floorStep are the floor's query: the Prometheus UI
// site's window (BenchmarkInteractive's rng), at a step of a minute (361
// points).
const (
	floorWindow = "6h"
	floorStep   = "60s"
)

// startFloor builds the floor program (hello: its floorhello variant) and
// serves it on its own loopback port (its own origin: its service worker
// and caches are its own) in front of promURL, querying expr over the
// window (a Go duration) ending now at step; it returns the site's URL.
// The handler: /api/v1/ is a reverse proxy to Prometheus (same origin, so
// the page's api/v1 client needs no CORS), /web/ the built files
// (floorAssets), the rest go-app's handler, with "/" served as floor.Path
// (the process's "/" route is specdash's: go-app's routes are global).
func startFloor(b *testing.B, promURL string, hello bool, expr, window, step string) string {
	b.Helper()
	dir, rawSize := buildFloor(b, hello)
	target, err := url.Parse(promURL)
	if err != nil {
		b.Fatal(err)
	}
	app.Route(floor.Path, func() app.Composer { return &floor.Page{} })
	goapp := &app.Handler{
		Name:  "floor",
		Title: "floor",
		// go-app's default icons are on raw.githubusercontent.com: its
		// worker's install would fetch them (offline here), and the page
		// would ask for them; specdash serves its own too.
		Icon: app.Icon{Default: "/web/icon.svg", Large: "/web/icon.svg", SVG: "/web/icon.svg", Maskable: "/web/icon.svg"},
		Env: map[string]string{
			floor.EnvExpr:   expr,
			floor.EnvWindow: window,
			floor.EnvStep:   step,
		},
		Resources: floorResources{},
		// The raw size, for the loader's progress (the wasm is sent
		// compressed), as specdash gives it.
		WasmContentLength: strconv.FormatInt(rawSize, 10),
	}
	if !hello {
		// specdash's own ECharts build, deferred: it has run long before
		// the wasm draws.
		goapp.Scripts = []string{"/web/echarts.min.js defer"}
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", httputil.NewSingleHostReverseProxy(target))
	mux.Handle("/web/", floorAssets(dir))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			r = r.Clone(r.Context())
			r.URL.Path = floor.Path
		}
		goapp.ServeHTTP(w, r)
	}))
	return serveLoopback(b, mux)
}

// buildFloor builds bench/cmd/floorapp (hello: with -tags floorhello) for
// js/wasm with specdash's flags (the Makefile's WASMFLAGS but for the
// specdash/compute package, which it does not have) into DIR/web/app.wasm,
// writes its .br and .gz with bench/cmd/precompress (as `make assets` does
// specdash's), and puts specdash's ECharts build (web/dist, `make build`)
// and icon next to it. It returns DIR and the wasm's raw size.
func buildFloor(b *testing.B, hello bool) (string, int64) {
	b.Helper()
	root, err := filepath.Abs("..") // go test runs in bench/
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	web := filepath.Join(dir, "web")
	wasm := filepath.Join(web, "app.wasm")
	args := []string{"build", "-trimpath", "-gcflags=all=-l", "-gcflags=runtime=", "-ldflags=-s -w"}
	if hello {
		args = append(args, "-tags=floorhello")
	}
	args = append(args, "-o", wasm, "./bench/cmd/floorapp")
	goCmd := func(env []string, args ...string) {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	goCmd([]string{"GOOS=js", "GOARCH=wasm"}, args...)
	goCmd(nil, "run", "-trimpath", "./bench/cmd/precompress", wasm)
	copies := []string{"web/static/icon.svg"}
	if !hello {
		copies = append(copies, "web/dist/echarts.min.js", "web/dist/echarts.min.js.br", "web/dist/echarts.min.js.gz")
	}
	for _, name := range copies {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			b.Fatalf("%v: run `make build` first", err)
		}
		if err := os.WriteFile(filepath.Join(web, path.Base(name)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var size [3]int64
	for i, ext := range []string{"", ".br", ".gz"} {
		st, err := os.Stat(wasm + ext)
		if err != nil {
			b.Fatal(err)
		}
		size[i] = st.Size()
	}
	name := "floor"
	if hello {
		name = "floor-hello"
	}
	b.Logf("%s wasm: %d bytes raw, %d brotli, %d gzip", name, size[0], size[1], size[2])
	return dir, size[0]
}

// floorResources resolves go-app's resource paths as app.LocalDir("") does
// (the paths themselves), without serving them: app.LocalDir of any other
// directory resolves /web/x to a URL under that directory's path (go-app
// v10.1.11; server/server.go's hashResolver says the same), and the
// benchmark's handler serves /web/ itself (floorAssets).
type floorResources struct{}

func (floorResources) Resolve(location string) string {
	if location == "" {
		return "/"
	}
	return location
}

// floorAssets serves DIR/web/ under /web/ as specdash's server/assets.go
// serves its dist/: FILE.br with Content-Encoding br when the request
// accepts br, else FILE.gz for gzip (bench/cmd/precompress wrote both for
// the wasm and specdash's ECharts build), else FILE; Cache-Control
// no-cache (specdash's content-hashed URLs, cached for a year, are its own
// tuning: go-app's default is revalidation, and its service worker serves
// the second visit anyway).
func floorAssets(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		file := filepath.Join(dir, filepath.FromSlash(name))
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		if path.Ext(name) == ".wasm" || path.Ext(name) == ".js" {
			h.Add("Vary", "Accept-Encoding")
			for _, enc := range [][2]string{{"br", ".br"}, {"gzip", ".gz"}} {
				if !acceptsEncoding(r, enc[0]) {
					continue
				}
				f, err := os.Open(file + enc[1])
				if err != nil {
					continue
				}
				defer f.Close()
				st, err := f.Stat()
				if err != nil {
					continue
				}
				ctype := "text/javascript; charset=utf-8"
				if path.Ext(name) == ".wasm" {
					ctype = "application/wasm"
				}
				h.Set("Content-Type", ctype)
				h.Set("Content-Encoding", enc[0])
				// ServeContent leaves Content-Length out of encoded bodies
				// and would apply a Range to the encoded bytes.
				h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
				r = r.Clone(r.Context())
				r.Header.Del("Range")
				http.ServeContent(w, r, name, st.ModTime(), f)
				return
			}
		}
		http.ServeFile(w, r, file)
	})
}

// acceptsEncoding reports whether r's Accept-Encoding names enc (q values
// are not weighed: browsers send none).
func acceptsEncoding(r *http.Request, enc string) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		token, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(token), enc) {
			return true
		}
	}
	return false
}
