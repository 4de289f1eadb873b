//go:build !js

package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/server"
	"specdash/simulate"
)

// hostileModel is a model_name with markup, script and both quotes.
const hostileModel = `<img src=x onerror="window.__xss=1"> it's "8B" <script>window.__xss=2</script>`

// startSimProm runs the simulator (models with their k) and a real
// Prometheus scraping it every second, waiting for every series.
func startSimProm(t *testing.T, cfg simulate.Config, series int) *promtest.Server {
	t.Helper()
	sim, err := simulate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sim.Run(ctx)
	simURL := serve(t, sim)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simURL, "http://")}, ScrapeInterval: time.Second})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == `+strconv.Itoa(series), promtest.NonEmpty, 60*time.Second)
	return prom
}

// TestHostileModelName: a model name holding HTML, script and quotes runs
// nothing, shows as typed, and as a filter selects exactly that model.
func TestHostileModelName(t *testing.T) {
	tab := newTab(t)
	prom := startSimProm(t, simulate.Config{
		Models: []string{hostileModel, "plain"}, K: 4, Acceptance: []float64{0.8},
		PerModel:        map[string]simulate.ModelOptions{hostileModel: {K: 3, Acceptance: []float64{0.6}}},
		DraftsPerSecond: 20, Seed: 11,
	}, 2)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	time.Sleep(3 * time.Second)

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitReady(t, tab, 120*time.Second)
	waitJS(t, tab, 30*time.Second, `(() => { const s = document.getElementById('model'); return !!s && s.options.length >= 3; })()`)
	// Hover every chart (tooltips render series and axis names).
	hoverCharts(t, tab)
	checkNoScript(t, tab)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	found := false
	for _, m := range p.Models {
		if m == hostileModel {
			found = true
		}
	}
	if !found {
		t.Errorf("model selector offers %q, want the name exactly as typed: %q", p.Models, hostileModel)
	}

	// As a filter (from the URL): exactly that model (k = 3; unfiltered 4).
	u := base + "/?" + url.Values{"range": {"5m"}, "model": {hostileModel}}.Encode()
	step(t, tab, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, tab, 120*time.Second)
	f := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	if f.Model != hostileModel {
		t.Errorf("selected model %q, want %q", f.Model, hostileModel)
	}
	if f.Metrics["k"] != "3" || len(f.Positions) != 3 {
		t.Errorf("filtered on the hostile model: k %q, %d positions; want 3 (that model only)", f.Metrics["k"], len(f.Positions))
	}
	hoverCharts(t, tab)
	checkNoScript(t, tab)
	// The page text holds the name as typed (escaped, not parsed).
	text := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.body.innerText`))
	if !strings.Contains(text, hostileModel) && !strings.Contains(f.Model, hostileModel) {
		t.Errorf("the name does not show as typed")
	}
}

func hoverCharts(t *testing.T, tab context.Context) {
	t.Helper()
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => {
	  for (const el of document.querySelectorAll('[data-chart]')) {
	    const inst = window.echarts && window.echarts.getInstanceByDom(el);
	    if (!inst) continue;
	    const opt = inst.getOption();
	    const n = (opt.series || []).length;
	    for (let s = 0; s < n; s++) inst.dispatchAction({type: 'showTip', seriesIndex: s, dataIndex: 0});
	  }
	  return true;
	})()`))
	time.Sleep(500 * time.Millisecond)
}

func checkNoScript(t *testing.T, tab context.Context) {
	t.Helper()
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(() => {
	  if (window.__xss) return 'window.__xss = ' + window.__xss;
	  if (document.querySelector('img[src="x"]')) return 'an <img src=x> element exists';
	  for (const s of document.querySelectorAll('script')) if (s.textContent.includes('__xss')) return 'a script element holds the name';
	  return '';
	})()`))
	if got != "" {
		t.Errorf("hostile model name was interpreted: %s", got)
	}
}

// TestPrometheusFaults: Prometheus stopped when the page opens, started,
// stopped mid-session and restarted: the page says what is wrong, keeps
// the last numbers (stale) and recovers by itself on the next refresh.
func TestPrometheusFaults(t *testing.T) {
	tab := newTab(t)
	prom := startSimProm(t, simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 2}, 1)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)

	// Stopped at start.
	prom.Stop()
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error'; })()`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("stopped at start: %q", p.Error)
	if !strings.Contains(p.Error, "unreachable") || strings.Contains(p.Error, prom.Addr) {
		t.Errorf("message %q: want it to say Prometheus is unreachable, without its address", p.Error)
	}
	// Started: the page recovers by itself.
	prom.Restart(t)
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); const a = document.querySelector('[data-metric="acceptance-rate"]'); return !!r && r.dataset.state === 'ready' && !r.dataset.stale && !!a && !!a.dataset.value; })()`)

	// Stopped mid-session: stale numbers and a message; restarted: fresh.
	prom.Stop()
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.stale === 'true'; })()`)
	p = run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	if p.State != "ready" || p.Metrics["acceptance-rate"] == "" || !strings.Contains(p.Error, "stale") {
		t.Errorf("mid-session stop: state %q, acceptance rate %q, message %q; want the last numbers kept, marked stale", p.State, p.Metrics["acceptance-rate"], p.Error)
	}
	prom.Restart(t)
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'ready' && !r.dataset.stale; })()`)
	// The server kept serving throughout.
	for _, path := range []string{"/-/healthy", "/"} {
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + path)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s after the faults: %v %v", path, resp, err)
		} else {
			resp.Body.Close()
		}
	}
}
