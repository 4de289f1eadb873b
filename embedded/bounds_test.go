package embedded

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"

	"specdash/internal/panics"
	"specdash/internal/testwait"
)

// switchTarget serves a good exposition until bad is set, then bad (a
// hostile target: faults a real vLLM cannot produce). gzipped bodies are
// sent with Content-Encoding: gzip.
type switchTarget struct {
	bad  atomic.Pointer[[]byte]
	gzip bool
}

const goodBody = "# TYPE good_metric gauge\ngood_metric 42\n"

func (s *switchTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	body := []byte(goodBody)
	if b := s.bad.Load(); b != nil {
		body = *b
	}
	if !s.gzip {
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
}

// hostileBodies are expositions that break one scrape limit each.
func bigLabel(size int) []byte {
	var b bytes.Buffer
	b.WriteString("# TYPE hostile gauge\nhostile{model_name=\"")
	b.Write(bytes.Repeat([]byte("x"), size))
	b.WriteString("\"} 1\n")
	return b.Bytes()
}

func manySamples(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# TYPE hostile gauge\n")
	for i := range n {
		fmt.Fprintf(&b, "hostile{i=\"%d\"} 1\n", i)
	}
	return b.Bytes()
}

func manyLabels(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# TYPE hostile gauge\nhostile{")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "l%d=\"v\"", i)
	}
	b.WriteString("} 1\n")
	return b.Bytes()
}

func longName(n int) []byte {
	return []byte("# TYPE hostile gauge\nhostile{" + strings.Repeat("n", n) + "=\"v\"} 1\n")
}

// TestHostileTargets: a target past a scrape limit is rejected as a whole,
// without a panic: it shows down with a message that names the limit and
// its value, and the samples of its earlier good scrapes still answer
// queries. The 16 MiB label value (over what Prometheus' label encoding
// holds: it panicked in the scrape loop) is stopped by the body size
// limit, gzipped or not, with the default limits and with the largest
// body size limit allowed.
func TestHostileTargets(t *testing.T) {
	mib16 := 16 << 20
	for _, c := range []struct {
		name string
		cfg  Config
		body []byte
		gzip bool
		want string
	}{
		{"label value 16 MiB", Config{}, bigLabel(mib16), false,
			"rejected: the body exceeds the 10 MiB limit (scrape.body-size-limit)"},
		{"label value 16 MiB gzipped", Config{}, bigLabel(mib16), true,
			"rejected: the body exceeds the 10 MiB limit (scrape.body-size-limit)"},
		{"label value 16 MiB, largest body limit", Config{BodySizeLimit: MaxBodySizeLimit}, bigLabel(mib16), false,
			"rejected: the body exceeds the 15 MiB limit (scrape.body-size-limit)"},
		{"label value 5 KiB", Config{}, bigLabel(5 << 10), false,
			"rejected: label value of 5 KiB (label model_name of metric hostile) exceeds the 4 KiB limit (scrape.label-value-length-limit)"},
		{"body over the limit", Config{BodySizeLimit: 1 << 10}, manySamples(100), false,
			"rejected: the body exceeds the 1 KiB limit (scrape.body-size-limit)"},
		{"too many samples", Config{SampleLimit: 50}, manySamples(51), false,
			"rejected: more than 50 samples, the limit (scrape.sample-limit)"},
		{"too many labels", Config{}, manyLabels(70), false,
			"rejected: metric hostile has 73 labels, over the limit of 64 (scrape.label-limit)"},
		{"label name too long", Config{}, longName(300), false,
			"is 300 B long, over the 256 B limit (scrape.label-name-length-limit)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && len(c.body) > 1<<20 {
				t.Skip("a 16 MiB body needs a 30 s scrape interval (two scrapes: about a minute); skipped under -short, make test runs it")
			}
			st := &switchTarget{gzip: c.gzip}
			hs := httptest.NewServer(st)
			// Closed after the engine (cleanups run last-in first-out).
			t.Cleanup(hs.Close)
			u := hs.URL + "/metrics"
			cfg := c.cfg
			cfg.Targets = []string{u}
			// The scrape timeout is the interval: reading megabytes under
			// -race on a busy machine needs seconds (a 16 MiB gzipped body
			// took over 10 s in CI beside the browser tests, and the scrape
			// then failed on its deadline before the body limit).
			cfg.ScrapeInterval = time.Second
			if len(c.body) > 1<<20 {
				cfg.ScrapeInterval = 30 * time.Second
			}
			e := start(t, cfg)
			panics0 := panicCount("scrape")
			v := waitFor(t, e.API, `timestamp(good_metric)`, nonEmpty, 60*time.Second)
			good := time.Unix(0, 0).Add(time.Duration(float64(v[0].Value) * float64(time.Second)))

			st.bad.Store(&c.body)
			want := "target " + u + " " + c.want
			if !strings.HasPrefix(c.want, "rejected") {
				want = c.want
			}
			var ts []TargetStatus
			testwait.Until(2*time.Minute, func() bool {
				ts = e.Targets()
				return strings.Contains(ts[0].LastError, want)
			})
			if ts[0].Up || ts[0].Health != "down" || !strings.Contains(ts[0].LastError, want) {
				t.Errorf("target %+v\nwant down with %q", ts[0], want)
			}
			// The same message in the API's target list (what the page shows).
			if got := apiLastError(t, e.URL); !strings.Contains(got, want) {
				t.Errorf("/api/v1/targets lastError %q, want %q", got, want)
			}
			waitFor(t, e.API, `up == 0`, nonEmpty, 60*time.Second)
			// Earlier data stays.
			res, _, _, err := e.API.Query(context.Background(), `good_metric`, good)
			if vec, ok := res.(model.Vector); err != nil || !ok || len(vec) != 1 || vec[0].Value != 42 {
				t.Errorf("good_metric at its last good scrape %v: %v %v, want 42", good, res, err)
			}
			if n := panicCount("scrape") - panics0; n != 0 {
				t.Errorf("%v panics recovered, want none: the limits stop these inputs", n)
			}
		})
	}
}

func apiLastError(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/api/v1/targets")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			ActiveTargets []struct {
				LastError string `json:"lastError"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.ActiveTargets) != 1 {
		t.Fatalf("/api/v1/targets: %+v %v", r, err)
	}
	return r.Data.ActiveTargets[0].LastError
}

func TestLimitsValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{BodySizeLimit: 16 << 20}, "body size limit 16 MiB: must be positive and at most 15 MiB"},
		{Config{BodySizeLimit: -1}, "must be positive"},
		{Config{SampleLimit: -1}, "sample limit -1: must be positive"},
		{Config{LabelLimit: -1}, "label limit -1"},
		{Config{LabelNameLengthLimit: -1}, "label name length limit -1"},
		{Config{LabelValueLengthLimit: -1}, "label value length limit -1"},
		{Config{QueryConcurrency: -1}, "query concurrency -1"},
		{Config{QueryMaxSamples: -1}, "query max samples -1"},
		{Config{QueryTimeout: -time.Second}, "query timeout -1s"},
	} {
		e, err := New(c.cfg)
		if err == nil {
			e.Close()
			t.Errorf("New(%+v): no error, want %q", c.cfg, c.want)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
	// Defaults, and the sample limit never above the series limit.
	e, err := New(Config{SeriesLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sc := e.scrapeCfg.ScrapeConfigs[0]
	if sc.SampleLimit != 1000 || sc.BodySizeLimit != DefaultBodySizeLimit || sc.LabelLimit != DefaultLabelLimit ||
		sc.LabelNameLengthLimit != DefaultLabelNameLengthLimit || sc.LabelValueLengthLimit != DefaultLabelValueLengthLimit {
		t.Errorf("scrape config limits %d %d %d %d %d", sc.SampleLimit, sc.BodySizeLimit, sc.LabelLimit, sc.LabelNameLengthLimit, sc.LabelValueLengthLimit)
	}
	if e.gate.GetMaxConcurrent() != DefaultQueryConcurrency {
		t.Errorf("query concurrency %d, want %d", e.gate.GetMaxConcurrent(), DefaultQueryConcurrency)
	}
}

// panicAppender is a TSDB appender that panics: a fault the real TSDB
// shows only on a bug.
type panicAppender struct{ storage.AppenderV2 }

func (panicAppender) Append(storage.SeriesRef, labels.Labels, int64, int64, float64, *histogram.Histogram, *histogram.FloatHistogram, storage.AppendV2Options) (storage.SeriesRef, error) {
	panic("boom")
}
func (panicAppender) Commit() error { panic("boom on commit") }

// TestAppendPanic: a panic while a scrape is written becomes that
// scrape's error, logged and counted as where="scrape".
func TestAppendPanic(t *testing.T) {
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var logs bytes.Buffer
	a := &limitedAppender{AppenderV2: panicAppender{}, head: e.db.Head(), limit: 10, log: slogTo(&logs)}
	panics0 := panicCount("scrape")
	_, err = a.Append(0, labels.FromStrings("__name__", "x"), 0, 1, 1, nil, nil, storage.AppendV2Options{})
	if err == nil || !strings.Contains(err.Error(), "internal error in TSDB append") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Append: %v, want the recovered panic", err)
	}
	if err := a.Commit(); err == nil || !strings.Contains(err.Error(), "boom on commit") {
		t.Errorf("Commit: %v, want the recovered panic", err)
	}
	if n := panicCount("scrape") - panics0; n != 2 {
		t.Errorf("specdash_panics_total{where=scrape} = %v, want 2", n)
	}
	if !strings.Contains(logs.String(), "recovered from a panic") || !strings.Contains(logs.String(), "stack=") {
		t.Errorf("log %q, want the panic and its stack", logs.String())
	}
}

// gatedQueryable blocks every query in Querier until open is closed
// (panicking instead when panics is set), counting those that got there.
type gatedQueryable struct {
	storage.Queryable
	open    chan struct{}
	entered atomic.Int64
	panics  bool
}

func (g *gatedQueryable) Querier(mint, maxt int64) (storage.Querier, error) {
	if g.panics {
		panic("querier boom")
	}
	g.entered.Add(1)
	<-g.open
	return g.Queryable.Querier(mint, maxt)
}

// slowQueryable's Select returns nothing once the query's context ends.
type slowQueryable struct{ storage.Queryable }

func (s slowQueryable) Querier(mint, maxt int64) (storage.Querier, error) {
	q, err := s.Queryable.Querier(mint, maxt)
	return slowQuerier{q}, err
}

type slowQuerier struct{ storage.Querier }

func (slowQuerier) Select(ctx context.Context, _ bool, _ *storage.SelectHints, _ ...*labels.Matcher) storage.SeriesSet {
	<-ctx.Done()
	return storage.EmptySeriesSet()
}

type apiAnswer struct {
	code int
	Body struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
}

func get(t *testing.T, url string) apiAnswer {
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return apiAnswer{}
	}
	defer resp.Body.Close()
	a := apiAnswer{code: resp.StatusCode}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &a.Body); err != nil {
		t.Errorf("%s: HTTP %d, body %q: %v", url, resp.StatusCode, b, err)
	}
	return a
}

// TestQueryConcurrency: with QueryConcurrency queries evaluating, the
// next one waits for a slot (it never reaches the storage) and runs once
// one is free.
func TestQueryConcurrency(t *testing.T) {
	e, err := New(Config{QueryConcurrency: 2, QueryTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	g := &gatedQueryable{Queryable: e.db, open: make(chan struct{})}
	e.queryable = g
	url, _ := serveOnly(t, e)
	q := url + "/api/v1/query?query=vector(7)"

	var wg sync.WaitGroup
	answers := make([]apiAnswer, 3)
	for i := range 2 {
		wg.Go(func() { answers[i] = get(t, q) })
	}
	waitCond(t, "2 queries at the storage", func() bool { return g.entered.Load() == 2 })
	wg.Go(func() { answers[2] = get(t, q) })
	waitCond(t, "1 query waiting", func() bool { r, w := e.QueryLoad(); return r == 2 && w == 1 })
	if n := g.entered.Load(); n != 2 {
		t.Errorf("%d queries reached the storage with 2 slots", n)
	}
	close(g.open)
	wg.Wait()
	for i, a := range answers {
		if a.code != http.StatusOK || a.Body.Status != "success" {
			t.Errorf("query %d: %+v, want success once a slot was free", i, a)
		}
	}
	if n := g.entered.Load(); n != 3 {
		t.Errorf("%d queries reached the storage, want 3", n)
	}
	if r, w := e.QueryLoad(); r != 0 || w != 0 {
		t.Errorf("QueryLoad() = %d, %d after all answered", r, w)
	}
}

// TestQueryQueueTimeout: a wait for a slot past QueryTimeout ends with a
// timeout (503) that names the limits.
func TestQueryQueueTimeout(t *testing.T) {
	e, err := New(Config{QueryConcurrency: 1, QueryTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	g := &gatedQueryable{Queryable: e.db, open: make(chan struct{})}
	e.queryable = g
	url, _ := serveOnly(t, e)
	first := make(chan apiAnswer)
	go func() { first <- get(t, url+"/api/v1/query?query=vector(7)") }()
	waitCond(t, "the first query at the storage", func() bool { return g.entered.Load() == 1 })
	// Its own timeout well past the engine's: QueryTimeout ends the wait.
	a := get(t, url+"/api/v1/query?query=vector(8)&timeout=10m")
	if a.code != http.StatusServiceUnavailable || a.Body.ErrorType != "timeout" ||
		!strings.Contains(a.Body.Error, "all 1 query slots (query.max-concurrency) stayed busy within the 1s query timeout") {
		t.Errorf("query waiting for a slot: %+v, want 503 timeout naming the limits", a)
	}
	if n := g.entered.Load(); n != 1 {
		t.Errorf("%d queries reached the storage with 1 slot", n)
	}
	close(g.open)
	<-first
}

// TestQueryLimits: a subquery past QueryMaxSamples and a query past
// QueryTimeout end with Prometheus' error type and code and a message
// naming the limit.
func TestQueryLimits(t *testing.T) {
	// Max samples with a generous timeout, so that a busy machine cannot
	// make the query time out before it loads 1000 samples.
	big, err := New(Config{QueryMaxSamples: 1000, QueryTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	bigURL, _ := serveOnly(t, big)
	a := get(t, bigURL+"/api/v1/query?query=count_over_time(vector(1)[1h:1ms])")
	if a.code != http.StatusUnprocessableEntity || a.Body.ErrorType != "execution" ||
		!strings.Contains(a.Body.Error, "too many samples") || !strings.Contains(a.Body.Error, "over the limit of 1000 samples (query.max-samples)") {
		t.Errorf("subquery past max samples: %+v", a)
	}
	// Held in the storage until its context ends: the engine's own timeout
	// error, not a cut connection (the query waits for the timeout whatever
	// the machine's speed).
	e, err := New(Config{QueryTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	url, _ := serveOnly(t, e)
	e.queryable = slowQueryable{e.db}
	b := get(t, url+"/api/v1/query?query=sum(up)")
	if b.code != http.StatusServiceUnavailable || b.Body.ErrorType != "timeout" ||
		!strings.Contains(b.Body.Error, "query timed out") || !strings.Contains(b.Body.Error, "past the 500ms limit (query.timeout)") {
		t.Errorf("query past the timeout: %+v", b)
	}
}

// TestQueryPanic: a panic in a query handler (here the storage's) answers
// 500 internal with a message, counted as where="query"; the slot is
// freed.
func TestQueryPanic(t *testing.T) {
	e, err := New(Config{QueryConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.queryable = &gatedQueryable{Queryable: e.db, panics: true}
	url, _ := serveOnly(t, e)
	panics0 := panicCount("query")
	a := get(t, url+"/api/v1/query?query=vector(1)")
	if a.code != http.StatusInternalServerError || a.Body.ErrorType != "internal" || !strings.Contains(a.Body.Error, "querier boom") {
		t.Errorf("panicking query: %+v", a)
	}
	if n := panicCount("query") - panics0; n != 1 {
		t.Errorf("specdash_panics_total{where=query} = %v, want 1", n)
	}
	e.queryable = e.db
	if b := get(t, url+"/api/v1/query?query=vector(1)"); b.code != http.StatusOK {
		t.Errorf("next query: %+v, want its slot back", b)
	}
}

// waitCond polls cond until it holds (or fails the test after a generous
// deadline).
func waitCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, what, 2*time.Minute, cond)
}

// panicCount reads the process-wide specdash_panics_total{where}.
func panicCount(where string) float64 {
	return testutil.ToFloat64(panics.Total.WithLabelValues(where))
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
