package metricsclient

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"specdash/internal/promtest"
)

// TestFetchTargets: a real Prometheus scraping one address lists it as an
// active target (health unknown until its first scrape, down for an
// address nothing listens on); a path that is not the API is an error
// naming the HTTP status.
func TestFetchTargets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there: the target is down once scraped
	srv := promtest.Start(t, promtest.Options{Targets: []string{dead}})
	ctx := context.Background()
	var ts []Target
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ts, err = FetchTargets(ctx, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) == 1 && ts[0].Health == "down" || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(ts) != 1 || !strings.Contains(ts[0].URL, dead) || ts[0].Health != "down" || ts[0].LastError == "" {
		t.Fatalf("targets %+v, want %s down with its error", ts, dead)
	}
	if _, err := FetchTargets(ctx, srv.URL+"/nothing"); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("bad path: %v", err)
	}
}
