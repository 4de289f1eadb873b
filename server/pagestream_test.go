package server

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/testwait"
)

// The dashboard page's head goes out before the pre-render's load is done:
// while the upstream still holds the load's first query, the client has
// the whole head (stylesheets, scripts), and the page completes once the
// upstream answers. The upstream is a fake: a hung Prometheus is a fault a
// real one does not produce on demand.
func TestPageHeadBeforeLoad(t *testing.T) {
	var hang atomic.Bool
	var waiting atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			waiting.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		http.Error(w, "not a Prometheus", http.StatusServiceUnavailable)
	}))
	t.Cleanup(up.Close)
	s := newServer(t, Config{PrometheusURL: up.URL, ScrapeInterval: 15 * time.Second, PreRenderTimeout: time.Minute})
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)

	// The first request of the process: one piece; it teaches the head.
	first := getPage(t, client, s.URL+"/")
	if !strings.Contains(first, "<body>") || !strings.Contains(first, `data-dashboard="specdash"`) {
		t.Fatalf("first page is no dashboard page:\n%.600s", first)
	}

	hang.Store(true)
	resp, err := client.Get(s.URL + "/?range=1h")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if cl := resp.Header.Get("Content-Length"); cl != "" {
		t.Errorf("streamed page has Content-Length %s", cl)
	}
	if et := resp.Header.Get("ETag"); et != "" {
		t.Errorf("dashboard page has ETag %s: every page holds other numbers", et)
	}
	br := bufio.NewReader(resp.Body)
	var head strings.Builder
	for !strings.HasSuffix(head.String(), "<body>") {
		b, err := br.ReadByte()
		if err != nil {
			t.Fatalf("page ended before <body> (%v): %q", err, head.String())
		}
		head.WriteByte(b)
	}
	// The load is under way and cannot finish before unblock: the head came
	// first.
	testwait.For(t, "the pre-render's load to query the upstream", 0, func() bool { return waiting.Load() != 0 })
	for _, want := range []string{"/app.js", "echarts.min.js", "preview.js", "specdash.css", "<title>specdash</title>"} {
		if !strings.Contains(head.String(), want) {
			t.Errorf("head lacks %q:\n%s", want, head.String())
		}
	}
	unblock()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	page := head.String() + string(rest)
	if n := strings.Count(page, "<body>"); n != 1 {
		t.Errorf("%d <body> tags in the streamed page", n)
	}
	if !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Errorf("streamed page does not end with </html>: ...%q", page[max(0, len(page)-200):])
	}
	if root := tagWith(page, `data-dashboard="specdash"`); root == "" {
		t.Errorf("streamed page has no dashboard root:\n%.2000s", page)
	}
}

// A client that accepts gzip gets the streamed page gzipped, with the same
// pre-rendered numbers as a client that does not.
func TestPageGzip(t *testing.T) {
	base := fixturePage(t)
	w := fixtures.KnownAnswer().Whole
	q := url.Values{
		"from":  {w.StartTime().Format(time.RFC3339)},
		"to":    {w.EndTime().Format(time.RFC3339)},
		"group": {"model_name"},
	}
	u := base + "/?" + q.Encode()
	plain := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(plain.CloseIdleConnections)
	getPage(t, plain, u) // the first request teaches the head
	want := getPage(t, plain, u)

	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Accept-Encoding", "br;q=1.0, gzip;q=0.8")
	resp, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	// Vary may come in several header lines (one per handler that adds
	// to it): they make one list.
	if vary := strings.Join(resp.Header.Values("Vary"), ", "); !strings.Contains(vary, "Accept-Encoding") {
		t.Errorf("Vary %q lacks Accept-Encoding", vary)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, page := range []string{want, got} {
		if tag := tagWith(page, `data-chart="per-position"`); attrOf(tag, "data-option") == "" {
			t.Fatalf("page without the pre-rendered per-position chart:\n%.1500s", page)
		}
	}
	// The numbers are the same (the window is absolute); only the time of
	// the pre-render differs.
	if a, b := attrOf(tagWith(want, `data-chart="per-position"`), "data-option"), attrOf(tagWith(got, `data-chart="per-position"`), "data-option"); a != b {
		t.Errorf("gzipped page's per-position option differs from the plain one")
	}
	if n := strings.Count(got, "<body>"); n != 1 || !strings.HasSuffix(strings.TrimSpace(got), "</html>") {
		t.Errorf("gzipped page: %d <body> tags, ends %q", n, got[max(0, len(got)-100):])
	}
}
