package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"

	"specdash/internal/fixtures"
	"specdash/internal/testwait"
	"specdash/simulate"
)

func TestNewValidates(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Targets: []string{"gpu-host:8000"}}, "scheme must be http or https"},
		{Config{Targets: []string{"ftp://gpu-host/metrics"}}, "scheme must be http or https"},
		{Config{Targets: []string{"http://"}}, "want http[s]://host"},
		{Config{Targets: []string{"http://a:1/metrics", "http://a:1/metrics"}}, "given twice"},
		{Config{Targets: []string{"http://a/metrics", "http://a:80/metrics"}}, "given twice"},
		{Config{ScrapeInterval: time.Millisecond}, "at least 100ms"},
		{Config{Retention: time.Second}, "at least 1m"},
		{Config{BlockDuration: 30 * time.Second}, "block duration 30s: must be at least 1m"},
		{Config{SeriesLimit: -1}, "must be positive"},
	} {
		e, err := New(c.cfg)
		if err == nil {
			e.Close()
			t.Errorf("New(%+v): no error, want %q", c.cfg, c.want)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestStorage: "" is a temporary directory removed by Close; a given
// path is used and kept.
func TestStorage(t *testing.T) {
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := e.StoragePath()
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary %s still there after Close: %v", dir, err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	keep := t.TempDir()
	e, err = New(Config{StoragePath: keep})
	if err != nil {
		t.Fatal(err)
	}
	if e.StoragePath() != keep {
		t.Errorf("StoragePath %s, want %s", e.StoragePath(), keep)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep + "/wal"); err != nil {
		t.Errorf("given storage path not kept: %v", err)
	}
}

// TestRetention: blocks older than Retention (relative to the newest
// block, as in Prometheus) are deleted when the TSDB opens.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	if err := BackfillOpenMetrics(dir, []byte(fixtures.KnownAnswer().OpenMetrics), nil); err != nil {
		t.Fatal(err)
	}
	recent := time.Now().Add(-time.Hour).Truncate(time.Second)
	om := fmt.Sprintf("# TYPE recent gauge\nrecent 42 %d\n# EOF\n", recent.Unix())
	if err := BackfillOpenMetrics(dir, []byte(om), nil); err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{StoragePath: dir, Retention: 6 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, a := serveOnly(t, e)
	ctx := context.Background()
	v, _, _, err := a.Query(ctx, `vllm:spec_decode_num_drafts_total`, time.Unix(fixtures.EndUnix, 0))
	if err != nil || len(v.(model.Vector)) != 0 {
		t.Errorf("2025 fixture data after 6h retention: %v %v, want none", v, err)
	}
	v, _, _, err = a.Query(ctx, `recent`, recent)
	if err != nil || len(v.(model.Vector)) != 1 || v.(model.Vector)[0].Value != 42 {
		t.Errorf("recent data: %v %v, want 42", v, err)
	}
}

// countSamples counts the samples of a text exposition with Prometheus'
// parser.
func countSamples(t *testing.T, body []byte) int {
	t.Helper()
	p, err := textparse.New(body, simulate.ContentType, labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if e == textparse.EntrySeries {
			n++
		}
	}
}

// TestSampleLimit: a target exposing more samples than SeriesLimit fails
// its scrapes (the sample limit is never above it) with up=0 and a message
// naming the limit.
func TestSampleLimit(t *testing.T) {
	cfg := liveSimConfig()
	_, hs := newSim(t, cfg)
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second, SeriesLimit: 10})
	waitFor(t, e.API, `up == 0`, nonEmpty, 2*time.Minute)
	if ts := e.Targets(); ts[0].Up || !strings.Contains(ts[0].LastError, "more than 10 samples, the limit (scrape.sample-limit)") {
		t.Errorf("Targets() = %+v, want down with the sample limit's message", ts)
	}
}

// TestSeriesLimit: once the head holds SeriesLimit series, a target that
// would add series fails with a SeriesLimitError message, the head stays
// within the limit, and the target already in keeps being scraped.
func TestSeriesLimit(t *testing.T) {
	cfg := liveSimConfig()
	cfg.Models = liveModels[:1]
	cfg.PerModel = nil
	cfg.Engines = 1
	simA, hsA := newSim(t, cfg)
	var buf bytes.Buffer
	if err := simA.WriteMetrics(&buf); err != nil {
		t.Fatal(err)
	}
	nA := countSamples(t, buf.Bytes())
	// B answers 503 until A is in, then serves the same families (other
	// series: another instance label).
	_, hsB0 := newSim(t, cfg)
	var bOn atomic.Bool
	hsB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bOn.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Get(hsB0.URL + "/metrics")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.Copy(w, resp.Body)
	}))
	defer hsB.Close()
	// A's samples, and 5 report series (up, scrape_*) per target.
	limit := nA + 10
	e := start(t, Config{Targets: []string{hsA.URL + "/metrics", hsB.URL + "/metrics"}, ScrapeInterval: time.Second, SeriesLimit: limit})
	instA := strings.TrimPrefix(hsA.URL, "http://")
	instB := strings.TrimPrefix(hsB.URL, "http://")
	waitFor(t, e.API, fmt.Sprintf(`up{instance=%q} == 1`, instA), nonEmpty, 2*time.Minute)
	waitFor(t, e.API, fmt.Sprintf(`up{instance=%q} == 0`, instB), nonEmpty, 2*time.Minute)
	if n := e.db.Head().NumSeries(); n != uint64(limit) {
		t.Fatalf("head holds %d series before B comes up, want %d (A's %d samples + 10 report series)", n, limit, nA)
	}
	bOn.Store(true)
	var ts []TargetStatus
	testwait.Until(0, func() bool {
		ts = e.Targets()
		return strings.Contains(ts[1].LastError, "series limit of")
	})
	if ts[1].Up || !strings.Contains(ts[1].LastError, fmt.Sprintf("series limit of %d reached", limit)) {
		t.Fatalf("B: %+v, want down with the series limit error", ts[1])
	}
	if !ts[0].Up {
		t.Errorf("A: %+v, want still up", ts[0])
	}
	if n := e.db.Head().NumSeries(); n > uint64(limit) {
		t.Errorf("head holds %d series, limit %d", n, limit)
	}
	// No sample of B was stored.
	v := waitFor(t, e.API, fmt.Sprintf(`count({instance=%q})`, instB), nonEmpty, 2*time.Minute)
	if v[0].Value != 5 {
		t.Errorf("B has %v series, want only its 5 report series", v[0].Value)
	}
}
