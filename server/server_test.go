package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/web"
)

// testAssets stands in for web.FS so the tests do not depend on a wasm
// build.
var testAssets = fstest.MapFS{
	"dist/.keep":            {Data: nil},
	"dist/app.wasm":         {Data: []byte("\x00asm\x01\x00\x00\x00 fake wasm for tests, fake wasm for tests")},
	"dist/echarts.min.js":   {Data: []byte("window.echarts = {};")},
	"static/specdash.css":   {Data: []byte("body{}")},
	"static/icon.svg":       {Data: []byte("<svg/>")},
	"static/sub/nested.txt": {Data: []byte("nested")},
}

func newServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	if cfg.Assets == nil {
		cfg.Assets = testAssets
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// do sends a request with a raw (uncleaned) path straight to the handler.
func do(t *testing.T, h http.Handler, method, rawPath string, body io.Reader, hdr http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, "http://specdash.test/", body)
	u, err := url.Parse(rawPath)
	if err != nil {
		t.Fatalf("parse %q: %v", rawPath, err)
	}
	r.URL = u
	r.RequestURI = rawPath
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// recorder is a fake upstream that records what reaches it (Prometheus
// cannot report the headers it received).
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	srv  *httptest.Server
}

func newRecorder(t *testing.T, reply http.HandlerFunc) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, r.Clone(context.Background()))
		rec.mu.Unlock()
		if reply != nil {
			reply(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","data":{"resultType":"scalar","result":[0,"1"]}}`)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

func TestProxyRealPrometheus(t *testing.T) {
	prom := promtest.Start(t, promtest.Options{})
	s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second})

	// client_golang's v1 API through the proxy (it POSTs forms).
	c, err := api.NewClient(api.Config{Address: s.URL + "/prom"})
	if err != nil {
		t.Fatal(err)
	}
	a := v1.NewAPI(c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, _, _, err := a.Query(ctx, "vector(42)", time.Now())
	if err != nil {
		t.Fatalf("query through proxy: %v", err)
	}
	if vec, ok := v.(model.Vector); !ok || len(vec) != 1 || vec[0].Value != 42 {
		t.Fatalf("query vector(42) through proxy = %v", v)
	}
	now := time.Now()
	m, _, _, err := a.QueryRange(ctx, "vector(3)", v1.Range{Start: now.Add(-time.Minute), End: now, Step: 15 * time.Second})
	if err != nil {
		t.Fatalf("query_range through proxy: %v", err)
	}
	if mat, ok := m.(model.Matrix); !ok || len(mat) != 1 || len(mat[0].Values) != 5 {
		t.Fatalf("query_range vector(3) over 1m step 15s = %v, want 5 points", m)
	}
	bi, err := a.Buildinfo(ctx)
	if err != nil || bi.Version == "" {
		t.Fatalf("buildinfo through proxy: %+v, %v", bi, err)
	}
	if _, _, _, err := a.LabelNames(ctx, nil, now.Add(-time.Hour), now); err != nil {
		t.Fatalf("labels through proxy: %v", err)
	}
	if _, _, _, err := a.LabelValues(ctx, "job", nil, now.Add(-time.Hour), now); err != nil {
		t.Fatalf("label values through proxy: %v", err)
	}
	if _, _, _, err := a.Series(ctx, []string{`up`}, now.Add(-time.Hour), now); err != nil {
		t.Fatalf("series through proxy: %v", err)
	}

	// Plain GET with a query string, and Prometheus' own 400 passed through.
	resp, err := http.Get(s.URL + "/prom/api/v1/query?query=" + url.QueryEscape("1+1"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"2"`) {
		t.Fatalf("GET query 1+1: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(s.URL + "/prom/api/v1/query?query=" + url.QueryEscape("sum("))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "bad_data") {
		t.Fatalf("GET bad query: %d %s, want Prometheus' 400 bad_data", resp.StatusCode, body)
	}

	// metricsclient through the proxy: no spec-decode series in this
	// Prometheus, so a readable MissingMetricsError, not an empty success.
	mc, err := metricsclient.New(metricsclient.Config{Address: s.URL + "/prom", ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := metricsclient.AlignGrid(now, 5*time.Minute, time.Second)
	_, _, err = mc.FetchSeries(ctx, g, nil)
	var missing *metricsclient.MissingMetricsError
	if !asMissing(err, &missing) {
		t.Fatalf("FetchSeries on an empty Prometheus through the proxy: %v, want *MissingMetricsError", err)
	}
}

// TestProxyLabelListsMatch: the filter menus' label lists
// (metricsclient.SeriesLabels) read the label names and label values APIs
// with match[]; the proxy passes match[] on (a selector that matches
// nothing lists nothing), and SeriesLabels through the proxy equals the
// lists read straight from Prometheus.
func TestProxyLabelListsMatch(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	var om strings.Builder
	om.WriteString("# TYPE vllm:spec_decode_num_drafts counter\n")
	for i, l := range []string{`model_name="m-a",engine="0"`, `model_name="m-b",engine="1"`} {
		for j := range int64(5) {
			om.WriteString("vllm:spec_decode_num_drafts_total{" + l + "} " + strconv.FormatInt(int64(i)+j, 10) + " " + strconv.FormatInt(t0+15*j, 10) + "\n")
		}
	}
	om.WriteString("# TYPE other gauge\n")
	om.WriteString("other{region=\"eu\"} 1 " + strconv.FormatInt(t0, 10) + "\n# EOF\n")
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om.String())})
	s := newServer(t, Config{PrometheusURL: prom.URL, ScrapeInterval: 15 * time.Second})
	c, err := api.NewClient(api.Config{Address: s.URL + "/prom"})
	if err != nil {
		t.Fatal(err)
	}
	a := v1.NewAPI(c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start, end := time.Unix(t0-60, 0), time.Unix(t0+120, 0)
	for _, c := range []struct {
		match  string
		names  []model.LabelName
		models []string
	}{
		{`{__name__="vllm:spec_decode_num_drafts_total"}`, []model.LabelName{"__name__", "engine", "model_name"}, []string{"m-a", "m-b"}},
		{`{__name__="vllm:spec_decode_num_drafts_total",model_name="m-b"}`, []model.LabelName{"__name__", "engine", "model_name"}, []string{"m-b"}},
		{`{__name__="vllm:spec_decode_num_drafts_total",model_name="absent"}`, []model.LabelName{}, []string{}},
	} {
		names, _, _, err := a.LabelNames(ctx, []string{c.match}, start, end)
		if err != nil || !slices.Equal(names, c.names) {
			t.Errorf("label names of %s through the proxy: %v (%v), want %v", c.match, names, err, c.names)
		}
		vals, _, _, err := a.LabelValues(ctx, "model_name", []string{c.match}, start, end)
		got := make([]string, len(vals))
		for i, v := range vals {
			got[i] = string(v)
		}
		if err != nil || !slices.Equal(got, c.models) {
			t.Errorf("model_name values of %s through the proxy: %v (%v), want %v", c.match, got, err, c.models)
		}
	}
	via, err := metricsclient.New(metricsclient.Config{Address: s.URL + "/prom"})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := metricsclient.New(metricsclient.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	lv, err := via.SeriesLabels(ctx, nil, start, end)
	ld, derr := direct.SeriesLabels(ctx, nil, start, end)
	want := map[string][]string{"engine": {"0", "1"}, "model_name": {"m-a", "m-b"}}
	if err != nil || derr != nil || !reflect.DeepEqual(lv, want) || !reflect.DeepEqual(ld, want) {
		t.Errorf("SeriesLabels through the proxy %v (%v), straight %v (%v), want %v", lv, err, ld, derr, want)
	}
}

func asMissing(err error, target **metricsclient.MissingMetricsError) bool {
	for err != nil {
		if m, ok := err.(*metricsclient.MissingMetricsError); ok {
			*target = m
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestProxyRefusesPathsAndMethods(t *testing.T) {
	rec := newRecorder(t, nil)
	h, err := New(Config{PrometheusURL: rec.srv.URL, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path string
		want         int
	}{
		{"GET", "/prom", 404},
		{"GET", "/prom/", 400},
		{"GET", "/prom/api/v1/targets", 404},
		{"GET", "/prom/api/v1/status/config", 404},
		{"GET", "/prom/api/v1/status/flags", 404},
		{"POST", "/prom/api/v1/admin/tsdb/delete_series?match[]=up", 404},
		{"POST", "/prom/api/v1/admin/tsdb/snapshot", 404},
		{"POST", "/prom/api/v1/write", 404},
		{"POST", "/prom/-/quit", 404},
		{"GET", "/prom/federate?match[]=up", 404},
		{"GET", "/prom/metrics", 404},
		{"GET", "/prom/api/v1/label/a/b/values", 404},
		{"GET", "/prom/api/v1/label/1bad/values", 404},
		{"GET", "/prom/api/v2/query", 404},
		{"GET", "/prom/api/v1/query/../admin/tsdb/snapshot", 400},
		{"GET", "/prom/api/v1/../v1/query", 400},
		{"GET", "/prom/api/v1/query/", 400},
		{"GET", "/prom//api/v1/query", 400},
		{"GET", "/prom/api/v1/./query", 400},
		{"GET", "/prom/api/v1/%2e%2e/v1/query", 400},
		{"GET", "/prom/api/v1/label%2Fjob/values", 400},
		{"GET", "/prom/api/v1/label/job%2F..%2F..%2Fadmin/values", 400},
		{"GET", "/prom/api%2Fv1%2Fquery", 400},
		{"GET", "/prom/api/v1/quer%79", 400},
		{"PUT", "/prom/api/v1/query", 405},
		{"DELETE", "/prom/api/v1/series", 405},
		{"PATCH", "/prom/api/v1/query_range", 405},
		{"OPTIONS", "/prom/api/v1/query", 405},
		{"HEAD", "/prom/api/v1/labels", 405},
	}
	for _, c := range cases {
		w := do(t, h, c.method, c.path, nil, nil)
		if w.Code != c.want {
			t.Errorf("%s %s: %d %q, want %d", c.method, c.path, w.Code, w.Body.String(), c.want)
		}
		if c.want == 405 && w.Header().Get("Allow") != "GET, POST" {
			t.Errorf("%s %s: Allow %q", c.method, c.path, w.Header().Get("Allow"))
		}
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("%d refused requests reached the upstream: %v", n, rec.requests()[0].URL)
	}

	for _, p := range []string{
		"/prom/api/v1/query", "/prom/api/v1/query_range", "/prom/api/v1/labels",
		"/prom/api/v1/label/model_name/values", "/prom/api/v1/label/__name__/values",
		"/prom/api/v1/series", "/prom/api/v1/status/buildinfo",
	} {
		for _, m := range []string{"GET", "POST"} {
			if w := do(t, h, m, p, strings.NewReader("query=1"), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}); w.Code != 200 {
				t.Errorf("%s %s: %d %s, want 200", m, p, w.Code, w.Body.String())
			}
		}
	}
	if n := len(rec.requests()); n != 14 {
		t.Errorf("upstream saw %d requests, want 14", n)
	}
}

func TestProxyHeadersAndPrefix(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "upstream", Value: "x"})
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","data":[]}`)
	})
	// A path prefix (Mimir-style) and credentials in the configured URL.
	upstream := strings.Replace(rec.srv.URL, "http://", "http://alice:s3cret@", 1) + "/prometheus/"
	s := newServer(t, Config{PrometheusURL: upstream})

	req, _ := http.NewRequest("POST", s.URL+"/prom/api/v1/labels?x=1", strings.NewReader("match[]=up"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "session=browser-secret")
	req.Header.Set("Authorization", "Bearer browser-token")
	req.Header.Set("Proxy-Authorization", "Basic Zm9vOmJhcg==")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if sc := resp.Header.Values("Set-Cookie"); len(sc) != 0 {
		t.Errorf("upstream Set-Cookie reached the browser: %q", sc)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("upstream saw %d requests", len(reqs))
	}
	got := reqs[0]
	if got.URL.Path != "/prometheus/api/v1/labels" || got.URL.RawQuery != "x=1" {
		t.Errorf("upstream path %q query %q, want /prometheus/api/v1/labels x=1", got.URL.Path, got.URL.RawQuery)
	}
	if c := got.Header.Get("Cookie"); c != "" {
		t.Errorf("browser Cookie forwarded: %q", c)
	}
	if got.Header.Get("Proxy-Authorization") != "" {
		t.Errorf("browser Proxy-Authorization forwarded")
	}
	if user, pass, ok := got.BasicAuth(); !ok || user != "alice" || pass != "s3cret" {
		t.Errorf("upstream auth = %q (%v), want the configured basic auth, never the browser's bearer token", got.Header.Get("Authorization"), ok)
	}
	body, _ := io.ReadAll(got.Body)
	_ = body

	// The configured password never reaches the browser.
	for _, p := range []string{"/", "/app.js"} {
		resp, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "alice") {
			t.Errorf("%s leaks the upstream credentials", p)
		}
		if p == "/" && !strings.Contains(string(b), strings.TrimPrefix(rec.srv.URL, "http://")+"/prometheus") {
			t.Errorf("page does not show the source URL")
		}
	}
}

func TestProxyFaults(t *testing.T) {
	// Unreachable: a closed port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	h, err := New(Config{PrometheusURL: closed, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	w := do(t, h, "GET", "/prom/api/v1/query?query=up", nil, nil)
	checkBadGateway(t, "unreachable", w, "connection refused", ln.Addr().String())
	// What the dashboard says, reading through the proxy as the browser
	// does: the proxy's explanation, not Prometheus-answer hints.
	down := httptest.NewServer(h)
	defer down.Close()
	dc, err := metricsclient.New(metricsclient.Config{Address: down.URL + ProxyPrefix})
	if err != nil {
		t.Fatal(err)
	}
	_, err = dc.LabelValues(context.Background(), "model_name", nil, time.Now().Add(-time.Hour), time.Now())
	if want := "specdash's proxy at " + down.URL + ProxyPrefix + " could not answer label values: source default: Prometheus is unreachable: connection refused (is it running?)"; err == nil || err.Error() != want {
		t.Errorf("client through the proxy, upstream down: %v\nwant %s", err, want)
	}

	// Hung upstream: answers nothing until the client gives up.
	hung := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	h, err = New(Config{PrometheusURL: hung.srv.URL, UpstreamTimeout: 200 * time.Millisecond, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	w = do(t, h, "GET", "/prom/api/v1/query?query=up", nil, nil)
	checkGatewayError(t, "hung", w, http.StatusGatewayTimeout, "source default: Prometheus did not answer in time", strings.TrimPrefix(hung.srv.URL, "http://"))

	// Redirect: never followed, never forwarded.
	redir := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.example/api/v1/query", http.StatusFound)
	})
	h, err = New(Config{PrometheusURL: redir.srv.URL, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	w = do(t, h, "GET", "/prom/api/v1/query?query=up", nil, nil)
	checkBadGateway(t, "redirect", w, "redirect", strings.TrimPrefix(redir.srv.URL, "http://"))
	if loc := w.Header().Get("Location"); loc != "" {
		t.Errorf("redirect Location forwarded: %q", loc)
	}
	if n := len(redir.requests()); n != 1 {
		t.Errorf("upstream saw %d requests, want 1 (no redirect followed)", n)
	}

	// Garbage JSON: refused by the proxy (502); the client reports it, readably.
	garbage := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":`)
	})
	s := newServer(t, Config{PrometheusURL: garbage.srv.URL})
	mc, err := metricsclient.New(metricsclient.Config{Address: s.URL + "/prom", ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, err = mc.FetchSeries(ctx, compute.Grid{Start: 0, End: 60_000, Step: 15_000}, nil)
	if err == nil || !strings.Contains(err.Error(), "source default answered 200 application/json (70 bytes) that is not a Prometheus API answer: invalid JSON") {
		t.Fatalf("FetchSeries over garbage JSON: %v, want the proxy's refusal naming the source", err)
	}

	// Too large a form body.
	rec := newRecorder(t, nil)
	h, err = New(Config{PrometheusURL: rec.srv.URL, Assets: testAssets})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.NewReader("query=" + strings.Repeat("x", maxRequestBody+10))
	w = do(t, h, "POST", "/prom/api/v1/query", big, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	if w.Code == 200 {
		t.Errorf("oversized body accepted")
	}
}

func checkBadGateway(t *testing.T, name string, w *httptest.ResponseRecorder, want, addr string) {
	t.Helper()
	checkGatewayError(t, name, w, http.StatusBadGateway, want, addr)
}

// checkGatewayError checks a proxy error: its status, a Prometheus API
// error body saying want, and no trace of the upstream's address.
func checkGatewayError(t *testing.T, name string, w *httptest.ResponseRecorder, code int, want, addr string) {
	t.Helper()
	body := w.Body.String()
	if w.Code != code {
		t.Errorf("%s: status %d %q, want %d", name, w.Code, body, code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" || !strings.HasPrefix(body, `{"status":"error","errorType":"`) {
		t.Errorf("%s: %s %q, want a Prometheus API error (application/json)", name, ct, body)
	}
	if !strings.Contains(body, want) {
		t.Errorf("%s: body %q does not say %q", name, body, want)
	}
	host, port, _ := net.SplitHostPort(addr)
	if strings.Contains(body, addr) || strings.Contains(body, host) || strings.Contains(body, ":"+port) {
		t.Errorf("%s: body %q leaks the upstream address %s", name, body, addr)
	}
}

func TestAssets(t *testing.T) {
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:9"})
	get := func(path string, hdr http.Header) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		for k, v := range hdr {
			req.Header[k] = v
		}
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	wasm := testAssets["dist/app.wasm"].Data

	resp, body := get("/web/app.wasm", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(body, wasm) {
		t.Errorf("app.wasm: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	resp, body = get("/web/app.wasm", http.Header{"Accept-Encoding": {"br, gzip;q=0.8"}})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("app.wasm with Accept-Encoding gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	} else {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		if !bytes.Equal(raw, wasm) {
			t.Errorf("gzipped app.wasm does not decompress to app.wasm")
		}
	}
	etag := resp.Header.Get("ETag")
	resp, _ = get("/web/app.wasm", http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("app.wasm with matching ETag: %d, want 304", resp.StatusCode)
	}

	for path, ctype := range map[string]string{
		"/web/echarts.min.js":   "text/javascript; charset=utf-8",
		"/web/specdash.css":     "text/css; charset=utf-8",
		"/web/icon.svg":         "image/svg+xml",
		"/web/sub/nested.txt":   "text/plain; charset=utf-8",
		"/app.js":               "application/javascript",
		"/wasm_exec.js":         "application/javascript",
		"/manifest.webmanifest": "application/manifest+json",
	} {
		if resp, _ := get(path, nil); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype {
			t.Errorf("%s: %d %q, want 200 %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), ctype)
		}
	}
	h, _ := New(Config{PrometheusURL: "http://127.0.0.1:9", Assets: testAssets})
	for _, p := range []string{"/web/.keep", "/web/", "/web/../go.mod", "/web/sub/../icon.svg", "/web//icon.svg", "/web/%2e%2e/go.mod", "/web/nope.js", "/web/dist/app.wasm", "/web/static/icon.svg"} {
		if w := do(t, h, "GET", p, nil, nil); w.Code != 404 {
			t.Errorf("GET %s: %d, want 404", p, w.Code)
		}
	}
	if w := do(t, h, "POST", "/web/icon.svg", nil, nil); w.Code != 405 {
		t.Errorf("POST /web/icon.svg: %d, want 405", w.Code)
	}

	// go-app's app.js carries the wasm hash as version and the wasm size.
	_, appJS := get("/app.js", nil)
	a := newAssets(testAssets)
	if !strings.Contains(string(appJS), a.version) || !strings.Contains(string(appJS), a.wasmLength) {
		t.Errorf("app.js does not carry version %s and length %s", a.version, a.wasmLength)
	}
}

// go-app's service worker keeps app.js, which carries the page's
// environment, until the version changes: a server restarted with another
// scrape interval must hand out another version, the same settings the
// same one.
func TestAppVersionFollowsSettings(t *testing.T) {
	version := func(cfg Config) string {
		t.Helper()
		cfg.Assets = testAssets
		h, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		js := do(t, h, "GET", "/app.js", nil, nil).Body.String()
		i := strings.Index(js, newAssets(testAssets).version+"-")
		if i < 0 {
			t.Fatalf("app.js carries no version starting with the wasm hash")
		}
		return js[i : i+len(newAssets(testAssets).version)+9]
	}
	a := version(Config{PrometheusURL: "http://127.0.0.1:9", ScrapeInterval: time.Second})
	b := version(Config{PrometheusURL: "http://127.0.0.1:9", ScrapeInterval: 15 * time.Second})
	c := version(Config{PrometheusURL: "http://127.0.0.1:9", ScrapeInterval: 15 * time.Second})
	if a == b {
		t.Errorf("scrape 1s and 15s both give app version %s", a)
	}
	if b != c {
		t.Errorf("the same settings give versions %s and %s", b, c)
	}
}

func TestMissingWasm(t *testing.T) {
	noWasm := fstest.MapFS{"dist/.keep": {}, "static/icon.svg": {Data: []byte("<svg/>")}}
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:9", Assets: noWasm})
	for _, p := range []string{"/web/app.wasm", "/web/echarts.min.js"} {
		resp, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "not built: run make build") {
			t.Errorf("%s without a build: %d %q, want 503 with the make target", p, resp.StatusCode, b)
		}
	}
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "app.wasm not built: run make build") {
		t.Errorf("page without app.wasm does not say so")
	}
}

func TestPage(t *testing.T) {
	s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:9/base", ScrapeInterval: 5 * time.Second, Version: "v-test"})
	model := `m "q" <b>`
	resp, err := http.Get(s.URL + "/?range=1h&refresh=10s&model=" + url.QueryEscape(model) + "&convention=nobonus")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`data-dashboard="specdash"`, `data-state="loading"`,
		"<title>specdash</title>", `src="/web/h-`, `/echarts.min.js"`, `/specdash.css"`, `/icon.svg"`,
		"http://127.0.0.1:9/base", "scrape 5s", "v-test",
		`m &#34;q&#34; &lt;b&gt;`, "without bonus token",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The model filter's value (app/filters.go): a checked checkbox.
	mv := "v:" + base64.RawURLEncoding.EncodeToString([]byte(model))
	if !checkedBox.MatchString(page) || !slices.ContainsFunc(checkedBox.FindAllString(page, -1), func(m string) bool { return strings.Contains(m, `value="`+mv+`"`) }) {
		t.Errorf("model value %q is not a checked box in the pre-rendered page", mv)
	}
	for _, v := range []string{"1h", "10s", "nobonus"} {
		if !selected.MatchString(page) || !strings.Contains(page, v) {
			t.Errorf("page lacks option %q", v)
		}
		found := false
		for _, m := range selected.FindAllStringSubmatch(page, -1) {
			if strings.Contains(m[0], `value="`+v+`"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("option %q is not selected in the pre-rendered page", v)
		}
	}
	for _, bad := range []string{`src="http`, `href="http`, "<b>", "raw.githubusercontent"} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("page contains %q (external resource or unescaped label): %q", bad, page[max(0, i-80):min(len(page), i+40)])
		}
	}
	// A label value from the URL never lands raw in an attribute (go-app
	// writes pre-rendered attributes with strconv.Quote, not HTML escaping).
	resp, err = http.Get(s.URL + "/?engine=" + url.QueryEscape(`"><img src=x onerror=alert(1)>`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(b), "<img src=x") {
		t.Errorf("engine from the URL injected markup into the page")
	}
	for _, p := range []string{"/nope", "/robots.txt", "/sitemap.xml", "/app.wasm"} {
		if resp, _ := http.Get(s.URL + p); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// selected matches a selected <option>, attributes in any order.
var checkedBox = regexp.MustCompile(`<input(?: [a-z-]+(?:="[^"]*")?)* checked(?: [a-z-]+(?:="[^"]*")?)*>`)

var selected = regexp.MustCompile(`<option(?: [a-z-]+(?:="[^"]*")?)*? selected(?: [a-z-]+(?:="[^"]*")?)*>|<option(?: [a-z-]+(?:="[^"]*")?)* selected>`)

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"", "no Prometheus URL"},
		{"ftp://host:21", "scheme must be http or https"},
		{"http://", "no host"},
		{"http://host:9090/?x=1", "query or fragment"},
		{"http://bob:hunter2@host:9090/#frag", "query or fragment"},
		{"http://bob:hunter2@host:9090/%zz", "not a valid URL"},
	} {
		_, err := New(Config{PrometheusURL: c.url, Assets: testAssets})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q): %v, want an error saying %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New(%q): error leaks the password: %v", c.url, err)
		}
	}
}

// The embedded assets exist in every build (dist/.keep, static/).
func TestEmbeddedFS(t *testing.T) {
	for _, p := range []string{"dist/.keep", "static/specdash.css", "static/icon.svg"} {
		if _, err := fs.Stat(web.FS, p); err != nil {
			t.Errorf("web.FS lacks %s: %v", p, err)
		}
	}
}
