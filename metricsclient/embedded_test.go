//go:build !js

package metricsclient

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/embedded"
)

// startEmbedded serves the OpenMetrics text om from specdash's embedded
// engine (Prometheus 3's PromQL: ranges open at their left end, where the
// Debian Prometheus 2 of the other tests closes them) and returns a
// client of it.
func startEmbedded(t *testing.T, om string) *Client {
	t.Helper()
	dir := t.TempDir()
	if err := embedded.BackfillOpenMetrics(dir, []byte(om), nil); err != nil {
		t.Fatal(err)
	}
	e, err := embedded.New(embedded.Config{StoragePath: dir})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	t.Cleanup(func() {
		hs.Close()
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := New(Config{Address: hs.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestShapedFleetEmbedded reads the fleet (72 engines: restarts, also
// across gaps at the edges of the detection's ranges, joins, a leave, an
// engine without _created, one not scraped for longer than the lookback)
// and its latency families from the embedded engine: the shaped counts
// per bucket equal the truth, the summed latency read equals the raw one,
// and the same engines are irregular as with Prometheus 2.
func TestShapedFleetEmbedded(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := latencyFleet(72, gs)
	c := startEmbedded(t, fleetWithLatencyOM(t, engines))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	truth := fleetTruthSeries(engines, gs)
	for _, groupBy := range [][]string{nil, {"model_name"}, {"instance", "engine"}} {
		name := fmt.Sprintf("by %v", groupBy)
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The eight restarts, the two joins and the gap.
		if sh.Raw || sh.Irregular != 11 || len(sh.Warnings) != 1 || !strings.Contains(sh.Warnings[0], "no _created") {
			t.Errorf("%s: raw %v, %d irregular engines, warnings %q; want 11 and the start warning", name, sh.Raw, sh.Irregular, sh.Warnings)
		}
		sameGroups(t, name+" shaped vs truth", sh.Groups(g), compute.Aggregate(truth, groupBy, g))
	}
	raw, err := c.FetchOptional(ctx, VLLMV1, g, nil, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, nil, summedRoles...)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Summed || sum.Irregular != 11 {
		t.Errorf("latency: summed %v, %d irregular, warnings %q; want summed, 11", sum.Summed, sum.Irregular, sum.Warnings)
	}
	sameOptional(t, "embedded", g, sum, raw)
}
