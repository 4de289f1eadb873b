package server

import (
	"context"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestManyViewers: 200 simulated viewers, each refreshing the same view
// every 5 s (random phase) as the dashboard does (query_range of the four
// counters, model and engine label values), against a real Prometheus
// scraping the simulator. No viewer request fails, and the upstream sees
// about one request per distinct query per refresh, not 200.
//
// Duration: SPECDASH_LOAD_SECONDS (default 60 s, the full minute;
// set it lower for a quick local run).
func TestManyViewers(t *testing.T) {
	const viewers = 200
	const refresh = 5 * time.Second
	const scrape = 5 * time.Second
	const rng = 15 * time.Minute
	dur := 60 * time.Second
	if s := os.Getenv("SPECDASH_LOAD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("SPECDASH_LOAD_SECONDS=%q", s)
		}
		dur = time.Duration(n) * time.Second
	}

	sim, err := simulate.New(simulate.Config{Models: []string{"m1", "m2"}, Engines: 2, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sim.Run(ctx)
	simSrv := serveLoopback(t, sim)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simSrv, "http://")}, ScrapeInterval: time.Second})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 4`, promtest.NonEmpty, 60*time.Second)
	// Two samples at step points so that every view has numbers.
	time.Sleep(2 * scrape)

	reg := prometheus.NewRegistry()
	base := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Registry: reg})
	tr := &http.Transport{MaxIdleConnsPerHost: viewers, MaxIdleConns: viewers}
	defer tr.CloseIdleConnections()

	var (
		reqs, fails atomic.Int64
		mu          sync.Mutex
		ends        = map[int64]bool{}
		firstErr    error
	)
	step := metricsclient.ChooseStep(rng, scrape)
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for v := 0; v < viewers; v++ {
		wg.Add(1)
		go func(v int) {
			defer wg.Done()
			c, err := metricsclient.New(metricsclient.Config{Address: base.URL + ProxyPrefix, RoundTripper: tr, ScrapeInterval: scrape})
			if err != nil {
				t.Error(err)
				return
			}
			r := rand.New(rand.NewSource(int64(v)))
			time.Sleep(time.Duration(r.Int63n(int64(refresh))))
			for time.Now().Before(stop) {
				g := metricsclient.AlignGrid(time.Now(), rng, step)
				mu.Lock()
				ends[g.End] = true
				mu.Unlock()
				rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
				_, _, err1 := c.FetchSeries(rctx, g, nil)
				_, err2 := c.LabelValues(rctx, "model_name", nil, time.UnixMilli(g.Start), time.UnixMilli(g.End))
				_, err3 := c.LabelValues(rctx, "engine", nil, time.UnixMilli(g.Start), time.UnixMilli(g.End))
				rcancel()
				reqs.Add(3)
				for _, err := range []error{err1, err2, err3} {
					if err != nil {
						fails.Add(1)
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
					}
				}
				time.Sleep(refresh)
			}
		}(v)
	}
	wg.Wait()

	upstream := counterValue(t, reg, "specdash_upstream_requests_total", nil)
	ranges := counterValue(t, reg, "specdash_upstream_requests_total", map[string]string{"endpoint": "query_range"})
	hits := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "hit"})
	shared := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "coalesced"})
	distinct := len(ends)
	t.Logf("%d viewers for %s (refresh %s, step %s): %d viewer requests, %d failed; upstream requests %v (query_range %v) for %d distinct windows (3 queries each); cache hits %v, coalesced %v",
		viewers, dur, refresh, step, reqs.Load(), fails.Load(), upstream, ranges, distinct, hits, shared)
	if fails.Load() != 0 {
		t.Errorf("%d viewer requests failed, first: %v", fails.Load(), firstErr)
	}
	// One upstream query per distinct query: 3 per window the viewers
	// asked for (a few more if a cache entry expired just before a late
	// viewer's request).
	if want := float64(3 * distinct); upstream > want+6 || ranges > float64(distinct)+2 {
		t.Errorf("upstream requests %v (query_range %v), want about %v (3 per distinct window, %d windows)", upstream, ranges, want, distinct)
	}
	if upstream*20 > float64(reqs.Load()) {
		t.Errorf("upstream requests %v for %d viewer requests: not coalesced", upstream, reqs.Load())
	}
}

func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return "http://" + ln.Addr().String()
}
