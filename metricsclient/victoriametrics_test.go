package metricsclient

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/testwait"
	"specdash/internal/vmtest"
)

// TestShapedFleetVictoriaMetrics reads the fleet (72 engines with the
// same restarts, join, leave and engine without _created) from a real
// VictoriaMetrics, whose lookback, rollup and name-keeping rules differ
// from Prometheus': the shaped read's counts per bucket equal the truth,
// or, when VictoriaMetrics cannot answer the shaped queries, the read
// falls back to the raw path and says so.
func TestShapedFleetVictoriaMetrics(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(72, gs)
	var b strings.Builder
	if err := writeFleetOM(&b, engines); err != nil {
		t.Fatal(err)
	}
	vm := vmtest.Start(t)
	t.Logf("imported %d samples", vmtest.Import(t, vm, b.String(), nil))
	c, err := New(Config{Address: vm, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	truth := fleetTruthSeries(engines, gs)
	// Imported data becomes searchable after a moment.
	var n int
	var ferr error
	if !testwait.Until(2*time.Minute, func() bool {
		var s []compute.Series
		s, _, ferr = c.FetchSeries(ctx, g, nil)
		n = len(s)
		return ferr == nil && n == len(truth)
	}) {
		t.Fatalf("VictoriaMetrics has not all series 2 min after import: %d series, %v", n, ferr)
	}
	for _, groupBy := range [][]string{nil, {"model_name"}, {"instance", "engine"}} {
		name := fmt.Sprintf("by %v", groupBy)
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: raw %v, %d series, %d irregular, %d queries, warnings %q", name, sh.Raw, len(sh.Series), sh.Irregular, sh.Queries, sh.Warnings)
		if sh.Raw {
			t.Errorf("%s: VictoriaMetrics fell back to the raw path: %q", name, sh.Warnings)
			continue
		}
		sameGroups(t, name+" shaped vs truth", sh.Groups(g), compute.Aggregate(truth, groupBy, g))
	}
	// Window totals of every engine (one bucket: VictoriaMetrics' rollups
	// over the whole window).
	totals, sh, err := c.FetchTotals(ctx, g.Start, g.End, nil, []string{"instance", "engine"})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Raw {
		t.Errorf("totals fell back to the raw path: %q", sh.Warnings)
	}
	want := compute.Aggregate(truth, []string{"instance", "engine"}, g)
	if len(totals) != len(want) {
		t.Fatalf("%d totals, want %d", len(totals), len(want))
	}
	for i := range totals {
		if !reflect.DeepEqual(totals[i].Total, want[i].Total) || !reflect.DeepEqual(totals[i].Labels, want[i].Labels) {
			t.Errorf("totals %v: %+v, want %v %+v", totals[i].Labels, totals[i].Total, want[i].Labels, want[i].Total)
		}
	}
}
