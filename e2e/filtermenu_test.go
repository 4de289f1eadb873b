//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/server"
	"specdash/simulate"
	"specdash/view"
)

// twoModelsOnTwoInstances starts model "alpha" with engines 0 and 1 and
// model "beta" with engine 7, each on its own simulator, scraped by one
// real Prometheus, and a specdash server in front of it.
func twoModelsOnTwoInstances(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var targets []string
	for _, cfg := range []simulate.Config{
		{Models: []string{"alpha"}, EngineIDs: []string{"0", "1"}, K: 3, Acceptance: []float64{0.8}, DraftsPerSecond: 20, Seed: 21},
		{Models: []string{"beta"}, EngineIDs: []string{"7"}, K: 3, Acceptance: []float64{0.5}, DraftsPerSecond: 20, Seed: 22},
	} {
		sim, err := simulate.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		go sim.Run(ctx)
		srv := httptest.NewServer(sim)
		t.Cleanup(srv.Close)
		targets = append(targets, strings.TrimPrefix(srv.URL, "http://"))
	}
	prom := promtest.Start(t, promtest.Options{Targets: targets, ScrapeInterval: time.Second})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 3`, promtest.NonEmpty, 60*time.Second)
	prom.WaitFor(t, `min(count_over_time(vllm:spec_decode_num_drafts_total[1m])) >= 4`, promtest.NonEmpty, 60*time.Second)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h)
}

// filterMenuState is what readFilterMenuJS reads of the filter menus.
type filterMenuState struct {
	State   string              `json:"state"`
	Search  string              `json:"search"`
	Options map[string][]string `json:"options"` // label -> listed values
	Checked map[string][]string `json:"checked"` // label -> checked values
	Chips   map[string][]string `json:"chips"`   // label -> chip texts
	Remove  []string            `json:"remove"`  // chip remove buttons' accessible names
	Summary string              `json:"summary"`
	URL     string              `json:"url"`
}

const readFilterMenuJS = `(() => {
  const out = {state: '', options: {}, checked: {}, chips: {}, remove: [], summary: '', url: location.search};
  const root = document.querySelector('[data-dashboard]');
  if (root) out.state = root.dataset.state || '';
  for (const f of document.querySelectorAll('[data-filter]')) {
    const l = f.dataset.filter;
    const boxes = Array.from(f.querySelectorAll('input[type=checkbox][data-filter-value]'));
    out.options[l] = boxes.map(b => b.parentElement.textContent);
    out.checked[l] = boxes.filter(b => b.checked).map(b => b.parentElement.textContent);
    out.chips[l] = Array.from(f.querySelectorAll('[data-chip] .chip-text')).map(c => c.textContent);
    for (const b of f.querySelectorAll('.chip-remove')) out.remove.push(b.querySelector('.visually-hidden').textContent);
  }
  const s = document.querySelector('[data-filter-summary]');
  out.summary = s ? s.textContent : '';
  return out;
})()`

func readFilterMenus(t *testing.T, tab context.Context) filterMenuState {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[filterMenuState](readFilterMenuJS))
}

// waitFilterMenus waits until cond (a JS expression over s, the
// readFilterMenuJS result) holds, and returns the state.
func waitFilterMenus(t *testing.T, tab context.Context, timeout time.Duration, cond string) filterMenuState {
	t.Helper()
	waitJS(t, tab, timeout, `(() => { const s = `+readFilterMenuJS+`; return !!(`+cond+`); })()`)
	return readFilterMenus(t, tab)
}

// TestFilterMenus: the filter menus as Grafana's variables work: a value
// in the URL that no series has (engine=9) is a chip and a checked box and
// in the summary line; its chip's remove button (named "Remove filter
// engine = 9") clears it. The model menu's search narrows the list as one
// types and Enter picks the first match (keyboard only); the chosen model
// is a chip, the URL says model=beta, the summary line reads "model = beta
// · last 5 min · ...", and the engine menu lists only beta's engine (7),
// not alpha's 0 and 1 (chained label values).
func TestFilterMenus(t *testing.T) {
	base := twoModelsOnTwoInstances(t)
	tab := newTab(t)

	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&engine=9"))
	waitJS(t, tab, 120*time.Second, `!document.getElementById('specdash-preview') && ['ready', 'error'].includes((document.querySelector('[data-dashboard]') || {dataset: {}}).dataset.state)`)
	// Closed, a live menu renders no options (filterState.open).
	if s := readFilterMenus(t, tab); len(s.Options["engine"]) != 0 || len(s.Options["model_name"]) != 0 {
		t.Errorf("closed menus list %q, want no options rendered", s.Options)
	}
	openFilterMenus(t, tab, "engine-menu")
	s := waitFilterMenus(t, tab, 30*time.Second, `(s.options.engine || []).length >= 3`)
	if !slices.Equal(s.Chips["engine"], []string{"9"}) || !slices.Equal(s.Checked["engine"], []string{"9"}) {
		t.Errorf("engine=9 from the URL: chips %q, checked %q; want the value shown as chosen", s.Chips["engine"], s.Checked["engine"])
	}
	if want := []string{"0", "1", "7", "9"}; !slices.Equal(s.Options["engine"], want) {
		t.Errorf("engine menu lists %q, want %q (the engines that exist, and the chosen 9)", s.Options["engine"], want)
	}
	if !strings.HasPrefix(s.Summary, "engine = 9 · last 5 min") {
		t.Errorf("summary line %q, want it to start with %q", s.Summary, "engine = 9 · last 5 min")
	}
	if !slices.Contains(s.Remove, "Remove filter engine = 9") {
		t.Errorf("chip remove buttons named %q, want %q", s.Remove, "Remove filter engine = 9")
	}
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`[data-chip="engine"] .chip-remove`)))
	s = waitFilterMenus(t, tab, 60*time.Second, `s.state === 'ready' && !new URLSearchParams(s.url).has('engine')`)
	if len(s.Chips["engine"]) != 0 || !strings.HasPrefix(s.Summary, "all series · last 5 min") {
		t.Errorf("after removing the chip: chips %q, summary %q", s.Chips["engine"], s.Summary)
	}

	// Keyboard: open the model menu, type, Enter.
	step(t, tab, 10*time.Second, chromedp.Focus(chromedp.CSS(`#model-menu > summary`)))
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Enter))
	waitJS(t, tab, 10*time.Second, `document.getElementById('model-menu').open === true`)
	s = waitFilterMenus(t, tab, 30*time.Second, `(s.options.model_name || []).length > 0`)
	if want := []string{"alpha", "beta"}; !slices.Equal(s.Options["model_name"], want) {
		t.Errorf("model menu lists %q, want %q", s.Options["model_name"], want)
	}
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#model-search`), "BET"))
	s = waitFilterMenus(t, tab, 30*time.Second, `(s.options.model_name || []).join() === 'beta'`)
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#model-search`), kb.Enter))
	s = waitFilterMenus(t, tab, 60*time.Second, `s.state === 'ready' && new URLSearchParams(s.url).getAll('model').join() === 'beta'`)
	if !slices.Equal(s.Chips["model_name"], []string{"beta"}) || !slices.Contains(s.Remove, "Remove filter model_name = beta") {
		t.Errorf("after picking beta: chips %q, remove buttons %q", s.Chips["model_name"], s.Remove)
	}
	if !strings.HasPrefix(s.Summary, "model = beta · last 5 min · source ") {
		t.Errorf("summary line %q, want %q...", s.Summary, "model = beta · last 5 min · source ")
	}
	// Chained: the engine menu lists beta's engine only (read in the
	// background after the load).
	openFilterMenus(t, tab, "engine-menu")
	s = waitFilterMenus(t, tab, 60*time.Second, `(s.options.engine || []).join() === '7'`)
	if !slices.Equal(s.Options["engine"], []string{"7"}) {
		t.Errorf("engine menu under model = beta lists %q, want [7]", s.Options["engine"])
	}
	// The model menu itself still lists both (its own filter is not applied to it).
	if want := []string{"beta"}; !slices.Equal(s.Checked["model_name"], want) {
		t.Errorf("model menu checked %q, want %q", s.Checked["model_name"], want)
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => {
	  const i = document.getElementById('model-search');
	  i.value = '';
	  return i.dispatchEvent(new Event('input', {bubbles: true}));
	})()`))
	waitFilterMenus(t, tab, 30*time.Second, `(s.options.model_name || []).join() === 'alpha,beta'`)
}

// TestTimeCrosshair: hovering a bucket on one time chart shows the
// tooltip and axis pointer at the same time on the others (charts.js
// link): the drafts-per-second chart gets a showTip at the category the
// pointer is on in the acceptance-rate chart, and its tooltip shows that
// bucket's time. The time charts share their plot area's left edge.
func TestTimeCrosshair(t *testing.T) {
	base := twoModelsOnTwoInstances(t)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitReady(t, tab, 120*time.Second)
	waitJS(t, tab, 60*time.Second, `(() => {
	  for (const n of ['acceptance-rate', 'drafts-per-second', 'acceptance-length']) {
	    const el = document.querySelector('[data-chart="' + n + '"]');
	    const inst = el && window.echarts && echarts.getInstanceByDom(el);
	    if (!inst || !(inst.getOption().xAxis || [{}])[0].data) return false;
	  }
	  return true;
	})()`)
	type target struct {
		X, Y     float64
		Label    string
		Lefts    []float64
		Disabled bool
	}
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[target](`(() => {
	  const get = n => echarts.getInstanceByDom(document.querySelector('[data-chart="' + n + '"]'));
	  const src = get('acceptance-rate'), other = get('drafts-per-second');
	  window.__tips = [];
	  other.on('showTip', e => window.__tips.push(Math.round(other.convertFromPixel({gridIndex: 0}, [e.x, e.y])[0])));
	  const el = src.getDom();
	  el.scrollIntoView({block: 'center'});
	  const r = el.getBoundingClientRect();
	  const cats = src.getOption().xAxis[0].data;
	  const idx = Math.floor(cats.length / 2);
	  const g = src.getModel().getComponent('grid', 0).coordinateSystem.getRect();
	  const lefts = ['acceptance-rate', 'drafts-per-second', 'acceptance-length', 'token-throughput']
	    .map(n => get(n)).filter(Boolean).map(i => i.getModel().getComponent('grid', 0).coordinateSystem.getRect().x);
	  return {x: r.left + src.convertToPixel({xAxisIndex: 0}, idx), y: r.top + g.y + g.height / 2, label: cats[idx], lefts};
	})()`))
	for _, l := range p.Lefts {
		if l != p.Lefts[0] {
			t.Errorf("time charts' plot areas start at %v, want one x", p.Lefts)
			break
		}
	}
	if len(p.Lefts) < 3 {
		t.Errorf("plot areas of %d time charts read, want at least 3", len(p.Lefts))
	}
	move := func(x, y float64) { step(t, tab, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, x, y)) }
	move(p.X-30, p.Y)
	move(p.X, p.Y)
	label, _ := json.Marshal(p.Label)
	waitJS(t, tab, 30*time.Second, fmt.Sprintf(`(() => {
	  const other = echarts.getInstanceByDom(document.querySelector('[data-chart="drafts-per-second"]'));
	  const cats = other.getOption().xAxis[0].data;
	  if (!window.__tips.some(i => cats[i] === %s)) return false;
	  // ECharts' HTML tooltip, shown, with the bucket's time.
	  return Array.from(other.getDom().querySelectorAll('div')).some(d =>
	    d.style.position === 'absolute' && d.style.display !== 'none' && d.style.opacity !== '0' && d.textContent.includes(%s));
	})()`, label, label))
	// Leaving the chart hides the others' tooltips.
	move(5, 5)
}

// TestZoomBack: selecting a span on a time chart zooms (an absolute
// window in the URL) as a new history entry; the browser's Back returns
// to the previous view: the relative 5-minute window, without from/to.
func TestZoomBack(t *testing.T) {
	base := twoModelsOnTwoInstances(t)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
	waitReady(t, tab, 120*time.Second)
	waitJS(t, tab, 60*time.Second, `(() => {
	  const el = document.querySelector('[data-chart="acceptance-rate"]');
	  const inst = el && window.echarts && echarts.getInstanceByDom(el);
	  return !!inst && !!inst.getModel().getComponent('brush') && (inst.getOption().xAxis[0].data || []).length > 60;
	})()`)
	// The zoom below selects buckets n-40 .. n-10: reload until the
	// sources, started just before the test, have data in all of them, so
	// that the zoomed window has data on any machine.
	filled := `(() => {
	  const inst = echarts.getInstanceByDom(document.querySelector('[data-chart="acceptance-rate"]'));
	  const d = (inst && inst.getOption().series[0].data) || [];
	  const v = x => x !== null && x !== undefined && x !== '-' && !(typeof x === 'object' && (x.value === '-' || x.value === null || x.value === undefined));
	  return d.slice(-40, -10).filter(v).length >= 30;
	})()`
	if !testwait.Until(3*time.Minute, func() bool {
		if run(t, tab, 10*time.Second, chromedp.Evaluate[bool](filled)) {
			return true
		}
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m"))
		waitReady(t, tab, 120*time.Second)
		waitJS(t, tab, 60*time.Second, `(() => {
		  const el = document.querySelector('[data-chart="acceptance-rate"]');
		  const inst = el && window.echarts && echarts.getInstanceByDom(el);
		  return !!inst && (inst.getOption().xAxis[0].data || []).length > 60;
		})()`)
		return false
	}) {
		t.Fatal("the sources never filled the buckets the zoom selects")
	}
	type before struct {
		Span    float64
		History int
		X1, X2  float64
		Y       float64
	}
	b := run(t, tab, 10*time.Second, chromedp.Evaluate[before](`(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const inst = echarts.getInstanceByDom(document.querySelector('[data-chart="acceptance-rate"]'));
	  const el = inst.getDom();
	  el.scrollIntoView({block: 'center'});
	  const rect = el.getBoundingClientRect();
	  const n = inst.getOption().xAxis[0].data.length;
	  const g = inst.getModel().getComponent('grid', 0).coordinateSystem.getRect();
	  return {span: r.dataset.windowEnd - r.dataset.windowStart, history: history.length,
	    // The newest complete part of the window (the sources started
	    // shortly before the test: the oldest buckets have no data).
	    x1: rect.left + inst.convertToPixel({xAxisIndex: 0}, n - 40),
	    x2: rect.left + inst.convertToPixel({xAxisIndex: 0}, n - 10),
	    y: rect.top + g.y + g.height / 2};
	})()`))
	if b.Span != 5*60*1000 {
		t.Fatalf("window before the zoom spans %v ms, want 5 min", b.Span)
	}
	drag(t, tab, b.X1, b.X2, b.Y)
	waitJS(t, tab, 60*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const q = new URLSearchParams(location.search);
	  return q.has('from') && q.has('to') && r.dataset.state === 'ready' && (r.dataset.windowEnd - r.dataset.windowStart) < 5 * 60 * 1000;
	})()`)
	if h := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`history.length`)); h != b.History+1 {
		t.Errorf("history length %d after the zoom, want %d (a new entry)", h, b.History+1)
	}
	zoomed := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`))
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(history.back(), true)`))
	waitJS(t, tab, 60*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const q = new URLSearchParams(location.search);
	  return !q.has('from') && q.get('range') === '5m' && r.dataset.state === 'ready' && (r.dataset.windowEnd - r.dataset.windowStart) === 5 * 60 * 1000;
	})()`)
	got, _ := url.ParseQuery(strings.TrimPrefix(run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`)), "?"))
	if got.Encode() != "range=5m" {
		t.Errorf("after Back the URL is %q, want range=5m (zoomed: %s)", got.Encode(), zoomed)
	}
	if v := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.getElementById('range').value`)); v != "5m" {
		t.Errorf("range control after Back: %q, want 5m", v)
	}
}

// TestFilterMenuDismiss: the filter menus close as Grafana's do. A click
// outside an open menu (on the page's title) closes it; opening another
// menu closes the first; Escape closes the menu wherever the focus is in
// it (a value's checkbox, not only the search box) and puts the focus
// back on the menu's toggle; a click inside the menu (its search box)
// leaves it open.
func TestFilterMenuDismiss(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 900))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+layoutWindow().Encode()))
	waitReady(t, tab, 90*time.Second)
	isOpen := func(id string) bool {
		return run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`document.getElementById('`+id+`').open`))
	}
	// Opened, a menu renders its value boxes (closed, none: filterState.open).
	openMenu := func(id string) {
		t.Helper()
		step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#`+id+` > summary`)))
		waitJS(t, tab, 10*time.Second, `document.getElementById('`+id+`').open === true && document.querySelectorAll('#`+id+` input[type=checkbox]').length > 0`)
	}
	if n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('#model-menu input[type=checkbox]').length`)); n != 0 {
		t.Errorf("the closed model menu renders %d value boxes, want none", n)
	}

	// Outside click (real mouse events at the page title).
	openMenu("model-menu")
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#model-search`)))
	if !isOpen("model-menu") {
		t.Fatal("a click in the menu's search box closed the menu")
	}
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`.brand h1`)))
	waitJS(t, tab, 10*time.Second, `document.getElementById('model-menu').open === false`)

	// Opening another menu closes the first.
	openMenu("model-menu")
	openMenu("engine-menu")
	if isOpen("model-menu") {
		t.Error("the model menu stayed open when the engine menu was opened")
	}

	// Escape with the focus on a value's checkbox: closed, focus on the toggle.
	step(t, tab, 10*time.Second, chromedp.Focus(chromedp.CSS(`#engine input[type=checkbox]`)))
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Escape))
	// Closed again, it drops its boxes.
	waitJS(t, tab, 10*time.Second, `document.getElementById('engine-menu').open === false && document.querySelectorAll('#engine-menu input[type=checkbox]').length === 0`)
	if focus := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(() => { const a = document.activeElement; return a ? a.tagName + '#' + (a.parentElement ? a.parentElement.id : '') : ''; })()`)); focus != "SUMMARY#engine-menu" {
		t.Errorf("after Escape the focus is on %q, want the engine menu's toggle (SUMMARY#engine-menu)", focus)
	}
	// Escape from the search box too.
	openMenu("model-menu")
	step(t, tab, 10*time.Second, chromedp.Focus(chromedp.CSS(`#model-search`)))
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Escape))
	waitJS(t, tab, 10*time.Second, `document.getElementById('model-menu').open === false && document.activeElement === document.querySelector('#model-menu > summary')`)
	// Nothing was chosen along the way.
	if q := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`)); strings.Contains(q, "model=") || strings.Contains(q, "engine=") {
		t.Errorf("closing the menus changed the filters: %s", q)
	}
}

// TestFilterMenuLabelShift: a menu open when the list of labels changes
// does not pass its open state to the menu that takes its place. The
// f.aaa filter (a label no series has) is a menu before instance; Enter
// in its search unticks its one value, the filter goes and instance's
// menu moves up into its place: no menu is then open without its values,
// and instance's search is empty. Then Escape in a search (Chrome clears
// the box with a search event, no input event) leaves no stale filter:
// reopened, the menu lists every value.
func TestFilterMenuLabelShift(t *testing.T) {
	base := twoModelsOnTwoInstances(t)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&f.aaa=x"))
	waitJS(t, tab, 120*time.Second, `!document.getElementById('specdash-preview') && ['ready', 'error'].includes((document.querySelector('[data-dashboard]') || {dataset: {}}).dataset.state)`)
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#f-aaa-menu > summary`)))
	waitJS(t, tab, 10*time.Second, `document.getElementById('f-aaa-menu').open && document.querySelectorAll('#f-aaa input[type=checkbox]').length === 1`)
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#f-aaa-search`), "x"))
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#f-aaa-search`), kb.Enter))
	waitJS(t, tab, 60*time.Second, `!new URLSearchParams(location.search).has('f.aaa') && !document.getElementById('f-aaa-menu') && (document.querySelector('[data-dashboard]') || {dataset: {}}).dataset.state === 'ready'`)
	type menu struct {
		ID     string `json:"id"`
		Open   bool   `json:"open"`
		Boxes  int    `json:"boxes"`
		None   bool   `json:"none"`
		Search string `json:"search"`
	}
	menus := run(t, tab, 10*time.Second, chromedp.Evaluate[[]menu](`Array.from(document.querySelectorAll('[data-filter] details.filter-menu')).map(m => ({
	  id: m.id, open: m.open, boxes: m.querySelectorAll('input[type=checkbox]').length,
	  none: !!m.querySelector('.filter-none'), search: m.querySelector('input.filter-search').value}))`))
	if len(menus) == 0 {
		t.Fatal("no filter menu")
	}
	for _, m := range menus {
		if m.Open && m.Boxes == 0 && !m.None {
			t.Errorf("menu %s is open with no values and no \"No value matches\" (%+v)", m.ID, menus)
		}
	}
	// Opened, instance's menu shows its own (empty) search and its values.
	for _, m := range menus {
		if m.Open {
			run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.getElementById(`+strconv.Quote(m.ID)+`).open = false; return true; })()`))
		}
	}
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#f-instance-menu > summary`)))
	waitJS(t, tab, 10*time.Second, `document.getElementById('f-instance-menu').open && document.querySelectorAll('#f-instance input[type=checkbox]').length > 0`)
	if search := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.getElementById('f-instance-search').value`)); search != "" {
		t.Errorf("instance menu's search reads %q, want it empty (the removed menu's text)", search)
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.getElementById('f-instance-menu').open = false; return true; })()`))

	// Escape in a search, then the menu again: every value.
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#model-menu > summary`)))
	waitJS(t, tab, 10*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length === 2`)
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#model-search`), "zz"))
	waitJS(t, tab, 10*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length === 0 && !!document.querySelector('#model-menu .filter-none')`)
	step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Escape))
	waitJS(t, tab, 10*time.Second, `document.getElementById('model-menu').open === false`)
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#model-menu > summary`)))
	waitJS(t, tab, 10*time.Second, `document.getElementById('model-menu').open === true`)
	s := waitFilterMenus(t, tab, 10*time.Second, `(s.options.model_name || []).length > 0 || !!document.querySelector('#model-menu .filter-none')`)
	search := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.getElementById('model-search').value`))
	if want := []string{"alpha", "beta"}; !slices.Equal(s.Options["model_name"], want) || search != "" {
		t.Errorf("after Escape in the search and reopening: search %q, values %q; want %q and %q", search, s.Options["model_name"], "", want)
	}
}

// TestFilterFocusStays: a keyboard user who removes a filter keeps the
// focus in the filter, not at the page's start (the button they pressed
// goes with its chip): removing a chip that has one after it leaves the
// focus on the button now naming that next chip; removing the last chip
// moves it to the previous chip's button; removing the only chip, to the
// menu's toggle; the menu's Clear, to its search box.
func TestFilterFocusStays(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	q := layoutWindow()
	q["model"] = []string{"model-a", "model-b", "zzz"}
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReadyState(t, tab, 90*time.Second)
	const focusJS = `(() => {
	  const a = document.activeElement;
	  if (!a) return '';
	  if (a.classList.contains('chip-remove')) return 'chip: ' + a.querySelector('.visually-hidden').textContent;
	  return a.tagName + '#' + (a.id || (a.parentElement ? a.parentElement.id : ''));
	})()`
	press := func(sel, models, wantFocus string) {
		t.Helper()
		step(t, tab, 10*time.Second, chromedp.Focus(chromedp.CSS(sel)))
		step(t, tab, 10*time.Second, chromedp.KeyEvent(kb.Enter))
		waitFilterMenus(t, tab, 60*time.Second, `s.state === 'ready' && new URLSearchParams(s.url).getAll('model').join() === `+strconv.Quote(models)+
			` && (s.chips.model_name || []).join() === `+strconv.Quote(models))
		if got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](focusJS)); got != wantFocus {
			t.Errorf("after %s (filter now %q): focus on %q, want %q", sel, models, got, wantFocus)
		}
	}
	chip := func(v string) string {
		return `[data-chip="model_name"][data-value="` + view.EncodeOption(v) + `"] .chip-remove`
	}
	press(chip("model-a"), "model-b,zzz", "chip: Remove filter model_name = model-b")
	press(chip("zzz"), "model-b", "chip: Remove filter model_name = model-b")
	press(chip("model-b"), "", "SUMMARY#model-menu")

	openFilterMenus(t, tab, "model-menu")
	waitJS(t, tab, 30*time.Second, `document.querySelectorAll('#model-menu input[type=checkbox]').length === 2`)
	step(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`#model-menu input[type=checkbox][data-filter-value="`+view.EncodeOption("model-a")+`"]`)))
	waitFilterMenus(t, tab, 60*time.Second, `s.state === 'ready' && new URLSearchParams(s.url).getAll('model').join() === 'model-a'`)
	press(`#model-menu .filter-clear`, "", "INPUT#model-search")
}

// TestFilterMenuLoadingText: a live menu renders its values with go-app's
// render after it opens (filterState.open); until then its open list says
// "Loading values…" rather than showing an empty box (filters.css). Read in
// the same task that opens the menu, before its toggle event: no timing.
// Rendered, the text goes; a search matching nothing shows "No value
// matches" alone.
func TestFilterMenuLoadingText(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+layoutWindow().Encode()))
	waitReadyState(t, tab, 90*time.Second)
	type list struct {
		Boxes  int    `json:"boxes"`
		Before string `json:"before"`
		None   bool   `json:"none"`
	}
	const readJS = `(() => { const o = document.getElementById('model');
	  return {boxes: o.querySelectorAll('input[type=checkbox]').length, before: getComputedStyle(o, '::before').content,
	    none: !!document.querySelector('#model-menu .filter-none')}; })()`
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[list](`(() => { document.getElementById('model-menu').open = true; return `+readJS+`; })()`))
	if got.Boxes != 0 || got.Before != `"Loading values…"` {
		t.Errorf("just opened: %d boxes, list text %s; want none yet and \"Loading values…\"", got.Boxes, got.Before)
	}
	waitJS(t, tab, 30*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length === 2`)
	if got = run(t, tab, 10*time.Second, chromedp.Evaluate[list](readJS)); got.Before != "none" || got.None {
		t.Errorf("rendered: list text %s, 'No value matches' %v; want neither", got.Before, got.None)
	}
	step(t, tab, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#model-search`), "nothing-like-this"))
	waitJS(t, tab, 30*time.Second, `!!document.querySelector('#model-menu .filter-none')`)
	if got = run(t, tab, 10*time.Second, chromedp.Evaluate[list](readJS)); got.Boxes != 0 || got.Before != "none" || !got.None {
		t.Errorf("no match: %d boxes, list text %s, 'No value matches' %v; want only 'No value matches'", got.Boxes, got.Before, got.None)
	}
}
