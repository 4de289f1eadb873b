//go:build !js

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"specdash/embedded"
	"specdash/server"
	"specdash/simulate"
)

// sourceView is what the source status bar shows.
type sourceView struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	Targets []struct {
		URL    string `json:"url"`
		Health string `json:"health"`
		Error  string `json:"error"`
	} `json:"targets"`
}

const readSourceJS = `(() => {
  const out = {name: '', kind: '', summary: '', targets: []};
  const s = document.querySelector('[data-source-status]');
  if (!s) return out;
  out.name = s.dataset.sourceName || '';
  out.kind = s.dataset.sourceKind || '';
  const sm = s.querySelector('[data-source-summary]');
  out.summary = sm ? sm.textContent : '';
  for (const li of s.querySelectorAll('[data-target]')) {
    const e = li.querySelector('[data-target-error]');
    out.targets.push({url: li.dataset.target, health: li.dataset.health, error: e ? e.textContent : ''});
  }
  return out;
})()`

// buildBinary builds ./cmd/specdash (it embeds web/dist) into a temporary
// directory, with make build's -trimpath: the packages compiled by make
// build (or go vet -trimpath) are reused, and only the link runs.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "specdash")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "specdash/cmd/specdash")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/specdash: %v\n%s", err, out)
	}
	return bin
}

var servingAddr = regexp.MustCompile(`msg="specdash serving" address=http://(\S+)`)

// startBinary runs `specdash serve args...` on a free loopback port and
// returns its base URL; the test ends it with SIGTERM and checks that it
// shuts down cleanly.
func startBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	args = append([]string{"serve", "--web.listen-address=127.0.0.1:0"}, args...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	addrc := make(chan string, 1)
	var logMu sync.Mutex
	var log []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			log = append(log, line)
			logMu.Unlock()
			if m := servingAddr.FindStringSubmatch(line); m != nil {
				addrc <- m[1]
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("specdash serve after SIGTERM: %v (want a clean exit)", err)
			}
		case <-time.After(2 * time.Minute): // a hang, not a slow machine
			cmd.Process.Kill()
			t.Errorf("specdash serve did not stop within 2 min of SIGTERM")
		}
		if t.Failed() {
			logMu.Lock()
			t.Logf("specdash serve log:\n%s", strings.Join(log, "\n"))
			logMu.Unlock()
		}
	})
	select {
	case a := <-addrc:
		forgetOrigin(t, "http://"+a)
		return "http://" + a
	case err := <-done:
		t.Fatalf("specdash serve exited: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatalf("specdash serve did not start listening within 2 min")
	}
	return ""
}

// startEmbedded runs an embedded engine scraping targets every second and
// specdash in front of it, in-process; it returns the base URL.
func startEmbedded(t *testing.T, targets []string) string {
	t.Helper()
	e, err := embedded.New(embedded.Config{Targets: targets, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatalf("embedded.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; e.Close() })
	h, err := server.New(server.Config{Version: "e2e", Sources: []server.Source{{
		Name: "embedded", Label: fmt.Sprintf("embedded, scraping %d targets", len(targets)),
		Handler: e.Handler(), ScrapeInterval: time.Second,
	}}})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return serve(t, h)
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	base := "http://" + ln.Addr().String()
	forgetOrigin(t, base)
	return base
}

// forgetOrigin drops the service worker and its caches that the shared
// browser may hold for origin: an earlier test's server on the same port
// (the system hands ports out again) left go-app's worker, which would
// serve this server's pages their assets from its cache, past the tests'
// request gates (holdRequests) and with the other build's files.
func forgetOrigin(t *testing.T, origin string) {
	t.Helper()
	if browserCtx == nil {
		return // no browser yet: no origin seen
	}
	run(t, browserCtx, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: origin, StorageTypes: "service_workers,cache_storage"})
	}))
}

func readSource(t *testing.T, tab context.Context) sourceView {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[sourceView](readSourceJS))
}

// TestReadmeRunCommand is the README's run command's mode: the built
// binary's `serve` with no Prometheus and no target runs the embedded
// engine on the built-in simulator; the page shows live numbers.
func TestReadmeRunCommand(t *testing.T) {
	tab := newTab(t)
	bin := buildBinary(t)
	base := startBinary(t, bin)

	for _, p := range []string{"/-/healthy", "/-/ready"} {
		resp, err := http.Get(base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	// The wasm app is running once the target list (browser-only) shows.
	waitJS(t, tab, 60*time.Second, `document.querySelectorAll('[data-source-status] [data-target]').length === 1`)
	// Live numbers within 30 s of the app starting (bounded wait).
	waitJS(t, tab, 30*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const k = document.querySelector('[data-metric="k"]');
	  const a = document.querySelector('[data-metric="acceptance-rate"]');
	  return !!r && r.dataset.state === 'ready' && !!k && !!k.dataset.value && !!a && !!a.dataset.value;
	})()`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("README mode: %+v", p)
	checkShown(t, p, 4)
	// The target list is polled on its own clock (every 5 s): the first
	// poll may predate the first scrape (health "unknown"); wait for "up".
	waitJS(t, tab, 30*time.Second, `document.querySelectorAll('[data-source-status] [data-target][data-health="up"]').length === 1`)
	src := readSource(t, tab)
	t.Logf("source: %+v", src)
	if src.Kind != "embedded" || !strings.Contains(src.Summary, "embedded, scraping 1 target") {
		t.Errorf("source line %q (kind %q), want embedded, scraping 1 target", src.Summary, src.Kind)
	}
	if len(src.Targets) != 1 || src.Targets[0].Health != "up" || !strings.HasPrefix(src.Targets[0].URL, "http://127.0.0.1:") {
		t.Errorf("targets %+v, want the simulator on loopback, up", src.Targets)
	}
}

// nonSpecMetrics is a vLLM /metrics with speculative decoding off.
const nonSpecMetrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 0.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 1234.0
`

func TestEmbeddedNoSpecMetrics(t *testing.T) {
	tab := newTab(t)
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		io.WriteString(w, nonSpecMetrics)
	}))
	base := startEmbedded(t, []string{target + "/metrics"})
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitJS(t, tab, 60*time.Second, `(() => { const t = document.querySelector('[data-target]'); return !!t && t.dataset.health === 'up'; })()`)
	// The next refresh after the first scrapes: still no spec metrics.
	waitNextLoad(t, tab, 60*time.Second)
	waitJS(t, tab, 30*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error'; })()`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("no-spec message: %q", p.Error)
	for _, want := range []string{"speculative-decoding metrics", "vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_accepted_tokens_total"} {
		if !strings.Contains(p.Error, want) {
			t.Errorf("page message %q does not say %q", p.Error, want)
		}
	}
	if p.Metrics["acceptance-rate"] != "" {
		t.Errorf("acceptance rate %q shown without spec metrics", p.Metrics["acceptance-rate"])
	}
}

// TestEmbeddedWaitsForFirstData: a live window without auto-refresh that
// finds no speculative-decoding series (a source that has just started, or
// an engine not speculating yet) says it retries and shows the numbers once
// they exist, without a click on Refresh.
func TestEmbeddedWaitsForFirstData(t *testing.T) {
	tab := newTab(t)
	sim, err := simulate.New(simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	var speculating atomic.Bool
	target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if speculating.Load() {
			sim.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		io.WriteString(w, nonSpecMetrics)
	}))
	base := startEmbedded(t, []string{target + "/metrics"})
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); const e = document.querySelector('[data-error]');
	  return !!r && r.dataset.state === 'error' && !!e && /no data yet: retrying every 1s \(\d+ of 60\)/.test(e.textContent); })()`)
	speculating.Store(true)
	waitJS(t, tab, 60*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const k = document.querySelector('[data-metric="k"]');
	  return !!r && r.dataset.state === 'ready' && !!k && k.dataset.value === '3';
	})()`)
}

func TestEmbeddedTargetDown(t *testing.T) {
	tab := newTab(t)
	sim, err := simulate.New(simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	simSrv := &http.Server{Handler: sim}
	go simSrv.Serve(ln)
	t.Cleanup(func() { simSrv.Close() })
	target := "http://" + ln.Addr().String() + "/metrics"

	base := startEmbedded(t, []string{target})
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitJS(t, tab, 60*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const t = document.querySelector('[data-target]');
	  const a = document.querySelector('[data-metric="acceptance-rate"]');
	  return !!r && r.dataset.state === 'ready' && !!a && !!a.dataset.value && !!t && t.dataset.health === 'up';
	})()`)

	// The target goes away.
	simSrv.Close()
	waitJS(t, tab, 30*time.Second, `(() => { const t = document.querySelector('[data-target]'); return !!t && t.dataset.health === 'down'; })()`)
	src := readSource(t, tab)
	t.Logf("down: %+v", src)
	if len(src.Targets) != 1 || src.Targets[0].URL != target || src.Targets[0].Error == "" {
		t.Fatalf("targets %+v, want %s down with its error", src.Targets, target)
	}
	if !strings.Contains(src.Targets[0].Error, "connection refused") {
		t.Errorf("target error %q, want the scrape error (connection refused)", src.Targets[0].Error)
	}
	if !strings.Contains(src.Summary, "0 up, 1 down") {
		t.Errorf("summary %q, want 0 up, 1 down", src.Summary)
	}
	// Unmistakable: a banner over the target list, the target boxed.
	banner := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(() => { const b = document.querySelector('[data-targets-down]'); return b ? b.textContent : ''; })()`))
	if banner != "1 of 1 targets down: any numbers they gave before are stale" {
		t.Errorf("down banner %q, want \"1 of 1 targets down: any numbers they gave before are stale\"", banner)
	}
	text := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-target]').textContent`))
	if !strings.Contains(text, "stale") {
		t.Errorf("down target line %q does not say its numbers are stale", text)
	}
	// Its last numbers are kept: a refresh after it went down still shows
	// them (the window holds its samples).
	waitNextLoad(t, tab, 60*time.Second)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	if p.State != "ready" || p.Metrics["acceptance-rate"] == "" || p.Metrics["k"] != "3" {
		t.Errorf("after the target went down: state %q, acceptance rate %q, k %q; want the last numbers kept", p.State, p.Metrics["acceptance-rate"], p.Metrics["k"])
	}
	if v, err := strconv.ParseFloat(p.Metrics["acceptance-rate"], 64); err != nil || v <= 0 || v >= 1 {
		t.Errorf("acceptance rate %q", p.Metrics["acceptance-rate"])
	}
}
