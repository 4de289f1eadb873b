//go:build !js

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/embedded"
	"specdash/server"
	"specdash/simulate"
)

// problemView is the error banner (app/states.go) as shown.
type problemView struct {
	Kind     string   `json:"kind"`
	Title    string   `json:"title"`
	Items    []string `json:"items"`
	Visible  string   `json:"visible"`
	Full     string   `json:"full"`
	Open     bool     `json:"open"`
	Banners  int      `json:"banners"`
	Status   string   `json:"status"`
	Charts   []int    `json:"charts"`
	Live     string   `json:"live"`
	Targets  []string `json:"targets"`
	TargetsE string   `json:"targetsError"`
}

const readProblemJS = `(() => {
  const out = {kind: '', title: '', items: [], visible: '', full: '', open: false, banners: 0, status: '', charts: [], live: '', targets: [], targetsError: ''};
  const e = document.querySelector('[data-error]');
  out.banners = document.querySelectorAll('[data-error]').length;
  if (e) {
    out.kind = e.dataset.problem || '';
    const t = e.querySelector('[data-problem-title]');
    out.title = t ? t.textContent : '';
    out.items = Array.from(e.querySelectorAll('[data-problem-steps] li')).map(li => li.textContent);
    out.visible = e.innerText;
    out.full = e.textContent;
    const d = e.querySelector('details');
    out.open = !!d && d.open;
  }
  const s = document.querySelector('.status-text');
  out.status = s ? s.textContent : '';
  out.charts = Array.from(document.querySelectorAll('[data-chart]')).map(c => c.offsetHeight);
  const l = document.querySelector('[data-live]');
  out.live = l ? l.textContent : '';
  out.targets = Array.from(document.querySelectorAll('[data-target]')).map(t => t.dataset.health);
  const te = document.querySelector('[data-targets-error]');
  out.targetsError = te ? te.textContent : '';
  return out;
})()`

func readProblem(t *testing.T, tab context.Context) problemView {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[problemView](readProblemJS))
}

// TestNoSpecMetricsChecklist: a target without speculative-decoding
// metrics reads as a short checklist, likely cause first, the metric
// names folded in the closed details, the charts compact.
func TestNoSpecMetricsChecklist(t *testing.T) {
	tab := newTab(t)
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, nonSpecMetrics)
	}))
	base := startEmbedded(t, []string{target + "/metrics"})
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitJS(t, tab, 60*time.Second, `(() => { const t = document.querySelector('[data-target]'); return !!t && t.dataset.health === 'up'; })()`)
	waitNextLoad(t, tab, 60*time.Second)
	waitJS(t, tab, 30*time.Second, `(() => { const e = document.querySelector('[data-error]'); return !!e && e.dataset.problem === 'no-metrics'; })()`)
	p := readProblem(t, tab)
	t.Logf("no-spec banner: %+v", p)
	if p.Title != "No speculative-decoding metrics in this window" || p.Banners != 1 {
		t.Errorf("title %q (%d banners), want one banner: No speculative-decoding metrics in this window", p.Title, p.Banners)
	}
	if len(p.Items) < 3 || !strings.HasPrefix(p.Items[0], "Likely cause: the serving engine's metrics are there") ||
		!strings.HasPrefix(p.Items[1], "Looked for: ") || !strings.Contains(p.Items[2], "Found instead: serving-engine metrics only (vllm:") {
		t.Errorf("checklist %q: want the likely cause (speculative decoding off), then what was looked for and found", p.Items)
	}
	if p.Open || strings.Contains(p.Visible, "vllm:spec_decode_num_accepted_tokens_total") || !strings.Contains(p.Full, "vllm:spec_decode_num_accepted_tokens_total") {
		t.Errorf("the metric names are not folded away in a closed <details> (open %v):\n%s", p.Open, p.Visible)
	}
	for i, h := range p.Charts {
		if h > 80 {
			t.Errorf("chart %d is %d px high with no numbers, want a compact placeholder", i, h)
		}
	}
	if !strings.Contains(p.Live, "No speculative-decoding metrics") {
		t.Errorf("live region says %q, want the problem announced", p.Live)
	}
}

// TestPrometheusDownBanner: with Prometheus down at the first load, one
// banner says so (not nine "No data" panels); the charts are compact.
func TestPrometheusDownBanner(t *testing.T) {
	tab := newTab(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	h, err := server.New(server.Config{PrometheusURL: dead, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitJS(t, tab, 60*time.Second, `(() => { const e = document.querySelector('[data-error]'); return !!e && !!e.dataset.problem; })()`)
	p := readProblem(t, tab)
	t.Logf("Prometheus down: %+v", p)
	if p.Kind != "prometheus-down" || p.Title != "Prometheus is unreachable" || p.Banners != 1 {
		t.Errorf("banner %q %q (%d banners), want one: Prometheus is unreachable", p.Kind, p.Title, p.Banners)
	}
	if strings.Contains(p.Full, ln.Addr().String()) {
		t.Errorf("banner names Prometheus' address: %q", p.Full)
	}
	if len(p.Charts) == 0 {
		t.Fatalf("no charts on the page")
	}
	for i, h := range p.Charts {
		if h > 80 {
			t.Errorf("chart %d is %d px high, want a compact placeholder under the banner", i, h)
		}
	}
	n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.body.innerText.split('No data').length - 1`))
	if n != 0 {
		t.Errorf("%d \"No data\" texts on the page, want none (one banner)", n)
	}
	if !strings.Contains(p.Status, "Prometheus is unreachable") {
		t.Errorf("status %q, want it to say Prometheus is unreachable", p.Status)
	}
}

// TestServerUnreachable: when the specdash server itself goes away, the
// banner and the status name it (not Prometheus), and the targets are no
// longer shown "up".
func TestServerUnreachable(t *testing.T) {
	tab := newTab(t)
	sim, err := simulate.New(simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	target := serve(t, sim)
	e, err := embedded.New(embedded.Config{Targets: []string{target + "/metrics"}, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; e.Close() })
	h, err := server.New(server.Config{Version: "e2e", Sources: []server.Source{{
		Name: "embedded", Label: "embedded", Handler: e.Handler(), ScrapeInterval: time.Second,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	step(t, tab, 30*time.Second, chromedp.Navigate("http://"+ln.Addr().String()+"/?range=5m&refresh=5s"))
	waitJS(t, tab, 90*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]'); const a = document.querySelector('[data-metric="acceptance-rate"]');
	  const t = document.querySelector('[data-target]');
	  return !!r && r.dataset.state === 'ready' && !!a && !!a.dataset.value && !!t && t.dataset.health === 'up'; })()`)

	hs.Close() // the specdash server dies
	waitJS(t, tab, 60*time.Second, `(() => { const e = document.querySelector('[data-error]'); return !!e && e.dataset.problem === 'server-down'; })()`)
	waitJS(t, tab, 60*time.Second, `!!document.querySelector('[data-targets-error]')`)
	// The status line shows "Loading…" during each (short) refresh attempt.
	waitJS(t, tab, 60*time.Second, `(() => { const s = document.querySelector('.status-text'); return !!s && s.textContent.includes('specdash server is unreachable'); })()`)
	p := readProblem(t, tab)
	t.Logf("server down: %+v", p)
	if !strings.HasPrefix(p.Title, "The specdash server is unreachable") || strings.Contains(p.Title, "Prometheus") {
		t.Errorf("banner title %q, want the specdash server named, not Prometheus", p.Title)
	}
	if !strings.Contains(p.Status, "specdash server is unreachable") {
		t.Errorf("status %q, want it to say the specdash server is unreachable", p.Status)
	}
	for _, h := range p.Targets {
		if h == "up" {
			t.Errorf("targets %v still shown up while the server is unreachable", p.Targets)
		}
	}
	if !strings.Contains(p.TargetsE, "specdash server is unreachable") {
		t.Errorf("target status error %q, want it to name the specdash server", p.TargetsE)
	}
}
