package server

import (
	"maps"
	"net/http"
	"testing"
	"time"

	"specdash/internal/simtest"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/simulate"
	"specdash/view"
)

// TestWarmUp: a server started with WarmUp reads the default view before
// anyone asks for it, so that the first visitor's page ("/") is
// pre-rendered with its numbers from the proxy's caches, nothing sent
// upstream, and the page's head is known (pageStream streams it).
func TestWarmUp(t *testing.T) {
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m1"}, Engines: 2, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 11}, 2)
	// The step floor the server is told (Prometheus scrapes every second):
	// 10 s steps, so that a try (a warm-up and a visit) mostly falls
	// within one, however busy the machine.
	const scrape = 10 * time.Second
	q := view.ParseQuery(nil) // the view of "/"
	direct, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "every engine's series in the default window", 2*time.Minute, func() bool {
		n, err := direct.SelectionSize(t.Context(), q.Grid(scrape, time.Now()), nil)
		return err == nil && n == 2*(3+4)
	})

	up := &keyCounter{next: http.DefaultTransport, seen: map[string]int{}}
	// What the first visitor reads: with the pre-render on, the page
	// (pre-rendered with its numbers); with it off, the browser's first
	// load of the page's view, as the live page runs it, so that the
	// warm-up's own load is what it finds (the warm-up's render of "/"
	// then loads nothing).
	visit := func(t *testing.T, s string, prerender bool) {
		if prerender {
			page := getPage(t, &http.Client{Timeout: 60 * time.Second}, s+"/")
			if st := attrOf(tagWith(page, `data-dashboard="specdash"`), "data-state"); st != "preview" {
				t.Fatalf("data-state %q, want preview (numbers pre-rendered)", st)
			}
			return
		}
		c, err := metricsclient.New(metricsclient.Config{Address: s + ProxyPrefix, ScrapeInterval: scrape})
		if err != nil {
			t.Fatal(err)
		}
		if res := view.LoadWith(t.Context(), c, q, scrape, time.Now(), nil, view.LoadOptions{DeferWindow: true}); res.Err != nil || res.Total.Total.Drafts == 0 {
			t.Fatalf("first load: error %v, %v drafts", res.Err, res.Total.Total.Drafts)
		}
	}
	for _, prerender := range []bool{true, false} {
		t.Run(map[bool]string{true: "page", false: "first-load"}[prerender], func(t *testing.T) {
			budget := 20 * time.Second // numbers, however busy the machine
			if !prerender {
				budget = -1
			}
			// The visit and the warm-up's load must fall on one grid (the
			// window's end is rounded down to its step): a try that spans a
			// step boundary is tried again, on a server of its own.
			for try := 1; ; try++ {
				warmed := make(chan warmUpResult, 1)
				s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Transport: up, CacheTTL: time.Hour,
					PreRenderTimeout: budget, WarmUp: true, warmedUp: func(r warmUpResult) { warmed <- r }})
				var r warmUpResult
				select {
				case r = <-warmed:
				case <-time.After(2 * warmUpTimeout):
					t.Fatal("the warm-up did not end")
				}
				if r.err != nil || r.page != http.StatusOK || !r.headLearned {
					t.Fatalf("warm-up: load error %v, page status %d, head learned %v; want no error, 200, true", r.err, r.page, r.headLearned)
				}
				before := up.snapshot()
				visit(t, s.URL, prerender)
				if q.Grid(scrape, r.now) != q.Grid(scrape, time.Now()) {
					if try == 20 {
						t.Fatal("no try within one step")
					}
					t.Logf("try %d spanned a step boundary", try)
					continue
				}
				if after := up.snapshot(); !maps.Equal(after, before) {
					for k, n := range after {
						if n != before[k] {
							t.Errorf("the first visitor sent %q upstream: the warm-up did not read it", k)
						}
					}
				}
				return
			}
		})
	}
}

// TestWarmUpOff: the warm-up runs only when asked for, with a cache (the
// server's default one too) and for a default source that is not embedded
// (just started: no sample in any window yet).
func TestWarmUpOff(t *testing.T) {
	prom := &upstream{Source: Source{Kind: KindPrometheus}}
	emb := &upstream{Source: Source{Kind: KindEmbedded}}
	for _, tc := range []struct {
		cfg  Config
		def  *upstream
		want bool
	}{
		{Config{WarmUp: true, CacheTTL: DefaultCacheTTL}, prom, true},
		{Config{CacheTTL: DefaultCacheTTL}, prom, false},
		{Config{WarmUp: true, CacheTTL: -1}, prom, false},
		{Config{WarmUp: true, CacheTTL: DefaultCacheTTL}, emb, false},
	} {
		if got := warmUpOn(tc.cfg, tc.def); got != tc.want {
			t.Errorf("WarmUp %v, CacheTTL %v, source kind %s: warm-up %v, want %v", tc.cfg.WarmUp, tc.cfg.CacheTTL, tc.def.Kind, got, tc.want)
		}
	}
}

// TestWarmUpSourceDown: with the source refusing at the server's start the
// warm-up ends with the load's error (logged) and leaves the render of "/"
// to the first visitor (the source would fail it again); the server serves
// as before.
func TestWarmUpSourceDown(t *testing.T) {
	warmed := make(chan warmUpResult, 1)
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", WarmUp: true, PreRenderTimeout: 20 * time.Second,
		warmedUp: func(r warmUpResult) { warmed <- r }})
	var r warmUpResult
	select {
	case r = <-warmed:
	case <-time.After(2 * warmUpTimeout):
		t.Fatal("the warm-up did not end")
	}
	if r.err == nil || r.page != 0 || r.headLearned {
		t.Errorf("warm-up: load error %v, page status %d, head learned %v; want the source's error, no render", r.err, r.page, r.headLearned)
	}
	page := getPage(t, &http.Client{Timeout: 60 * time.Second}, s.URL+"/")
	if st := attrOf(tagWith(page, `data-dashboard="specdash"`), "data-state"); st == "" || st == "preview" {
		t.Errorf("data-state %q: want the page without numbers", st)
	}
}
