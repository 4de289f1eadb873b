package metricsclient

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
)

// TestSampleCountsFindsOutage backfills two engines' drafts counters scraped
// every 15 s with a 60 s outage (no samples of either engine), and checks
// that the per-bucket sample counts from a real Prometheus show the gap at
// the right buckets and nowhere else.
func TestSampleCountsFindsOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus (make test runs it)")
	}
	base := time.Now().Add(-2*time.Hour).Unix() / 60 * 60
	var b strings.Builder
	b.WriteString("# TYPE vllm:spec_decode_num_drafts counter\n")
	outFrom, outTo := base+300, base+360 // no samples in [outFrom, outTo)
	for _, e := range []string{"0", "1"} {
		for ts, v := base, 0; ts <= base+600; ts, v = ts+15, v+7 {
			if ts >= outFrom && ts < outTo {
				continue
			}
			fmt.Fprintf(&b, "vllm:spec_decode_num_drafts_total{engine=%q,model_name=\"m\"} %d %d\n", e, v, ts)
		}
	}
	b.WriteString("# EOF\n")
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, b.String())})
	c, err := New(Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// 30 s buckets over [base, base+600]: bucket j is (base+30j, base+30(j+1)].
	g := compute.Grid{Start: base * 1000, End: (base + 600) * 1000, Step: 30_000}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	counts, _, err := c.SampleCounts(ctx, g, []Filter{{Name: "model_name", Values: []string{"m"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 20 {
		t.Fatalf("%d buckets, want 20", len(counts))
	}
	// Samples at base+15k; bucket j holds those in (base+30j, base+30j+30]:
	// two per engine, except in the outage: samples at 300..345 are missing,
	// so buckets 9 (270, 300] and 11 (330, 360] have one per engine (285,
	// 360), 10 (300, 330] none.
	want := make([]float64, 20)
	for j := range want {
		want[j] = 4
	}
	want[9], want[10], want[11] = 2, 0, 2
	if !reflect.DeepEqual(counts, want) {
		t.Fatalf("sample counts = %v, want %v", counts, want)
	}
	if gaps := compute.FindGaps(counts); !reflect.DeepEqual(gaps, []compute.Gap{{From: 10, To: 11}}) {
		t.Fatalf("gaps = %v, want bucket 10 (the next bucket, 11, holds the gap's counts)", gaps)
	}
}
