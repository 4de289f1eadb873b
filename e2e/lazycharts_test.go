//go:build !js

package e2e

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/app"
	"specdash/internal/simtest"
	"specdash/server"
	"specdash/simulate"
	"specdash/view"
)

// Viewport of TestLazyCharts: a laptop window, in which the first row of
// charts (per-position, heatmap) is in view and the last row (drafts per
// second) is more than app.LazyMargin below it.
const lazyW, lazyH = 1280, 900

// holdIdleJS replaces requestIdleCallback, before the page's scripts run,
// by a queue that never runs (window.__idleQueued counts the calls): the
// only ways left for a pending chart to be drawn are coming into view and
// DrawPendingCharts (exports), which the test checks one at a time.
const holdIdleJS = `window.__idleQueued = 0;
window.requestIdleCallback = (cb, opts) => ++window.__idleQueued;
window.cancelIdleCallback = () => {};`

// chartPlaceJS is where a chart is: its div's top relative to the
// viewport, the viewport's height, and whether it is pending.
const chartPlaceJS = `((name) => {
  const el = document.querySelector('body > [data-dashboard] [data-chart="' + name + '"]');
  if (!el) return {top: -1, height: -1, pending: false, found: false};
  return {top: el.getBoundingClientRect().top, height: window.innerHeight, pending: el.hasAttribute('data-chart-pending'), found: true};
})`

type chartPlace struct {
	Top, Height float64
	Pending     bool
	Found       bool
}

// pngExportJS clicks the PNG export of chart %q and returns the data URL
// the page hands to its download link.
const pngExportJS = `(() => {
  let got = '';
  const orig = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () { got = this.href; };
  try { document.querySelector('[data-export="%s.png"]').click(); } finally { HTMLAnchorElement.prototype.click = orig; }
  return got;
})()`

// lazyChart is a chart as its ECharts instance holds it: the x axis
// labels and the first series' values (null for a gap).
type lazyChart struct {
	X []string   `json:"x"`
	V []*float64 `json:"v"`
}

// lazyChartJS reads a lazyChart of the chart named %s (JSON-quoted).
const lazyChartJS = `((name) => {
  const el = document.querySelector('body > [data-dashboard] [data-chart="' + name + '"]');
  const inst = el && window.echarts && echarts.getInstanceByDom(el);
  if (!inst) return {x: [], v: []};
  const o = inst.getOption() || {};
  const val = d => (d !== null && typeof d === 'object' && !Array.isArray(d)) ? d.value : d;
  const s = (o.series || [])[0];
  return {x: ((o.xAxis || [])[0] || {}).data || [], v: s ? (s.data || []).map(d => typeof val(d) === 'number' ? val(d) : null) : []};
})`

// TestLazyCharts: the first load draws the charts in view only (a chart
// far below has no ECharts instance until it is scrolled near or
// exported); on a live refresh that changes
// the charts, a chart far below the viewport keeps its previous drawing (data-chart-pending, the
// old option) while the charts in view show the new window at once; a PNG
// export of the pending chart draws and exports the current option first,
// and a pending chart scrolled into view gets the current option.
// "Current" is checked against the panel's JSON export (the numbers of
// the load shown, not read from the chart) and the heatmap in view (the
// same window's labels). Real Prometheus scraping the simulator every
// second; the browser's idle callbacks are held (holdIdleJS), so only
// coming into view and exports draw a pending chart here.
func TestLazyCharts(t *testing.T) {
	prom := simtest.Prometheus(t, simulate.Config{Models: []string{modelA}, Engines: 2, K: 4,
		Acceptance: []float64{0.85, 0.8, 0.75, 0.7}, DraftsPerSecond: 15, Seed: 11}, 2)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	tab := newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(lazyW, lazyH))
	addScript(t, tab, holdIdleJS)

	chart := func(name string) lazyChart {
		return run(t, tab, 10*time.Second, chromedp.Evaluate[lazyChart](lazyChartJS+"("+mustJSON(name)+")"))
	}
	place := func(name string) chartPlace {
		return run(t, tab, 10*time.Second, chromedp.Evaluate[chartPlace](chartPlaceJS+"("+mustJSON(name)+")"))
	}
	marks := func() map[string]bool {
		got := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`performance.getEntriesByType('mark').map(e => e.name)`))
		m := map[string]bool{}
		for _, n := range got {
			m[strings.TrimPrefix(n, "specdash:load:")] = true
		}
		return m
	}
	png := func() string {
		return run(t, tab, 20*time.Second, chromedp.Evaluate[string](fmt.Sprintf(pngExportJS, view.ChartDrafts)))
	}
	// refresh waits until the live window can slide by a step, clicks
	// Refresh and waits until the page shows a later window.
	refresh := func() {
		g := readGrid(t, tab)
		waitJS(t, tab, 30*time.Second, fmt.Sprintf(`Date.now() > %d`, g.End+g.Step+300))
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { performance.clearMarks(); document.querySelector('button.refresh-now').click(); return true; })()`))
		waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => { const r = document.querySelector('body > [data-dashboard]'); return r && r.dataset.state === 'ready' && +r.dataset.windowEnd > %d && performance.getEntriesByName('specdash:load:rendered').length > 0; })()`, g.End))
	}
	// current checks the drafts chart against the drafts export (the
	// numbers of the load shown, rounded to the chart's 2 decimals) and
	// its window end against the heatmap's.
	current := func(when string) {
		t.Helper()
		c, hm := chart(view.ChartDrafts), chart(view.ChartHeatmap)
		e := exportJSON(t, tab, view.ChartDrafts+".json")
		col := ""
		for _, cn := range e.Columns {
			if strings.HasSuffix(cn, "(drafts/s)") {
				col = cn
			}
		}
		if col == "" || len(e.Rows) == 0 || len(c.V) != len(e.Rows) || len(c.X) != len(e.Rows) {
			t.Fatalf("%s: drafts chart %d labels, %d points; export columns %v, %d rows", when, len(c.X), len(c.V), e.Columns, len(e.Rows))
		}
		defined := 0
		for j, r := range e.Rows {
			want, ok := r[col].(float64)
			switch {
			case !ok && c.V[j] != nil:
				t.Errorf("%s: drafts chart bucket %d = %v, export has none", when, j, *c.V[j])
			case ok && (c.V[j] == nil || math.Abs(*c.V[j]-want) > 0.005+1e-9):
				t.Errorf("%s: drafts chart bucket %d = %v, export %v", when, j, c.V[j], want)
			case ok:
				defined++
			}
		}
		if defined == 0 {
			t.Errorf("%s: no bucket with drafts (the check compares nothing)", when)
		}
		// The heatmap merges buckets into columns (model.HeatmapMaxColumns);
		// its last column ends where the last bucket does.
		if len(hm.X) == 0 || c.X[len(c.X)-1] != hm.X[len(hm.X)-1] {
			t.Errorf("%s: drafts chart ends at %v, heatmap (in view) at %v", when, c.X[len(c.X)-1:], hm.X[max(0, len(hm.X)-1):])
		}
	}

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitReadyState(t, tab, 120*time.Second)
	// The layout the test relies on. The first load draws the charts in
	// view only: the drafts chart, below, is pending, with no ECharts
	// instance yet.
	if p := place(view.ChartHeatmap); !p.Found || p.Top < 0 || p.Top > p.Height-100 || p.Pending {
		t.Fatalf("heatmap at %+v: want it drawn in the %dx%d viewport", p, lazyW, lazyH)
	}
	if p := place(view.ChartDrafts); !p.Found || p.Top < p.Height+app.LazyMargin+50 || !p.Pending {
		t.Fatalf("drafts chart at %+v: want it pending (first load, out of view) and more than %d px below the viewport", p, app.LazyMargin)
	}
	if c := chart(view.ChartDrafts); len(c.X) != 0 {
		t.Fatalf("drafts chart (out of view) drawn by the first load: %d labels", len(c.X))
	}
	// Scrolled near, it is drawn with the load shown.
	scrollTo := func(name string) {
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => {
		  document.querySelector('body > [data-dashboard] [data-chart="`+name+`"]').scrollIntoView({block: 'center'});
		  return true;
		})()`))
	}
	scrollTo(view.ChartDrafts)
	waitJS(t, tab, 20*time.Second, `!document.querySelector('body > [data-dashboard] [data-chart="`+view.ChartDrafts+`"]').hasAttribute('data-chart-pending')`)
	current("first load, scrolled into view")
	// Back at the top, a PNG export draws whatever is still pending
	// (DrawPendingCharts).
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { window.scrollTo(0, 0); return true; })()`))
	if u := png(); !strings.HasPrefix(u, "data:image/png;base64,") {
		t.Fatalf("PNG export of the drafts chart: %.40q", u)
	}
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('[data-chart-pending]').length`)); n != 0 {
		t.Fatalf("%d charts still pending after a PNG export on the first load", n)
	}
	current("first load")

	// Refresh 1: the drafts chart is pending; a PNG export draws it.
	old, oldHM, oldPNG := chart(view.ChartDrafts), chart(view.ChartHeatmap), png()
	refresh()
	if hm := chart(view.ChartHeatmap); hm.X[len(hm.X)-1] == oldHM.X[len(oldHM.X)-1] || hm.X[len(hm.X)-1] == old.X[len(old.X)-1] {
		t.Errorf("heatmap (in view) after the refresh: ends at %v as before (%v), want the new window", hm.X[len(hm.X)-1:], oldHM.X[len(oldHM.X)-1:])
	}
	if p := place(view.ChartHeatmap); p.Pending {
		t.Errorf("heatmap (in view) pending after the refresh")
	}
	if p := place(view.ChartDrafts); !p.Pending {
		t.Errorf("drafts chart (out of view) after the refresh: %+v, want data-chart-pending", p)
	}
	if got := chart(view.ChartDrafts); !reflect.DeepEqual(got, old) {
		t.Errorf("drafts chart (out of view) after the refresh: option changed, want its previous drawing kept (labels %v... -> %v...)", old.X[:3], got.X[:3])
	}
	if m := marks(); !m["rendered"] || m["rendered-all"] {
		t.Errorf("marks with a chart pending: %v, want rendered and not rendered-all", m)
	}
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`window.__idleQueued`)); n == 0 {
		t.Errorf("no idle draw was asked for the pending charts")
	}
	if p := png(); !strings.HasPrefix(p, "data:image/png;base64,") || p == oldPNG {
		t.Errorf("PNG export of the pending chart: %.40q (%d bytes), the same as before the refresh: %v", p, len(p), p == oldPNG)
	}
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('[data-chart-pending]').length`)); n != 0 {
		t.Errorf("%d charts still pending after a PNG export (it draws them all)", n)
	}
	if m := marks(); !m["rendered-all"] {
		t.Errorf("marks once no chart is pending: %v, want rendered-all", m)
	}
	current("after the PNG export")

	// Refresh 2: pending again, then scrolled into view.
	old = chart(view.ChartDrafts)
	refresh()
	if p := place(view.ChartDrafts); !p.Pending || !reflect.DeepEqual(chart(view.ChartDrafts), old) {
		t.Errorf("drafts chart after the second refresh: %+v, want pending with its previous option", p)
	}
	scrollTo(view.ChartDrafts)
	waitJS(t, tab, 20*time.Second, `!document.querySelector('body > [data-dashboard] [data-chart="`+view.ChartDrafts+`"]').hasAttribute('data-chart-pending')`)
	if p := place(view.ChartDrafts); p.Top < 0 || p.Top > p.Height {
		t.Errorf("drafts chart at %+v after scrolling: not in view", p)
	}
	current("scrolled into view")
	if msg := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(document.querySelector('.chart-error') || {}).textContent || ''`)); msg != "" {
		t.Errorf("chart error shown: %q", msg)
	}
}
