//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/compute"
	"specdash/internal/browsertest"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/report"
	"specdash/server"
	"specdash/simulate"
)

// chromiumPath is the browser the test drives (Debian package chromium).
const chromiumPath = browsertest.ChromiumPath

const scrapeInterval = time.Second

// Two models with different k, so that a filter that is not applied shows
// (the unfiltered k is the larger one). The first name has a space and a
// quote, which must survive the URL, PromQL escaping and the selector.
var (
	modelA = `Llama 3 "8B" instruct`
	modelB = "qwen/Qwen2.5-7B"
)

// page is what the dashboard shows, read from its test hooks in one go.
type page struct {
	State     string            `json:"state"`
	Start     string            `json:"start"`
	End       string            `json:"end"`
	Step      string            `json:"step"`
	Stale     string            `json:"stale"`
	Error     string            `json:"error"`
	Metrics   map[string]string `json:"metrics"`
	Text      map[string]string `json:"text"`
	Positions []struct {
		Pos   string `json:"pos"`
		Value string `json:"value"`
		Text  string `json:"text"`
	} `json:"positions"`
	Model  string   `json:"model"`
	Models []string `json:"models"`
	// Covered is the cards' data-covered seconds (their rates' divisor).
	Covered string `json:"covered"`
}

const readPageJS = `(() => {
  const root = document.querySelector('[data-dashboard]');
  const out = {state: '', start: '', end: '', step: '', stale: '', error: '', metrics: {}, text: {}, positions: [], model: '', models: []};
  if (!root) return out;
  out.state = root.dataset.state || '';
  out.start = root.dataset.windowStart || '';
  out.end = root.dataset.windowEnd || '';
  out.step = root.dataset.stepSeconds || '';
  out.stale = root.dataset.stale || '';
  const cards = document.querySelector('.cards-now');
  out.covered = cards ? cards.dataset.coveredSeconds || '' : '';
  const err = document.querySelector('[data-error]');
  out.error = err ? err.textContent : '';
  // The model menu (app/filters.go): the chosen values are chips, "all"
  // when none, as the menu's toggle reads; its checkboxes in #model, "all"
  // first, are rendered while the menu is open (readPageMenu).
  const menu = document.getElementById('model');
  const boxes = menu ? Array.from(menu.querySelectorAll('input[type=checkbox]')) : [];
  const label = b => b.parentElement.textContent;
  const chips = Array.from(document.querySelectorAll('[data-chip="model_name"] .chip-text')).map(c => c.textContent);
  out.model = menu ? (chips.length ? chips[0] : 'all') : '';
  out.models = menu ? ['all'].concat(boxes.map(label)) : [];
  for (const el of document.querySelectorAll('[data-metric]')) {
    if (el.dataset.metric === 'per-position-acceptance-rate') {
      out.positions.push({pos: el.dataset.position, value: el.dataset.value, text: el.textContent});
    } else {
      out.metrics[el.dataset.metric] = el.dataset.value;
      out.text[el.dataset.metric] = el.textContent;
    }
  }
  return out;
})()`

// readPageMenu is readPageJS with the model menu open, so that Models
// lists its values (the live page renders a menu's options only while it
// is open); the menu is closed again after.
func readPageMenu(t *testing.T, tab context.Context) page {
	t.Helper()
	openFilterMenus(t, tab, "model-menu")
	waitJS(t, tab, 10*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length > 0`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { const m = document.getElementById('model-menu'); if (m) m.open = false; return true; })()`))
	return p
}

// openFilterMenus opens the live page's filter menus with these ids (all
// when none), as a click on each toggle would: the live page renders a
// menu's options only while it is open.
func openFilterMenus(t *testing.T, tab context.Context, ids ...string) {
	t.Helper()
	sel := `'[data-filter] details.filter-menu'`
	if len(ids) > 0 {
		var l []string
		for _, id := range ids {
			l = append(l, "#"+id)
		}
		sel = strconv.Quote(strings.Join(l, ","))
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { for (const m of document.querySelectorAll(`+sel+`)) m.open = true; return true; })()`))
}

// chartInfo is the per-position chart as ECharts holds and draws it.
type chartInfo struct {
	Instance   bool     `json:"instance"`
	Bars       int      `json:"bars"`
	Labels     []string `json:"labels"`
	Canvas     bool     `json:"canvas"`
	BarPixels  int      `json:"barPixels"`
	Painted    int      `json:"painted"`
	LineCharts int      `json:"lineCharts"`
}

const readChartJS = `(() => {
  const out = {instance: false, bars: 0, labels: [], canvas: false, barPixels: 0, painted: 0, lineCharts: 0};
  const el = document.querySelector('[data-chart="per-position"]');
  const inst = el && window.echarts ? window.echarts.getInstanceByDom(el) : null;
  if (!inst) return out;
  out.instance = true;
  const opt = inst.getOption();
  out.bars = (opt.series && opt.series[0] && opt.series[0].data) ? opt.series[0].data.length : 0;
  out.labels = (opt.xAxis && opt.xAxis[0] && opt.xAxis[0].data) ? opt.xAxis[0].data.map(String) : [];
  const c = el.querySelector('canvas');
  if (c) {
    out.canvas = true;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i+3] === 0) continue;
      if (!(d[i] > 240 && d[i+1] > 240 && d[i+2] > 240)) out.painted++;
      // the bar colour #2563eb
      if (Math.abs(d[i]-37) < 30 && Math.abs(d[i+1]-99) < 30 && Math.abs(d[i+2]-235) < 30) out.barPixels++;
    }
  }
  for (const name of ['acceptance-rate', 'acceptance-length']) {
    const e = document.querySelector('[data-chart="' + name + '"]');
    if (e && window.echarts.getInstanceByDom(e)) out.lineCharts++;
  }
  return out;
})()`

func TestDashboardEndToEnd(t *testing.T) {
	needAssets(t)
	testStart := time.Now()

	// The vLLM simulator, in-process, on a loopback port.
	sim, err := simulate.New(simulate.Config{
		Models:          []string{modelA, modelB},
		Engines:         2,
		K:               4,
		Acceptance:      []float64{0.85, 0.8, 0.75, 0.7},
		PerModel:        map[string]simulate.ModelOptions{modelB: {K: 3, Acceptance: []float64{0.6}}},
		DraftsPerSecond: 15,
		Seed:            7,
	})
	if err != nil {
		t.Fatalf("simulate.New: %v", err)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	simSrv := httptest.NewServer(sim)
	t.Cleanup(simSrv.Close)

	// A real Prometheus scraping it every second.
	prom := promtest.Start(t, promtest.Options{
		Targets:        []string{strings.TrimPrefix(simSrv.URL, "http://")},
		ScrapeInterval: scrapeInterval,
	})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 4`, promtest.NonEmpty, 60*time.Second)

	// specdash, in-process, on a real loopback listener.
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	base := "http://" + ln.Addr().String()

	client, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: scrapeInterval})
	if err != nil {
		t.Fatalf("metricsclient.New: %v", err)
	}

	// A tab of the shared headless Chromium (browser_test.go).
	browser := newTab(t)

	// 1. The live view.
	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitReady(t, browser, 120*time.Second)

	// Let some history accumulate so the charts show more than a dot.
	waitJS(t, browser, 90*time.Second, fmt.Sprintf(
		`(+(document.querySelector('[data-dashboard]')||{dataset:{}}).dataset.windowEnd||0) >= %d`,
		testStart.Add(25*time.Second).UnixMilli()))

	chart := run(t, browser, 10*time.Second, chromedp.Evaluate[chartInfo](readChartJS))
	live := readPageMenu(t, browser)
	t.Logf("live view: %+v", live)
	t.Logf("per-position chart: instance=%v bars=%d labels=%v canvas=%v painted=%d barPixels=%d lineCharts=%d",
		chart.Instance, chart.Bars, chart.Labels, chart.Canvas, chart.Painted, chart.BarPixels, chart.LineCharts)
	if !chart.Instance || !chart.Canvas {
		t.Fatalf("per-position chart not drawn: %+v", chart)
	}
	if chart.Bars != 4 || strings.Join(chart.Labels, ",") != "pos 1,pos 2,pos 3,pos 4" {
		t.Errorf("per-position chart has %d bars labelled %q, want k=4 bars pos 1..pos 4", chart.Bars, chart.Labels)
	}
	if chart.BarPixels < 500 || chart.Painted < 1000 {
		t.Errorf("per-position chart canvas looks blank: %d painted pixels, %d in the bar colour", chart.Painted, chart.BarPixels)
	}
	if chart.LineCharts != 2 {
		t.Errorf("%d of 2 time charts have an ECharts instance", chart.LineCharts)
	}
	checkShown(t, live, 4)
	if got := strings.Join(live.Models, "|"); got != "all|"+modelA+"|"+modelB {
		t.Errorf("model selector offers %q, want all, %s, %s", got, modelA, modelB)
	}
	shot := run(t, browser, 30*time.Second, chromedp.FullScreenshot(100))
	saveScreenshot(t, shot)

	// 2. Pause the simulator; once Prometheus holds the paused values and the
	// page has refreshed past them, the window's data no longer changes and
	// the page must agree with report.Build for the same window.
	sim.Pause()
	pausedAt := time.Now()
	settled := pausedAt.Add(3 * scrapeInterval).UnixMilli()
	prom.WaitFor(t, fmt.Sprintf(`min(timestamp(vllm:spec_decode_num_drafts_total)) > %d`, settled/1000), promtest.NonEmpty, 2*time.Minute)
	waitJS(t, browser, 60*time.Second, fmt.Sprintf(
		`(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.state === 'ready' && +r.dataset.windowEnd >= %d; })()`, settled))
	paused := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("paused view: %+v", paused)
	compareWithReport(t, client, paused, nil)

	// 3. A model filter from the URL, the name with a space and a quote.
	u := base + "/?" + url.Values{"range": {"5m"}, "model": {modelA}}.Encode()
	step(t, browser, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, browser, 120*time.Second)
	waitJS(t, browser, 60*time.Second, fmt.Sprintf(
		`(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.state === 'ready' && +r.dataset.windowEnd >= %d; })()`, settled))
	filtered := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("filtered view: %+v", filtered)
	if filtered.Model != modelA {
		t.Errorf("model selector shows %q, want the filtered model %q", filtered.Model, modelA)
	}
	compareWithReport(t, client, filtered, []metricsclient.Filter{{Name: "model_name", Values: []string{modelA}}})
	if filtered.Metrics["k"] != "4" {
		t.Errorf("filtered k = %q, want 4 (%s)", filtered.Metrics["k"], modelA)
	}

	// modelB alone has k = 3: a filter that is not applied would show 4.
	u = base + "/?" + url.Values{"range": {"5m"}, "model": {modelB}}.Encode()
	step(t, browser, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, browser, 120*time.Second)
	onlyB := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	if onlyB.Metrics["k"] != "3" || len(onlyB.Positions) != 3 {
		t.Errorf("with model=%s: k = %q and %d positions, want 3", modelB, onlyB.Metrics["k"], len(onlyB.Positions))
	}
	compareWithReport(t, client, onlyB, []metricsclient.Filter{{Name: "model_name", Values: []string{modelB}}})

	// A selector change rewrites the URL (shareable state) and reloads.
	run(t, browser, 10*time.Second, chromedp.Evaluate[bool](`(() => {
	  const s = document.getElementById('range');
	  s.value = '15m';
	  s.dispatchEvent(new Event('change', {bubbles: true}));
	  return true;
	})()`))
	modelJS, _ := json.Marshal(modelB)
	waitJS(t, browser, 60*time.Second, fmt.Sprintf(`(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const q = new URLSearchParams(location.search);
	  return r && r.dataset.state === 'ready' && (+r.dataset.windowEnd - +r.dataset.windowStart) === 900000 &&
	    q.get('range') === '15m' && q.get('model') === %s;
	})()`, modelJS))
	wider := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	compareWithReport(t, client, wider, []metricsclient.Filter{{Name: "model_name", Values: []string{modelB}}})

	// 4. Prometheus goes away: a failing refresh keeps the last numbers,
	// marked stale, with a readable error.
	u = base + "/?" + url.Values{"range": {"5m"}, "refresh": {"5s"}, "model": {modelB}}.Encode()
	step(t, browser, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, browser, 120*time.Second)
	before := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	prom.Stop()
	waitJS(t, browser, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.stale === 'true'; })()`)
	stale := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	t.Logf("stale view: error %q", stale.Error)
	// The simulator is paused and the window still holds all its drafts, so
	// every successful load since gives the same counts and ratios. A
	// refresh may have landed between reading before and stopping
	// Prometheus: its window ends later, and its rates per second of data
	// are lower (the paused simulator is still scraped: the same counts
	// over more seconds), so they are compared only when no refresh landed.
	if stale.State != "ready" || stale.End < before.End {
		t.Errorf("after a failed refresh: state %q window end %s, want ready and a window ending at or after %s", stale.State, stale.End, before.End)
	}
	perSecond := map[string]bool{"drafts-per-second": true, "accepted-throughput": true, "drafted-throughput": true}
	for name, v := range before.Metrics {
		if perSecond[name] && stale.End != before.End {
			continue
		}
		if stale.Metrics[name] != v {
			t.Errorf("after a failed refresh %s = %q, want the last value %q", name, stale.Metrics[name], v)
		}
	}
	if !strings.Contains(stale.Error, "stale") || !strings.Contains(stale.Error, "Prometheus") || strings.Contains(stale.Error, prom.Addr) {
		t.Errorf("stale error %q: want a readable message naming Prometheus, without its address", stale.Error)
	}
}

// compareWithReport checks every headline number of p against report.Build
// for the same window: k exactly, ratios and rates within 1e-9.
func compareWithReport(t *testing.T, c *metricsclient.Client, p page, filters []metricsclient.Filter) {
	t.Helper()
	if p.State != "ready" || p.Stale != "" {
		t.Fatalf("page not ready and fresh: state %q stale %q error %q", p.State, p.Stale, p.Error)
	}
	start, err1 := strconv.ParseInt(p.Start, 10, 64)
	end, err2 := strconv.ParseInt(p.End, 10, 64)
	if err := errors.Join(err1, err2); err != nil || end <= start {
		t.Fatalf("bad window hooks start=%q end=%q: %v", p.Start, p.End, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := report.Build(ctx, c, report.Options{
		Range:   time.Duration(end-start) * time.Millisecond,
		End:     time.UnixMilli(end),
		Filters: filters,
	})
	if err != nil {
		t.Fatalf("report.Build: %v", err)
	}
	if r.Grid.Start != start || r.Grid.End != end {
		t.Fatalf("report grid (%d, %d] differs from the page's (%d, %d]", r.Grid.Start, r.Grid.End, start, end)
	}
	if step, _ := strconv.ParseFloat(p.Step, 64); step != r.StepSeconds {
		t.Errorf("page step %s s, report step %v s", p.Step, r.StepSeconds)
	}
	want := r.Total
	// The cards' rates are per second of data, as the report's: computed
	// again from the report's counts and the page's seconds of data.
	if cov, err := strconv.ParseFloat(p.Covered, 64); err == nil && cov > 0 {
		want.DraftsPerSecond = compute.Defined(want.Drafts / cov)
		want.AcceptedThroughput = compute.Defined(want.AcceptedTokens / cov)
		want.DraftedThroughput = compute.Defined(want.DraftTokens / cov)
	}
	if got := p.Metrics["k"]; got != strconv.Itoa(want.K) {
		t.Errorf("k: page %q, report %d", got, want.K)
	}
	for name, v := range map[string]compute.Value{
		"acceptance-rate":        want.AcceptanceRate,
		"mean-acceptance-length": want.MeanAcceptanceLength,
		"drafts-per-second":      want.DraftsPerSecond,
		"accepted-throughput":    want.AcceptedThroughput,
		"drafted-throughput":     want.DraftedThroughput,
	} {
		checkValue(t, name, p.Metrics[name], v)
	}
	if len(p.Positions) != len(want.PerPositionAcceptanceRate) {
		t.Fatalf("page shows %d positions, report %d", len(p.Positions), len(want.PerPositionAcceptanceRate))
	}
	for i, pos := range p.Positions {
		if pos.Pos != strconv.Itoa(i+1) {
			t.Errorf("position element %d has data-position %q, want %d", i, pos.Pos, i+1)
		}
		checkValue(t, "per-position-acceptance-rate pos "+pos.Pos, pos.Value, want.PerPositionAcceptanceRate[i])
	}
	if !want.AcceptanceRate.OK || want.Drafts == 0 {
		t.Errorf("the window holds no drafts: the comparison proves little (report %+v)", want)
	}
}

func checkValue(t *testing.T, name, got string, want compute.Value) {
	t.Helper()
	if !want.OK {
		if got != "" {
			t.Errorf("%s: page %q, report undefined", name, got)
		}
		return
	}
	v, err := strconv.ParseFloat(got, 64)
	if err != nil {
		t.Errorf("%s: page data-value %q is not a number, report %v", name, got, want.V)
		return
	}
	if math.Abs(v-want.V) > 1e-9*math.Max(1, math.Abs(want.V)) {
		t.Errorf("%s: page %v, report %v (diff %g)", name, v, want.V, v-want.V)
	}
}

// checkShown checks what people read: units, no NaN/Inf, k bars' numbers.
func checkShown(t *testing.T, p page, k int) {
	t.Helper()
	for name, suffix := range map[string]string{
		"acceptance-rate":        " %",
		"mean-acceptance-length": "tokens/draft",
		"drafts-per-second":      "drafts/s",
		"accepted-throughput":    "tokens/s",
		"drafted-throughput":     "tokens/s",
	} {
		if txt := p.Text[name]; !strings.HasSuffix(txt, suffix) {
			t.Errorf("%s shows %q, want a number with unit %q", name, txt, suffix)
		}
	}
	if p.Text["k"] != strconv.Itoa(k) {
		t.Errorf("k shows %q, want %d", p.Text["k"], k)
	}
	for name, txt := range p.Text {
		if strings.Contains(txt, "NaN") || strings.Contains(txt, "Inf") {
			t.Errorf("%s shows %q", name, txt)
		}
	}
	if len(p.Positions) != k {
		t.Errorf("%d per-position numbers, want %d", len(p.Positions), k)
	}
	if rate, err := strconv.ParseFloat(p.Metrics["acceptance-rate"], 64); err != nil || rate <= 0 || rate >= 1 {
		t.Errorf("acceptance-rate data-value %q, want a ratio in (0, 1)", p.Metrics["acceptance-rate"])
	}
}

func saveScreenshot(t *testing.T, png []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dashboard.png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot: %s", p)
	// docs/screenshot.png is written by TestDashboardFull only (its light
	// theme, SPECDASH_UPDATE_SCREENSHOT=1).
}

// waitSlack multiplies the bound of every wait on the page (run, waitJS,
// waitReady and the helpers built on them). The bounds were chosen on a
// machine about three times faster than the 2-core VMs CI now runs on,
// where .ci/run's four browser shards beside the host packages kept the
// load average at 14-17 and a page took over 60 s to show its first
// numbers. A bound only ends a wait that is failing anyway, so a larger
// one costs nothing while the page works; no test asserts that something
// takes long (TestFirstLoadNotDelayedByRefresh's 60 s stays far below its
// 5 min period). SPECDASH_E2E_SLACK (a whole number, 1 or more) sets it.
var waitSlack = func() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("SPECDASH_E2E_SLACK")); err == nil && n >= 1 {
		return time.Duration(n)
	}
	return 3
}()

// run runs one action with a bounded wait (times waitSlack) and fails the
// test on error.
func run[T any](t *testing.T, browser context.Context, timeout time.Duration, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, timeout*waitSlack)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

func step(t *testing.T, browser context.Context, timeout time.Duration, a chromedp.Action[chromedp.Void]) {
	t.Helper()
	run(t, browser, timeout, a)
}

// waitJS polls a JS expression until it is truthy, bounded by timeout
// (times waitSlack).
func waitJS(t *testing.T, browser context.Context, timeout time.Duration, expr string) {
	t.Helper()
	pollJS(t, browser, timeout*waitSlack, expr)
}

// pollJS is waitJS bounded by timeout itself.
func pollJS(t *testing.T, browser context.Context, timeout time.Duration, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, timeout+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		p, _ := chromedp.Run(context.WithoutCancel(browser), chromedp.Evaluate[page](readPageJS))
		t.Fatalf("waiting for %s: %v; page: %+v", expr, err, p)
	}
}

// waitNextLoad waits until a load that starts after the call has finished
// (data-loads, the dashboard's load counter, past its value at the call,
// and no load in flight): the numbers then come from data read after
// whatever the caller waited for before, with no guess at how long a
// refresh takes.
func waitNextLoad(t *testing.T, browser context.Context, timeout time.Duration) {
	t.Helper()
	loads := run(t, browser, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-dashboard]').dataset.loads`))
	waitJS(t, browser, timeout, fmt.Sprintf(`(() => {
	  const r = document.querySelector('[data-dashboard]');
	  return !!r && +r.dataset.loads > %s && !document.querySelector('.status-text .spinner') && r.dataset.state !== 'loading';
	})()`, strconv.Quote(loads)))
}

// waitReady waits until the dashboard shows numbers (data-state=ready) and
// every chart is drawn, and fails early, with the page's message, on
// data-state=error. The dashboard is ready once the charts in view are
// drawn; the others follow in the browser's idle time, within
// app.LazyIdleTimeout (app/chart.go), and tests read them.
//
// A state that went back to "loading" between the two reads (a load that a
// URL change started just after the previous one was shown) is waited for
// again, not taken for a failure.
func waitReady(t *testing.T, browser context.Context, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout * waitSlack)
	waitReadyUntil(t, browser, deadline)
	pollJS(t, browser, time.Until(deadline), chartsDrawnJS)
}

// chartsDrawnJS is true when no chart of the page is pending
// (data-chart-pending: out of view, drawn in idle time or when it comes
// near the viewport).
const chartsDrawnJS = `!document.querySelector('[data-chart-pending]')`

// waitChartsDrawn waits until chartsDrawnJS holds.
func waitChartsDrawn(t *testing.T, browser context.Context, timeout time.Duration) {
	t.Helper()
	waitJS(t, browser, timeout, chartsDrawnJS)
}

// waitReadyState is waitReady without waiting for the charts out of view.
func waitReadyState(t *testing.T, browser context.Context, timeout time.Duration) {
	t.Helper()
	waitReadyUntil(t, browser, time.Now().Add(timeout*waitSlack))
}

// waitReadyUntil is waitReadyState up to deadline.
func waitReadyUntil(t *testing.T, browser context.Context, deadline time.Time) {
	t.Helper()
	for {
		pollJS(t, browser, time.Until(deadline), `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && (r.dataset.state === 'ready' || r.dataset.state === 'error'); })()`)
		p := run(t, browser, 10*time.Second, chromedp.Evaluate[page](readPageJS))
		if p.State == "ready" {
			return
		}
		if p.State != "loading" || time.Now().After(deadline) {
			t.Fatalf("dashboard state %q: %s", p.State, p.Error)
		}
	}
}

// logConsole records the page's console errors and warnings and uncaught
// exceptions (for the failure report).
func logConsole(browser context.Context, out *[]string) {
	var mu sync.Mutex
	_ = chromedp.Listen(browser, func(ev any) {
		var line string
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type != cdpruntime.ConsoleAPICalledTypeError && ev.Type != cdpruntime.ConsoleAPICalledTypeWarning {
				return
			}
			var parts []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			line = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
		case *cdpruntime.EventExceptionThrown:
			if ev.ExceptionDetails != nil {
				line = "exception: " + ev.ExceptionDetails.Text
				if ev.ExceptionDetails.Exception != nil {
					line += " " + ev.ExceptionDetails.Exception.Description
				}
			}
		default:
			return
		}
		mu.Lock()
		*out = append(*out, line)
		mu.Unlock()
	})
}
