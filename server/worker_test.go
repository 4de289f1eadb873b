package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// TestWorkerTemplate: the served app-worker.js is go-app's worker with
// specdash's fetch handler in place of go-app's catch-all one (which
// answered every /prom query from the worker), its install, activate and
// cache code kept. It fails when a go-app upgrade changes the handler
// workerFetch replaces.
func TestWorkerTemplate(t *testing.T) {
	if !strings.Contains(app.DefaultAppWorkerJS, goappWorkerFetch) {
		t.Fatalf("go-app's worker no longer has the fetch handler server/worker.go replaces: review workerFetch against app.DefaultAppWorkerJS")
	}
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:9"})
	resp, err := http.Get(s.URL + "/app-worker.js")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	js := string(b)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /app-worker.js: %d", resp.StatusCode)
	}
	for _, want := range []string{
		`const specdashDataPrefix = "/prom/";`,
		`url.pathname.startsWith(specdashDataPrefix)`,
		`event.addRoutes(`,
		`request.mode === "navigate"`,
		`async function installWorker()`, // go-app's install and cache code stay
		`async function fetchWithCache(request)`,
		`const resourcesToCache = [`, // go-app filled in its template
	} {
		if !strings.Contains(js, want) {
			t.Errorf("app-worker.js lacks %q", want)
		}
	}
	if strings.Contains(js, goappWorkerFetch) {
		t.Errorf("app-worker.js still has go-app's catch-all fetch handler")
	}
	if strings.Count(js, `addEventListener("fetch"`) != 1 {
		t.Errorf("app-worker.js has %d fetch handlers, want 1", strings.Count(js, `addEventListener("fetch"`))
	}
}
