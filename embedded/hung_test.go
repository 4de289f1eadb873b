package embedded

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"specdash/internal/testwait"
)

// TestHungTarget: a target that accepts and never answers is bounded by
// the scrape timeout: it shows down with the timeout, while a good target
// beside it stays up and keeps its data current.
func TestHungTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live engine (make test runs it)")
	}
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	sim, good := newSim(t, liveSimConfig())
	sim.Resume()
	e := start(t, Config{Targets: []string{good.URL + "/metrics", hung.URL + "/metrics"}, ScrapeInterval: 500 * time.Millisecond})
	var last []TargetStatus
	if !testwait.Until(2*time.Minute, func() bool {
		last = e.Targets()
		return len(last) == 2 && last[0].Up && !last[1].Up && strings.Contains(last[1].LastError, "deadline exceeded")
	}) {
		t.Fatalf("targets: %+v, want the good one up and the hung one down with a timeout", last)
	}
	waitFor(t, e.API, `count(vllm:spec_decode_num_drafts_total) > 0`, nonEmpty, 2*time.Minute)
}
