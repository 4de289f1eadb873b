package server

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"specdash/embedded"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/internal/vmtest"
	"specdash/metricsclient"
	"specdash/view"
)

// rangeRecorder records the grids of the query_range requests that reach
// the upstream.
type rangeRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []upstreamRange
}

type upstreamRange struct {
	query      string
	start, end int64 // Unix seconds
}

func (r *rangeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.record(req, requestBody(req))
	return r.next.RoundTrip(req)
}

// handler records the requests of an in-process source (the embedded
// engine) and passes them to h.
func (r *rangeRecorder) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.record(req, body)
		h.ServeHTTP(w, req)
	})
}

func (r *rangeRecorder) record(req *http.Request, body []byte) {
	if !strings.HasSuffix(req.URL.Path, "/query_range") {
		return
	}
	v := req.URL.Query()
	form, _ := url.ParseQuery(string(body))
	for k, vs := range form {
		v[k] = append(v[k], vs...)
	}
	s, _ := strconv.ParseFloat(v.Get("start"), 64)
	e, _ := strconv.ParseFloat(v.Get("end"), 64)
	r.mu.Lock()
	r.seen = append(r.seen, upstreamRange{v.Get("query"), int64(s), int64(e)})
	r.mu.Unlock()
}

func (r *rangeRecorder) take() []upstreamRange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}

// sameMatrix compares two range answers series by series, values bit for
// bit (NaN equal to NaN).
func sameMatrix(t *testing.T, what string, got, want model.Value) {
	t.Helper()
	gm, ok1 := got.(model.Matrix)
	wm, ok2 := want.(model.Matrix)
	if !ok1 || !ok2 {
		t.Fatalf("%s: answers %T and %T, want matrices", what, got, want)
	}
	index := func(m model.Matrix) map[string][]model.SamplePair {
		out := map[string][]model.SamplePair{}
		for _, s := range m {
			out[s.Metric.String()] = s.Values
		}
		return out
	}
	g, w := index(gm), index(wm)
	if len(w) == 0 {
		t.Fatalf("%s: the source answered no series: the test checks nothing", what)
	}
	for k, wv := range w {
		gv, ok := g[k]
		if !ok {
			t.Errorf("%s: series %s missing from the proxy's answer", what, k)
			continue
		}
		eq := slices.EqualFunc(gv, wv, func(a, b model.SamplePair) bool {
			return a.Timestamp == b.Timestamp && math.Float64bits(float64(a.Value)) == math.Float64bits(float64(b.Value))
		})
		if !eq {
			t.Errorf("%s: series %s\n got %v\nwant %v", what, k, gv, wv)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			t.Errorf("%s: series %s in the proxy's answer, not in the source's", what, k)
		}
	}
	// In the source's order (labels.Compare).
	order := func(m model.Matrix) []string {
		var out []string
		for _, s := range m {
			out = append(out, s.Metric.String())
		}
		return out
	}
	if len(gm) == len(wm) && !slices.Equal(order(gm), order(wm)) {
		t.Errorf("%s: series in the order\n%q, want\n%q", what, order(gm), order(wm))
	}
}

// sameAsSource asks q over the grid start..end (Unix seconds) through the
// proxy and straight from the source, and compares the answers.
func sameAsSource(t *testing.T, what string, proxied, direct v1.API, q string, start, end int64, step time.Duration) {
	t.Helper()
	r := v1.Range{Start: time.Unix(start, 0), End: time.Unix(end, 0), Step: step}
	got, _, _, err := proxied.QueryRange(t.Context(), q, r)
	if err != nil {
		t.Fatalf("%s: through the proxy: %v", what, err)
	}
	want, _, _, err := direct.QueryRange(t.Context(), q, r)
	if err != nil {
		t.Fatalf("%s: from the source: %v", what, err)
	}
	sameMatrix(t, what, got, want)
}

// keptAnswers is how many range answers were built from kept points.
func keptAnswers(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	return counterValue(t, reg, "specdash_proxy_range_cache_requests_total", map[string]string{"result": "extended"}) +
		counterValue(t, reg, "specdash_proxy_range_cache_requests_total", map[string]string{"result": "cached"})
}

// TestRangeCacheMovedWindows asks a real Prometheus (the outage fixture:
// a gap longer than the lookback, a reset, a restart) the dashboard's kinds
// of range queries through the proxy over windows that move later,
// earlier, wider and inside what was read: every answer equals the
// source's own answer for the same grid, and the source is asked only for
// the grid points not read before (none for a window inside them). A query
// with `@ end()` is not step-local: it goes upstream whole each time.
func TestRangeCacheMovedWindows(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	checkMovedWindows(t, func(rec *rangeRecorder) Config { return Config{PrometheusURL: prom.URL, Transport: rec} }, prom.API(t))
}

// The same through the embedded engine (an in-process source).
func TestRangeCacheMovedWindowsEmbedded(t *testing.T) {
	dir := t.TempDir()
	if err := embedded.BackfillOpenMetrics(dir, []byte(fixtures.Outage()), nil); err != nil {
		t.Fatal(err)
	}
	e, err := embedded.New(embedded.Config{StoragePath: dir, Retention: 100 * 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	direct := httptest.NewServer(e.Handler())
	t.Cleanup(direct.Close)
	checkMovedWindows(t, func(rec *rangeRecorder) Config {
		return Config{Sources: []Source{{Name: "embedded", Handler: rec.handler(e.Handler()), ScrapeInterval: e.ScrapeInterval()}}}
	}, proxyAPI(t, direct.URL))
}

// The same through VictoriaMetrics, whose lookback and rollups differ from
// Prometheus': its answers over the parts of a grid are its answer over
// the grid.
func TestRangeCacheMovedWindowsVictoriaMetrics(t *testing.T) {
	vm := vmtest.Start(t)
	// The counters, not their _created gauges (the raw read's part).
	vmtest.Import(t, vm, fixtures.Outage(), func(name string) bool { return !strings.Contains(name, "_created") })
	direct := proxyAPI(t, vm+"/prometheus")
	q := `count(` + fixtures.FamilyDrafts + `_total)`
	at := time.Unix(fixtures.OutageStartUnix+600, 0)
	if !testwait.Until(0, func() bool {
		v, _, _, err := direct.Query(t.Context(), q, at)
		vec, _ := v.(model.Vector)
		return err == nil && len(vec) == 1 && vec[0].Value == 2
	}) {
		t.Fatalf("VictoriaMetrics has no searchable data %s after the import", testwait.Timeout)
	}
	checkMovedWindows(t, func(rec *rangeRecorder) Config { return Config{PrometheusURL: vm + "/prometheus", Transport: rec} }, direct)
}

func checkMovedWindows(t *testing.T, source func(*rangeRecorder) Config, direct v1.API) {
	const s0 = fixtures.OutageStartUnix
	const step = 60
	// Every point of the fixture is settled.
	clock := time.Unix(s0+2400, 0).Add(time.Hour)
	rec := &rangeRecorder{next: http.DefaultTransport}
	reg := prometheus.NewRegistry()
	cfg := source(rec)
	cfg.Registry, cfg.CacheTTL, cfg.now = reg, time.Second, func() time.Time { return clock }
	base := newServer(t, cfg)
	proxied := proxyAPI(t, base.URL+ProxyPrefix)

	drafts := fixtures.FamilyDrafts + "_total"
	queries := []string{
		`last_over_time({__name__=~"` + drafts + `|` + fixtures.FamilyDrafts + `_created"}[5m])`,
		`sum by (model_name) (last_over_time({__name__="` + drafts + `"}[5m]))`,
		`count by (model_name) (last_over_time({__name__="` + drafts + `"}[5m]))`,
		`sum(count_over_time({__name__="` + drafts + `"}[59s999ms]))`,
	}
	type win struct {
		name       string
		start, end int64
		want       [][2]int64 // upstream grids (Unix seconds)
		result     string     // the range cache's result
	}
	windows := []win{
		{"first", s0 + 600, s0 + 1800, [][2]int64{{s0 + 600, s0 + 1800}}, "whole"},
		{"later", s0 + 900, s0 + 2100, [][2]int64{{s0 + 1860, s0 + 2100}}, "extended"},
		{"earlier", s0 + 300, s0 + 1500, [][2]int64{{s0 + 300, s0 + 540}}, "extended"},
		{"wider", s0, s0 + 2400, [][2]int64{{s0, s0 + 240}, {s0 + 2160, s0 + 2400}}, "extended"},
		{"inside", s0 + 900, s0 + 1500, nil, "cached"},
		{"one point", s0 + 1440, s0 + 1440, nil, "cached"},
	}
	// A window that starts right after the kept points (its one upstream
	// request is the later part), then one across both.
	adjacent := []win{
		{"first", s0 + 600, s0 + 1200, [][2]int64{{s0 + 600, s0 + 1200}}, "whole"},
		{"adjacent after", s0 + 1260, s0 + 1800, [][2]int64{{s0 + 1260, s0 + 1800}}, "extended"},
		{"across both", s0 + 900, s0 + 1500, nil, "cached"},
	}
	type run struct {
		q       string
		windows []win
	}
	var runs []run
	for _, q := range queries {
		runs = append(runs, run{q, windows})
	}
	runs = append(runs, run{`count_over_time({__name__="` + drafts + `"}[5m])`, adjacent})
	for _, r := range runs {
		q := r.q
		for _, w := range r.windows {
			what := fmt.Sprintf("%s over the %s window", q, w.name)
			before := counterValue(t, reg, "specdash_proxy_range_cache_requests_total", map[string]string{"result": w.result})
			sameAsSource(t, what, proxied, direct, q, w.start, w.end, step*time.Second)
			var grids [][2]int64
			for _, u := range rec.take() {
				if u.query != q {
					t.Errorf("%s: upstream query %q", what, u.query)
				}
				grids = append(grids, [2]int64{u.start, u.end})
			}
			if !slices.Equal(grids, w.want) {
				t.Errorf("%s: upstream grids %v, want %v", what, grids, w.want)
			}
			if after := counterValue(t, reg, "specdash_proxy_range_cache_requests_total", map[string]string{"result": w.result}); after != before+1 {
				t.Errorf("%s: range cache result %q counted %v -> %v, want one more", what, w.result, before, after)
			}
			clock = clock.Add(2 * time.Second) // past the answer cache's TTL
		}
	}

	// Not step-local: each window goes upstream as it came.
	q := `last_over_time(` + drafts + `[5m] @ end())`
	for _, w := range windows[:2] {
		sameAsSource(t, q+" over the "+w.name+" window", proxied, direct, q, w.start, w.end, step*time.Second)
		if grids := rec.take(); len(grids) != 1 || grids[0].start != w.start || grids[0].end != w.end {
			t.Errorf("%s over the %s window: upstream %v, want the whole window", q, w.name, grids)
		}
	}
}

// TestRangeCacheKeepsOnlySettledPoints: points newer than the freshness
// margin are asked again on every request (their samples may still be on
// their way); the older ones are not.
func TestRangeCacheKeepsOnlySettledPoints(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	const s0 = fixtures.OutageStartUnix
	const step = 60
	// 2 minutes after the window's end: the points up to 3 minutes before
	// it are settled (rangeFreshness 5 m).
	clock := time.Unix(s0+2400+120, 0)
	rec := &rangeRecorder{next: http.DefaultTransport}
	base := newServer(t, Config{PrometheusURL: prom.URL, Transport: rec, CacheTTL: time.Second,
		now: func() time.Time { return clock }})
	proxied := proxyAPI(t, base.URL+ProxyPrefix)
	q := `sum by (model_name) (last_over_time({__name__="` + fixtures.FamilyDrafts + `_total"}[5m]))`
	r := v1.Range{Start: time.Unix(s0+1200, 0), End: time.Unix(s0+2400, 0), Step: step * time.Second}
	want, _, _, err := prom.API(t).QueryRange(t.Context(), q, r)
	if err != nil {
		t.Fatal(err)
	}
	for i, wantGrid := range [][2]int64{{s0 + 1200, s0 + 2400}, {s0 + 2280, s0 + 2400}, {s0 + 2280, s0 + 2400}} {
		got, _, _, err := proxied.QueryRange(t.Context(), q, r)
		if err != nil {
			t.Fatal(err)
		}
		sameMatrix(t, fmt.Sprintf("request %d", i), got, want)
		if grids := rec.take(); len(grids) != 1 || grids[0].start != wantGrid[0] || grids[0].end != wantGrid[1] {
			t.Errorf("request %d: upstream %v, want the grid %v", i, grids, wantGrid)
		}
		clock = clock.Add(2 * time.Second)
	}
}

func proxyAPI(t *testing.T, addr string) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	return v1.NewAPI(c)
}

// TestRangeCacheBounds: the kept points stay within rangeMaxBytes (the
// least recently used entry goes first), an entry over a quarter of it is
// not kept, and entries go after an hour unused or a day old.
func TestRangeCacheBounds(t *testing.T) {
	t0 := time.Unix(1796205600, 0)
	c := newRangeCache()
	mk := func(size int, at time.Time) *extent { return &extent{size: size, made: at, used: at} }
	c.put("a", mk(15<<20, t0))
	c.put("b", mk(15<<20, t0.Add(time.Second)))
	c.put("c", mk(15<<20, t0.Add(2*time.Second)))
	c.put("d", mk(15<<20, t0.Add(3*time.Second)))
	if c.get("a", t0.Add(4*time.Second)) == nil { // a is now the most recently used
		t.Fatal("a dropped before the cache was full")
	}
	c.put("e", mk(15<<20, t0.Add(5*time.Second))) // 75 MiB: b goes
	if c.get("b", t0.Add(6*time.Second)) != nil {
		t.Error("b (least recently used) kept past 64 MiB")
	}
	for _, k := range []string{"a", "c", "d", "e"} {
		if c.get(k, t0.Add(7*time.Second)) == nil {
			t.Errorf("%s dropped, want only b gone", k)
		}
	}
	if c.bytes != 60<<20 {
		t.Errorf("bytes %d, want %d", c.bytes, 60<<20)
	}
	c.put("big", mk(17<<20, t0))
	if c.get("big", t0) != nil {
		t.Error("an entry over a quarter of the bound was kept")
	}
	if c.get("a", t0.Add(7*time.Second+time.Hour)) != nil {
		t.Error("a kept after an hour unused")
	}
	c.put("old", mk(1<<20, t0))
	for i := 1; i <= 29; i++ { // used every 50 minutes, rebuilt after a day
		at := time.Duration(i) * 50 * time.Minute
		if got := c.get("old", t0.Add(at)); (got != nil) != (at < 24*time.Hour) {
			t.Errorf("after %s: kept %v", at, got != nil)
		}
	}
}

// TestRangeCacheRandomWindows asks random grids (steps of 15 s to 2 min,
// windows from one point to an hour, some reaching past the data) at a
// clock that moves on through the data, so that some points are settled
// and some not: every answer through the proxy equals the source's own.
func TestRangeCacheRandomWindows(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	const s0 = fixtures.OutageStartUnix
	clock := time.Unix(s0, 0)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	reg := prometheus.NewRegistry()
	base := newServer(t, Config{PrometheusURL: prom.URL, Registry: reg, CacheTTL: time.Second, now: now})
	proxied := proxyAPI(t, base.URL+ProxyPrefix)
	direct := prom.API(t)
	drafts := fixtures.FamilyDrafts + "_total"
	queries := []string{
		`last_over_time({__name__=~"` + drafts + `|` + fixtures.FamilyDrafts + `_created"}[5m])`,
		`sum by (model_name) (last_over_time({__name__="` + drafts + `"}[5m]))`,
		`resets({__name__="` + drafts + `"}[2m])`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		step := []int64{15, 60, 120}[rng.IntN(3)]
		start := s0 - 600 + rng.Int64N(3600/step)*step
		end := start + rng.Int64N(3600/step)*step
		q := queries[rng.IntN(len(queries))]
		mu.Lock()
		clock = clock.Add(time.Duration(rng.IntN(90)) * time.Second)
		mu.Unlock()
		r := v1.Range{Start: time.Unix(start, 0), End: time.Unix(end, 0), Step: time.Duration(step) * time.Second}
		got, _, _, err := proxied.QueryRange(t.Context(), q, r)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		want, _, _, err := direct.QueryRange(t.Context(), q, r)
		if err != nil {
			t.Fatal(err)
		}
		if gm, wm := got.(model.Matrix), want.(model.Matrix); len(wm) > 0 || len(gm) > 0 {
			sameMatrix(t, fmt.Sprintf("request %d: %s over %d..%d step %d at %d", i, q, start-s0, end-s0, step, now().Unix()-s0), got, want)
		}
	}
	kept := keptAnswers(t, reg)
	if kept < 20 {
		t.Errorf("%v of 150 answers used kept points: the test hardly exercises the cache", kept)
	}
	t.Logf("%v of 150 answers used kept points", kept)
}

// TestRangeCacheDashboardLoads runs the dashboard's loads (view.LoadWith:
// the shaped read with its detection and irregular series, and the raw
// read of a small live view) through a proxy with the range cache, at a
// clock moving through the outage fixture (a gap, a reset, a restart, the
// data's end), and through one without any cache: every number, bucket
// and group is the same.
func TestRangeCacheDashboardLoads(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	const s0 = fixtures.OutageStartUnix
	const scrape = 15 * time.Second
	var mu sync.Mutex
	clock := time.Unix(s0, 0)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	reg := prometheus.NewRegistry()
	cached := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Registry: reg, CacheTTL: time.Second, now: now})
	plain := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, CacheTTL: -1})
	client := func(base string) *metricsclient.Client {
		c, err := metricsclient.New(metricsclient.Config{Address: base + ProxyPrefix, ScrapeInterval: scrape})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cc, pc := client(cached.URL), client(plain.URL)
	// The numbers (a pointer's address is not one).
	addr := regexp.MustCompile(`0x[0-9a-f]+`)
	numbers := func(r view.Result) string {
		return addr.ReplaceAllString(fmt.Sprint(r.Grid, r.Stats, r.Buckets, r.Total, r.Groups, r.Complete, r.Series, r.FirstBucket, r.DataFrom, r.LastPoint, r.Notes), "0x")
	}
	loads := 0
	for _, c := range []struct {
		v      url.Values
		shaped bool
	}{
		{url.Values{"range": {"15m"}}, true},
		{url.Values{"range": {"30m"}, "group": {"engine"}}, true},
		{url.Values{"range": {"15m"}, "group": {"engine"}}, false},
	} {
		q := view.ParseQuery(c.v)
		for at := int64(s0 + 600); at <= s0+2700; at += 100 {
			mu.Lock()
			clock = time.Unix(at, 0)
			mu.Unlock()
			o := view.LoadOptions{DeferWindow: c.shaped}
			got := view.LoadWith(t.Context(), cc, q, scrape, time.Unix(at, 0), nil, o)
			want := view.LoadWith(t.Context(), pc, q, scrape, time.Unix(at, 0), nil, o)
			what := fmt.Sprintf("%s (shaped %v) at +%d s", c.v.Encode(), c.shaped, at-s0)
			if got.Err != nil || want.Err != nil {
				t.Fatalf("%s: %v / %v", what, got.Err, want.Err)
			}
			if g, w := numbers(got), numbers(want); g != w {
				t.Errorf("%s: through the range cache\n%s\nwithout it\n%s", what, g, w)
			}
			if want.Total.Total.Drafts > 0 {
				loads++
			}
		}
	}
	kept := keptAnswers(t, reg)
	t.Logf("%d loads with drafts; %v range answers used kept points", loads, kept)
	if loads < 30 || kept < 30 {
		t.Errorf("%d loads with drafts, %v range answers with kept points: the test hardly exercises the cache", loads, kept)
	}
}

// TestRangeCacheAsPrometheus: what a fresh helper found trying to break
// the range cache, each against a real Prometheus. Series come in
// Prometheus' order (labels.Compare, not the label text's); two label sets
// whose model.Metric texts are the same stay two series; fractional
// seconds and steps (which Prometheus rounds its own way) pass through;
// a GET's form body is not read as parameters (Prometheus ignores it).
func TestRangeCacheAsPrometheus(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	const s0 = fixtures.OutageStartUnix
	clock := time.Unix(s0+2400, 0).Add(time.Hour)
	rec := &rangeRecorder{next: http.DefaultTransport}
	base := newServer(t, Config{PrometheusURL: prom.URL, Transport: rec, CacheTTL: time.Second,
		now: func() time.Time { return clock }})
	proxied := proxyAPI(t, base.URL+ProxyPrefix)
	direct := prom.API(t)
	for _, q := range []string{
		// {a="x"} before {a="x",b="y"}, where the text order is the other way.
		`label_replace(vector(1),"a","x","","") or label_replace(label_replace(vector(2),"a","x","",""),"b","y","","")`,
		// x{a="1"} as a name, and x with a="1".
		`label_replace(vector(1),"__name__","x{a=\"1\"}","","") or label_replace(label_replace(vector(2),"__name__","x","",""),"a","1","","")`,
	} {
		for _, w := range [][2]int64{{s0 + 600, s0 + 1800}, {s0 + 900, s0 + 2100}, {s0 + 300, s0 + 2400}} {
			sameAsSource(t, fmt.Sprintf("%s over %d..%d", q, w[0]-s0, w[1]-s0), proxied, direct, q, w[0], w[1], time.Minute)
			clock = clock.Add(2 * time.Second)
		}
	}
	if n := len(rec.take()); n != 8 {
		t.Errorf("%d upstream requests for two queries over three windows, want 8 (the first whole, one later part, then an earlier and a later part)", n)
	}

	// Fractions of a second: passed as they came, twice.
	q := `sum(last_over_time({__name__="` + fixtures.FamilyDrafts + `_total"}[5m]))`
	get := func(srv string, v url.Values, body string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, srv+"/api/v1/query_range?"+v.Encode(), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []url.Values{
		{"query": {q}, "start": {"1748736600.0005"}, "end": {"1748737800.0005"}, "step": {"60"}},
		{"query": {q}, "start": {"1748736600"}, "end": {"1748737010"}, "step": {"1.025"}},
		{"query": {q}, "start": {"1748736702.5"}, "end": {"1748737112.5"}, "step": {"1.025"}},
	} {
		for range 2 {
			_, want := get(prom.URL, c, "")
			_, got := get(base.URL+ProxyPrefix, c, "")
			if got != want {
				t.Errorf("%s: through the proxy\n%.300s\nfrom Prometheus\n%.300s", c.Encode(), got, want)
			}
			clock = clock.Add(2 * time.Second)
		}
	}
	if up := rec.take(); len(up) != 6 {
		t.Errorf("%d upstream requests for 6 requests with fractions of a second, want each passed: %v", len(up), up)
	}

	// A GET's form body: Prometheus reads only the URL's parameters.
	seed := url.Values{"query": {q}, "start": {"1748736600"}, "end": {"1748737800"}, "step": {"60"}}
	get(base.URL+ProxyPrefix, seed, "")
	clock = clock.Add(2 * time.Second)
	noStep := url.Values{"query": {q}, "start": {"1748736900"}, "end": {"1748738100"}}
	wantCode, want := get(prom.URL, noStep, "step=60")
	gotCode, got := get(base.URL+ProxyPrefix, noStep, "step=60")
	if wantCode != http.StatusBadRequest || gotCode != wantCode || !strings.Contains(got, `"bad_data"`) {
		t.Errorf("GET with the step in a form body: %d %.200s; Prometheus %d %.200s", gotCode, got, wantCode, want)
	}
}
