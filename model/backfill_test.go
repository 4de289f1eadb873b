//go:build !js

package model

import (
	"testing"
	"time"

	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// backfilledClient starts a real Prometheus holding openMetrics
// (promtool's backfill) and returns it with a client of it at the
// fixtures' 15 s scrape interval.
func backfilledClient(t *testing.T, openMetrics string) (*promtest.Server, *metricsclient.Client) {
	t.Helper()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, openMetrics)})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}
