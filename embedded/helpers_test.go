package embedded

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/simtest"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/simulate"
)

// running is an Engine being run by a test, its API served on 127.0.0.1.
type running struct {
	*Engine
	URL  string
	API  v1.API
	stop context.CancelFunc
	done chan error
}

// start creates and runs an engine; it is stopped and closed by t.Cleanup.
func start(t *testing.T, cfg Config) *running {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Engine: e, stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- e.Run(ctx) }()
	hs := httptest.NewServer(e.Handler())
	r.URL = hs.URL
	c, err := api.NewClient(api.Config{Address: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	r.API = v1.NewAPI(c)
	t.Cleanup(func() {
		hs.Close()
		cancel()
		if err := <-r.done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// serveOnly serves a not-running engine's API (e.g. over backfilled data).
func serveOnly(t *testing.T, e *Engine) (string, v1.API) {
	t.Helper()
	hs := httptest.NewServer(e.Handler())
	t.Cleanup(hs.Close)
	c, err := api.NewClient(api.Config{Address: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	return hs.URL, v1.NewAPI(c)
}

// waitFor evaluates query now until cond holds or timeout passes (then the
// test fails with the last value).
func waitFor(t *testing.T, a v1.API, query string, cond func(model.Vector) bool, timeout time.Duration) model.Vector {
	t.Helper()
	var last model.Value
	var lastErr error
	var got model.Vector
	if testwait.Until(timeout, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		v, _, _, err := a.Query(ctx, query, time.Now())
		cancel()
		last, lastErr = v, err
		if err == nil {
			if vec, ok := v.(model.Vector); ok && cond(vec) {
				got = vec
				return true
			}
		}
		return false
	}) {
		return got
	}
	t.Fatalf("waiting %v for %s: last value %v, error %v", timeout, query, last, lastErr)
	return nil
}

func nonEmpty(v model.Vector) bool { return len(v) > 0 }

func equals(want float64) func(model.Vector) bool {
	return func(v model.Vector) bool { return len(v) == 1 && float64(v[0].Value) == want }
}

// newSim returns a paused simulator running in real time, served on
// 127.0.0.1, and its /metrics URL.
func newSim(t *testing.T, cfg simulate.Config) (*simulate.Simulator, *httptest.Server) {
	t.Helper()
	sim, err := simulate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sim.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sim.Run(ctx)
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	return sim, hs
}

func client(t *testing.T, url string, scrape time.Duration) *metricsclient.Client {
	t.Helper()
	c, err := metricsclient.New(metricsclient.Config{Address: url, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkCounts is simtest.CheckCounts.
func checkCounts(t *testing.T, what string, s compute.Stats, c simulate.Counts, window float64) {
	t.Helper()
	simtest.CheckCounts(t, what, s, c, window)
}

func near(t *testing.T, what string, got compute.Value, want float64) {
	t.Helper()
	if !got.OK || math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %+v, want %.15g", what, got, want)
	}
}

func sumCounts(ts []simulate.TrueSeries, k int, keep func(simulate.TrueSeries) bool) simulate.Counts {
	out := simulate.Counts{AcceptedPerPosition: make([]int64, k)}
	for _, s := range ts {
		if keep != nil && !keep(s) {
			continue
		}
		out.Drafts += s.Total.Drafts
		out.DraftTokens += s.Total.DraftTokens
		out.AcceptedTokens += s.Total.AcceptedTokens
		for i, v := range s.Total.AcceptedPerPosition {
			out.AcceptedPerPosition[i] += v
		}
	}
	return out
}
