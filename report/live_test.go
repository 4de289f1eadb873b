package report

import (
	"context"
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/internal/simtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// liveModels holds names that need escaping in PromQL and OpenMetrics.
var liveModels = []string{"meta-llama/Llama 3 8B", `eagle "q" \ 7b`}

// TestLiveSimulator: the simulator (load paused) scraped every second by a
// real Prometheus; load runs for a few seconds, then pauses; once Prometheus
// holds the final values, a report over the whole run equals the simulator's
// true counts exactly, per (model, engine) and in total.
func TestLiveSimulator(t *testing.T) {
	sim, err := simulate.New(simulate.Config{
		Models:          liveModels,
		Engines:         2,
		K:               3,
		Acceptance:      []float64{0.8, 0.7, 0.6},
		PerModel:        map[string]simulate.ModelOptions{liveModels[1]: {K: 2, Acceptance: []float64{0.5}}},
		DraftsPerSecond: 40,
		Seed:            7,
		Tick:            20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	sim.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sim.Run(ctx)
	hs := httptest.NewServer(sim)
	defer hs.Close()
	began := time.Now()

	srv := promtest.Start(t, promtest.Options{
		Targets:        []string{strings.TrimPrefix(hs.URL, "http://")},
		ScrapeInterval: time.Second,
	})
	// Every series scraped at least once while paused (all zero).
	srv.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 4`, nil, 2*time.Minute)

	sim.Resume()
	// Every series scraped moving at least twice.
	srv.WaitFor(t, `min(changes(vllm:spec_decode_num_drafts_total[1m])) >= 2`, nil, 2*time.Minute)
	sim.Pause()
	truth := sim.Truth()
	var want int64
	for _, s := range truth.Series {
		want += s.Total.Drafts
	}
	if want == 0 {
		t.Fatal("the simulator produced no drafts")
	}
	// Wait until a scrape after the pause is in: its values are final.
	srv.WaitFor(t, `sum(vllm:spec_decode_num_drafts_total)`, func(v model.Vector) bool {
		return len(v) == 1 && int64(v[0].Value) == want
	}, 30*time.Second)

	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The window covers the whole run; its end is in the future (Prometheus
	// carries the last sample forward), so the final scrape is inside it.
	end := time.Now().Add(2 * time.Second)
	opts := Options{Range: end.Sub(began) + 10*time.Second, End: end, GroupBy: []string{"model_name", "engine"}}
	qctx, qcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer qcancel()
	res, err := Build(qctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The two models draft k=3 and k=2: the first warning says so; the
	// simulator started inside the window: the second says how much of it
	// the data covers.
	wantCov := " of this " + compute.SpanText(res.Grid.End-res.Grid.Start) + " window; rates (drafts/s, tokens/s) are per second of data (" +
		compute.SpanText(int64(res.CoveredSeconds*1000)) + ")"
	// A busy machine may delay a scrape past a 1 s bucket: a gap note
	// then follows (it says so; the counts stay exact), or, for a first
	// scrape, a start-gap note; nothing else.
	warns := slices.DeleteFunc(slices.Clone(res.Warnings), func(w string) bool {
		return strings.HasPrefix(w, "no samples for ") || strings.Contains(w, " first sampled at ")
	})
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "the selected series mix k = 2 and 3 (model_name: ") ||
		!strings.Contains(warns[0], "from pos 3 on") ||
		!strings.HasPrefix(warns[1], "Data covers the last ") || !strings.HasSuffix(warns[1], wantCov) {
		t.Errorf("warnings: %q, want the mixed-k one and the coverage note ending %q (and gap and start-gap notes only)", res.Warnings, wantCov)
	}
	if res.StepSeconds != 1 {
		t.Errorf("step %v s, want 1 s (scrape interval 1 s, range under 600 s)", res.StepSeconds)
	}
	if len(res.Groups) != len(truth.Series) {
		t.Fatalf("%d groups, want %d", len(res.Groups), len(truth.Series))
	}
	var total simulate.Counts
	total.AcceptedPerPosition = make([]int64, 3)
	atPos := make([]int64, 3) // the drafts of the series drafting each position (k mixes 3 and 2)
	for _, ts := range truth.Series {
		var g *Group
		for i := range res.Groups {
			if res.Groups[i].Labels["model_name"] == ts.Model && res.Groups[i].Labels["engine"] == ts.Engine {
				g = &res.Groups[i]
			}
		}
		if g == nil {
			t.Errorf("no group for %q engine %s", ts.Model, ts.Engine)
			continue
		}
		checkCounts(t, ts.Model+"/"+ts.Engine, g.Stats, ts.Total, res.CoveredSeconds)
		total.Drafts += ts.Total.Drafts
		total.DraftTokens += ts.Total.DraftTokens
		total.AcceptedTokens += ts.Total.AcceptedTokens
		for i, v := range ts.Total.AcceptedPerPosition {
			total.AcceptedPerPosition[i] += v
			atPos[i] += ts.Total.Drafts
		}
	}
	if atPos[2] == total.Drafts {
		t.Fatalf("the simulated series do not mix k: drafts at positions %v", atPos)
	}
	simtest.CheckCountsAt(t, "total", res.Total, total, atPos, res.CoveredSeconds)

	// Not grouped: one group, equal to the total.
	opts.GroupBy = nil
	res2, err := Build(qctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Groups) != 1 || len(res2.Groups[0].Labels) != 0 {
		t.Fatalf("ungrouped: %+v", res2.Groups)
	}
	simtest.CheckCountsAt(t, "ungrouped", res2.Groups[0].Stats, total, atPos, res2.CoveredSeconds)
	simtest.CheckCountsAt(t, "ungrouped total", res2.Total, total, atPos, res2.CoveredSeconds)

	// A model filter (quotes and a backslash in the name) selects exactly it.
	opts.Filters = []metricsclient.Filter{{Name: "model_name", Values: []string{liveModels[1]}}}
	opts.GroupBy = []string{"model_name"}
	res3, err := Build(qctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	var m1 simulate.Counts
	m1.AcceptedPerPosition = make([]int64, 2)
	for _, ts := range truth.Series {
		if ts.Model == liveModels[1] {
			m1.Drafts += ts.Total.Drafts
			m1.DraftTokens += ts.Total.DraftTokens
			m1.AcceptedTokens += ts.Total.AcceptedTokens
			for i, v := range ts.Total.AcceptedPerPosition {
				m1.AcceptedPerPosition[i] += v
			}
		}
	}
	if len(res3.Groups) != 1 || res3.Groups[0].Labels["model_name"] != liveModels[1] {
		t.Fatalf("filtered groups: %+v", res3.Groups)
	}
	checkCounts(t, "filtered", res3.Total, m1, res3.CoveredSeconds)
}

// checkCounts is simtest.CheckCounts.
func checkCounts(t *testing.T, what string, s compute.Stats, c simulate.Counts, window float64) {
	t.Helper()
	simtest.CheckCounts(t, what, s, c, window)
}

func near(t *testing.T, what string, got compute.Value, want float64) {
	t.Helper()
	if !got.OK || math.Abs(got.V-want) > 1e-12 {
		t.Errorf("%s = %+v, want %.15g", what, got, want)
	}
}
