package metricsclient

import (
	"context"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/internal/promtest"
	"specdash/simulate"
)

// TestFetchIncrementalLive: the simulator scraped every second by a real
// Prometheus; a live window (2 min at 1 s) is read at the live edge (its
// end 3 s ahead of the clock, so its newest points are certainly
// incomplete) and, once every target has been scraped past an end 0.5 s
// after the live read's, read again at that end both incrementally
// (continuing the live read) and fully (stored data that no longer
// changes). Both must be identical while an engine restarts
// (counter reset) and a second server (another model) appears, and the
// incremental read must have replaced points that had changed since the
// live read (the live read's points 1 and 2 s ahead of the clock always
// change: a cache that kept them would fail).
func TestFetchIncrementalLive(t *testing.T) {
	newSim := func(model string, engines int, seed int64) *simulate.Simulator {
		sim, err := simulate.New(simulate.Config{Models: []string{model}, Engines: engines, K: 3, Acceptance: []float64{0.7},
			DraftsPerSecond: 20, Seed: seed, Tick: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return sim
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	simA, simB := newSim("a", 2, 1), newSim("b", 1, 2)
	go simA.Run(ctx)
	go simB.Run(ctx)
	hsA := httptest.NewServer(simA)
	defer hsA.Close()
	hsB := httptest.NewUnstartedServer(simB) // down until started
	defer hsB.Close()
	srv := promtest.Start(t, promtest.Options{
		Targets:        []string{strings.TrimPrefix(hsA.URL, "http://"), hsB.Listener.Addr().String()},
		ScrapeInterval: time.Second,
	})
	srv.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 2`, nil, 2*time.Minute)

	const scrape = time.Second
	lag := scrape + 5*time.Second // app.IncompleteLag
	c, err := New(Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	rng := 2 * time.Minute
	step := ChooseStep(rng, scrape)
	read := func(now time.Time, prev *Window) (*Fetched, *Window) {
		t.Helper()
		f, w, err := c.Fetch(ctx, FetchRequest{Grid: AlignGrid(now, rng, step), Prev: prev, Settled: now.Add(-lag), Now: now})
		if err != nil {
			t.Fatalf("fetch at %s: %v", now.Format(time.TimeOnly), err)
		}
		return f, w
	}
	var prev *Window
	changed := 0
	for i := range 6 {
		switch i {
		case 2:
			if err := simA.ResetCounters("a", "0"); err != nil {
				t.Fatal(err)
			}
		case 3:
			hsB.Start()
		}
		liveAt := time.Now().Add(3 * time.Second)
		_, live := read(liveAt, prev)
		// The second read ends just past the live one, once every target
		// has been scraped after that end (up is written with each
		// scrape's samples): its points are final, on any machine.
		now := liveAt.Add(500 * time.Millisecond)
		srv.WaitFor(t, fmt.Sprintf(`min(timestamp(up)) > %.3f`, float64(now.UnixMilli())/1000), nil, 2*time.Minute)
		full, fw := read(now, nil)
		inc, w := read(now, live)
		what := fmt.Sprintf("read %d at %s", i, now.Format(time.TimeOnly))
		if !inc.Incremental {
			t.Fatalf("%s: not incremental", what)
		}
		inc.Incremental = false
		if !reflect.DeepEqual(full, inc) {
			t.Fatalf("%s: incremental read differs from the full one:\nfull: %+v\nincremental: %+v", what, full, inc)
		}
		if !reflect.DeepEqual(byMetric(fw.counters), byMetric(w.counters)) {
			t.Fatalf("%s: the windows' points differ", what)
		}
		// Points of the live read that the source has changed since.
		final := map[string]model.SampleValue{}
		for _, ss := range fw.counters {
			for _, p := range ss.Values {
				final[fmt.Sprint(ss.Metric, p.Timestamp)] = p.Value
			}
		}
		for _, ss := range live.counters {
			for _, p := range ss.Values {
				if v, ok := final[fmt.Sprint(ss.Metric, p.Timestamp)]; ok && v != p.Value {
					changed++
				}
			}
		}
		prev = w
	}
	if changed == 0 {
		t.Fatal("no point of a live read changed before the next read: the test proves nothing")
	}
	// The reset and the new server are in the last window.
	f, _ := read(time.Now().Add(-3*time.Second), nil)
	models := map[string]bool{}
	for _, s := range f.Series {
		models[s.Labels["model_name"]] = true
	}
	if !models["a"] || !models["b"] {
		t.Fatalf("models in the last window: %v, want a and b", models)
	}
}

// byMetric maps each series of m (by its label set) to its points.
func byMetric(m model.Matrix) map[string][]model.SamplePair {
	out := map[string][]model.SamplePair{}
	for _, ss := range m {
		out[ss.Metric.String()] = ss.Values
	}
	return out
}
