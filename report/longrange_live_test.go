package report

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestLiveSimulatorLongRange: the simulator counts for a while BEFORE
// Prometheus first scrapes it (its series are created at start, with
// _created), then pauses; a report over the last day (automatic step 5
// min) over that data, a few seconds old, equals the simulator's true counts
// exactly: the counts before the first scrape and before the first step
// point are kept (before the _created-aware bases they were lost: 0 at a
// 5-min step).
func TestLiveSimulatorLongRange(t *testing.T) {
	sim, err := simulate.New(simulate.Config{
		Models:          liveModels[:1],
		Engines:         2,
		K:               3,
		Acceptance:      []float64{0.8, 0.7, 0.6},
		DraftsPerSecond: 40,
		Seed:            11,
		Tick:            20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sim.Run(ctx)
	hs := httptest.NewServer(sim)
	defer hs.Close()

	srv := promtest.Start(t, promtest.Options{
		Targets:        []string{strings.TrimPrefix(hs.URL, "http://")},
		ScrapeInterval: time.Second,
	})
	// First scrape in: the series already hold counts.
	first := srv.WaitFor(t, `sum(vllm:spec_decode_num_drafts_total) > 0`, nil, 2*time.Minute)
	// Every series scraped moving at least twice more.
	srv.WaitFor(t, `min(changes(vllm:spec_decode_num_drafts_total[1m])) >= 2`, nil, 2*time.Minute)
	sim.Pause()
	truth := sim.Truth()
	var total simulate.Counts
	total.AcceptedPerPosition = make([]int64, 3)
	for _, ts := range truth.Series {
		total.Drafts += ts.Total.Drafts
		total.DraftTokens += ts.Total.DraftTokens
		total.AcceptedTokens += ts.Total.AcceptedTokens
		for i, v := range ts.Total.AcceptedPerPosition {
			total.AcceptedPerPosition[i] += v
		}
	}
	if float64(first[0].Value) >= float64(total.Drafts) {
		t.Fatalf("the first scrape already held all %d drafts", total.Drafts)
	}
	srv.WaitFor(t, `sum(vllm:spec_decode_num_drafts_total)`, func(v model.Vector) bool {
		return len(v) == 1 && int64(v[0].Value) == total.Drafts
	}, 30*time.Second)

	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The end: the next 5-minute boundary (the grid's end is rounded down
	// to the step), so the data, a few seconds old, is inside the window.
	end := time.Now().Truncate(5 * time.Minute).Add(5 * time.Minute)
	qctx, qcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer qcancel()
	res, err := Build(qctx, c, Options{Range: 24 * time.Hour, End: end, GroupBy: []string{"engine"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StepSeconds != 300 {
		t.Errorf("step %v s, want 300 s for a 1 d range", res.StepSeconds)
	}
	// The simulator ran for minutes of the day: only the coverage note.
	// (A gap note if a busy machine delayed a scrape past a bucket.)
	warns := slices.DeleteFunc(slices.Clone(res.Warnings), func(w string) bool {
		return strings.HasPrefix(w, "no samples for ") || strings.Contains(w, " first sampled at ")
	})
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "Data covers the last ") ||
		!strings.Contains(warns[0], " of this 1d window; rates (drafts/s, tokens/s) are per second of data (") {
		t.Errorf("warnings: %q, want the coverage note only", res.Warnings)
	}
	checkCounts(t, "1d total", res.Total, total, res.CoveredSeconds)
	for _, ts := range truth.Series {
		for _, g := range res.Groups {
			if g.Labels["engine"] == ts.Engine {
				checkCounts(t, "1d engine "+ts.Engine, g.Stats, ts.Total, res.CoveredSeconds)
			}
		}
	}
}
