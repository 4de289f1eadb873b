package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/internal/simtest"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/model"
	"specdash/simulate"
	"specdash/view"
)

// hostileModel replaces the fixture's org/model-b: markup and quotes in a
// label value must stay text in the pre-rendered page (the fixture's other
// model, `Llama 3 "chat" 8B`, has quotes too).
const hostileModel = `</script><script>alert(1)</script><img src=x onerror=alert(2)>`

// fixturePage starts a real Prometheus with the known-answer fixture
// (org/model-b renamed to hostileModel) and a server on it, and returns the
// server's URL.
func fixturePage(t *testing.T) string {
	t.Helper()
	fx := fixtures.KnownAnswer()
	om := strings.ReplaceAll(fx.OpenMetrics, `"`+fixtures.ModelB+`"`, `"`+hostileModel+`"`)
	if om == fx.OpenMetrics {
		t.Fatal("fixture has no org/model-b series to rename")
	}
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om)})
	s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: time.Duration(fixtures.StepSeconds) * time.Second,
		// Generous: the test checks numbers, not speed; a loaded CI machine
		// must not turn it into a page without numbers.
		PreRenderTimeout: 20 * time.Second})
	return s.URL
}

func getPage(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return string(b)
}

// tagWith returns the first start tag of the page holding attr (attribute
// order is go-app's map order, so tags are matched whole).
func tagWith(page, attr string) string {
	for _, m := range startTag.FindAllString(page, -1) {
		if strings.Contains(m, " "+attr) {
			return m
		}
	}
	return ""
}

var startTag = regexp.MustCompile(`<[a-z]+(?: [a-z-]+(?:="[^"]*")?)*>`)

// attrOf returns the value of name in the start tag tag ("" when absent).
func attrOf(tag, name string) string {
	m := regexp.MustCompile(` ` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// The pre-rendered dashboard holds the URL's numbers: the cards and the
// breakdown rows equal the fixture's hand-computed answers, the charts
// carry their options (decodable, with the same numbers), label values stay
// text, and the stamp names the page.
func TestPreRenderedNumbers(t *testing.T) {
	base := fixturePage(t)
	fx := fixtures.KnownAnswer()
	w := fx.Whole
	q := url.Values{
		"from":  {w.StartTime().Format(time.RFC3339)},
		"to":    {w.EndTime().Format(time.RFC3339)},
		"group": {"model_name"},
	}
	path := "/?" + q.Encode()
	page := getPage(t, http.DefaultClient, base+path)

	if root := tagWith(page, `data-dashboard="specdash"`); attrOf(root, "data-state") != "preview" {
		t.Fatalf("root %q: want data-state=\"preview\" (numbers pre-rendered)", root)
	}
	// Cards: the window's total.
	for _, c := range []struct {
		metric string
		want   float64
	}{
		{"acceptance-rate", w.Total.AcceptanceRate},
		{"mean-acceptance-length", w.Total.MeanAcceptanceLength},
		{"accepted-throughput", w.Total.AcceptedPerSecond},
		{"drafted-throughput", w.Total.DraftedPerSecond},
	} {
		tag := tagWith(page, `data-metric="`+c.metric+`"`)
		got, err := strconv.ParseFloat(attrOf(tag, "data-value"), 64)
		if err != nil || !near(got, c.want) {
			t.Errorf("card %s: %q, want %v", c.metric, tag, c.want)
		}
	}
	// Breakdown rows, one per model.
	for model, name := range map[string]string{fixtures.ModelA: fixtures.ModelA, fixtures.ModelB: hostileModel} {
		key, _ := json.Marshal([]string{name})
		group := "v:" + base64.RawURLEncoding.EncodeToString(key)
		i := strings.Index(page, `data-group="`+group+`"`)
		if i < 0 {
			t.Errorf("no breakdown row for %q", name)
			continue
		}
		row := page[i:]
		row = row[:strings.Index(row, "</tr>")]
		want := w.Models[model]
		cell := tagWith(row, `data-cell="acceptance-rate"`)
		if got, err := strconv.ParseFloat(attrOf(cell, "data-value"), 64); err != nil || !near(got, want.AcceptanceRate) {
			t.Errorf("row %q: acceptance rate cell %q, want %v", name, cell, want.AcceptanceRate)
		}
		if !strings.Contains(row, html.EscapeString(name)) {
			t.Errorf("row %q does not show the name as escaped text", name)
		}
	}

	// The per-position chart's option: bars = per-position rate in % (1
	// decimal), stamped with this page.
	chart := tagWith(page, `data-chart="`+view.ChartPerPosition+`"`)
	raw, err := base64.StdEncoding.DecodeString(attrOf(chart, "data-option"))
	if err != nil {
		t.Fatalf("per-position chart %q: option not base64: %v", chart, err)
	}
	var opt struct {
		Series []struct {
			Name string `json:"name"`
			Data []struct {
				Value any `json:"value"`
			} `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal(raw, &opt); err != nil || len(opt.Series) == 0 {
		t.Fatalf("per-position option: %v (%d series)", err, len(opt.Series))
	}
	bars := opt.Series[0].Data
	if len(bars) != len(w.Total.PerPositionRate) {
		t.Fatalf("per-position bars %d, want %d", len(bars), len(w.Total.PerPositionRate))
	}
	for i, b := range bars {
		got, ok := b.Value.(float64)
		want := math.Round(w.Total.PerPositionRate[i]*1000) / 10
		if !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("per-position bar %d: %v, want %v", i+1, b.Value, want)
		}
	}
	// The same bars drawn by the server (chartsvg) inside the chart's div:
	// heights in the drawing's 0..1000 box are the rates in % times 10.
	i := strings.Index(page, chart)
	drawing := page[i:]
	if end := strings.Index(drawing, "</svg>"); end > 0 && strings.Contains(drawing[:end], "data-chart-static") {
		drawing = drawing[:end]
	} else {
		t.Fatalf("per-position chart: no static drawing inside its div")
	}
	heights := regexp.MustCompile(`<rect x="[^"]*" y="[^"]*" width="[^"]*" height="([^"]*)"/>`).FindAllStringSubmatch(drawing, -1)
	if len(heights) != len(w.Total.PerPositionRate) {
		t.Fatalf("static per-position chart: %d bars, want %d", len(heights), len(w.Total.PerPositionRate))
	}
	for i, h := range heights {
		got, _ := strconv.ParseFloat(h[1], 64)
		if want := math.Round(w.Total.PerPositionRate[i]*1000) / 10 * 10; math.Abs(got-want) > 0.06 {
			t.Errorf("static per-position bar %d: height %v, want %v", i+1, got, want)
		}
	}
	// Off boolean attributes are dropped (go-app writes selected="false",
	// which HTML reads as selected): the first paint shows the URL's choices.
	if m := regexp.MustCompile(` (selected|checked|disabled)="false"`).FindString(page); m != "" {
		t.Errorf("page holds %q: an off boolean attribute that HTML reads as on", m)
	}
	if !regexp.MustCompile(`<input[^>]* checked[^>]*data-group="model_name"|<input[^>]*data-group="model_name"[^>]* checked`).MatchString(page) {
		t.Errorf("the model_name group-by box is not pre-rendered checked (group=model_name)")
	}
	if u, err := base64.RawURLEncoding.DecodeString(attrOf(chart, "data-preview-url")); err != nil || string(u) != path {
		t.Errorf("data-preview-url %q, want %q", u, path)
	}
	if at, err := strconv.ParseInt(attrOf(chart, "data-preview-at"), 10, 64); err != nil || time.Since(time.UnixMilli(at)).Abs() > time.Hour {
		t.Errorf("data-preview-at %q: not the render time", attrOf(chart, "data-preview-at"))
	}
	// Every time chart carries an option with data.
	for _, name := range []string{view.ChartAcceptanceRate, view.ChartAcceptanceLength, view.ChartThroughput, view.ChartDrafts, view.ChartHeatmap} {
		tag := tagWith(page, `data-chart="`+name+`"`)
		b, err := base64.StdEncoding.DecodeString(attrOf(tag, "data-option"))
		if err != nil || !json.Valid(b) || !strings.Contains(string(b), `"data":[`) {
			t.Errorf("chart %s: no decodable option with data (%v)", name, err)
		}
	}

	// Label values: text only. The hostile name appears escaped, never raw
	// (no extra <script> or <img>), and only go-app's and specdash's own
	// scripts are in the page.
	for _, bad := range []string{"<img src=x", "alert(1)</script>", "<script>alert"} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("hostile model name injected markup into the pre-rendered page: %q", page[max(0, i-200):min(len(page), i+80)])
		}
	}
	if !strings.Contains(page, html.EscapeString(hostileModel)) {
		t.Errorf("hostile model name not shown as escaped text")
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 4 { // wasm_exec.js, app.js, preview.js (which runs ECharts), charts.js
		t.Errorf("%d <script> tags, want 4", n)
	}
	// No event handler attribute (on...=) in any tag; the escaped name may
	// hold "onerror" inside an attribute's value (the static drawings'
	// data-series).
	attrName := regexp.MustCompile(` ([a-zA-Z-]+)(?:="[^"]*")?`)
	for _, tag := range startTag.FindAllString(page, -1) {
		for _, a := range attrName.FindAllStringSubmatch(tag, -1) {
			if strings.HasPrefix(strings.ToLower(a[1]), "on") {
				t.Errorf("tag with an event handler attribute: %q", tag)
			}
		}
	}
	// A revalidation never gets a 304 with the old numbers.
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("revalidated page: %d, want 200 (a fresh pre-render)", resp.StatusCode)
	}
}

// With a source that never answers, the page comes without numbers once
// the pre-render's budget is spent, far sooner than the upstream timeout;
// with a source that refuses connections, at once.
func TestPreRenderUpstreamDownOrHung(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })

	for _, c := range []struct{ name, upstream string }{
		{"hung", hung.URL},
		{"down", "http://127.0.0.1:9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Without the budget the page would wait for the upstream
			// timeout (5 min), far past the client's 60 s.
			s := newServer(t, Config{PrometheusURL: c.upstream, UpstreamTimeout: 5 * time.Minute,
				PreRenderTimeout: 300 * time.Millisecond})
			page := getPage(t, &http.Client{Timeout: 60 * time.Second}, s.URL+"/?range=15m")
			root := tagWith(page, `data-dashboard="specdash"`)
			if st := attrOf(root, "data-state"); st != "loading" {
				t.Errorf("data-state %q, want loading (no numbers)", st)
			}
			if strings.Contains(page, "data-option=") || tagWith(page, `data-metric="acceptance-rate"`) == "" {
				t.Errorf("page without numbers should have the cards and no chart options")
			}
		})
	}
}

// The pre-render reads what the browser's first load of the page reads (a
// small live selection shaped, view.LoadOptions.DeferWindow), so with the
// proxy's cache on, that first load finds every answer there and sends
// nothing upstream; its numbers are the pre-rendered ones. (The pre-render
// used to read such a selection raw: 1.4 MB at 16 engines x 6 h, none of
// it the browser's.)
func TestPreRenderReadsAsFirstLoad(t *testing.T) {
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m1", "m2"}, Engines: 2, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 7}, 4)

	const scrape = time.Second
	up := &keyCounter{next: http.DefaultTransport, seen: map[string]int{}}
	// A server (with an empty cache) and a client of its proxy.
	serve := func() (*httptest.Server, *metricsclient.Client) {
		s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Transport: up, CacheTTL: time.Hour,
			PreRenderTimeout: 20 * time.Second}) // numbers, however busy the machine
		c, err := metricsclient.New(metricsclient.Config{Address: s.URL + ProxyPrefix, ScrapeInterval: scrape})
		if err != nil {
			t.Fatal(err)
		}
		return s, c
	}
	_, c := serve()
	v := url.Values{"range": {"1h"}} // 10 s steps: a page and its load mostly fall in one
	q := view.ParseQuery(v)
	// Every engine's series (4 x (3 + k)) in the window, which ends at its
	// last full step: a small selection, which a live view reads raw.
	var n int
	testwait.For(t, "every engine's series in the window", 2*time.Minute, func() bool {
		var err error
		n, err = c.SelectionSize(t.Context(), q.Grid(scrape, time.Now()), nil)
		return err == nil && n == 4*(3+4)
	})
	if n > model.RawSeriesMax {
		t.Fatalf("selection of %d series: want a small one", n)
	}
	// The page and the load must fall on one grid (the window's end is
	// rounded down to its step): a try that spans a step boundary is
	// tried again, on a server of its own (the last one's cache holds the
	// answers of its load).
	for try := 1; ; try++ {
		s, c := serve()
		t0 := time.Now()
		before := up.snapshot()
		page := getPage(t, &http.Client{Timeout: 60 * time.Second}, s.URL+"/?"+v.Encode())
		mid := up.snapshot()
		got := view.LoadWith(t.Context(), c, q, scrape, time.Now(), nil, view.LoadOptions{DeferWindow: true})
		if q.Grid(scrape, t0) != q.Grid(scrape, time.Now()) {
			if try == 20 {
				t.Fatal("no try within one step")
			}
			t.Logf("try %d spanned a step boundary", try)
			continue
		}
		if st := attrOf(tagWith(page, `data-dashboard="specdash"`), "data-state"); st != "preview" {
			t.Fatalf("data-state %q, want preview (numbers pre-rendered)", st)
		}
		if got.Err != nil {
			t.Fatalf("first load: %v", got.Err)
		}
		if maps.Equal(before, mid) {
			t.Fatal("the pre-render sent nothing upstream")
		}
		if after := up.snapshot(); !maps.Equal(after, mid) {
			for k, n := range after {
				if n != mid[k] {
					t.Errorf("the first load sent %q upstream: the pre-render did not read it", k)
				}
			}
		}
		// The first load's acceptance rate is the pre-rendered card's.
		tag := tagWith(page, `data-metric="acceptance-rate"`)
		pre, err := strconv.ParseFloat(attrOf(tag, "data-value"), 64)
		if err != nil || !got.Stats.AcceptanceRate.OK || !near(pre, got.Stats.AcceptanceRate.V) || got.Total.Total.Drafts == 0 {
			t.Errorf("pre-rendered card %q, first load %v over %v drafts", tag, got.Stats.AcceptanceRate, got.Total.Total.Drafts)
		}
		return
	}
}

// TestFirstLoadAtPreRenderTime: the pre-rendered page names the time its
// load read at (data-load-at, whole ms), and a first load at that time
// asks the proxy nothing new even after the window's step has moved on
// (the browser's first load takes it: app firstLoadAt), while a load at
// the new time does ask upstream. The load shows the page's window.
func TestFirstLoadAtPreRenderTime(t *testing.T) {
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m1"}, Engines: 2, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 7}, 2)
	const scrape = time.Second
	up := &keyCounter{next: http.DefaultTransport, seen: map[string]int{}}
	s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: scrape, Transport: up, CacheTTL: time.Hour,
		PreRenderTimeout: 20 * time.Second})
	c, err := metricsclient.New(metricsclient.Config{Address: s.URL + ProxyPrefix, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	v := url.Values{"range": {"1h"}} // 10 s steps
	q := view.ParseQuery(v)
	testwait.For(t, "the simulated engines' drafts", 2*time.Minute, func() bool {
		n, err := c.SelectionSize(t.Context(), q.Grid(scrape, time.Now()), nil)
		return err == nil && n == 2*(3+4)
	})
	page := getPage(t, &http.Client{Timeout: 60 * time.Second}, s.URL+"/?"+v.Encode())
	root := tagWith(page, `data-dashboard="specdash"`)
	if st := attrOf(root, "data-state"); st != "preview" {
		t.Fatalf("data-state %q, want preview (numbers pre-rendered)", st)
	}
	ms, err := strconv.ParseInt(attrOf(root, "data-load-at"), 10, 64)
	if err != nil || ms <= 0 {
		t.Fatalf("data-load-at %q: want the pre-render's time in Unix ms (%v)", attrOf(root, "data-load-at"), err)
	}
	at := time.UnixMilli(ms)
	if d := time.Since(at); d < 0 || d > time.Minute {
		t.Fatalf("data-load-at %v, %v ago: want the page's own time", at, d)
	}
	end, _ := strconv.ParseInt(attrOf(root, "data-window-end"), 10, 64)
	// A first load after the window moved on by a step.
	testwait.For(t, "the next step", time.Minute, func() bool { return q.Grid(scrape, time.Now()) != q.Grid(scrape, at) })
	mid := up.snapshot()
	got := view.LoadWith(t.Context(), c, q, scrape, at, nil, view.LoadOptions{DeferWindow: true})
	if got.Err != nil {
		t.Fatalf("load at data-load-at: %v", got.Err)
	}
	if after := up.snapshot(); !maps.Equal(after, mid) {
		for k, n := range after {
			if n != mid[k] {
				t.Errorf("the load at the page's time sent %q upstream", k)
			}
		}
	}
	if got.Grid.End != end {
		t.Errorf("load at the page's time: window end %d, the page's %d", got.Grid.End, end)
	}
	// The page carries its load's answers (data-answers): the browser's
	// first load (app previewAnswers) asks nothing, not even the proxy,
	// and shows what a load through the proxy shows.
	ans, err := metricsclient.DecodeAnswers(attrOf(tagWith(page, "data-answers"), "data-answers"))
	if err != nil || ans.Len() == 0 {
		t.Fatalf("the page's data-answers: %v (%d answers)", err, ans.Len())
	}
	var asked atomic.Int32
	offline, err := metricsclient.New(metricsclient.Config{Address: ProxyPrefix, ScrapeInterval: scrape,
		RoundTripper: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			asked.Add(1)
			return nil, fmt.Errorf("asked %s", r.URL)
		})})
	if err != nil {
		t.Fatal(err)
	}
	replayed := view.LoadWith(metricsclient.WithAnswers(t.Context(), ans), offline, q, scrape, at, nil, view.LoadOptions{DeferWindow: true})
	if replayed.Err != nil || asked.Load() != 0 || ans.Len() != 0 {
		t.Fatalf("first load from the page's answers: %v; asked %d requests, %d answers unused", replayed.Err, asked.Load(), ans.Len())
	}
	if replayed.Grid != got.Grid || !reflect.DeepEqual(replayed.Total, got.Total) || !reflect.DeepEqual(replayed.Stats, got.Stats) ||
		!reflect.DeepEqual(replayed.Labels, got.Labels) || got.Total.Total.Drafts == 0 {
		t.Errorf("first load from the page's answers: grid %v, %v drafts; through the proxy: grid %v, %v drafts", replayed.Grid, replayed.Total.Total.Drafts, got.Grid, got.Total.Total.Drafts)
	}
	// The same load at the new time asks upstream: the time is what kept
	// the one above in the cache.
	if now := view.LoadWith(t.Context(), c, q, scrape, time.Now(), nil, view.LoadOptions{DeferWindow: true}); now.Err != nil || maps.Equal(up.snapshot(), mid) || now.Grid.End == end {
		t.Errorf("load a step later (err %v, end %d): want a new window, asked upstream", now.Err, now.Grid.End)
	}
}
