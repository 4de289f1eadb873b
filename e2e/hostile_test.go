//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
)

// hostileModel is a model_name with markup, script and both quotes.
const hostileModel = `<img src=x onerror="window.__xss=1"> it's "8B" <script>window.__xss=2</script>`

// TestHostileModelName: a model name holding HTML, script and quotes runs
// nothing, shows as typed, and as a filter selects exactly that model.
func TestHostileModelName(t *testing.T) {
	tab := newTab(t)
	prom := simtest.Prometheus(t, simulate.Config{
		Models: []string{hostileModel, "plain"}, K: 4, Acceptance: []float64{0.8},
		PerModel:        map[string]simulate.ModelOptions{hostileModel: {K: 3, Acceptance: []float64{0.6}}},
		DraftsPerSecond: 20, Seed: 11,
	}, 2)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	// A few samples of every series, so that the first load has numbers.
	prom.WaitFor(t, `min(count_over_time(vllm:spec_decode_num_drafts_total[1m])) >= 4`, promtest.NonEmpty, 60*time.Second)

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitReady(t, tab, 120*time.Second)
	openFilterMenus(t, tab, "model-menu")
	waitJS(t, tab, 30*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length >= 2`)
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

	// Grouped by model: the per-group time charts draw one line per model,
	// and their tooltips name it. Hover the hostile model's last point in
	// every chart that has such a line: the tooltip's text holds the name
	// exactly as typed (markup and quotes as literal text) and no element
	// was made of it.
	u = base + "/?" + url.Values{"range": {"5m"}, "group": {"model_name"}}.Encode()
	step(t, tab, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, tab, 120*time.Second)
	nameJS, _ := json.Marshal(hostileModel)
	waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => {
	  for (const el of document.querySelectorAll('[data-chart]')) {
	    const inst = window.echarts && window.echarts.getInstanceByDom(el);
	    if (inst && (inst.getOption().series || []).some(s => s.name === %s)) return true;
	  }
	  return false;
	})()`, nameJS))
	hovered := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
	  const name = %s, out = [];
	  for (const el of document.querySelectorAll('[data-chart]')) {
	    const inst = window.echarts && window.echarts.getInstanceByDom(el);
	    if (!inst) continue;
	    const series = inst.getOption().series || [];
	    const si = series.findIndex(s => s.name === name);
	    if (si < 0) continue;
	    const data = series[si].data || [];
	    const val = d => (d !== null && typeof d === 'object' && !Array.isArray(d)) ? d.value : d;
	    let di = data.length - 1;
	    while (di > 0 && (val(data[di]) === '-' || val(data[di]) == null)) di--;
	    inst.dispatchAction({type: 'showTip', seriesIndex: si, dataIndex: di});
	    out.push(el.dataset.chart);
	  }
	  return out;
	})()`, nameJS)))
	t.Logf("charts with a %q line (hovered): %v", "<img ...>", hovered)
	for _, want := range []string{"acceptance-rate", "acceptance-length"} {
		if !slices.Contains(hovered, want) {
			t.Errorf("chart %s has no line named after the hostile model (charts with one: %v)", want, hovered)
		}
	}
	// The tooltip is ECharts' HTML element inside the chart's element.
	const readTipsJS = `(() => {
	  const out = [];
	  for (const el of document.querySelectorAll('[data-chart]')) {
	    const inst = window.echarts && window.echarts.getInstanceByDom(el);
	    if (!inst) continue;
	    // The instance's own element (a chart adopted from the preview
	    // sits in the live chart's div); the renderer's root is not a tip.
	    const root = inst.getZr().painter.getViewportRoot();
	    for (const d of inst.getDom().querySelectorAll(':scope > div')) {
	      if (d === root) continue;
	      out.push({chart: el.dataset.chart, text: d.textContent, html: d.innerHTML,
	        visible: getComputedStyle(d).display !== 'none' && d.textContent !== '',
	        elements: Array.from(d.querySelectorAll('img,script,iframe,svg,object')).map(e => e.outerHTML)});
	    }
	  }
	  return out;
	})()`
	type tip struct {
		Chart, Text, HTML string
		Visible           bool
		Elements          []string
	}
	waitJS(t, tab, 30*time.Second, fmt.Sprintf(`(() => { const want = %s; return %s.filter(t => t.visible && t.text.includes(want)).length >= %d; })()`,
		nameJS, readTipsJS, len(hovered)))
	tips := run(t, tab, 10*time.Second, chromedp.Evaluate[[]tip](readTipsJS))
	shown := map[string]bool{}
	for _, tp := range tips {
		if !tp.Visible {
			continue
		}
		if strings.Contains(tp.Text, hostileModel) {
			shown[tp.Chart] = true
		}
		if len(tp.Elements) > 0 {
			t.Errorf("tooltip of chart %s holds elements made of the name: %v", tp.Chart, tp.Elements)
		}
		t.Logf("tooltip of %s: %q", tp.Chart, tp.Text)
	}
	for _, c := range hovered {
		if !shown[c] {
			t.Errorf("tooltip of chart %s does not show the name as typed %q (tooltips: %+v)", c, hostileModel, tips)
		}
	}
	checkNoScript(t, tab)
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
	// ECharts renders a tooltip synchronously (showDelay 0); let two frames
	// pass so that anything the names could have started has run.
	run(t, tab, 30*time.Second, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => r(true)))))`,
		func(p *cdpruntime.EvaluateParams) { p.AwaitPromise = new(true) }))
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
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{"m"}, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 20, Seed: 2}, 1)
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
