//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
	"specdash/view"
	"specdash/web"
)

// The ECharts builds compared by TestEChartsBundle: the full build that
// specdash served before (npm echarts' dist/echarts.min.js), specdash's own
// build as served (web/dist/echarts.min.js, from web/echarts/entry.js) and a
// development build of that entry (ECharts' __DEV__ checks on: it reports a
// chart type or component used but not imported).
const (
	fullECharts  = "../node_modules/echarts/dist/echarts.min.js"
	echartsEntry = "../web/echarts/entry.js"
	esbuildBin   = "../node_modules/.bin/esbuild"
)

// chartShots are one chart's drawings as PNG data URLs: "drawn" (the
// chart's canvases as the page shows them), "export" (getDataURL as the
// PNG export calls it, at pixel ratio 2 without the toolbox), "tip" (with
// the tooltip shown for the second category and its axis pointer), "brush"
// (with a lineX brush over categories 1..3, zoomable charts only). Tip is
// the tooltip's HTML.
type chartShots struct {
	Name  string            `json:"name"`
	Shots map[string]string `json:"shots"`
	Tip   string            `json:"tip"`
}

// captureJS draws nothing itself: for every element matched by the
// selector %q with an ECharts instance it records a chartShots, after two
// animation frames (ECharts paints in the next frame).
const captureJS = `(async () => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frames();
  const out = [];
  for (const el of document.querySelectorAll(%q)) {
    const rec = {name: el.dataset.chart || el.id, shots: {}, tip: ''};
    out.push(rec);
    const inst = window.echarts && echarts.getInstanceByDom(el);
    if (!inst) continue;
    const canvas = () => Array.from(el.querySelectorAll('canvas')).map(c => c.toDataURL('image/png')).join('|');
    rec.shots.drawn = canvas();
    rec.shots.export = inst.getDataURL({type: 'png', pixelRatio: 2, backgroundColor: '#fafafa', excludeComponents: ['toolbox']});
    const opt = inst.getOption() || {};
    if ((opt.series || []).length === 0) continue;
    inst.dispatchAction({type: 'showTip', seriesIndex: 0, dataIndex: 1});
    await frames();
    rec.shots.tip = canvas();
    rec.tip = Array.from(el.children).slice(1).map(c => c.innerHTML).join('|');
    inst.dispatchAction({type: 'hideTip'});
    if ((opt.brush || []).length > 0) {
      inst.dispatchAction({type: 'brush', areas: [{brushType: 'lineX', xAxisIndex: 0, coordRange: [1, 3]}]});
      await frames();
      rec.shots.brush = canvas();
      inst.dispatchAction({type: 'brush', areas: []});
    }
    await frames();
  }
  return out;
})()`

// bundleTestPage is a bare page for drawing options straight from app/'s
// builders (what a fixture window in the past never shows: the incomplete
// buckets' band and heatmap cells).
const bundleTestPage = `<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:0;background:#fff"><div id="chart" style="width:960px;height:300px"></div>
<script src="/web/echarts.min.js"></script></body></html>`

// drawJS draws the option JSON %s (setOption(option, true) after
// JSON.parse, like app/chart.go, with its takeGlobalCursor on brush
// charts) into #chart in a new instance.
const drawJS = `(() => {
  const el = document.getElementById('chart');
  const old = echarts.getInstanceByDom(el);
  if (old) old.dispose();
  const inst = echarts.init(el, null, {renderer: 'canvas'});
  const opt = JSON.parse(%s);
  inst.setOption(opt, true);
  if (opt.brush) inst.dispatchAction({type: 'takeGlobalCursor', key: 'brush', brushOption: {brushType: 'lineX', brushMode: 'single'}});
  return true;
})()`

// withECharts serves body as /web/echarts.min.js (also under the server's
// content-hashed paths, /web/h-<hash>/echarts.min.js) and bundleTestPage as
// /echarts-test.html, everything else from h.
func withECharts(h http.Handler, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/web/") && strings.HasSuffix(r.URL.Path, "/echarts.min.js"):
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Write(body)
		case r.URL.Path == "/echarts-test.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(bundleTestPage))
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// devBundle builds web/echarts/entry.js with esbuild (from npm, `make
// deps`) unminified with process.env.NODE_ENV "development", so that
// ECharts' development checks run.
func devBundle(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "echarts.dev.js")
	cmd := exec.Command(esbuildBin, echartsEntry, "--bundle", "--format=iife", "--log-level=warning",
		`--define:process.env.NODE_ENV="development"`, "--outfile="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild (run `make deps`): %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bundleOptions are options straight from app/'s builders in palette p:
// both time-chart kinds with gaps and incomplete buckets (the shaded
// band), the heatmap with incomplete cells (the second series), the
// per-position chart and the insights chart.
func bundleOptions(p chartopt.Palette) map[string]string {
	const n, k = 40, 4
	g := compute.Grid{Start: 1748736000000, End: 1748736000000 + n*60_000, Step: 60_000}
	a, b := make([]compute.Value, n), make([]compute.Value, n)
	buckets := make([]compute.Stats, n)
	for j := range n {
		if j%9 != 4 { // gaps
			a[j] = compute.Defined(0.6 + 0.2*float64(j%7)/7)
		}
		b[j] = compute.Defined(0.4 + 0.3*float64(j%5)/5)
		s := compute.Stats{DraftedThroughput: compute.Defined(40 + float64(j%6)), AcceptedThroughput: compute.Defined(25 + float64(j%4))}
		for i := range k {
			if j%11 == 3 && i == k-1 {
				s.PerPositionAcceptanceRate = append(s.PerPositionAcceptanceRate, compute.Value{})
				continue
			}
			s.PerPositionAcceptanceRate = append(s.PerPositionAcceptanceRate, compute.Defined(0.9-0.15*float64(i)-0.01*float64(j%8)))
		}
		buckets[j] = s
	}
	complete := n - 3
	st := compute.Stats{Drafts: 1000, DraftTokens: 4000, AcceptedTokens: 2300, AcceptedPerPosition: []float64{850, 650, 480, 320}}
	for _, v := range st.AcceptedPerPosition {
		st.PerPositionAcceptanceRate = append(st.PerPositionAcceptanceRate, compute.Defined(v/st.Drafts))
	}
	counts := compute.Counts{Drafts: st.Drafts, DraftTokens: st.DraftTokens, AcceptedTokens: st.AcceptedTokens, AcceptedPerPosition: st.AcceptedPerPosition}
	return map[string]string{
		"lines":        chartopt.Lines(g, []model.Line{{Name: "model a", Values: a}, {Name: "model b", Values: b}}, complete, 100, 1, "%", 0, 100, time.UTC, p).JSON(),
		"one-line":     chartopt.Lines(g, []model.Line{{Name: "all series", Values: a}}, complete, 1, 2, "tokens/draft", nil, nil, time.UTC, p).JSON(),
		"throughput":   chartopt.Throughput(g, buckets, complete, time.UTC, p).JSON(),
		"heatmap":      chartopt.Heatmap(g, buckets, k, complete, time.UTC, p).JSON(),
		"per-position": chartopt.PerPosition(st, compute.FitGeometric(counts), p).JSON(),
		"insights":     chartopt.InsightsFit(model.Estimate(st.Counts(), 0.1), p).JSON(),
	}
}

// TestEChartsBundle: specdash's ECharts build draws every chart exactly as
// the full build does, pixel for pixel (the PNG data URLs of the canvases
// are equal), in the light and dark theme: the dashboard over the
// known-answer fixture grouped by model (time charts with a legend, the
// per-position chart and heatmap, the insights chart) and in group compare
// mode, each chart as drawn, as exported, with a tooltip and with a brush
// selection; and options straight from app/'s builders with incomplete
// buckets (the shaded band, the heatmap's half-opaque cells). A development
// build of the same entry draws the same and logs no ECharts warning (a
// series type or component used but not imported).
func TestEChartsBundle(t *testing.T) {
	full, err := os.ReadFile(fullECharts)
	if err != nil {
		t.Fatalf("full ECharts build (run `make deps`): %v", err)
	}
	custom, err := fs.ReadFile(web.FS, "dist/echarts.min.js")
	if err != nil {
		t.Fatalf("web/dist/echarts.min.js (run `make assets`): %v", err)
	}
	if bytes.Equal(full, custom) {
		t.Fatalf("web/dist/echarts.min.js is the full build (%d bytes): run `make assets`", len(full))
	}
	dev := devBundle(t)

	// No preview: every chart is the live page's own drawing, in every
	// build and page alike (the live page adopts the preview's charts in
	// view, app/chart.go, and whether a preview is shown depends on the
	// pre-render's time budget).
	fx, h := knownAnswerServer(t, -1)
	w := fx.Whole
	window := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}
	type pageSpec struct {
		name string
		q    url.Values
	}
	var pages []pageSpec
	for _, theme := range []string{chartopt.ThemeLight, chartopt.ThemeDark} {
		grouped := url.Values{"group": {"model_name"}, "cost": {"0.1"}, "theme": {theme}}
		compare := url.Values{"group": {"model_name"}, "compare": {"groups"}, "a": {mustJSON([]string{fixtures.ModelB})}, "b": {mustJSON([]string{fixtures.ModelA})}, "theme": {theme}}
		for _, p := range []pageSpec{{"grouped/" + theme, grouped}, {"compare/" + theme, compare}} {
			for k, v := range window {
				p.q[k] = v
			}
			pages = append(pages, p)
		}
	}

	bundles := []struct {
		name string
		body []byte
	}{{"full", full}, {"custom", custom}, {"dev", dev}}
	// shots[bundle][page] are the charts of one page, in page order.
	shots := map[string]map[string][]chartShots{}
	// zoomed[bundle] is the window (from, to) after a mouse selection.
	zoomed := map[string][2]string{}
	for _, bd := range bundles {
		base := serve(t, withECharts(h, bd.body)) // its own origin: no service worker or cache shared
		tab := newTab(t)
		var mu sync.Mutex
		var logged []string
		chromedp.Listen(tab, func(ev any) {
			var line string
			switch ev := ev.(type) {
			case *cdpruntime.EventConsoleAPICalled:
				if ev.Type != cdpruntime.ConsoleAPICalledTypeError && ev.Type != cdpruntime.ConsoleAPICalledTypeWarning {
					return
				}
				for _, a := range ev.Args {
					var s string
					if json.Unmarshal(a.Value, &s) == nil && strings.Contains(s, "[ECharts]") {
						line = s
					}
				}
			case *cdpruntime.EventExceptionThrown:
				if ev.ExceptionDetails != nil {
					line = "exception: " + ev.ExceptionDetails.Text
					if ev.ExceptionDetails.Exception != nil {
						line += " " + ev.ExceptionDetails.Exception.Description
					}
				}
			}
			if line != "" {
				mu.Lock()
				logged = append(logged, line)
				mu.Unlock()
			}
		})
		shots[bd.name] = map[string][]chartShots{}
		for _, p := range pages {
			step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+p.q.Encode()))
			waitReady(t, tab, 120*time.Second)
			waitJS(t, tab, 60*time.Second, `(() => {
			  const r = document.querySelector('body > [data-dashboard]');
			  if (!r || r.dataset.state !== 'ready' || document.getElementById('specdash-preview') || document.querySelector('[data-loading="true"]')) return false;
			  const els = r.querySelectorAll('[data-chart]');
			  return els.length > 0 && Array.from(els).every(e => echarts.getInstanceByDom(e));
			})()`)
			size := run(t, tab, 10*time.Second, chromedp.Evaluate[float64](`(() => { const e = performance.getEntriesByType('resource').filter(e => e.name.includes('echarts')); return e.length === 1 ? e[0].decodedBodySize : -e.length; })()`))
			if int(size) != len(bd.body) {
				t.Fatalf("%s %s: the page loaded %v bytes of echarts.min.js (negative: that many loads), want the %s build's %d", bd.name, p.name, size, bd.name, len(bd.body))
			}
			shots[bd.name][p.name] = capture(t, tab, `body > [data-dashboard] [data-chart]`)
			if p.name == pages[0].name {
				zoomed[bd.name] = dragZoom(t, tab)
			}
		}
		// Options straight from the builders, on the bare page.
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/echarts-test.html"))
		waitJS(t, tab, 30*time.Second, `!!window.echarts`)
		for _, theme := range []string{chartopt.ThemeLight, chartopt.ThemeDark} {
			for name, opt := range bundleOptions(chartopt.PaletteFor(theme)) {
				if opt == "" {
					t.Fatalf("option %s is empty", name)
				}
				run(t, tab, 10*time.Second, chromedp.Evaluate[bool](fmt.Sprintf(drawJS, mustJSON(opt))))
				cs := capture(t, tab, `#chart`)
				cs[0].Name = name
				shots[bd.name]["options/"+theme+"/"+name] = cs
			}
		}
		mu.Lock()
		seen := map[string]bool{}
		for _, l := range logged {
			if !seen[l] {
				seen[l] = true
				t.Errorf("%s build: %s", bd.name, l)
			}
		}
		mu.Unlock()
	}

	// The capture exercised what it claims: the tooltip and the brush drew
	// something, the mouse selection zoomed, the same way in every build.
	ref := shots["full"]
	if l := ref["options/light/lines"]; len(l) != 1 || !strings.Contains(l[0].Tip, "model a") ||
		l[0].Shots["tip"] == l[0].Shots["drawn"] || l[0].Shots["brush"] == "" || l[0].Shots["brush"] == l[0].Shots["drawn"] {
		t.Errorf("full build, lines option: the tooltip (%q) or the brush drew nothing", l[0].Tip)
	}
	// The charts hold drawings: each differs between the themes.
	for _, prefix := range []string{"grouped/", "compare/"} {
		light, dark := ref[prefix+chartopt.ThemeLight], ref[prefix+chartopt.ThemeDark]
		for i := range min(len(light), len(dark)) {
			if light[i].Shots["drawn"] == dark[i].Shots["drawn"] {
				t.Errorf("full build, %s: chart %s is drawn the same in both themes", prefix, light[i].Name)
			}
		}
	}
	for _, bd := range []string{"full", "custom", "dev"} {
		if zoomed[bd] != zoomed["full"] {
			t.Errorf("%s build: zoomed to %v, full build %v", bd, zoomed[bd], zoomed["full"])
		}
	}

	// Every chart of every page: same charts, same pixels, same tooltip.
	nCharts, nShots := 0, 0
	for pageName, want := range ref {
		var names []string
		for _, c := range want {
			names = append(names, c.Name)
			if c.Shots["drawn"] == "" {
				t.Errorf("full build, %s: chart %s has no instance", pageName, c.Name)
			}
		}
		if strings.HasPrefix(pageName, "grouped/") {
			for _, must := range []string{view.ChartAcceptanceRate, view.ChartHeatmap, view.ChartPerPosition, view.ChartInsightsFit} {
				if !strings.Contains(strings.Join(names, ","), must) {
					t.Errorf("%s: no %s chart among %v", pageName, must, names)
				}
			}
		}
		for _, bd := range []string{"custom", "dev"} {
			got := shots[bd][pageName]
			if len(got) != len(want) {
				t.Errorf("%s build, %s: %d charts, full build %d", bd, pageName, len(got), len(want))
				continue
			}
			for i, w := range want {
				g := got[i]
				if g.Name != w.Name {
					t.Errorf("%s build, %s: chart %d is %s, full build %s", bd, pageName, i, g.Name, w.Name)
					continue
				}
				if g.Tip != w.Tip {
					t.Errorf("%s build, %s, %s: tooltip %q, full build %q", bd, pageName, w.Name, g.Tip, w.Tip)
				}
				for kind, ws := range w.Shots {
					if bd == "custom" {
						nShots++
					}
					if g.Shots[kind] != ws {
						t.Errorf("%s build, %s, %s, %s: %s", bd, pageName, w.Name, kind, pixelDiff(t, bd+"-"+pageName+"-"+w.Name+"-"+kind, ws, g.Shots[kind]))
					}
				}
				if len(g.Shots) != len(w.Shots) {
					t.Errorf("%s build, %s, %s: shots %d, full build %d", bd, pageName, w.Name, len(g.Shots), len(w.Shots))
				}
			}
		}
		nCharts += len(want)
	}
	t.Logf("%d pages, %d charts, %d drawings compared; zoomed by mouse to %v; full build %d bytes, specdash build %d", len(ref), nCharts, nShots, zoomed["full"], len(full), len(custom))
}

// dragZoomJS scrolls the acceptance-rate chart into view and returns the
// viewport points of a drag from a quarter to a half of its x axis, at
// mid-height of its grid, and the page's from/to.
const dragZoomJS = `(() => {
  const el = document.querySelector('body > [data-dashboard] [data-chart="acceptance-rate"]');
  el.scrollIntoView({block: 'center'});
  const inst = echarts.getInstanceByDom(el);
  const n = inst.getOption().xAxis[0].data.length;
  const r = el.getBoundingClientRect();
  const q = new URLSearchParams(location.search);
  const g = inst.getModel().getComponent('grid', 0).coordinateSystem.getRect();
  return {x1: r.left + inst.convertToPixel({xAxisIndex: 0}, Math.floor(n / 4)), x2: r.left + inst.convertToPixel({xAxisIndex: 0}, Math.floor(n / 2)),
    y: r.top + g.y + g.height / 2, from: q.get('from') || '', to: q.get('to') || ''};
})()`

// dragZoom selects a span on the acceptance-rate chart with the mouse
// (ECharts' brush, as a user does) and returns the window the page zoomed
// to (from, to); it fails when the page did not zoom.
func dragZoom(t *testing.T, tab context.Context) [2]string {
	t.Helper()
	type points struct {
		X1, X2, Y float64
		From, To  string
	}
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[points](dragZoomJS))
	drag(t, tab, p.X1, p.X2, p.Y)
	waitJS(t, tab, 30*time.Second, fmt.Sprintf(`new URLSearchParams(location.search).get('from') !== %q`, p.From))
	waitReady(t, tab, 60*time.Second)
	got := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`(() => { const q = new URLSearchParams(location.search); return [q.get('from') || '', q.get('to') || '']; })()`))
	if len(got) != 2 || got[0] <= p.From || got[1] >= p.To {
		t.Fatalf("after selecting a span: window %v, want inside (%s, %s)", got, p.From, p.To)
	}
	return [2]string{got[0], got[1]}
}

// capture runs captureJS for the selector.
func capture(t *testing.T, tab context.Context, sel string) []chartShots {
	t.Helper()
	b, _ := json.Marshal(sel)
	js := strings.Replace(captureJS, "%q", string(b), 1)
	cs := run(t, tab, 60*time.Second, chromedp.Evaluate[[]chartShots](js, func(p *cdpruntime.EvaluateParams) { yes := true; p.AwaitPromise = &yes }))
	if len(cs) == 0 {
		t.Fatalf("no chart matched %s", sel)
	}
	return cs
}

// pixelDiff describes how two PNG data URLs (or |-joined lists of them)
// differ: the number of differing pixels per canvas, and the directory
// where both images were written (kept: only a failing test writes them).
func pixelDiff(t *testing.T, label, want, got string) string {
	t.Helper()
	ws, gs := strings.Split(want, "|"), strings.Split(got, "|")
	if len(ws) != len(gs) {
		return fmt.Sprintf("%d canvases, full build %d", len(gs), len(ws))
	}
	var parts []string
	for i := range ws {
		if ws[i] == gs[i] {
			continue
		}
		wi, werr := decodePNG(ws[i])
		gi, gerr := decodePNG(gs[i])
		if werr != nil || gerr != nil {
			parts = append(parts, fmt.Sprintf("canvas %d: undecodable (%v, %v)", i, werr, gerr))
			continue
		}
		if wi.Bounds() != gi.Bounds() {
			parts = append(parts, fmt.Sprintf("canvas %d: size %v, full build %v", i, gi.Bounds(), wi.Bounds()))
			continue
		}
		n := 0
		r := wi.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if wi.At(x, y) != gi.At(x, y) {
					n++
				}
			}
		}
		dir, err := os.MkdirTemp("", "specdash-echarts-diff-")
		if err != nil {
			t.Fatal(err)
		}
		name := strings.NewReplacer("/", "_", " ", "_").Replace(label)
		_ = os.WriteFile(filepath.Join(dir, name+"-full.png"), pngBytes(ws[i]), 0o644)
		_ = os.WriteFile(filepath.Join(dir, name+"-got.png"), pngBytes(gs[i]), 0o644)
		parts = append(parts, fmt.Sprintf("canvas %d: %d of %d pixels differ (%s)", i, n, r.Dx()*r.Dy(), dir))
	}
	return strings.Join(parts, "; ")
}

func pngBytes(dataURL string) []byte {
	b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(dataURL, "data:image/png;base64,"))
	return b
}

func decodePNG(dataURL string) (image.Image, error) {
	return png.Decode(bytes.NewReader(pngBytes(dataURL)))
}
