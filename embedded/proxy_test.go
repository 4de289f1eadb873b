package embedded

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"specdash/server"
)

// TestHeavyQueriesThroughProxy: heavy subqueries sent at once through the
// server's /prom proxy (as the page sends them) each end with the engine's
// own JSON error naming query.max-samples, not the proxy's 502.
func TestHeavyQueriesThroughProxy(t *testing.T) {
	e, err := New(Config{QueryConcurrency: 2, QueryMaxSamples: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	h, err := server.New(server.Config{
		Version: "test",
		Sources: []server.Source{{Name: "embedded", Kind: server.KindEmbedded, Handler: e.Handler(), ScrapeInterval: time.Second}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			// Distinct queries: the proxy would coalesce identical ones.
			q := "count_over_time(vector(" + string(rune('1'+i)) + ")[1h:1ms])"
			resp, err := http.Get(hs.URL + "/prom/api/v1/query?query=" + q)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var r struct{ Status, ErrorType, Error string }
			if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != http.StatusUnprocessableEntity ||
				r.ErrorType != "execution" || !strings.Contains(r.Error, "over the limit of 100000 samples (query.max-samples)") {
				t.Errorf("%s: HTTP %d %q (%v), want 422 naming query.max-samples", q, resp.StatusCode, b, err)
			}
		})
	}
	wg.Wait()
}
