//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/model"
	"specdash/web"
)

// updateCase is one redraw checked by TestChartUpdate: option A then B
// drawn on one instance by specdashCharts.update, against a fresh instance that
// drew B only. Mode is the path the update must take ("merge" or "full");
// Brushed leaves a brush selection on A (what a zoom by the user leaves).
type updateCase struct {
	Name    string `json:"name"`
	A       string `json:"a"`
	B       string `json:"b"`
	Zoom    bool   `json:"zoom"`
	Brushed bool   `json:"brushed"`
	Mode    string `json:"mode"`
}

// updateShots is what updateJS records for one updateCase: the canvases
// (PNG data URLs, |-joined) of the updated instance after A and after B,
// and of the fresh instance that drew B; both PNG exports of B; the mode
// the update took; the brush cursor (the brush model's brushType, "" when
// none) of both instances; and series/markArea/x label/visualMap max of
// the updated instance's getOption, to say what the comparison covered.
type updateShots struct {
	Name          string   `json:"name"`
	Mode          string   `json:"mode"`
	AfterA        string   `json:"afterA"`
	Updated       string   `json:"updated"`
	Fresh         string   `json:"fresh"`
	UpdatedExport string   `json:"updatedExport"`
	FreshExport   string   `json:"freshExport"`
	Cursor        string   `json:"cursor"`
	FreshCursor   string   `json:"freshCursor"`
	Series        []int    `json:"series"` // series count after A, after B
	MarkArea      []bool   `json:"markArea"`
	Labels        []string `json:"labels"` // first x label after A, after B
	VisualMax     []any    `json:"visualMax"`
}

// updateJS draws the cases %s with specdashCharts.update (the page ran
// web/static/charts.js, loadChartsJS) in #upd and
// #fresh (two 960x300 divs added to bundleTestPage) and returns an
// updateShots per case. Drawings are read after two animation frames.
const updateJS = `(async () => {
  const cases = %s;
  const update = window.specdashCharts.update;
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const mk = (id) => {
    let el = document.getElementById(id);
    if (!el) {
      el = document.createElement('div');
      el.id = id;
      el.style.cssText = 'width:960px;height:300px';
      document.body.appendChild(el);
    }
    const old = echarts.getInstanceByDom(el);
    if (old) old.dispose();
    return echarts.init(el, null, {renderer: 'canvas'});
  };
  document.getElementById('chart').style.display = 'none';
  const canvas = (inst) => Array.from(inst.getDom().querySelectorAll('canvas')).map(c => c.toDataURL('image/png')).join('|');
  const exp = (inst) => inst.getDataURL({type: 'png', pixelRatio: 2, backgroundColor: '#fafafa', excludeComponents: ['toolbox']});
  const cursor = (inst) => { const b = inst.getModel().getComponent('brush'); return (b && b.brushType) || ''; };
  const facts = (inst) => {
    const o = inst.getOption();
    const x = (o.xAxis || [])[0], vm = (o.visualMap || [])[0];
    return {series: (o.series || []).length, markArea: (o.series || []).some(s => s.markArea && (s.markArea.data || []).length > 0),
      label: x && x.data && x.data.length ? String(x.data[0]) : '', max: vm ? vm.max : null};
  };
  const out = [];
  for (const c of cases) {
    const u = mk('upd');
    const s = update(u, c.a, c.zoom, null);
    if (c.brushed) u.dispatchAction({type: 'brush', areas: [{brushType: 'lineX', xAxisIndex: 0, coordRange: [1, 3]}]});
    await frames();
    const rec = {name: c.name, afterA: canvas(u)};
    const fa = facts(u);
    const s2 = update(u, c.b, c.zoom, s);
    const f = mk('fresh');
    update(f, c.b, c.zoom, null);
    await frames();
    const fb = facts(u);
    Object.assign(rec, {mode: s2.mode, updated: canvas(u), fresh: canvas(f), updatedExport: exp(u), freshExport: exp(f),
      cursor: cursor(u), freshCursor: cursor(f), series: [fa.series, fb.series], markArea: [fa.markArea, fb.markArea],
      labels: [fa.label, fb.label], visualMax: [fa.max, fb.max]});
    out.push(rec);
  }
  return out;
})()`

// updateData is a time window of n buckets from bucket off on: two lines
// with gaps, k positions per bucket, and the totals of the window.
func updateData(n, off, k int) (compute.Grid, []compute.Value, []compute.Value, []compute.Stats, compute.Stats) {
	g := compute.Grid{Start: 1748736000000 + int64(off)*60_000, End: 1748736000000 + int64(off+n)*60_000, Step: 60_000}
	a, b := make([]compute.Value, n), make([]compute.Value, n)
	buckets := make([]compute.Stats, n)
	for i := range n {
		j := i + off
		if j%9 != 4 {
			a[i] = compute.Defined(0.6 + 0.2*float64(j%7)/7)
		}
		b[i] = compute.Defined(0.4 + 0.3*float64(j%5)/5)
		s := compute.Stats{DraftedThroughput: compute.Defined(40 + float64(j%6)), AcceptedThroughput: compute.Defined(25 + float64(j%4))}
		for p := range k {
			s.PerPositionAcceptanceRate = append(s.PerPositionAcceptanceRate, compute.Defined(0.9-0.15*float64(p)-0.01*float64(j%8)))
		}
		buckets[i] = s
	}
	st := compute.Stats{Drafts: 1000 + float64(off), DraftTokens: 4000, AcceptedTokens: 2300 + float64(off)}
	for p := range k {
		st.AcceptedPerPosition = append(st.AcceptedPerPosition, 850-170*float64(p)+float64(off))
	}
	for _, v := range st.AcceptedPerPosition {
		st.PerPositionAcceptanceRate = append(st.PerPositionAcceptanceRate, compute.Defined(v/st.Drafts))
	}
	return g, a, b, buckets, st
}

// withVisualMax is the option JSON opt with its visualMap's max set to max.
func withVisualMax(t *testing.T, opt string, max float64) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(opt), &m); err != nil {
		t.Fatal(err)
	}
	switch vm := m["visualMap"].(type) {
	case []any:
		vm[0].(map[string]any)["max"] = max
	case map[string]any:
		vm["max"] = max
	default:
		t.Fatalf("option without a visualMap: %.200s", opt)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// updateCases are the redraws of a live dashboard (the window slides one
// step, the newest incomplete buckets complete, a series disappears, the
// heatmap's colour range changes) for every chart kind, and a theme switch
// (the brush and toolbox change: a full redraw).
func updateCases(t *testing.T) []updateCase {
	const n, k = 40, 4
	light, dark := chartopt.PaletteFor(chartopt.ThemeLight), chartopt.PaletteFor(chartopt.ThemeDark)
	g0, a0, b0, bk0, st0 := updateData(n, 0, k)
	g1, a1, b1, bk1, st1 := updateData(n, 1, k)
	_, _, _, bk3, st3 := updateData(n, 1, k-1)
	two := func(g compute.Grid, a, b []compute.Value) []model.Line {
		return []model.Line{{Name: "model a", Values: a}, {Name: "model b", Values: b}}
	}
	lines := func(g compute.Grid, l []model.Line, complete int, p chartopt.Palette) string {
		return chartopt.Lines(g, l, complete, 100, 1, "%", 0, 100, time.UTC, p).JSON()
	}
	heat1 := chartopt.Heatmap(g1, bk1, k, n, time.UTC, light).JSON()
	counts := func(s compute.Stats) compute.Counts {
		return compute.Counts{Drafts: s.Drafts, DraftTokens: s.DraftTokens, AcceptedTokens: s.AcceptedTokens, AcceptedPerPosition: s.AcceptedPerPosition}
	}
	return []updateCase{
		{Name: "lines: fewer series, no incomplete bucket", Zoom: true, Mode: "merge",
			A: lines(g0, two(g0, a0, b0), n-3, light), B: lines(g0, []model.Line{{Name: "model a", Values: a0}}, n, light)},
		{Name: "lines: window slid (x labels)", Zoom: true, Mode: "merge",
			A: lines(g0, two(g0, a0, b0), n-3, light), B: lines(g1, two(g1, a1, b1), n-3, light)},
		{Name: "lines: brush selection left on A", Zoom: true, Brushed: true, Mode: "merge",
			A: lines(g0, two(g0, a0, b0), n-3, light), B: lines(g1, two(g1, a1, b1), n-2, light)},
		{Name: "lines: one line without y range", Zoom: true, Mode: "merge",
			A: chartopt.Lines(g0, []model.Line{{Name: "all series", Values: a0}}, n-3, 1, 2, "tokens/draft", nil, nil, time.UTC, light).JSON(),
			B: chartopt.Lines(g1, []model.Line{{Name: "all series", Values: b1}}, n, 1, 2, "tokens/draft", nil, nil, time.UTC, light).JSON()},
		{Name: "lines: theme switch", Zoom: true, Mode: "full",
			A: lines(g0, two(g0, a0, b0), n-3, light), B: lines(g0, two(g0, a0, b0), n-3, dark)},
		{Name: "throughput: window slid, no incomplete bucket", Zoom: true, Mode: "merge",
			A: chartopt.Throughput(g0, bk0, n-3, time.UTC, light).JSON(), B: chartopt.Throughput(g1, bk1, n, time.UTC, light).JSON()},
		{Name: "heatmap: window slid, incomplete cells gone", Zoom: true, Mode: "merge",
			A: chartopt.Heatmap(g0, bk0, k, n-3, time.UTC, light).JSON(), B: heat1},
		{Name: "heatmap: fewer positions", Zoom: true, Mode: "merge",
			A: chartopt.Heatmap(g0, bk0, k, n-3, time.UTC, light).JSON(), B: chartopt.Heatmap(g1, bk3, k-1, n-2, time.UTC, light).JSON()},
		{Name: "heatmap: visualMap max", Zoom: true, Mode: "merge",
			A: chartopt.Heatmap(g0, bk0, k, n-3, time.UTC, light).JSON(), B: withVisualMax(t, heat1, 50)},
		{Name: "per-position: new totals", Mode: "merge",
			A: chartopt.PerPosition(st0, compute.FitGeometric(counts(st0)), light).JSON(), B: chartopt.PerPosition(st1, compute.FitGeometric(counts(st1)), light).JSON()},
		{Name: "per-position: fewer positions", Mode: "merge",
			A: chartopt.PerPosition(st0, compute.FitGeometric(counts(st0)), light).JSON(), B: chartopt.PerPosition(st3, compute.FitGeometric(counts(st3)), light).JSON()},
		{Name: "insights: new totals and cost", Mode: "merge",
			A: chartopt.InsightsFit(model.Estimate(st0.Counts(), 0.1), light).JSON(), B: chartopt.InsightsFit(model.Estimate(st1.Counts(), 0.2), light).JSON()},
	}
}

// TestChartUpdate: specdashCharts.update (web/static/charts.js), which app.Chart runs on every change
// of its option (a replacing merge when only the data changed, the brush
// cursor dispatched only when not active), draws B after A on one instance
// exactly as a fresh instance draws B, pixel for pixel, on the canvas and
// in the PNG export, for every chart kind and for the changes of a live
// dashboard: fewer series, the incomplete buckets' band (markArea) gone,
// other x labels, another visualMap max, a brush selection left on A. The
// update takes the path each case expects (merge, or full on a theme
// switch) and leaves the brush cursor active on zoomable charts; after a
// merge, selecting a span with the mouse still ends in a brushEnd event.
func TestChartUpdate(t *testing.T) {
	needAssets(t)
	body, err := fs.ReadFile(web.FS, "dist/echarts.min.js")
	if err != nil {
		t.Fatalf("web/dist/echarts.min.js (run `make assets`): %v", err)
	}
	base := serve(t, withECharts(http.NotFoundHandler(), body))
	tab := newTab(t)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/echarts-test.html"))
	waitJS(t, tab, 30*time.Second, `!!window.echarts`)
	loadChartsJS(t, tab)

	cases := updateCases(t)
	js := fmt.Sprintf(updateJS, mustJSON(cases))
	got := run(t, tab, 120*time.Second, chromedp.Evaluate[[]updateShots](js, func(p *cdpruntime.EvaluateParams) { yes := true; p.AwaitPromise = &yes }))
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	for i, c := range cases {
		r := got[i]
		if r.Mode != c.Mode {
			t.Errorf("%s: update took the %q path, want %q", c.Name, r.Mode, c.Mode)
		}
		if r.Updated == "" || r.AfterA == r.Fresh {
			t.Errorf("%s: A and B draw the same (the case compares nothing)", c.Name)
		}
		if r.Updated != r.Fresh {
			t.Errorf("%s: canvas after A then B differs from a fresh B: %s", c.Name, pixelDiff(t, "update "+c.Name, r.Fresh, r.Updated))
		}
		if r.UpdatedExport != r.FreshExport {
			t.Errorf("%s: PNG export after A then B differs from a fresh B: %s", c.Name, pixelDiff(t, "update export "+c.Name, r.FreshExport, r.UpdatedExport))
		}
		if c.Zoom && (r.Cursor != "lineX" || r.FreshCursor != "lineX") {
			t.Errorf("%s: brush cursor %q after the update, %q fresh; want lineX", c.Name, r.Cursor, r.FreshCursor)
		}
		t.Logf("%s: %s; series %v, markArea %v, first x label %q, visualMap max %v", c.Name, r.Mode, r.Series, r.MarkArea, r.Labels, r.VisualMax)
	}
	// The cases cover what they claim (read from the updated instance).
	byName := map[string]updateShots{}
	for _, r := range got {
		byName[r.Name] = r
	}
	if r := byName[cases[0].Name]; len(r.Series) != 2 || r.Series[0] <= r.Series[1] || len(r.MarkArea) != 2 || !r.MarkArea[0] || r.MarkArea[1] {
		t.Errorf("%s: series %v, markArea %v: want fewer series and the band gone", cases[0].Name, r.Series, r.MarkArea)
	}
	if r := byName[cases[1].Name]; len(r.Labels) != 2 || r.Labels[0] == r.Labels[1] || r.Labels[1] == "" {
		t.Errorf("%s: first x labels %v: want them to change", cases[1].Name, r.Labels)
	}
	if r := byName[cases[8].Name]; len(r.VisualMax) != 2 || fmt.Sprint(r.VisualMax[1]) != "50" || fmt.Sprint(r.VisualMax[0]) == "50" {
		t.Errorf("%s: visualMap max %v: want it to change to 50", cases[8].Name, r.VisualMax)
	}

	// The brush still selects after a merge: drag on the updated instance.
	type pts struct{ X1, X2, Y float64 }
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[pts](fmt.Sprintf(`(() => {
	  const update = window.specdashCharts.update;
	  const el = document.getElementById('upd');
	  const old = echarts.getInstanceByDom(el);
	  if (old) old.dispose();
	  const inst = echarts.init(el, null, {renderer: 'canvas'});
	  const s = update(inst, %s, true, null);
	  const s2 = update(inst, %s, true, s);
	  if (s2.mode !== 'merge') throw new Error('not merged: ' + s2.mode);
	  window.brushEnds = [];
	  inst.on('brushEnd', (e) => window.brushEnds.push(e.areas.map(a => a.coordRange)));
	  el.scrollIntoView({block: 'center'});
	  const r = el.getBoundingClientRect();
	  const g = inst.getModel().getComponent('grid', 0).coordinateSystem.getRect();
	  return {x1: r.left + inst.convertToPixel({xAxisIndex: 0}, 10), x2: r.left + inst.convertToPixel({xAxisIndex: 0}, 20), y: r.top + g.y + g.height / 2};
	})()`, mustJSON(cases[1].A), mustJSON(cases[1].B))))
	drag(t, tab, p.X1, p.X2, p.Y)
	waitJS(t, tab, 10*time.Second, `window.brushEnds.length > 0`)
	ends := run(t, tab, 10*time.Second, chromedp.Evaluate[[][][]float64](`window.brushEnds`))
	last := ends[len(ends)-1]
	if len(last) != 1 || len(last[0]) != 2 || last[0][0] != 10 || last[0][1] != 20 {
		t.Errorf("brushEnd after a merged update: coordRange %v, want [[10 20]]", ends)
	}
}

// loadChartsJS runs web/static/charts.js (what the dashboard loads as
// /web/charts.js) in the tab's page: window.specdashCharts.
func loadChartsJS(t *testing.T, tab context.Context) {
	t.Helper()
	src, err := fs.ReadFile(web.FS, "static/charts.js")
	if err != nil {
		t.Fatal(err)
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[any](string(src)))
	waitJS(t, tab, 10*time.Second, `!!(window.specdashCharts && window.specdashCharts.update)`)
}

// drag presses the left mouse button at (x1, y), moves to (x2, y) in
// eight steps and releases it (viewport CSS pixels).
func drag(t *testing.T, tab context.Context, x1, x2, y float64) {
	t.Helper()
	left := func(q *input.DispatchMouseEventParams) {
		q.Button = input.MouseButtonLeft
		q.Buttons = 1
		q.ClickCount = 1
	}
	acts := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, x1, y), chromedp.MouseEvent(chromedp.MousePressed, x1, y, left)}
	for i := 1; i <= 8; i++ {
		acts = append(acts, chromedp.MouseEvent(chromedp.MouseMoved, x1+(x2-x1)*float64(i)/8, y, left))
	}
	acts = append(acts, chromedp.MouseEvent(chromedp.MouseReleased, x2, y, left))
	for _, a := range acts {
		step(t, tab, 10*time.Second, a)
	}
}
