package server

import (
	"context"
	"io"
	"maps"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"specdash/compute"
	"specdash/internal/simtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// TestManyViewers: 200 simulated viewers of the same view (query_range of
// the four counters, model and engine label values, as the dashboard asks)
// against a real Prometheus scraping the simulator. No viewer request
// fails, and each distinct upstream query reaches the upstream exactly once
// per cache lifetime, not once per viewer.
//
// The proxy's cache runs on a fake clock that moves only between rounds:
// in each round every viewer sends its three requests at once (the same
// fake instant, so the same step-aligned window), and the test knows which
// windows are still cached. The count does not depend on how fast the
// machine is (a wall clock let entries expire while late viewers of a busy
// machine arrived). Rounds: SPECDASH_LOAD_SECONDS / 5 s of fake time
// (default 60 s, 12 rounds).
func TestManyViewers(t *testing.T) {
	if testing.Short() {
		t.Skip("TestManyViewers: needs a real Prometheus and 200 viewers (make test runs it)")
	}
	const viewers = 200
	const refresh = 5 * time.Second
	const scrape = 5 * time.Second
	const rng = 15 * time.Minute
	const ttl = DefaultCacheTTL
	dur := 60 * time.Second
	if s := os.Getenv("SPECDASH_LOAD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("SPECDASH_LOAD_SECONDS=%q", s)
		}
		dur = time.Duration(n) * time.Second
	}

	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m1", "m2"}, Engines: 2, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 5}, 4)
	step := metricsclient.ChooseStep(rng, scrape)
	// Every series has a sample at or before ready; windows ending two
	// steps later have numbers at two step points (Prometheus' lookback
	// carries the newest sample forward).
	ready := time.Now()

	var clock struct {
		sync.Mutex
		now time.Time
	}
	clock.now = ready.Add(2 * step)
	now := func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		return clock.now
	}
	up := &keyCounter{next: http.DefaultTransport, seen: map[string]int{}}
	reg := prometheus.NewRegistry()
	base := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Registry: reg, Transport: up, now: now})
	tr := &http.Transport{MaxIdleConnsPerHost: viewers, MaxIdleConns: viewers}
	defer tr.CloseIdleConnections()
	clients := make([]*metricsclient.Client, viewers)
	for v := range clients {
		var err error
		if clients[v], err = metricsclient.New(metricsclient.Config{Address: base.URL + ProxyPrefix, RoundTripper: tr, ScrapeInterval: scrape}); err != nil {
			t.Fatal(err)
		}
	}

	// The fake clock's steps: within the cache lifetime (2 s, the entry
	// still answers if the window is the same), then past it.
	advance := []time.Duration{2 * time.Second, 2 * time.Second, refresh}
	var (
		reqs, fails   atomic.Int64
		firstErr      atomic.Value
		fetched       = map[compute.Grid]time.Time{} // window -> fake time of its upstream read
		wantUpstream  int
		rounds        = int(dur / refresh)
		distinctGrids = map[compute.Grid]bool{}
	)
	for round := 0; round < rounds; round++ {
		at := now()
		g := metricsclient.AlignGrid(at, rng, step)
		distinctGrids[g] = true
		wantNew := 0
		if f, ok := fetched[g]; !ok || !at.Before(f.Add(ttl)) {
			wantNew = 3 // query_range and two label value lists
			fetched[g] = at
		}
		wantUpstream += wantNew
		before := up.snapshot()

		start := make(chan struct{})
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				rctx, rcancel := context.WithTimeout(t.Context(), 2*time.Minute)
				defer rcancel()
				_, _, err1 := c.FetchSeries(rctx, g, nil)
				_, err2 := c.LabelValues(rctx, "model_name", nil, time.UnixMilli(g.Start), time.UnixMilli(g.End))
				_, err3 := c.LabelValues(rctx, "engine", nil, time.UnixMilli(g.Start), time.UnixMilli(g.End))
				reqs.Add(3)
				for _, err := range []error{err1, err2, err3} {
					if err != nil {
						fails.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			}()
		}
		close(start)
		wg.Wait()

		after := up.snapshot()
		got := 0
		for k, n := range after {
			d := n - before[k]
			got += d
			if d > 1 {
				t.Errorf("round %d (fake time %s, window ending %s): %d upstream requests for one query, want at most 1 (not coalesced or cached): %s",
					round, at.Format(time.TimeOnly), time.UnixMilli(g.End).Format(time.TimeOnly), d, k)
			}
		}
		if got != wantNew {
			t.Errorf("round %d (fake time %s, window ending %s): %d upstream requests, want %d (3 when the window's cached answers are missing or older than %s, else 0)",
				round, at.Format(time.TimeOnly), time.UnixMilli(g.End).Format(time.TimeOnly), got, wantNew, ttl)
		}
		clock.Lock()
		clock.now = clock.now.Add(advance[round%len(advance)])
		clock.Unlock()
	}

	upstream := counterValue(t, reg, "specdash_upstream_requests_total", nil)
	hits := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "hit"})
	shared := counterValue(t, reg, "specdash_proxy_cache_requests_total", map[string]string{"result": "coalesced"})
	t.Logf("%d viewers, %d rounds (step %s): %d viewer requests, %d failed; upstream requests %v (want %d) for %d distinct windows; cache hits %v, coalesced %v",
		viewers, rounds, step, reqs.Load(), fails.Load(), upstream, wantUpstream, len(distinctGrids), hits, shared)
	if fails.Load() != 0 {
		t.Errorf("%d viewer requests failed, first: %v", fails.Load(), firstErr.Load())
	}
	if upstream != float64(wantUpstream) {
		t.Errorf("specdash_upstream_requests_total = %v, want %d (one per distinct query per cache lifetime)", upstream, wantUpstream)
	}
	if wantUpstream == 3*rounds || wantUpstream == 3 {
		t.Errorf("the rounds never reused a cached window, or never needed a new one (%d upstream requests in %d rounds): the test does not exercise the cache", wantUpstream, rounds)
	}
}

// keyCounter counts the requests that reach the upstream, by method, URL
// and form body (the proxy forwards a viewer's query as it came).
type keyCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]int
}

func (k *keyCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	key := r.Method + " " + r.URL.String()
	if body := requestBody(r); body != nil {
		key += " " + string(body)
	}
	k.mu.Lock()
	k.seen[key]++
	k.mu.Unlock()
	return k.next.RoundTrip(r)
}

// requestBody is an outgoing request's body (nil without one), read
// from a copy (GetBody) so that the request still sends it.
func requestBody(r *http.Request) []byte {
	if r.GetBody == nil {
		return nil
	}
	b, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer b.Close()
	body, _ := io.ReadAll(b)
	return body
}

func (k *keyCounter) snapshot() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.seen)
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
