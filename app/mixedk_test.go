//go:build !js

package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// TestLoadNotesMixedK: the known-answer fixture's models draft k=3 and k=4;
// a Load of both (grouped or not) notes that the total's per-position rates
// from pos 4 on are diluted, naming the k of each model; a Load filtered to
// one model does not.
func TestLoadNotesMixedK(t *testing.T) {
	fx := fixtures.KnownAnswer()
	const scrape = 15 * time.Second
	c := knownAnswerClient(t, fx, scrape)
	const want = `the selected series mix k = 3 and 4 (model_name: "Llama 3 \"chat\" 8B" k=3, "org/model-b" k=4): summed per-position rates from pos 4 on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; group by model_name or filter to one k`
	now := time.Unix(fixtures.StartUnix+1350, 0)
	for _, groupBy := range [][]string{nil, {"model_name"}} {
		q := DefaultQuery()
		q.Range = "15m"
		q.GroupBy = groupBy
		res := Load(context.Background(), c, q, scrape, now)
		if res.Err != nil {
			t.Fatalf("group by %v: %v", groupBy, res.Err)
		}
		if len(res.Total.Total.AcceptedPerPosition) != 4 {
			t.Fatalf("group by %v: total k %d, want 4 (both models loaded)", groupBy, len(res.Total.Total.AcceptedPerPosition))
		}
		if !slices.Contains(res.Notes, want) {
			t.Errorf("group by %v: notes %q lack\n%s", groupBy, res.Notes, want)
		}
	}
	q := DefaultQuery()
	q.Range = "15m"
	q.Filter = map[string][]string{"model_name": {fixtures.ModelB}}
	res := Load(context.Background(), c, q, scrape, now)
	if res.Err != nil || len(res.Total.Total.AcceptedPerPosition) != 4 || res.Total.Total.Drafts == 0 {
		t.Fatalf("filtered: err %v, total %+v", res.Err, res.Total.Total)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "mix k") {
			t.Errorf("filtered to one model, yet note %q", n)
		}
	}
}

// knownAnswerClient starts a real Prometheus over the known-answer fixture
// (promtool backfill) and returns a client for it with the given scrape
// interval.
func knownAnswerClient(t *testing.T, fx fixtures.Fixture, scrape time.Duration) *metricsclient.Client {
	t.Helper()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
