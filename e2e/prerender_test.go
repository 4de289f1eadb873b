//go:build !js

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/model"
	"specdash/server"
	"specdash/view"
)

// prerenderHostile replaces the fixture's org/model-b: if the pre-rendered
// page or the preview script ever turned label values into markup, the
// page would set window.__xss or hold an <img src=x>.
const prerenderHostile = `<img src=x onerror=window.__xss=1><script>window.__xss=2</script>`

// previewView is what the page shows in one dashboard root: the cards'
// data-value, each breakdown row's acceptance rate (by data-group) and the
// per-position chart's bars as ECharts holds them.
type previewView struct {
	Cards map[string]string `json:"cards"`
	Rows  map[string]string `json:"rows"`
	Bars  []float64         `json:"bars"`
	State string            `json:"state"`
}

// readViewJS reads a previewView from the dashboard root matched by the
// selector %s.
const readViewJS = `(() => {
  const root = document.querySelector(%q);
  const out = {cards: {}, rows: {}, bars: [], state: ''};
  if (!root) return out;
  out.state = root.dataset.state || '';
  for (const el of root.querySelectorAll('.metric-value[data-metric]')) out.cards[el.dataset.metric] = el.dataset.value || '';
  for (const tr of root.querySelectorAll('tr[data-group]')) {
    const c = tr.querySelector('[data-cell="acceptance-rate"]');
    out.rows[tr.dataset.group] = c ? (c.dataset.value || '') : '';
  }
  const el = root.querySelector('[data-chart="per-position"]');
  const inst = el && window.echarts && echarts.getInstanceByDom(el);
  if (inst) out.bars = inst.getOption().series[0].data.map(d => (d && typeof d === 'object') ? d.value : d);
  return out;
})()`

// gatedRequests holds back the requests of a tab whose URL contains one
// of the parts of holdRequests' gates, each until its gate is opened.
type gatedRequests struct {
	mu     sync.Mutex
	tab    context.Context
	gates  map[string]string // URL part -> gate
	paused map[string][]fetch.RequestID
	count  map[string]int
	opened map[string]bool
}

// holdRequests intercepts tab's requests whose URL contains a key of gates
// (browser request interception) and holds each until its gate (the
// key's value) is opened; every gate opens when t ends.
func holdRequests(t *testing.T, tab context.Context, gates map[string]string) *gatedRequests {
	t.Helper()
	g := &gatedRequests{tab: tab, gates: gates, paused: map[string][]fetch.RequestID{}, count: map[string]int{}, opened: map[string]bool{}}
	_ = chromedp.Listen(tab, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			g.mu.Lock()
			defer g.mu.Unlock()
			gate := ""
			for part, name := range g.gates {
				if strings.Contains(ev.Request.URL, part) {
					gate = name
				}
			}
			if gate == "" || g.opened[gate] {
				g.cont(ev.RequestID)
				return
			}
			g.paused[gate] = append(g.paused[gate], ev.RequestID)
			g.count[gate]++
		}
	})
	var patterns []*fetch.RequestPattern
	for part := range gates {
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*" + part + "*"})
	}
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: patterns})
	}))
	t.Cleanup(func() {
		for _, name := range gates {
			g.open(name)
		}
	})
	return g
}

func (g *gatedRequests) cont(id fetch.RequestID) {
	go chromedp.Run(g.tab, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
	}))
}

// open lets gate's held requests go, and its later ones at once.
func (g *gatedRequests) open(gate string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.opened[gate] {
		return
	}
	g.opened[gate] = true
	for _, id := range g.paused[gate] {
		g.cont(id)
	}
	g.paused[gate] = nil
}

// held is how many of gate's requests were held back.
func (g *gatedRequests) held(gate string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count[gate]
}

// TestPreRenderedFirstChart: the server's pre-rendered page draws its
// charts with the real numbers before the wasm runs (the wasm download is
// held back by the browser's request interception until the preview has
// been checked), and once the wasm has taken over the overlay is gone, it
// went only when the live dashboard was ready, and the live numbers equal
// the preview's (and the fixture's hand-computed answers).
func TestPreRenderedFirstChart(t *testing.T) {
	fx := fixtures.KnownAnswer()
	base, tab := previewSite(t, strings.ReplaceAll(fx.OpenMetrics, `"`+fixtures.ModelB+`"`, `"`+prerenderHostile+`"`))

	// Hold back, each until its gate is opened: preview.js, ECharts (the
	// page's preload and preview.js's script) and app.wasm (app.js's
	// fetch). The page shows first the server's static drawings (under
	// specdash.css alone), then preview.js's overlay, then ECharts' charts,
	// then the wasm's dashboard.
	gates := holdRequests(t, tab, map[string]string{"preview.js": "preview", "echarts.min.js": "echarts", "app.wasm": "wasm"})
	openGate := gates.open
	release := func() { openGate("wasm") }

	w := fx.Whole
	q := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}, "group": {"model_name"}}
	navigateNoWait(t, tab, base+"/?"+q.Encode())

	// Before any script of ours: the server's static drawings are on
	// screen (not under go-app's loader, which specdash.css makes a badge),
	// with the fixture's numbers:
	// each per-position bar is its rate on the 0..100 % axis (the drawing's
	// box is 1000 high), the legend names each series, the hostile model
	// name is text.
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('[data-chart="per-position"] [data-chart-static]') && document.readyState !== 'loading'`)
	static := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]any](`(() => {
	  const el = document.querySelector('[data-chart="per-position"]');
	  const r = el.getBoundingClientRect();
	  const loader = document.getElementById('app-wasm-loader').getBoundingClientRect();
	  // The preview overlay has pointer-events: none (elementFromPoint sees
	  // through it): compare boxes instead.
	  const apart = loader.right <= r.left || loader.left >= r.right || loader.bottom <= r.top || loader.top >= r.bottom;
	  const shown = el.querySelector('[data-chart-static] svg').getBoundingClientRect();
	  const rate = document.querySelector('[data-chart="acceptance-rate"] [data-chart-static]');
	  return {
	    bars: Array.from(el.querySelectorAll('[data-chart-static] g[data-series] rect')).map(b => Number(b.getAttribute('height'))),
	    visible: apart && r.bottom <= innerHeight && shown.width > 100 && shown.height > 100,
	    loaderWidth: loader.width,
	    echarts: !!window.echarts,
	    overlay: !!document.getElementById('specdash-preview'),
	    legend: rate ? rate.textContent : '',
	    statics: document.querySelectorAll('[data-chart-static]').length,
	  };
	})()`))
	if static["echarts"] != false || static["overlay"] != false {
		t.Fatalf("ECharts or preview.js ran although held (%v): the test cannot tell the static drawings from them", static)
	}
	bars, _ := static["bars"].([]any)
	if len(bars) != len(w.Total.PerPositionRate) {
		t.Fatalf("static per-position chart: %d bars, want %d (%v)", len(bars), len(w.Total.PerPositionRate), static)
	}
	for i, b := range bars {
		want := math.Round(w.Total.PerPositionRate[i]*1000) / 10 * 10
		if h, _ := b.(float64); math.Abs(h-want) > 0.06 {
			t.Errorf("static bar pos %d: height %v, want %v (rate %v)", i+1, h, want, w.Total.PerPositionRate[i])
		}
	}
	if static["visible"] != true {
		t.Errorf("static per-position chart not in view, too small, or under go-app's loader: %v", static)
	}
	if lw, _ := static["loaderWidth"].(float64); lw <= 0 || lw > 400 {
		t.Errorf("go-app's loader %v px wide: want the small badge over a preview", lw)
	}
	// Every chart: per-position, the heatmap, the four time charts and the
	// insights' fit.
	if n, _ := static["statics"].(float64); n != 7 {
		t.Errorf("%v static drawings, want 7 (every chart)", n)
	}
	if legend, _ := static["legend"].(string); !strings.Contains(legend, prerenderHostile) {
		t.Errorf("static acceptance-rate legend %q lacks the hostile model name as text", legend)
	}
	checkNoScript(t, tab)
	// preview.js: the overlay at once; ECharts (held) after a frame.
	openGate("preview")
	waitJS(t, tab, 30*time.Second, `!!document.getElementById('specdash-preview')`)
	// The root has moved into the overlay (after go-app's loader): the
	// loader is still the badge.
	if lw := run(t, tab, 10*time.Second, chromedp.Evaluate[float64](`document.getElementById('app-wasm-loader').getBoundingClientRect().width`)); lw <= 0 || lw > 400 {
		t.Errorf("go-app's loader %v px wide under the preview overlay: want the small badge", lw)
	}
	// One chart's pre-rendered option made wrong (every value of its lines
	// 1): the preview draws it so, and the live page, which adopts that
	// chart, must update it to its own option (checkAdopted).
	wrongOption := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(() => {
	  const el = document.querySelector('#specdash-preview [data-chart="acceptance-length"]');
	  const bin = atob(el.dataset.option);
	  const json = new TextDecoder().decode(Uint8Array.from(bin, c => c.charCodeAt(0)));
	  const o = JSON.parse(json);
	  for (const s of o.series) s.data = (s.data || []).map(d => (d !== null && typeof d === 'object') ? Object.assign({}, d, {value: 1}) : (typeof d === 'number' ? 1 : d));
	  const bytes = new TextEncoder().encode(JSON.stringify(o));
	  let out = '';
	  for (const b of bytes) out += String.fromCharCode(b);
	  el.dataset.option = btoa(out);
	  return json;
	})()`))
	openGate("echarts")
	// Record the live dashboard's state when the overlay leaves.
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => {
	  window.__handover = '';
	  new MutationObserver(() => {
	    if (window.__handover || document.getElementById('specdash-preview')) return;
	    const live = document.querySelector('[data-dashboard]');
	    window.__handover = live ? (live.dataset.state || 'none') : 'no dashboard';
	  }).observe(document.body, {subtree: true, childList: true, attributes: true});
	  return true;
	})()`))

	// The preview: drawn by ECharts while the wasm is held back, each chart
	// in place of its static drawing.
	// Only the charts within 200 px of the viewport (the live page's
	// LazyMargin) are drawn by ECharts; the others keep their static
	// drawings until they scroll near.
	const previewChartsJS = `Array.from(document.querySelectorAll('#specdash-preview [data-chart][data-option]'))`
	const nearJS = `(el => { const r = el.getBoundingClientRect(); return r.bottom > -200 && r.top < innerHeight + 200; })`
	const drawnJS = `(el => !!window.echarts && !!echarts.getInstanceByDom(el) && !el.querySelector('[data-chart-static]'))`
	waitJS(t, tab, 30*time.Second, previewChartsJS+`.length === 7 && `+previewChartsJS+`.filter(`+nearJS+`).every(`+drawnJS+`)`)
	split := run(t, tab, 10*time.Second, chromedp.Evaluate[[]int](`[`+previewChartsJS+`.filter(`+nearJS+`).length, `+
		previewChartsJS+`.filter(el => !`+nearJS+`(el) && !`+drawnJS+`(el) && !!el.querySelector('[data-chart-static] svg')).length]`))
	if len(split) != 2 || split[0] < 1 || split[0]+split[1] != 7 {
		t.Fatalf("preview charts near the viewport / far and still static: %v; want every near one drawn by ECharts (at least one) and every far one static", split)
	}
	if split[1] > 0 {
		// A far chart is drawn once it scrolls near.
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { `+previewChartsJS+`.at(-1).scrollIntoView({block: 'center'}); return true; })()`))
		waitJS(t, tab, 30*time.Second, drawnJS+`(`+previewChartsJS+`.at(-1))`)
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { window.scrollTo(0, 0); return true; })()`))
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector('#specdash-preview [data-chart="acceptance-rate"]').scrollIntoView({block: 'center'}); return true; })()`))
	waitJS(t, tab, 30*time.Second, `(() => {
	  const el = document.querySelector('#specdash-preview [data-chart="acceptance-rate"]');
	  const inst = el && window.echarts && echarts.getInstanceByDom(el);
	  return !!inst && inst.getOption().series.some(s => s.data && s.data.length > 0);
	})()`)
	if gates.held("wasm") == 0 {
		t.Fatalf("no app.wasm request was held: the test cannot tell the preview from the wasm")
	}
	before := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]any](`(() => {
	  const o = document.getElementById('specdash-preview');
	  const first = document.body.firstElementChild;
	  return {
	    live: !!document.querySelector('body > [data-dashboard]'),
	    firstEmpty: !!first && first !== o && first.children.length === 0,
	    pointer: getComputedStyle(o).pointerEvents,
	    controls: o.querySelectorAll('select, input, button').length,
	    // Inert but the view's selects, group-by boxes, sort buttons, Live,
	    // Refresh and the filter menus' boxes, buttons and search
	    // (TestPreviewControlsWork).
	    inert: Array.from(o.querySelectorAll('select, input, button')).every(el => el.inert || el.closest('[inert]') ||
	      (el.matches('select') && !!el.querySelector('option[data-href]')) || el.matches('input[type=checkbox][data-href], button[data-href], button.refresh-now') ||
	      (!!el.closest('[data-filter-href]') && el.matches('input[type=checkbox][data-filter-value], button.chip-remove, button.filter-clear, input.filter-search'))),
	    chartPointer: getComputedStyle(o.querySelector('[data-chart="acceptance-rate"]')).pointerEvents,
	    hint: (o.querySelector('[data-preview-hint]') || {}).textContent || '',
	  };
	})()`))
	if before["live"] != false || before["firstEmpty"] != true {
		t.Errorf("before the wasm: %v, want no live dashboard and an empty first child for go-app", before)
	}
	if hint, _ := before["hint"].(string); !regexp.MustCompile(`as of \d\d:\d\d:\d\d$`).MatchString(hint) {
		t.Errorf("hint %q: want the time as 24-hour hh:mm:ss, as the dashboard shows times", hint)
	}
	if before["pointer"] != "none" || before["inert"] != true || before["controls"] == float64(0) || before["chartPointer"] != "auto" || !strings.Contains(before["hint"].(string), "Starting") {
		t.Errorf("overlay: pointer-events %v, %v controls all inert %v, chart pointer-events %v, hint %q; want none, inert controls (but the view's links and Refresh), charts auto and a starting hint",
			before["pointer"], before["controls"], before["inert"], before["chartPointer"], before["hint"])
	}
	// The preview's charts answer hovers before the wasm runs: the mouse
	// over the acceptance-rate chart's plot shows ECharts' tooltip (trigger
	// axis) with the hovered bucket's values.
	box := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`(() => {
	  const el = document.querySelector('#specdash-preview [data-chart="acceptance-rate"]');
	  el.scrollIntoView({block: 'center'});
	  const r = el.getBoundingClientRect();
	  return [r.left + r.width / 2, r.top + r.height / 2];
	})()`))
	step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, box[0]-3, box[1]))
	step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, box[0], box[1]))
	waitJS(t, tab, 30*time.Second, `Array.from(document.querySelectorAll('#specdash-preview [data-chart="acceptance-rate"] > div')).some(el =>
	  el.style.zIndex === '9999999' && el.style.display !== 'none' && /%/.test(el.textContent))`)
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('body > [data-dashboard]').length`)); n != 0 {
		t.Fatalf("the live dashboard mounted before the preview's hover was checked (%d roots)", n)
	}
	preview := run(t, tab, 10*time.Second, chromedp.Evaluate[previewView](sprintfJS(readViewJS, `#specdash-preview [data-dashboard]`)))
	if preview.State != "preview" {
		t.Errorf("preview root data-state %q, want preview", preview.State)
	}
	checkFixtureView(t, "preview", preview, w)
	checkNoScript(t, tab)
	previewControls := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](sprintfJS(controlsJS, `#specdash-preview [data-dashboard]`)))

	// The preview's ECharts instances, by chart; the wrong option drawn.
	previewIDs := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]string](`Object.fromEntries(Array.from(document.querySelectorAll('#specdash-preview [data-chart]'))
	  .filter(el => echarts.getInstanceByDom(el)).map(el => [el.dataset.chart, echarts.getInstanceByDom(el).id]))`))
	if previewIDs["acceptance-length"] == "" || !run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`echarts.getInstanceByDom(document.querySelector('#specdash-preview [data-chart="acceptance-length"]'))
	  .getOption().series.every(s => s.data.every(d => d === '-' || d === null || (typeof d === 'object' ? d.value === 1 : d === 1)))`)) {
		t.Fatalf("the preview did not draw the acceptance-length chart's wrong option (instances %v)", previewIDs)
	}

	// Hand over to the wasm.
	release()
	waitReady(t, tab, 120*time.Second)
	after := run(t, tab, 10*time.Second, chromedp.Evaluate[map[string]any](`(() => ({
	  overlay: !!document.getElementById('specdash-preview'),
	  handover: window.__handover,
	  roots: document.querySelectorAll('[data-dashboard]').length,
	}))()`))
	if after["overlay"] != false || after["handover"] != "ready" || after["roots"] != float64(1) {
		t.Errorf("after the wasm: %v; want no overlay, removed when the live dashboard was ready, one dashboard", after)
	}
	live := run(t, tab, 10*time.Second, chromedp.Evaluate[previewView](sprintfJS(readViewJS, `body > [data-dashboard]`)))
	checkFixtureView(t, "live", live, w)
	// The preview's controls show the URL's choices, as the live page's do
	// (go-app pre-renders an off boolean attribute as selected="false").
	liveControls := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](sprintfJS(controlsJS, `body > [data-dashboard]`)))
	if len(liveControls) == 0 || strings.Join(previewControls, "\n") != strings.Join(liveControls, "\n") {
		t.Errorf("controls: preview\n%s\nlive\n%s", strings.Join(previewControls, "\n"), strings.Join(liveControls, "\n"))
	}
	if !slices.Contains(liveControls, "checkbox model_name true") {
		t.Errorf("controls %v: want the model_name group-by box checked (group=model_name)", liveControls)
	}
	for _, m := range []string{"acceptance-rate", "mean-acceptance-length", "drafts-per-second", "accepted-throughput", "drafted-throughput", "k"} {
		if live.Cards[m] != preview.Cards[m] {
			t.Errorf("card %s: live %q, preview %q", m, live.Cards[m], preview.Cards[m])
		}
	}
	if len(live.Rows) != len(preview.Rows) {
		t.Errorf("rows: live %v, preview %v", live.Rows, preview.Rows)
	}
	for g, v := range preview.Rows {
		if live.Rows[g] != v {
			t.Errorf("row %s: live %q, preview %q", g, live.Rows[g], v)
		}
	}
	checkNoScript(t, tab)
	checkAdopted(t, tab, previewIDs, "acceptance-length", wrongOption)
}

// checkAdopted: the live page took over the charts the preview drew (ids:
// chart name -> the preview's ECharts instance id), in view or drawn
// later, instead of drawing them anew (app/chart.go, charts.js adopt): the live
// chart's element holds the preview's chart element with its instance,
// not disposed when the overlay went, which echarts.getInstanceByDom
// finds on the live element (checkFixtureView read its bars so); the
// chart wrong, which the preview drew from a wrong option, shows the
// series of the live page's option (want: the pre-rendered option, the
// same window's); an adopted chart answers hovers with the live page's
// tooltip, exports a PNG with its picture, and a span selected on it
// zooms the live page in place.
func checkAdopted(t *testing.T, tab context.Context, ids map[string]string, wrong, want string) {
	t.Helper()
	type adopted struct {
		Name     string `json:"name"`
		Adopted  bool   `json:"adopted"`
		ID       string `json:"id"`
		OwnDom   bool   `json:"ownDom"`
		Renderer string `json:"renderer"`
		Disposed bool   `json:"disposed"`
	}
	// Every chart drawn: those out of view when the live page rendered
	// too, in idle time after it (LazyIdleTimeout), when the overlay had
	// gone (preview.js keeps the charts not taken for a while).
	waitJS(t, tab, 30*time.Second, `!document.querySelector('body > [data-dashboard] [data-chart-pending]')`)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[[]adopted](`Array.from(document.querySelectorAll('body > [data-dashboard] [data-chart]')).map(el => {
	  const inst = echarts.getInstanceByDom(el);
	  const a = el.querySelector(':scope > [data-chart-adopted]');
	  return {name: el.dataset.chart, adopted: !!a, id: inst ? String(inst.id) : '',
	    ownDom: !!inst && inst.getDom() === a, renderer: inst ? inst.getZr().painter.type : '', disposed: !!inst && inst.isDisposed()};
	})`))
	n := 0
	for _, c := range got {
		if !c.Adopted {
			if ids[c.Name] != "" {
				t.Errorf("chart %s: drawn by the preview (instance %s), not adopted: %+v", c.Name, ids[c.Name], c)
			}
			continue
		}
		n++
		if c.ID != ids[c.Name] || !c.OwnDom || c.Renderer != "canvas" || c.Disposed {
			t.Errorf("adopted chart %s: %+v; want the preview's instance %q (canvas), on the adopted element, not disposed", c.Name, c, ids[c.Name])
		}
	}
	if n == 0 {
		t.Fatalf("no chart adopted from the preview (preview instances %v; live %+v)", ids, got)
	}
	wantJSON, _ := json.Marshal(want)
	series := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => {
	  const val = d => (d !== null && typeof d === 'object') ? d.value : d;
	  const inst = echarts.getInstanceByDom(document.querySelector('body > [data-dashboard] [data-chart=`+strconv.Quote(wrong)+`]'));
	  return [JSON.stringify(inst.getOption().series.map(s => s.data.map(val))), JSON.stringify(JSON.parse(`+string(wantJSON)+`).series.map(s => s.data.map(val)))];
	})()`))
	if series[0] != series[1] || !strings.Contains(series[1], ".") {
		t.Errorf("adopted chart %s drawn from a wrong option: series %s, want the live option's %s", wrong, series[0], series[1])
	}
	// A hover over the adopted acceptance-rate chart: the live page's
	// tooltip (trigger axis) with the bucket's values.
	box := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`(() => {
	  const el = document.querySelector('body > [data-dashboard] [data-chart="acceptance-rate"]');
	  el.scrollIntoView({block: 'center'});
	  const r = el.getBoundingClientRect();
	  return [r.left + r.width / 2, r.top + r.height / 2, el.querySelector('[data-chart-adopted]') ? 1 : 0];
	})()`))
	if box[2] != 1 {
		t.Fatalf("the acceptance-rate chart (in view when the wasm started) was not adopted")
	}
	step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, box[0]-3, box[1]))
	step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, box[0], box[1]))
	waitJS(t, tab, 30*time.Second, `Array.from(echarts.getInstanceByDom(document.querySelector('body > [data-dashboard] [data-chart="acceptance-rate"]')).getDom().children).some(el =>
	  el.style.zIndex === '9999999' && el.style.display !== 'none' && /%/.test(el.textContent))`)
	step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, 5, 5))
	// Its PNG export (charts.js exportPNG): the chart's size at pixel
	// ratio 2 under one line of text, with the lines' pixels.
	png := run(t, tab, 30*time.Second, chromedp.Evaluate[[]float64](`(async () => {
	  const inst = echarts.getInstanceByDom(document.querySelector('body > [data-dashboard] [data-chart="acceptance-rate"]'));
	  const url = specdashCharts.exportPNG(inst, '#ffffff', '#000000', ['title']);
	  const img = new Image();
	  img.src = url;
	  await img.decode();
	  const c = document.createElement('canvas');
	  c.width = img.width;
	  c.height = img.height;
	  const ctx = c.getContext('2d');
	  ctx.drawImage(img, 0, 0);
	  const d = ctx.getImageData(0, 0, c.width, c.height).data;
	  let colored = 0;
	  for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i+1], d[i+2]) - Math.min(d[i], d[i+1], d[i+2]) > 60) colored++;
	  return [url.startsWith('data:image/png') ? 1 : 0, img.width, img.height, inst.getWidth() * 2, inst.getHeight() * 2, colored];
	})()`, chromedp.EvalAwaitPromise))
	if png[0] != 1 || png[1] != png[3] || png[2] <= png[4] || png[5] < 500 {
		t.Errorf("PNG export of the adopted chart: png %v, %vx%v (chart at ratio 2: %vx%v, plus the title), %v coloured pixels; want a PNG that wide, taller, with the lines",
			png[0], png[1], png[2], png[3], png[4], png[5])
	}
	// A span selected on it with the mouse zooms the live page in place
	// (the live page's handler, not the preview's page load).
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { window.__samePage = true; return true; })()`))
	dragZoom(t, tab)
	if same := run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`window.__samePage === true`)); !same {
		t.Errorf("a span selected on the adopted chart loaded another page: want the live page's zoom")
	}
}

// hintZone is the browser's time zone in TestPreviewControlsWork: not
// UTC, and half an hour off it, so that every hour and minute differs.
const hintZone = "Asia/Kolkata"

// checkHintZone: the preview's hint says the time of the numbers (the
// charts' data-preview-at) as hh:mm:ss in the page's time zone tz (the tz
// select's value: "utc", or "local", the browser's, hintZone), as the live
// page's "Updated" does.
func checkHintZone(t *testing.T, tab context.Context, tz string) {
	t.Helper()
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('#specdash-preview [data-preview-hint]')`)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => {
	  const o = document.getElementById('specdash-preview');
	  return [o.querySelector('[data-preview-hint]').textContent, o.querySelector('[data-preview-at]').dataset.previewAt, o.querySelector('select#tz').value];
	})()`))
	at, err := strconv.ParseInt(got[1], 10, 64)
	if err != nil || got[2] != tz {
		t.Fatalf("preview: data-preview-at %q (%v), tz select %q; want a time and %q", got[1], err, got[2], tz)
	}
	loc := time.UTC
	if tz != view.TZUTC {
		loc = time.FixedZone(hintZone, 5*3600+30*60) // Kolkata keeps no summer time
	}
	if want := "as of " + time.UnixMilli(at).In(loc).Format("15:04:05"); !strings.HasSuffix(got[0], want) {
		t.Errorf("preview hint %q with tz %s: want it to end %q", got[0], tz, want)
	}
}

// controlsJS lists the state of every select (its selected options' text)
// and checkbox (its value) under the root %q, in page order.
const controlsJS = `(() => {
  const root = document.querySelector(%q);
  if (!root) return [];
  const out = [];
  // A filter menu's value boxes are in the live page only while the menu
  // is open (app/filters.go): its chosen values are read from its chips.
  for (const el of root.querySelectorAll('select, input[type=checkbox]:not([data-filter-value]), [data-chip]')) {
    if (el.tagName === 'SELECT') out.push('select ' + Array.from(el.selectedOptions).map(o => o.textContent).join('|'));
    else if (el.dataset.chip) out.push('chip ' + el.dataset.chip + ' ' + el.textContent);
    else out.push('checkbox ' + (el.dataset.group || el.id) + ' ' + el.checked);
  }
  return out;
})()`

// sprintfJS puts a selector into a JS template as a quoted string.
func sprintfJS(tmpl, sel string) string {
	b, _ := json.Marshal(sel)
	return strings.Replace(tmpl, "%q", string(b), 1)
}

// checkFixtureView compares a view with the fixture's answers for the
// whole range grouped by model (org/model-b renamed to prerenderHostile).
func checkFixtureView(t *testing.T, name string, v previewView, w fixtures.Window) {
	t.Helper()
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	same := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	if got := num(v.Cards["acceptance-rate"]); !same(got, w.Total.AcceptanceRate) {
		t.Errorf("%s: acceptance rate card %q, want %v", name, v.Cards["acceptance-rate"], w.Total.AcceptanceRate)
	}
	if got := num(v.Cards["mean-acceptance-length"]); !same(got, w.Total.MeanAcceptanceLength) {
		t.Errorf("%s: mean acceptance length card %q, want %v", name, v.Cards["mean-acceptance-length"], w.Total.MeanAcceptanceLength)
	}
	for model, label := range map[string]string{fixtures.ModelA: fixtures.ModelA, fixtures.ModelB: prerenderHostile} {
		key, _ := json.Marshal([]string{label})
		g := "v:" + base64.RawURLEncoding.EncodeToString(key)
		if got := num(v.Rows[g]); !same(got, w.Models[model].AcceptanceRate) {
			t.Errorf("%s: row %q acceptance rate %q, want %v", name, label, v.Rows[g], w.Models[model].AcceptanceRate)
		}
	}
	if len(v.Bars) != len(w.Total.PerPositionRate) {
		t.Fatalf("%s: per-position chart bars %v, want %d", name, v.Bars, len(w.Total.PerPositionRate))
	}
	for i, b := range v.Bars {
		if want := math.Round(w.Total.PerPositionRate[i]*1000) / 10; math.Abs(b-want) > 1e-9 {
			t.Errorf("%s: per-position bar %d = %v, want %v", name, i+1, b, want)
		}
	}
}

// TestPreviewControlsWork: before the wasm runs, the preview's selects of
// the view, its group-by boxes, sort buttons and Live button work as
// links and its Refresh button reloads: every option of the mean length,
// time zone and range selects, every group-by box, sort button and Live
// carries the page that choice leads to (view.SelectHref, view.EditHref:
// the dashboard's own URL edits);
// choosing "without bonus token" in the overlay loads that page, which the
// server renders with the fixture's mean length without the bonus token;
// turning a group-by label on loads the page grouped by it, a sort button
// the page sorted by its column, a value checked in a filter menu the
// page filtered by it and its chip's remove button the page without it,
// a filter menu's search lists the values that hold its text and Enter
// the page filtered by the first, a span selected on the acceptance-rate
// chart and then on the heatmap the page zoomed to its buckets (as the
// live page's view.Query.Zoom); the controls that need the wasm (the time
// inputs) stay inert.
func TestPreviewControlsWork(t *testing.T) {
	fx := fixtures.KnownAnswer()
	base, tab := previewSite(t, fx.OpenMetrics)
	// The wasm never arrives: every app.wasm request stays paused.
	var mu sync.Mutex
	heldWasm := 0
	_ = chromedp.Listen(tab, func(ev any) {
		if _, ok := ev.(*fetch.EventRequestPaused); ok {
			mu.Lock()
			heldWasm++
			mu.Unlock()
		}
	})
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*app.wasm*"}}})
	}))
	// The browser's zone is not UTC (the hint's time follows the tz
	// select), and the server knows it (boot.js's cookie from a visit
	// before: TestPreviewInBrowserZone).
	inZone(t, tab, base, hintZone)
	w := fx.Whole
	q := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}, "group": {"model_name"}}
	navigateNoWait(t, tab, base+"/?"+q.Encode())

	type previewState struct {
		Page       string              `json:"page"`
		Convention string              `json:"convention"`
		Tz         string              `json:"tz"`
		MeanLength string              `json:"meanLength"`
		Hrefs      map[string][]string `json:"hrefs"`  // per select: value, then the decoded href, per option
		Live       []string            `json:"live"`   // ids of the controls that are not inert
		Groups     [][]string          `json:"groups"` // per group-by box: label, checked, decoded href
		Inert      []string            `json:"inert"`  // ids of some controls that need the wasm, if inert
		Sorts      [][]string          `json:"sorts"`  // per sortable column: column, aria-sort, decoded href
		LiveHref   string              `json:"liveHref"`
		Filters    [][]string          `json:"filters"` // per filter menu: label, its decoded data-filter-href, param, then the chips' values
	}
	const readJS = `(() => {
	  const o = document.getElementById('specdash-preview');
	  const dec = s => { s = s.replace(/-/g, '+').replace(/_/g, '/'); while (s.length % 4) s += '='; return new TextDecoder().decode(Uint8Array.from(atob(s), c => c.charCodeAt(0))); };
	  const hrefs = {};
	  for (const id of ['convention', 'tz', 'range']) {
	    hrefs[id] = Array.from(o.querySelectorAll('select#' + id + ' option')).flatMap(op => [op.value, op.dataset.href ? dec(op.dataset.href) : '']);
	  }
	  const ml = o.querySelector('[data-metric="mean-acceptance-length"][data-value]');
	  return {
	    page: location.pathname + location.search,
	    convention: o.querySelector('select#convention').value,
	    tz: o.querySelector('select#tz').value,
	    meanLength: ml ? ml.dataset.value : '',
	    hrefs,
	    live: Array.from(o.querySelectorAll('input,select,button')).filter(el => !el.closest('[inert]')).map(el => el.id || el.className || (el.dataset.filterValue ? 'filter-value' : el.tagName)),
	    filters: Array.from(o.querySelectorAll('.control-filter[data-filter]')).map(m => [m.dataset.filter, m.dataset.filterHref ? dec(m.dataset.filterHref) : '', m.dataset.filterParam || '',
	      ...Array.from(m.querySelectorAll('[data-chip]')).map(c => dec(c.dataset.value.slice(2)))]),
	    groups: Array.from(o.querySelectorAll('input[type=checkbox][data-group]')).map(b => [b.dataset.group, String(b.checked), b.dataset.href ? dec(b.dataset.href) : '']),
	    inert: ['from', 'to'].filter(id => { const el = o.querySelector('#' + id); return !!el && !!el.closest('[inert]'); }),
	    sorts: Array.from(o.querySelectorAll('th.sortable')).map(th => { const b = th.querySelector('button'); return [th.dataset.sort, th.getAttribute('aria-sort'), b && b.dataset.href ? dec(b.dataset.href) : '']; }),
	    liveHref: (() => { const b = o.querySelector('#live'); return b && b.dataset.href ? dec(b.dataset.href) : ''; })(),
	  };
	})()`
	shown := `!!document.body && document.body.dataset.preview === 'shown' && !!document.querySelector('#specdash-preview select#convention')`
	waitJS(t, tab, 30*time.Second, shown)
	checkHintZone(t, tab, "local")
	before := run(t, tab, 10*time.Second, chromedp.Evaluate[previewState](readJS))
	wantLive := []string{"range", "live", "tz", "convention", "refresh-now"} // not the auto-refresh period: the live page's
	// Each filter menu: its search, then its value boxes.
	menus := run(t, tab, 10*time.Second, chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll('#specdash-preview .control-filter')).map(m =>
	  [m.querySelector('input.filter-search').id, ...Array.from(m.querySelectorAll('input[data-filter-value]')).map(() => 'filter-value')])`))
	for _, m := range menus {
		wantLive = append(wantLive, m...)
	}
	for _, g := range before.Groups {
		wantLive = append(wantLive, "group-"+g[0])
	}
	for range before.Sorts {
		wantLive = append(wantLive, "sort-button")
	}
	wantLive = append(wantLive, "compare")
	if len(before.Groups) < 2 || len(before.Sorts) < 2 || !slices.Equal(before.Live, wantLive) {
		t.Errorf("controls working in the preview: %v; want the view's selects, Live, Refresh, the filter menus' searches and boxes, the group-by boxes and the sort buttons %v", before.Live, wantLive)
	}
	if !slices.Equal(before.Inert, []string{"from", "to"}) {
		t.Errorf("time inputs inert in the preview: %v, want from and to: only the wasm handles them", before.Inert)
	}
	cur := &url.URL{Path: "/", RawQuery: q.Encode()}
	pq := view.ParseQuery(q)
	// Each group-by box leads to the page with its label toggled.
	off := ""
	for _, g := range before.Groups {
		on := g[1] == "true"
		want := decodedHref(view.EditHref(cur, pq.WithGroup(pq.Grouping(), g[0], !on)))
		if g[2] != want {
			t.Errorf("group-by %s (checked %v) leads to %q, want %q", g[0], on, g[2], want)
		}
		if !on && off == "" {
			off = g[0]
		}
	}
	if off == "" {
		t.Fatalf("no group-by box to turn on: %v", before.Groups)
	}
	// Each sort button leads to the table sorted by its column, Live to
	// the relative window.
	for _, c := range before.Sorts {
		if want := decodedHref(view.EditHref(cur, pq.SortedBy(c[0]))); c[2] != want {
			t.Errorf("sort by %s leads to %q, want %q", c[0], c[2], want)
		}
	}
	if want := decodedHref(view.EditHref(cur, pq.Live())); before.LiveHref != want {
		t.Errorf("Live leads to %q, want %q", before.LiveHref, want)
	}
	for id, pairs := range before.Hrefs {
		if len(pairs) < 4 {
			t.Errorf("select %s: options %v", id, pairs)
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			want := decodedHref(view.SelectHref(cur, pq, id, pairs[i]))
			if pairs[i+1] != want {
				t.Errorf("select %s option %q leads to %q, want %q", id, pairs[i], pairs[i+1], want)
			}
		}
	}
	numEq(t, "preview mean length with the bonus token", before.MeanLength, w.Total.MeanAcceptanceLength)

	// Choose "without bonus token": the page it leads to, with its numbers.
	var next string
	for i := 0; i+1 < len(before.Hrefs["convention"]); i += 2 {
		if before.Hrefs["convention"][i] == view.ConventionNoBonus {
			next = before.Hrefs["convention"][i+1]
		}
	}
	if next == "" || !strings.HasPrefix(next, "/?") {
		t.Fatalf("no page for %q: %v", view.ConventionNoBonus, before.Hrefs["convention"])
	}
	// act runs js, which leads to another page, and reads that page's
	// preview once cond holds there.
	act := func(js, cond string) previewState {
		t.Helper()
		nav := nextPage(t, tab)
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { `+js+`; return true; })()`))
		nav(cond)
		return run(t, tab, 10*time.Second, chromedp.Evaluate[previewState](readJS))
	}
	after := act(`const s = document.querySelector('#specdash-preview select#convention');
	  s.value = `+strconv.Quote(view.ConventionNoBonus)+`;
	  s.dispatchEvent(new Event('change', {bubbles: true}))`, shown)
	if after.Page != next || after.Convention != view.ConventionNoBonus {
		t.Errorf("after the choice: page %q with convention %q, want %q with %q", after.Page, after.Convention, next, view.ConventionNoBonus)
	}
	numEq(t, "preview mean length without the bonus token", after.MeanLength, w.Total.MeanAcceptanceLengthNoBonus)

	// Turn a group-by label on: the page with it, its box checked.
	var grouped string
	for _, g := range after.Groups {
		if g[0] == off {
			grouped = g[2]
		}
	}
	after = act(`document.querySelector('#specdash-preview input[data-group=`+strconv.Quote(off)+`]').click()`, shown)
	checked := false
	for _, g := range after.Groups {
		checked = checked || (g[0] == off && g[1] == "true")
	}
	if after.Page != grouped || !checked || !slices.Contains(view.ParseQuery(mustURL(t, grouped).Query()).Grouping(), off) {
		t.Errorf("after turning on group-by %s: page %q (want %q), its box checked %v", off, after.Page, grouped, checked)
	}

	// Back: the page before, its box unchecked as rendered (not as the
	// browser may restore it), leading to the grouped page again.
	back := act(`history.back()`, shown+` && location.pathname + location.search !== `+strconv.Quote(grouped))
	for _, g := range back.Groups {
		if g[0] == off && (g[1] != "false" || g[2] != grouped) {
			t.Errorf("after Back, group-by %s: checked %s, leads to %q; want unchecked, leading to %q", off, g[1], g[2], grouped)
		}
	}
	// The keyboard: an arrow steps through the time zone's options
	// without leaving the page; Enter goes to the chosen one, whose page
	// gives the select the focus back.
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { window.__samePage = true; document.querySelector('#specdash-preview select#tz').focus(); return document.activeElement.id === 'tz'; })()`))
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.ArrowDown))
	stepped := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`[String(!!window.__samePage), document.querySelector('#specdash-preview select#tz').value]`))
	if stepped[0] != "true" || stepped[1] == back.Tz {
		t.Fatalf("after ArrowDown on the time zone (was %q): same page %s, value %q; want the page kept and the next option", back.Tz, stepped[0], stepped[1])
	}
	nav := nextPage(t, tab)
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Enter))
	nav(shown + ` && document.querySelector('#specdash-preview select#tz').value === ` + strconv.Quote(stepped[1]))
	if id := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ''`)); id != "tz" {
		t.Errorf("after choosing a time zone from the keyboard, the focus is on %q, want the select (tz)", id)
	}
	checkHintZone(t, tab, stepped[1])
	after = act(`location.assign(`+strconv.Quote(base+grouped)+`)`, shown)

	// Sort the table by a column: the page sorted by it.
	col := after.Sorts[len(after.Sorts)-1]
	after = act(`document.querySelector('#specdash-preview th.sortable[data-sort=`+strconv.Quote(col[0])+`] button').click()`, shown)
	sorted := ""
	for _, c := range after.Sorts {
		if c[0] == col[0] {
			sorted = c[1]
		}
	}
	if after.Page != col[2] || sorted == "none" || sorted == "" || sorted == col[1] {
		t.Errorf("after sorting by %s: page %q (want %q), aria-sort %q (was %q)", col[0], after.Page, col[2], sorted, col[1])
	}
	next = after.Page

	// A filter menu: open it, check a value: the page filtered by it (as
	// the live page's Query.SetFilter); its chip's remove button: the page
	// without it again. Each menu leads to the page without its filter.
	for _, f := range after.Filters {
		q := view.ParseQuery(mustURL(t, after.Page).Query())
		q.SetFilter(f[0], nil)
		if want := decodedHref(view.EditHref(mustURL(t, after.Page), q)); len(f) != 3 || f[1] != want || f[2] == "" {
			t.Errorf("filter menu %v: want no chip, leading to %q", f, want)
		}
	}
	if len(after.Filters) == 0 {
		t.Fatal("no filter menu in the preview")
	}
	fl := after.Filters[0][0]
	fsel := `#specdash-preview .control-filter[data-filter=` + strconv.Quote(fl) + `]`
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector(`+strconv.Quote(fsel+` summary`)+`).click(); return true; })()`))
	val := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(() => { const b = document.querySelector(`+strconv.Quote(fsel+` input[data-filter-value]`)+`);
	  return b && b.closest('details').open && !b.closest('[inert]') ? b.value : ''; })()`))
	v, ok := view.DecodeOptionOK(val)
	if !ok {
		t.Fatalf("filter menu %s: no value box that works once opened (%q)", fl, val)
	}
	unfiltered := after.Page
	filtered := view.ParseQuery(mustURL(t, unfiltered).Query())
	filtered.SetFilter(fl, []string{v})
	after = act(`document.querySelector(`+strconv.Quote(fsel+` input[data-filter-value]`)+`).click()`, shown)
	if got := view.ParseQuery(mustURL(t, after.Page).Query()); got.Values().Encode() != filtered.Values().Encode() || len(after.Filters) == 0 || !slices.Contains(after.Filters[0], v) {
		t.Errorf("after checking %s = %q: page %q, filters %v; want %q with its chip", fl, v, after.Page, after.Filters, filtered.Values().Encode())
	}
	after = act(`document.querySelector(`+strconv.Quote(fsel+` button.chip-remove`)+`).click()`, shown)
	if got := view.ParseQuery(mustURL(t, after.Page).Query()); got.Values().Encode() != view.ParseQuery(mustURL(t, unfiltered).Query()).Values().Encode() {
		t.Errorf("after removing the chip %s = %q: page %q, want %q", fl, v, after.Page, unfiltered)
	}

	// The model menu's search lists the values whose text holds it (any
	// case) and says when none does; Enter checks the first value listed:
	// the page filtered by it.
	msel := `#specdash-preview #model-menu`
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector(`+strconv.Quote(msel+` summary`)+`).click(); return true; })()`))
	search := chromedp.CSS(msel + ` input.filter-search`)
	listed := func() []string {
		t.Helper()
		return run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => {
		  const m = document.querySelector(`+strconv.Quote(msel)+`);
		  const none = m.querySelector('.filter-none');
		  return [...Array.from(m.querySelectorAll('.filter-option')).filter(o => getComputedStyle(o).display !== 'none').map(o => o.textContent.trim()),
		    ...(none && getComputedStyle(none).display !== 'none' ? ['(' + none.textContent + ')'] : [])];
		})()`))
	}
	step(t, tab, 10*time.Second, chromedp.SendKeys(search, "MODEL-B"))
	if got := listed(); !slices.Equal(got, []string{fixtures.ModelB}) {
		t.Errorf("search MODEL-B in the preview's model menu lists %q, want [%q]", got, fixtures.ModelB)
	}
	step(t, tab, 10*time.Second, chromedp.SendKeys(search, "x"))
	if got := listed(); !slices.Equal(got, []string{"(No value matches)"}) {
		t.Errorf("search MODEL-Bx lists %q, want none, said", got)
	}
	step(t, tab, 10*time.Second, chromedp.SendKeys(search, kb.Backspace))
	nav = nextPage(t, tab)
	step(t, tab, 10*time.Second, chromedp.SendKeys(search, kb.Enter))
	nav(shown)
	after = run(t, tab, 10*time.Second, chromedp.Evaluate[previewState](readJS))
	byModel := view.ParseQuery(mustURL(t, unfiltered).Query())
	byModel.SetFilter("model_name", []string{fixtures.ModelB})
	if got := view.ParseQuery(mustURL(t, after.Page).Query()); got.Values().Encode() != byModel.Values().Encode() {
		t.Errorf("after Enter in the model search: page %q, want %q", after.Page, byModel.Values().Encode())
	}
	after = act(`location.assign(`+strconv.Quote(base+unfiltered)+`)`, shown)

	// Zoom: a span selected with the mouse on a time chart (from the
	// middle of category a to that of b), then on the heatmap's columns
	// (what ECharts emits for a finished lineX selection): the page zoomed
	// to the span's buckets, as the live page's view.Query.Zoom.
	zoom := func(chart string, a, b int, byMouse bool) {
		t.Helper()
		sel := strconv.Quote(`#specdash-preview [data-chart="` + chart + `"]`)
		inst := `echarts.getInstanceByDom(document.querySelector(` + sel + `))`
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector(`+sel+`).scrollIntoView({block: 'center'}); return true; })()`))
		waitJS(t, tab, 30*time.Second, `!!window.echarts && !!`+inst)
		g := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => { const r = document.querySelector('#specdash-preview [data-dashboard]'); const el = document.querySelector(`+sel+`);
		  return [r.dataset.windowStart, r.dataset.stepSeconds, r.dataset.buckets, el.dataset.zoomFirst || '', location.pathname + location.search]; })()`))
		start, _ := strconv.ParseInt(g[0], 10, 64)
		stepS, _ := strconv.ParseFloat(g[1], 64)
		n, _ := strconv.Atoi(g[2])
		from, to := a, b
		if g[3] != "" {
			var first []int
			for _, f := range strings.Split(g[3], ",") {
				i, _ := strconv.Atoi(f)
				first = append(first, i)
			}
			from, to = model.ColumnBuckets(first, n, a, b)
		}
		stepMs := int64(math.Round(stepS * 1000))
		cur := mustURL(t, g[4])
		q := view.ParseQuery(cur.Query())
		q.From, q.To = start+int64(from)*stepMs, start+int64(to+1)*stepMs
		want := mustURL(t, decodedHref(view.EditHref(cur, q)))
		var got previewState
		if byMouse {
			p := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`(() => { const i = `+inst+`; const r = document.querySelector(`+sel+`).getBoundingClientRect();
			  const g = i.getModel().getComponent('grid', 0).coordinateSystem.getRect();
			  return [r.left + i.convertToPixel({xAxisIndex: 0}, `+strconv.Itoa(a)+`), r.left + i.convertToPixel({xAxisIndex: 0}, `+strconv.Itoa(b)+`), r.top + g.y + g.height / 2]; })()`))
			nav := nextPage(t, tab)
			drag(t, tab, p[0], p[1], p[2])
			nav(shown)
			got = run(t, tab, 10*time.Second, chromedp.Evaluate[previewState](readJS))
		} else {
			got = act(inst+`.trigger('brushend', {areas: [{coordRange: [`+strconv.Itoa(a)+`, `+strconv.Itoa(b)+`]}]})`, shown)
		}
		gotURL := mustURL(t, got.Page)
		if n == 0 || to < from || gotURL.Path != want.Path || view.ParseQuery(gotURL.Query()).Values().Encode() != view.ParseQuery(want.Query()).Values().Encode() {
			t.Errorf("zoom on %s over %d..%d (buckets %d..%d of %d): page %q, want %q", chart, a, b, from, to, n, got.Page, want)
		}
	}
	zoom(view.ChartAcceptanceRate, 10, 40, true)
	zoom(view.ChartHeatmap, 0, 1, false)
	after = act(`location.assign(`+strconv.Quote(base+next)+`)`, shown)

	// Refresh: the same page again, rendered anew.
	again := act(`document.querySelector('#specdash-preview button.refresh-now').click()`, shown)
	if again.Page != next || again.MeanLength != after.MeanLength {
		t.Errorf("after Refresh: page %q, mean length %q; want %q, %q", again.Page, again.MeanLength, next, after.MeanLength)
	}
	mu.Lock()
	defer mu.Unlock()
	if heldWasm == 0 {
		t.Error("no app.wasm request was held: the test cannot tell the preview from the wasm")
	}
}

// inZone puts the browser of tab in the time zone zone, with the cookie
// in which boot.js tells the server of base that zone (view.ZoneCookie)
// as after a first visit.
func inZone(t *testing.T, tab context.Context, base, zone string) {
	t.Helper()
	browserZone(t, tab, zone)
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: view.ZoneCookie, Value: zone, URL: base + "/"})
	}))
	t.Cleanup(func() { clearCookies(t, tab) })
}

// browserZone puts the browser of tab in the time zone zone.
func browserZone(t *testing.T, tab context.Context, zone string) {
	t.Helper()
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
	}))
	// boot.js's zone cookie (of 127.0.0.1: every port) would make the
	// next test's server pre-render in this zone, and that test's browser
	// skip the preview.
	t.Cleanup(func() { clearCookies(t, tab) })
}

// clearCookies clears the cookies of tab's browser, which its other tabs
// share (a cookie of 127.0.0.1 holds for every port: every test's
// server).
func clearCookies(t *testing.T, tab context.Context) {
	t.Helper()
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
	}))
}

// TestPreviewInBrowserZone: the pre-rendered page shows "local" times in
// the browser's zone, which the server learns from boot.js's cookie. A
// browser in another zone than the server on its first visit gets a page
// rendered in the server's zone and the server's offset
// (view.ServerZoneCookie); boot.js then asks for the page once more with
// its zone cookie, so that this visit too shows the preview, with the
// window's start in the browser's zone, as the live page then does. A
// later visit asks once; so does a first visit from the server's own
// offset.
func TestPreviewInBrowserZone(t *testing.T) {
	fx := fixtures.KnownAnswer()
	w := fx.Whole
	// A browser zone whose offset differs from the server's (the test
	// process's) over the window and now: 5 h 30 off UTC, or 9 h on a
	// server that is 5 h 30 off; neither has daylight saving time (Go's
	// wasm takes the browser's offset of today for every date).
	zone := hintZone
	if _, off := w.StartTime().In(time.Local).Zone(); off == 5*3600+1800 {
		zone = "Asia/Tokyo"
	}
	h := fixtureHandler(t, fx.OpenMetrics, 20*time.Second)
	var pages atomic.Int32 // the dashboard pages navigated to (not go-app's service worker's)
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && r.Header.Get("Sec-Fetch-Mode") == "navigate" {
			pages.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	tab := newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 1300))
	clearCookies(t, tab) // a first visit
	t.Cleanup(func() { clearCookies(t, tab) })
	browserZone(t, tab, zone)
	page := base + "/?" + url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	wantFrom := view.FormatLocalInput(w.StartTime().UnixMilli(), loc)
	type seen struct {
		Preview string `json:"preview"`
		Cookie  string `json:"cookie"`
		From    string `json:"from"`
	}
	const read = `(() => { const f = document.querySelector('#specdash-preview #from');
	  return {preview: document.body.dataset.preview || '', cookie: document.cookie, from: f ? f.value : ''}; })()`
	const settled = `!!document.body && !!document.body.dataset.preview`
	// The page boot.js asked for again (not the first one's state).
	again := nthPage(t, tab, 2)
	navigateNoWait(t, tab, page)
	again(settled)
	first := run(t, tab, 10*time.Second, chromedp.Evaluate[seen](read))
	// The cookie names the browser's zone (Chromium may name Asia/Kolkata
	// by its older alias, Asia/Calcutta); the server's offset is gone.
	_, name, _ := strings.Cut(first.Cookie, view.ZoneCookie+"=")
	name, _, _ = strings.Cut(name, ";")
	cl, err := time.LoadLocation(name)
	if err != nil || view.FormatLocalInput(w.StartTime().UnixMilli(), cl) != wantFrom || strings.Contains(first.Cookie, view.ServerZoneCookie) {
		t.Errorf("first visit from %s: cookies %q; want the zone's cookie, not %s", zone, first.Cookie, view.ServerZoneCookie)
	}
	if first.Preview != "shown" || first.From != wantFrom || pages.Load() != 2 {
		t.Errorf("first visit from %s: preview %q, From %q after %d page requests; want shown, %q after 2 (the server's zone, then the browser's)",
			zone, first.Preview, first.From, pages.Load(), wantFrom)
	}
	waitJS(t, tab, 60*time.Second, `!document.getElementById('specdash-preview') && (document.querySelector('body > [data-dashboard]') || {dataset: {}}).dataset.state === 'ready'`)
	if got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.getElementById('from').value`)); got != wantFrom {
		t.Errorf("live page's From %q, want %q as the preview's", got, wantFrom)
	}
	nav := nextPage(t, tab)
	navigateNoWait(t, tab, page)
	nav(settled)
	second := run(t, tab, 10*time.Second, chromedp.Evaluate[seen](read))
	if second.Preview != "shown" || second.From != wantFrom || pages.Load() != 3 {
		t.Errorf("second visit: preview %q, From %q, %d page requests in all; want shown, %q, 3", second.Preview, second.From, pages.Load(), wantFrom)
	}
	waitJS(t, tab, 60*time.Second, `!document.getElementById('specdash-preview') && (document.querySelector('body > [data-dashboard]') || {dataset: {}}).dataset.state === 'ready'`)

	// A first visit from a zone with the server's offset now: one request.
	_, off := time.Now().Zone()
	if off%3600 == 0 {
		clearCookies(t, tab)
		// Etc/GMT+5 is UTC-5.
		browserZone(t, tab, fmt.Sprintf("Etc/GMT%+d", -off/3600))
		before := pages.Load()
		nav := nextPage(t, tab)
		navigateNoWait(t, tab, page)
		nav(settled)
		waitJS(t, tab, 60*time.Second, `(document.querySelector('body > [data-dashboard]') || {dataset: {}}).dataset.state === 'ready'`)
		if got := pages.Load() - before; got != 1 {
			t.Errorf("first visit from the server's offset: %d page requests, want 1", got)
		}
	}
}

// TestLiveTimesAcrossDaylightSaving: the live page shows a window on the
// other side of a daylight saving change from today in that date's offset,
// as the pre-render does (Go's js/wasm gave every date today's offset:
// cmd/specdash's browserLocal), and its footer names the offset of the
// window, not today's. The browser is in New York; the windows are in
// January or July, whichever has not today's offset there, of this year
// and of 2020 (more than five years back: the zone reaches back to
// view.MinTime), and the fixture's window (June, with data: the footer).
func TestLiveTimesAcrossDaylightSaving(t *testing.T) {
	const zone = "America/New_York"
	ny, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	_, today := now.In(ny).Zone()
	fx := fixtures.KnownAnswer()
	// No numbers pre-rendered: a state of ready or error is the live
	// page's (the server's page would show its own, right, times).
	base, tab := previewSiteWith(t, fx.OpenMetrics, -1)
	browserZone(t, tab, zone)
	for _, year := range []int{now.Year(), 2020} {
		start := time.Date(year, time.January, 15, 12, 0, 0, 0, time.UTC)
		if _, off := start.In(ny).Zone(); off == today {
			start = time.Date(year, time.July, 15, 12, 0, 0, 0, time.UTC)
		}
		end := start.Add(6 * time.Hour)
		nav := nextPage(t, tab)
		navigateNoWait(t, tab, base+"/?"+url.Values{"from": {start.Format(time.RFC3339)}, "to": {end.Format(time.RFC3339)}}.Encode())
		nav(`!!document.body`)
		waitJS(t, tab, 60*time.Second, `['ready', 'error'].includes((document.querySelector('body > [data-dashboard]') || {dataset: {}}).dataset.state)`)
		type shown struct {
			From string `json:"from"`
			To   string `json:"to"`
		}
		got := run(t, tab, 10*time.Second, chromedp.Evaluate[shown](`({from: document.getElementById('from').value, to: document.getElementById('to').value})`))
		from, to := view.FormatLocalInput(start.UnixMilli(), ny), view.FormatLocalInput(end.UnixMilli(), ny)
		if got.From != from || got.To != to {
			t.Errorf("live page in %s on %s: From/To %q, %q, want %q, %q (that date's offset, not today's)", zone, now.Format(time.DateOnly), got.From, got.To, from, to)
		}
	}
	// The fixture's window (June, UTC-4 in New York), which has data: the
	// footer names its offset as Go's js/wasm names it (today's was named
	// before, UTC-5 in winter).
	w := fx.Whole
	nav := nextPage(t, tab)
	navigateNoWait(t, tab, base+"/?"+url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}.Encode())
	nav(`!!document.body`)
	waitJS(t, tab, 60*time.Second, `(document.querySelector('body > [data-dashboard]') || {dataset: {}}).dataset.state === 'ready'`)
	footer := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(document.querySelector('footer') || {}).textContent || ''`))
	_, off := w.EndTime().In(ny).Zone()
	want := "Window " + view.FormatLocalInput(w.StartTime().UnixMilli(), ny) + " – " + w.EndTime().In(ny).Format("15:04:05") + " UTC-" + strconv.Itoa(-off/3600) + " "
	if !strings.Contains(footer, want) {
		t.Errorf("live page's footer %q, want %q...", footer, want)
	}
}

// TestPreviewHandsOver: what a user did in the preview that loads no page
// goes on in the live dashboard: a filter menu opened and searched in
// the preview while the wasm is held back is open in the live page once
// the overlay is gone, with the same search text and the live menu
// listing only the matching value, and the focus is still in its search.
func TestPreviewHandsOver(t *testing.T) {
	fx := fixtures.KnownAnswer()
	base, tab := previewSite(t, fx.OpenMetrics)
	gates := holdRequests(t, tab, map[string]string{"app.wasm": "wasm"})
	release := func() { gates.open("wasm") }
	w := fx.Whole
	q := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}
	navigateNoWait(t, tab, base+"/?"+q.Encode())
	waitJS(t, tab, 30*time.Second, `!!document.body && document.body.dataset.preview === 'shown' && !!document.querySelector('#specdash-preview #model-menu summary')`)
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector('#specdash-preview #model-menu summary').click(); return true; })()`))
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#specdash-preview #model-search`), "model-B"))

	release()
	waitJS(t, tab, 60*time.Second, `!document.getElementById('specdash-preview') && (document.querySelector('body > [data-dashboard]') || {}).dataset.state === 'ready'`)
	// The live menu lists what go-app renders for the search (its
	// handler ran): only the matching value.
	waitJS(t, tab, 10*time.Second, `document.querySelectorAll('#model-menu .filter-option').length === 1`)
	type liveMenu struct {
		Open    bool     `json:"open"`
		Search  string   `json:"search"`
		Values  []string `json:"values"`
		Focused string   `json:"focused"`
	}
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[liveMenu](`(() => {
	  const m = document.getElementById('model-menu');
	  return {open: m.open, search: document.getElementById('model-search').value,
	    values: Array.from(m.querySelectorAll('.filter-option')).map(o => o.textContent.trim()),
	    focused: document.activeElement ? document.activeElement.id : ''};
	})()`))
	if want := (liveMenu{Open: true, Search: "model-B", Values: []string{fixtures.ModelB}, Focused: "model-search"}); !reflect.DeepEqual(got, want) {
		t.Errorf("live model menu after the preview: %+v, want %+v", got, want)
	}
}

// nextPage returns a wait for the tab's next document: it returns once
// the main frame has committed a navigation that started after the call
// and the JS expression cond holds in the new document. (chromedp's
// polls fail, rather than wait, while the old document's context goes:
// cond is evaluated again until it holds.)
func nextPage(t *testing.T, tab context.Context) (wait func(cond string)) {
	t.Helper()
	return nthPage(t, tab, 1)
}

// nthPage is nextPage for the n-th document the main frame commits after
// the call (2: a page that asked for itself again).
func nthPage(t *testing.T, tab context.Context, n int) (wait func(cond string)) {
	t.Helper()
	ch := make(chan struct{})
	var mu sync.Mutex
	seen := 0
	_ = chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*cdppage.EventFrameNavigated); ok && e.Frame.ParentID == "" {
			mu.Lock()
			defer mu.Unlock()
			if seen++; seen == n {
				close(ch)
			}
		}
	})
	return func(cond string) {
		t.Helper()
		deadline := time.After(30 * time.Second * waitSlack)
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("the page did not navigate")
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			ctx, cancel := context.WithTimeout(tab, 10*time.Second)
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
			cancel()
			if err == nil && ok {
				return
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("after the navigation, %s did not hold (last error: %v)", cond, err)
			}
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// previewSite serves specdash in front of a Prometheus backfilled with om,
// the pre-render bounded by 20 s (numbers, not speed, are checked), and
// opens a tab of 1440 x 1300 CSS pixels: the health row and the
// window-and-now cards come before the charts, so the per-position chart
// is in the first screen.
func previewSite(t *testing.T, om string) (base string, tab context.Context) {
	t.Helper()
	return previewSiteWith(t, om, 20*time.Second)
}

// previewSiteWith is previewSite with the pre-render's budget preRender
// (negative: no numbers pre-rendered).
func previewSiteWith(t *testing.T, om string, preRender time.Duration) (base string, tab context.Context) {
	t.Helper()
	base = serve(t, fixtureHandler(t, om, preRender))
	tab = newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 1300))
	return base, tab
}

// fixtureHandler is a specdash server (not serving yet) of a Prometheus
// with om backfilled, at the fixtures' step, with the pre-render's budget
// preRender (0: the default; negative: no numbers pre-rendered).
func fixtureHandler(t *testing.T, om string, preRender time.Duration) http.Handler {
	t.Helper()
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om)})
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Duration(fixtures.StepSeconds) * time.Second,
		Version: "e2e", PreRenderTimeout: preRender})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// navigateNoWait navigates tab to u without waiting for the load event
// (not chromedp.Navigate: a held deferred script holds the load back).
func navigateNoWait(t *testing.T, tab context.Context, u string) {
	t.Helper()
	run(t, tab, 30*time.Second, chromedp.Action[cdppage.NavigateResult](func(ctx context.Context, tg *chromedp.Target) (cdppage.NavigateResult, error) {
		return cdp.Call(ctx, tg, cdppage.Navigate, cdppage.NavigateParams{URL: u})
	}))
}

// decodedHref is a data-href as preview.js reads it ("" stays "").
func decodedHref(h string) string {
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return h
	}
	return string(b)
}

// TestPreviewChipFocus: a chip removed in the preview (a link to the page
// without that value: the page reloads) leaves the keyboard's focus where
// the live page leaves it (TestFilterFocusStays): on the chip that took
// its place, else the one before it, on the new page's preview and then,
// handed over, on the live page's same chip.
func TestPreviewChipFocus(t *testing.T) {
	fx := fixtures.KnownAnswer()
	base, tab := previewSite(t, fx.OpenMetrics)
	gates := holdRequests(t, tab, map[string]string{"app.wasm": "wasm"})
	w := fx.Whole
	q := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}, "model": {fixtures.ModelA, fixtures.ModelB, "zzz"}}
	navigateNoWait(t, tab, base+"/?"+q.Encode())
	const shown = `!!document.body && document.body.dataset.preview === 'shown' && document.querySelectorAll('#specdash-preview [data-chip="model_name"]').length === `
	waitJS(t, tab, 30*time.Second, shown+`3`)
	const focusJS = `(() => { const a = document.activeElement;
	  if (!a || !a.closest('[data-filter]')) return (a ? a.tagName : '') + ' outside the filters';
	  const h = a.querySelector('.visually-hidden');
	  return (a.closest('#specdash-preview') ? 'preview ' : 'live ') + (a.matches('button.chip-remove') ? h.textContent : a.tagName + ' of ' + a.closest('[data-filter]').dataset.filter);
	})()`
	chips := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#specdash-preview [data-chip="model_name"] .chip-text')).map(c => c.textContent)`))
	if len(chips) != 3 {
		t.Fatalf("preview chips %q, want 3", chips)
	}
	press := func(i, left int, want string) {
		t.Helper()
		nav := nextPage(t, tab)
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { document.querySelectorAll('#specdash-preview [data-chip="model_name"] .chip-remove')[%d].focus(); return true; })()`, i)))
		step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Enter))
		nav(shown + strconv.Itoa(left))
		waitJS(t, tab, 10*time.Second, `!!document.activeElement && document.activeElement !== document.body`)
		if got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](focusJS)); got != want {
			t.Errorf("after removing chip %d in the preview: focus on %q, want %q", i, got, want)
		}
	}
	// The middle chip: the third takes its place; then the last: the one
	// before it.
	press(1, 2, "preview Remove filter model_name = "+chips[2])
	press(1, 1, "preview Remove filter model_name = "+chips[0])
	// Handed over to the live page: the same chip there.
	gates.open("wasm")
	waitJS(t, tab, 60*time.Second, `!document.getElementById('specdash-preview') && (document.querySelector('body > [data-dashboard]') || {}).dataset.state === 'ready'`)
	if got, want := run(t, tab, 10*time.Second, chromedp.Evaluate[string](focusJS)), "live Remove filter model_name = "+chips[0]; got != want {
		t.Errorf("handed over to the live page: focus on %q, want %q", got, want)
	}
}
