package metricsclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
)

// countingTransport counts the response bytes of each request, by kind of
// query: "shaped" (the sums), "detect", "irregular" (values, flagged
// buckets and samples of the irregular series) and "raw" (everything
// else).
type countingTransport struct {
	mu    sync.Mutex
	bytes map[string]int64
	n     map[string]int
	// nonLocal are the range queries that are not StepLocal (the
	// server's range cache cannot keep their answers).
	nonLocal []string
}

// stepLocal is StepLocal on the host (steplocal_test.go); the PromQL
// parser is not built for js/wasm.
var stepLocal = func(string) bool { return true }

// checkStepLocal fails t if a range query the client sent is not step-local.
func (c *countingTransport) checkStepLocal(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range c.nonLocal {
		t.Errorf("range query not step-local (the server's range cache cannot keep it): %s", q)
	}
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query().Get("query")
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		if v, err := url.ParseQuery(string(b)); err == nil && v.Get("query") != "" {
			q = v.Get("query")
		}
	}
	if strings.HasSuffix(req.URL.Path, "/query_range") && !stepLocal(q) {
		c.mu.Lock()
		c.nonLocal = append(c.nonLocal, q)
		c.mu.Unlock()
	}
	kind := "raw"
	switch {
	case strings.HasPrefix(q, "sum by") || strings.HasPrefix(q, "count by"):
		kind = "shaped" // the sums and counts, and the drafts per position of mixed k
	case strings.HasPrefix(q, "count without") && strings.Contains(q, " unless "):
		kind = "detect"
	case strings.HasPrefix(q, "count without"):
		kind = "irregular" // the buckets to read sample by sample
	case strings.HasPrefix(q, "label_replace(last_over_time") || (strings.HasPrefix(q, "{") && strings.HasSuffix(q, "]")):
		kind = "irregular"
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	c.mu.Lock()
	if c.bytes == nil {
		c.bytes, c.n = map[string]int64{}, map[string]int{}
	}
	c.bytes[kind] += int64(len(b))
	c.n[kind]++
	c.mu.Unlock()
	return resp, nil
}

func (c *countingTransport) take() (map[string]int64, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, n := c.bytes, c.n
	c.bytes, c.n = nil, nil
	return b, n
}

// fleetGrid is the grid of the fleet tests starting at gs (Unix s).
func fleetGrid(gs int64) compute.Grid {
	return compute.Grid{Start: gs * 1000, End: (gs + fleetStep*fleetBuckets) * 1000, Step: fleetStep * 1000}
}

// startFleet backfills the fleet into a real Prometheus.
func startFleet(t *testing.T, engines []fleetEngine) *promtest.Server {
	t.Helper()
	var b strings.Builder
	if err := writeFleetOM(&b, engines); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	dir := promtest.Backfill(t, b.String())
	t.Logf("backfilled %d engines (%.1f MB of OpenMetrics) in %s", len(engines), float64(b.Len())/1e6, time.Since(t0).Round(time.Millisecond))
	return promtest.Start(t, promtest.Options{DataDir: dir, ScrapeInterval: fleetScrape * time.Second})
}

// sameGroups reports the differences between two aggregations.
func sameGroups(t *testing.T, what string, got, want []compute.Group) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		g, w := got[i], want[i]
		if !reflect.DeepEqual(g.Labels, w.Labels) || g.Series != w.Series || !reflect.DeepEqual(g.Total, w.Total) ||
			!reflect.DeepEqual(g.Buckets, w.Buckets) || len(g.Skipped) != 0 {
			if bad++; bad <= 5 {
				t.Errorf("%s: group %v (%d series): total %+v, want %v (%d series) %+v", what, g.Labels, g.Series, g.Total, w.Labels, w.Series, w.Total)
				for j := range g.Buckets {
					if !reflect.DeepEqual(g.Buckets[j], w.Buckets[j]) {
						t.Errorf("  bucket %d: %+v, want %+v", j, g.Buckets[j], w.Buckets[j])
					}
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d groups differ", what, bad)
	}
}

// firstBuckets maps each group (by groupBy) to the bucket of its earliest
// point, as the dashboard's first-bucket logic reads series.
func firstBuckets(series []compute.Series, groupBy []string, g compute.Grid) map[string]int {
	out := map[string]int64{}
	for _, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		vals := make([]string, len(groupBy))
		for i, l := range groupBy {
			vals[i] = s.Labels[l]
		}
		k := groupKey(vals)
		if cur, ok := out[k]; !ok || s.Points[0].T < cur {
			out[k] = s.Points[0].T
		}
	}
	b := map[string]int{}
	for k, v := range out {
		b[k] = g.BucketAt(v)
	}
	return b
}

// TestShapedFleetPrometheus reads a fleet of 1,024 engines (128 instances,
// two models, k of 2, 3 and 8 mixed within a model, 15 s scrapes) with
// restarts (one on a step point, one between step points, one whose first
// value is above the old one, seen only in _created, one after an outage
// longer than the lookback, also seen only in _created), an engine joining
// and one leaving inside the window and one without _created, from a real
// Prometheus, through the shaped read and the raw path. Every group's
// counts per bucket, totals, k, per-position denominators and engine
// count equal the generator's truth; the raw path's equal them too except
// for the three restarts it cannot see (which the test proves it misses);
// first buckets and k agree; the shaped answer does not grow with the
// number of engines.
func TestShapedFleetPrometheus(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(1024, gs)
	srv := startFleet(t, engines)
	ct := &countingTransport{}
	defer ct.checkStepLocal(t)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second, RoundTripper: ct})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	truth := fleetTruthSeries(engines, gs)
	lossy := map[string]bool{}
	for _, i := range []int{scRestartBetween, scRestartHigher, scOutageRestart, scJoinNoCreated} {
		lossy[engines[i].inst+"/"+engines[i].engine] = true
	}

	t0 := time.Now()
	raw, rawWarn, err := c.FetchSeries(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := ct.take()
	t.Logf("raw path: %d series, %d bytes, %s (not asserted)", len(raw), rb["raw"], time.Since(t0).Round(time.Millisecond))
	// The engine that started without _created is named.
	if len(rawWarn) != 1 || !strings.Contains(rawWarn[0], `instance="i008"`) {
		t.Errorf("raw path warnings: %q", rawWarn)
	}

	for _, groupBy := range [][]string{nil, {"model_name"}, {"instance", "engine"}} {
		name := fmt.Sprintf("by %v", groupBy)
		t0 := time.Now()
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		took := time.Since(t0).Round(time.Millisecond)
		b, n := ct.take()
		t.Logf("%s: %d series, %d irregular engines, %d queries, bytes %v (requests %v), %s (not asserted)", name, len(sh.Series), sh.Irregular, sh.Queries, b, n, took)
		if sh.Raw || !reflect.DeepEqual(sh.Warnings, rawWarn) {
			t.Errorf("%s: raw %v, warnings %q, want the raw path's %q", name, sh.Raw, sh.Warnings, rawWarn)
		}
		// The eight restarts and the two joins (the engine that leaves is
		// still seen at the end through the lookback).
		if sh.Irregular != 10 {
			t.Errorf("%s: %d irregular engines, want 10", name, sh.Irregular)
		}
		got := sh.Groups(g)
		want := compute.Aggregate(truth, groupBy, g)
		sameGroups(t, name+" shaped vs truth", got, want)

		rawGroups := compute.Aggregate(raw, groupBy, g)
		if len(groupBy) == 2 {
			// Per engine: the raw path equals the truth except for the two
			// restarts it cannot see, where it counts less.
			var keep, keepWant []compute.Group
			for i, rg := range rawGroups {
				if lossy[rg.Labels["instance"]+"/"+rg.Labels["engine"]] {
					if rg.Total.Drafts >= want[i].Total.Drafts {
						t.Errorf("raw path counts %v drafts for %v, want fewer than the true %v", rg.Total.Drafts, rg.Labels, want[i].Total.Drafts)
					}
					continue
				}
				keep, keepWant = append(keep, rg), append(keepWant, want[i])
			}
			sameGroups(t, name+" raw vs truth", keep, keepWant)
		}
		if fs, fr := firstBuckets(sh.Series, groupBy, g), firstBuckets(raw, groupBy, g); !reflect.DeepEqual(fs, fr) {
			t.Errorf("%s: first buckets %v, raw path %v", name, fs, fr)
		}
		if ks, kr := sh.KMix().Ks, compute.DistinctK(raw).Ks; !reflect.DeepEqual(ks, kr) || !slices.Equal(kr, []int{2, 3, 8}) {
			t.Errorf("%s: k %v, raw path %v, want [2 3 8]", name, ks, kr)
		}
		if len(groupBy) < 2 {
			// At most one series per group, k and position (3 + k per k),
			// besides the irregular engines' own.
			if max := 27 + 6*(3+8); len(sh.Series) > max {
				t.Errorf("%s: %d series, want at most %d", name, len(sh.Series), max)
			}
			if b["shaped"]+b["detect"]+b["irregular"] > rb["raw"]/20 {
				t.Errorf("%s: %d bytes, more than a 20th of the raw path's %d", name, b["shaped"]+b["detect"]+b["irregular"], rb["raw"])
			}
		}
	}

	// The answer does not grow with engines: 32 engines with the same
	// models and k read the same number of summed series and about as
	// many bytes as 1,024.
	sub := Filter{Name: "instance", Values: []string{"i000", "i005", "i006", "i007"}}
	small, err := c.FetchShaped(ctx, g, []Filter{sub}, []string{"model_name"})
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := ct.take()
	all, err := c.FetchShaped(ctx, g, nil, []string{"model_name"})
	if err != nil {
		t.Fatal(err)
	}
	ab, _ := ct.take()
	t.Logf("shaped sums: %d bytes at 32 engines, %d at 1,024", sb["shaped"], ab["shaped"])
	if small.Irregular != 0 || len(small.Series)+5*0 != len(all.Series)-irregularSeries(all) {
		t.Errorf("32 engines: %d series (%d irregular), 1,024: %d series with %d of irregular engines", len(small.Series), small.Irregular, len(all.Series), irregularSeries(all))
	}
	if ab["shaped"] > sb["shaped"]*3/2 {
		t.Errorf("shaped sums: %d bytes at 1,024 engines, more than 1.5 x the %d at 32", ab["shaped"], sb["shaped"])
	}
	sameGroups(t, "32 engines", small.Groups(g), compute.Aggregate(truthOf(truth, sub), []string{"model_name"}, g))

	// No series: the raw path's *MissingMetricsError.
	_, err = c.FetchShaped(ctx, g, []Filter{{Name: "model_name", Values: []string{"absent"}}}, nil)
	var me *MissingMetricsError
	if !errors.As(err, &me) || !me.ExistWithoutFilters {
		t.Errorf("absent model: %v, want a *MissingMetricsError saying the metrics exist without the filter", err)
	}
	ct.take()

	// Window totals of every engine: one bucket.
	one := compute.Grid{Start: g.Start, End: g.End, Step: g.End - g.Start}
	totals, sh, err := c.FetchTotals(ctx, g.Start, g.End, nil, []string{"instance", "engine"})
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := ct.take()
	t.Logf("window totals of 1,024 engines: %d queries, bytes %v", sh.Queries, tb)
	want := compute.Aggregate(truth, []string{"instance", "engine"}, g)
	if len(totals) != len(want) {
		t.Fatalf("%d totals, want %d", len(totals), len(want))
	}
	for i := range totals {
		if !reflect.DeepEqual(totals[i].Total, want[i].Total) || !reflect.DeepEqual(totals[i].Labels, want[i].Labels) || len(totals[i].Buckets) != one.Buckets() {
			t.Errorf("totals %v: %+v, want %v %+v", totals[i].Labels, totals[i].Total, want[i].Labels, want[i].Total)
		}
	}
}

// irregularSeries counts the series of sh that carry an instance label
// (the irregular engines' own series).
func irregularSeries(sh *Shaped) int {
	n := 0
	for _, s := range sh.Series {
		if s.Labels["instance"] != "" {
			n++
		}
	}
	return n
}

// truthOf keeps the truth series of the instances of f.
func truthOf(truth []compute.Series, f Filter) []compute.Series {
	var out []compute.Series
	for _, s := range truth {
		if slices.Contains(f.Values, s.Labels["instance"]) {
			out = append(out, s)
		}
	}
	return out
}

// TestShapedGap: a steady series (no restart, present at both ends of
// the window) that was not scraped for longer than the lookback: the
// detection names it (grid points without a value in their lookback),
// and FetchShaped reads it as an irregular series: the counts stay the
// truth, no raw path; with a detection that misses it, its group's count
// of steady series dips and the gap probe names it. The models' names
// hold PromQL and regexp syntax.
func TestShapedGap(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleetNamed(72, gs, "a|b", `\"}`+` or vector(1) #`)
	const gapped = 8*7 + 1
	engines[gapped].gap = [2]int64{gs + 180, gs + 560}
	srv := startFleet(t, engines)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	truth := fleetTruthSeries(engines, gs)
	for _, groupBy := range [][]string{{"model_name"}, {"instance", "engine"}, {"model_name", "engine"}} {
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatal(err)
		}
		// The eight restarts, the two joins and the gap.
		if sh.Raw || len(sh.Warnings) != 1 || sh.Irregular != 11 {
			t.Errorf("by %v: raw %v, warnings %q, %d irregular engines, want 11 and one start warning", groupBy, sh.Raw, sh.Warnings, sh.Irregular)
		}
		sameGroups(t, fmt.Sprintf("by %v", groupBy), sh.Groups(g), compute.Aggregate(truth, groupBy, g))
	}
	// Filtered to the second model (the gapped engine's and four restarted
	// ones').
	b := engines[gapped].model
	sh, err := c.FetchShaped(ctx, g, []Filter{{Name: "model_name", Values: []string{b}}}, []string{"engine"})
	if err != nil {
		t.Fatal(err)
	}
	var onlyB []compute.Series
	for _, s := range truth {
		if s.Labels["model_name"] == b {
			onlyB = append(onlyB, s)
		}
	}
	if sh.Raw || sh.Irregular != 5 {
		t.Errorf("model %q: raw %v, %d irregular engines, want 5", b, sh.Raw, sh.Irregular)
	}
	sameGroups(t, "model "+b, sh.Groups(g), compute.Aggregate(onlyB, []string{"engine"}, g))

	// A detection that misses the gap (blindDetection): the count of the
	// instance's steady series dips at the gap's grid points, and the
	// probe (probeGaps) names the engine.
	var blinded atomic.Int64
	blind, err := New(Config{Address: blindDetection(t, srv.URL, &blinded), ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	inst := Filter{Name: "instance", Values: []string{engines[gapped].inst}}
	sh, err = blind.FetchShaped(ctx, g, []Filter{inst}, []string{"engine"})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Raw || sh.Irregular != 1 || len(sh.Warnings) != 0 || blinded.Load() == 0 {
		t.Errorf("blind detection: raw %v, %d irregular engines, warnings %q; want the gapped engine found by the probe", sh.Raw, sh.Irregular, sh.Warnings)
	}
	sameGroups(t, "blind detection", sh.Groups(g), compute.Aggregate(truthOf(truth, inst), []string{"engine"}, g))
}

// blindDetection returns the address of a proxy in front of the source at
// target that answers the detection's queries (detectionQuery) with no
// series: a detection that misses every irregular label set, a fault no
// installed source makes, to test what catches it behind the detection.
// *blinded counts the queries so answered.
func blindDetection(t *testing.T, target string, blinded *atomic.Int64) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := parseFormAgain(r); err == nil {
			if q := r.Form.Get("query"); strings.HasPrefix(q, "count without(") && strings.Contains(q, "resets(") {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
				blinded.Add(1)
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// TestShapedUnsupportedFallsBack: a source that rejects a function the
// shaped queries need (here resets(), as a source without it answers:
// HTTP 400, errorType bad_data) is read by the raw path, and the warning
// says why. The source is a real Prometheus behind a proxy that rejects
// such queries (no installed source lacks resets()).
func TestShapedUnsupportedFallsBack(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(72, gs)
	srv := startFleet(t, engines)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := parseFormAgain(r); err == nil && strings.Contains(r.Form.Get("query"), "resets(") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"1:1: parse error: unknown function with name \"resets\""}`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer front.Close()
	c, err := New(Config{Address: front.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	sh, err := c.FetchShaped(ctx, g, nil, []string{"model_name"})
	if err != nil {
		t.Fatal(err)
	}
	// The raw path's own warning (an engine started without _created),
	// then why the raw path was taken.
	if w := sh.Warnings; !sh.Raw || len(w) != 2 || !strings.Contains(w[1], "raw path") || !strings.Contains(w[1], `unknown function with name "resets"`) {
		t.Fatalf("raw %v, warnings %q: want the raw path and a warning naming the rejected function", sh.Raw, w)
	}
	raw, _, err := c.FetchSeries(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sh.Series, raw) {
		t.Errorf("fallback series differ from FetchSeries'")
	}
}

// TestFetchShapedAuto: the drop-in for Fetch detects vLLM V1, reads the
// shaped series (the same as FetchShaped's), the label lists of the filter
// menus, and the one warning (an engine started without _created); the
// Shaped says how many source series the
// summed ones stand for.
func TestFetchShapedAuto(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(72, gs)
	srv := startFleet(t, engines)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	groupBy := []string{"model_name"}
	f, sh, err := c.FetchShapedAuto(ctx, FetchRequest{Grid: g, Labels: true}, groupBy)
	if err != nil {
		t.Fatal(err)
	}
	// The pre-render's answers for the browser's first load (answers.go).
	checkReplay(t, srv.URL, Config{ScrapeInterval: fleetScrape * time.Second}, FetchRequest{Grid: g, Labels: true}, groupBy)
	if f.Schema().ID != VLLMV1.ID || len(f.Warnings) != 1 || f.Incremental || f.LabelsErr != nil {
		t.Errorf("schema %s, warnings %q, incremental %v, labels error %v", f.Schema().Name, f.Warnings, f.Incremental, f.LabelsErr)
	}
	if got := f.Labels["model_name"]; !reflect.DeepEqual(got, []string{"m-a", "m-b"}) {
		t.Errorf("model_name values %q, want [m-a m-b]", got)
	}
	direct, err := c.FetchShaped(ctx, g, nil, groupBy)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Series, direct.Series) || !reflect.DeepEqual(f.Series, sh.Series) {
		t.Errorf("FetchShapedAuto's series differ from FetchShaped's")
	}
	raw, _, err := c.FetchSeries(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sh.SourceSeries != len(raw) || len(sh.Series) >= len(raw)/4 {
		t.Errorf("%d summed series standing for %d source series, want %d source series", len(sh.Series), sh.SourceSeries, len(raw))
	}
	sameGroups(t, "FetchShapedAuto", sh.Groups(g), compute.Aggregate(fleetTruthSeries(engines, gs), groupBy, g))
}

// parseFormAgain parses r's form (the query of a GET or a POST) for a
// test's proxy and puts the POST body back, which ParseForm consumed, so
// that the proxy can send the request on.
func parseFormAgain(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	body := r.PostForm.Encode()
	r.Body = io.NopCloser(strings.NewReader(body))
	r.ContentLength = int64(len(body))
	return nil
}

// holdUntil serves, on a test server, a reverse proxy to target in which
// a request that hold matches waits until one that arrived matches has
// come (or its own context ends): a read that another must not wait for
// fails at its deadline if the two are made one after the other. The
// matchers see the request's path and its PromQL query (form or URL).
func holdUntil(t *testing.T, target string, hold, arrived func(path, query string) bool) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	in := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		q := form.Get("query") + r.URL.Query().Get("query")
		switch {
		case arrived(r.URL.Path, q):
			once.Do(func() { close(in) })
		case hold(r.URL.Path, q):
			select {
			case <-in:
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchShapedAutoAlongsideDetect: the shaped read of the client's
// schema runs while Detect runs (a round trip less on every first load):
// in front of a real Prometheus, Detect's look-up of the metric names is
// held until a shaped query has arrived (read one after the other, Detect
// would wait until the deadline and fail). The answer equals an
// unhindered client's; so does that of a client of another schema, whose
// early reads Detect's answer throws away.
func TestFetchShapedAutoAlongsideDetect(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	srv := startFleet(t, fleet(8, gs))
	gate := holdUntil(t, srv.URL,
		func(path, _ string) bool { return strings.HasSuffix(path, "/api/v1/label/__name__/values") },
		func(path, _ string) bool { return strings.HasSuffix(path, "/api/v1/query_range") })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	groupBy := []string{"model_name"}
	for _, schema := range []Schema{VLLMV1, LlamaCpp} {
		plain, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		want, wantSh, err := plain.FetchShapedAuto(ctx, FetchRequest{Grid: g, Labels: true}, groupBy)
		if err != nil {
			t.Fatal(err)
		}
		gated, err := New(Config{Address: gate.URL, ScrapeInterval: fleetScrape * time.Second, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		f, sh, err := gated.FetchShapedAuto(ctx, FetchRequest{Grid: g, Labels: true}, groupBy)
		if err != nil {
			t.Fatalf("client of %s: %v (Detect waited for a shaped query that never came?)", schema.Name, err)
		}
		if f.Schema().ID != VLLMV1.ID || !reflect.DeepEqual(f.Series, want.Series) || !reflect.DeepEqual(f.Labels, want.Labels) ||
			!reflect.DeepEqual(f.Warnings, want.Warnings) || sh.SourceSeries != wantSh.SourceSeries {
			t.Errorf("client of %s: schema %s, %d series, labels %v, warnings %q; want vLLM V1 and the plain client's %d series, %v, %q",
				schema.Name, f.Schema().Name, len(f.Series), f.Labels, f.Warnings, len(want.Series), want.Labels, want.Warnings)
		}
	}
}

// TestIrregularBatches: irregular label sets that share every label but
// one are read together (at most maxBatch per query); the selection of
// each batch holds exactly its label sets.
func TestIrregularBatches(t *testing.T) {
	r := &shapedRead{filters: []Filter{{Name: "job", Values: []string{"vllm"}}}}
	irr := map[string]map[string]string{}
	add := func(l map[string]string) { irr[labelString(l)] = l }
	for i := range maxBatch + 3 {
		add(map[string]string{"instance": fmt.Sprintf("pod-%03d", i), "engine": "0", "model_name": "a|b"})
	}
	add(map[string]string{"instance": "pod-x", "engine": "1", "model_name": "a|b"})
	add(map[string]string{"instance": "pod-y", "model_name": "m"}) // no engine label
	batches := r.irregularBatches(irr)
	if len(batches) != 4 {
		t.Fatalf("%d batches, want 4 (%d + 3 pods of engine 0, engine 1, no engine): %v", len(batches), maxBatch, batches)
	}
	covered := 0
	for _, f := range batches {
		if f[0].Name != "job" {
			t.Errorf("batch %v lost the caller's filter", f)
		}
		last := f[len(f)-1]
		if last.Name != "instance" || len(last.Values) > maxBatch {
			t.Errorf("batch %v: want at most %d instances in the last filter", f, maxBatch)
		}
		// Every combination the batch selects is one of irr's label sets.
		for _, v := range last.Values {
			l := map[string]string{"instance": v}
			for _, fl := range f[1 : len(f)-1] {
				if len(fl.Values) != 1 {
					t.Fatalf("batch %v: filter %v has %d values, want 1", f, fl, len(fl.Values))
				}
				if fl.Values[0] != "" {
					l[fl.Name] = fl.Values[0]
				}
			}
			if irr[labelString(l)] == nil {
				t.Errorf("batch %v selects %v, not an irregular label set", f, l)
			}
			covered++
		}
	}
	if covered != len(irr) {
		t.Errorf("batches cover %d label sets, want %d", covered, len(irr))
	}
	// A label set without labels is selected by a label it lacks.
	empty := map[string]map[string]string{labelString(map[string]string{}): {}}
	if b := (&shapedRead{}).irregularBatches(empty); len(b) != 1 || len(b[0]) != 1 || b[0][0].Values[0] != "" {
		t.Errorf("batches of the empty label set: %v", b)
	}
}
