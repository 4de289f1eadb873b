//go:build !js

package model

import (
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// queryLog records the PromQL queries a client sent (form or URL).
type queryLog struct {
	mu sync.Mutex
	qs []string
}

func (l *queryLog) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query().Get("query")
	if req.Body != nil && req.Method == http.MethodPost {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		if v, err := url.ParseQuery(string(b)); err == nil && v.Get("query") != "" {
			q = v.Get("query")
		}
	}
	if q != "" {
		l.mu.Lock()
		l.qs = append(l.qs, q)
		l.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	qs := l.qs
	l.qs = nil
	return qs
}

// TestLiveSmallViewReadsOnce: the first load of a live view of a small
// selection (26 counter series, at most RawSeriesMax) reads the window
// once, series by series, after one query of the selection's size: no
// shaped sums or detection of the counters first (the gap check's sample
// counts and the latency families, which the source always sums, are
// read alongside). Its numbers are the raw path's
// (FromSeries of the fetched series), and it has the Window of the next
// refresh. A fixed (absolute) window of the same selection is read
// shaped, without the size query.
func TestLiveSmallViewReadsOnce(t *testing.T) {
	// The known-answer fixture at its scrape interval: its one restart
	// falls on a step point, so the raw points count it exactly (a
	// restart they cannot count sends a live view to the shaped read:
	// TestSimulatorKilledMidStep).
	fx := fixtures.KnownAnswer()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	log := &queryLog{}
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second, RoundTripper: log})
	if err != nil {
		t.Fatal(err)
	}
	g := fx.Sub.Grid()
	r := Request{Grid: g, GroupBy: []string{"engine"}, Now: time.UnixMilli(g.End).Add(time.Hour), Scrape: 15 * time.Second}
	const series = 26 // the fixture's counter series (3 families and the positions, per engine)
	n, err := c.SelectionSize(t.Context(), g, nil)
	if err != nil || n != series {
		t.Fatalf("selection size %d (%v), want %d", n, err, series)
	}
	log.take()
	live, err := Compute(t.Context(), c, r)
	if err != nil {
		t.Fatal(err)
	}
	qs := log.take()
	for _, q := range qs {
		if strings.Contains(q, "spec_decode") && (strings.HasPrefix(q, "sum by") || strings.HasPrefix(q, "count by") || strings.Contains(q, "resets(")) {
			t.Errorf("live small view sent a shaped query of the counters: %s", q)
		}
	}
	// The size is asked before the counters are read (the gap check's and
	// the latency's reads, which need only the schema, run alongside).
	sizeAt, countersAt := -1, -1
	for i, q := range qs {
		if sizeAt < 0 && strings.Contains(q, `"at", "end"`) {
			sizeAt = i
		}
		if countersAt < 0 && strings.HasPrefix(q, "last_over_time(") && strings.Contains(q, "spec_decode_num_drafts_total") {
			countersAt = i
		}
	}
	if sizeAt < 0 || countersAt < 0 || sizeAt > countersAt {
		t.Errorf("queries %q: want the selection size before the counters' read", qs)
	}
	if live.Shaped || live.Window == nil || live.Series != series {
		t.Errorf("live small view: shaped %v, window %v, %d series; want the raw path's %d with a Window", live.Shaped, live.Window, live.Series, series)
	}
	f, _, err := c.Fetch(t.Context(), metricsclient.FetchRequest{Grid: g})
	if err != nil {
		t.Fatal(err)
	}
	want := FromSeries(f.Series, r)
	if !reflect.DeepEqual(live.Stats, want.Stats) || !reflect.DeepEqual(live.Buckets, want.Buckets) || len(live.Groups) != len(want.Groups) {
		t.Errorf("live small view: stats %+v, want the raw path's %+v", live.Stats, want.Stats)
	}
	if live.Stats.Drafts <= 0 {
		t.Errorf("live small view: %v drafts", live.Stats.Drafts)
	}

	log.take()
	r.Fixed = true
	fixed, err := Compute(t.Context(), c, r)
	if err != nil {
		t.Fatal(err)
	}
	shapedAlone(t, "fixed window", fixed, log.take())

	// The page's first load (DeferWindow): the live view reads shaped,
	// as a fixed window does, with the raw path's numbers; the next load
	// without DeferWindow reads raw and gets the Window.
	r.Fixed, r.DeferWindow = false, true
	first, err := Compute(t.Context(), c, r)
	if err != nil {
		t.Fatal(err)
	}
	shapedAlone(t, "deferred window", first, log.take())
	if !reflect.DeepEqual(first.Stats, want.Stats) || !reflect.DeepEqual(first.Buckets, want.Buckets) || len(first.Groups) != len(want.Groups) {
		t.Errorf("deferred window: stats %+v, want the raw path's %+v", first.Stats, want.Stats)
	}
	r.DeferWindow = false
	next, err := Compute(t.Context(), c, r)
	if err != nil {
		t.Fatal(err)
	}
	if next.Shaped || next.Window == nil || !reflect.DeepEqual(next.Stats, first.Stats) {
		t.Errorf("the load after a deferred window: shaped %v, window %v, stats %+v; want the raw read with a Window and the same stats", next.Shaped, next.Window, next.Stats)
	}
}

// shapedAlone checks that a load read shaped, kept no Window and never
// asked the selection size (the instant count "at end") among its queries.
func shapedAlone(t *testing.T, what string, m *Model, queries []string) {
	t.Helper()
	if !m.Shaped || m.Window != nil {
		t.Errorf("%s: shaped %v, window %v; want the shaped read alone", what, m.Shaped, m.Window)
	}
	for _, q := range queries {
		if strings.Contains(q, `"at", "end"`) {
			t.Errorf("%s asked the selection size: %s", what, q)
		}
	}
}
