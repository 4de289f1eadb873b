//go:build !js

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/server"
)

// Known data of the layout tests: two models (k = 3) scraped every 15 s
// from layoutStart+300 s to layoutStart+1800 s (the window's end); their
// counters rise until layoutStop (5 min before the end), then stay flat
// while still scraped: traffic stopped, target alive.
const (
	layoutStart int64 = 1748736000 // 2025-06-01T00:00:00Z
	layoutFirst       = layoutStart + 300
	layoutStop        = layoutStart + 1500
	layoutEnd         = layoutStart + 1800
)

// layoutModels: per 15 s tick, drafts, draft tokens, accepted tokens and
// accepted per position.
var layoutModels = []struct {
	name                    string
	drafts, tokens, accepts int64
	pos                     [3]int64
}{
	{"model-a", 30, 90, 60, [3]int64{25, 20, 15}},
	{"model-b", 15, 45, 15, [3]int64{10, 4, 1}},
}

// layoutTicks is the number of rising 15 s steps per series.
const layoutTicks = (layoutStop - layoutFirst) / 15

func layoutOpenMetrics() string {
	var b strings.Builder
	fam := func(name, help string, value func(m int, pos int) int64, positions bool) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		for mi, m := range layoutModels {
			ps := []int{-1}
			if positions {
				ps = []int{0, 1, 2}
			}
			for _, p := range ps {
				labels := fmt.Sprintf(`engine="0",model_name=%q`, m.name)
				if p >= 0 {
					labels += fmt.Sprintf(`,position="%d"`, p)
				}
				for ts := layoutFirst; ts <= layoutEnd; ts += 15 {
					n := min(ts, layoutStop) - layoutFirst
					fmt.Fprintf(&b, "%s_total{%s} %d %d\n", name, labels, n/15*value(mi, p), ts)
				}
			}
		}
	}
	fam("vllm:spec_decode_num_drafts", "drafts", func(m, _ int) int64 { return layoutModels[m].drafts }, false)
	fam("vllm:spec_decode_num_draft_tokens", "draft tokens", func(m, _ int) int64 { return layoutModels[m].tokens }, false)
	fam("vllm:spec_decode_num_accepted_tokens", "accepted tokens", func(m, _ int) int64 { return layoutModels[m].accepts }, false)
	fam("vllm:spec_decode_num_accepted_tokens_per_pos", "accepted per position", func(m, p int) int64 { return layoutModels[m].pos[p] }, true)
	b.WriteString("# EOF\n")
	return b.String()
}

// layoutServer backfills the known data into a real Prometheus and serves
// the dashboard in front of it.
func layoutServer(t *testing.T) string {
	t.Helper()
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, layoutOpenMetrics())})
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: 15 * time.Second, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h)
}

func layoutWindow() url.Values {
	return url.Values{
		"from": {time.Unix(layoutStart, 0).UTC().Format(time.RFC3339)},
		"to":   {time.Unix(layoutEnd, 0).UTC().Format(time.RFC3339)},
	}
}

// layoutView is what the layout checks read from the page.
type layoutView struct {
	Theme       string             `json:"theme"`
	Inner       float64            `json:"inner"`
	InnerH      float64            `json:"innerH"`
	ScrollW     float64            `json:"scrollW"`
	Boxes       map[string]box     `json:"boxes"`
	Window      map[string]string  `json:"window"`
	Now         map[string]string  `json:"now"`
	NowState    string             `json:"nowState"`
	Covered     string             `json:"covered"`
	Split       map[string]string  `json:"split"`
	Step        string             `json:"step"`
	Notes       map[string]string  `json:"notes"`
	Widest      []string           `json:"widest"`
	Extra       map[string]float64 `json:"extra"`
	Insights    string             `json:"insights"`
	ToggleShown bool               `json:"toggleShown"`
}

type box struct {
	Top, Left, Bottom, Right float64
	Shown                    bool
}

const readLayoutJS = `(() => {
  const r = document.querySelector('[data-dashboard]');
  const rect = sel => { const e = document.querySelector(sel); if (!e) return {Shown: false};
    const b = e.getBoundingClientRect(); return {Top: b.top, Left: b.left, Bottom: b.bottom, Right: b.right, Shown: b.width > 0 && b.height > 0}; };
  const out = {theme: r.dataset.theme, inner: innerWidth, innerH: innerHeight, scrollW: document.scrollingElement.scrollWidth,
    boxes: {}, window: {}, now: {}, nowState: '', covered: '', split: {}, step: r.dataset.stepSeconds || '', notes: {}, widest: [], extra: {}, insights: '',
    toggleShown: false};
  for (const [k, s] of Object.entries({top: '.top', controls: '.view-controls', cards: '.cards-now', speedup: '[data-card=headline-speedup]', chart: '[data-panel=per-position]'})) out.boxes[k] = rect(s);
  for (const c of document.querySelectorAll('[data-card]')) {
    const w = c.querySelector('[data-metric]'), n = c.querySelector('[data-now]');
    out.window[c.dataset.card] = w ? (w.dataset.value || 'undefined') : '';
    out.now[c.dataset.card] = n ? (n.dataset.value || 'undefined') : '';
    if (n) out.nowState = n.dataset.nowState;
  }
  const cards = document.querySelector('.cards-now');
  out.covered = cards ? cards.dataset.coveredSeconds : '';
  const sp = document.querySelector('[data-split]');
  if (sp) out.split = {mode: sp.dataset.split, group: sp.dataset.splitGroup || '', blended: sp.dataset.blended || ''};
  const ins = document.querySelector('[data-split-note=insights]');
  out.insights = ins ? ins.textContent : '';
  const tg = document.querySelector('#view-toggle');
  out.toggleShown = !!tg && tg.getBoundingClientRect().width > 0;
  // The elements wider than the screen (for the failure message).
  for (const e of document.querySelectorAll('body *')) { const b = e.getBoundingClientRect();
    if (b.right > innerWidth + 1 && b.width > 0 && out.widest.length < 8) out.widest.push(e.tagName + '.' + e.className + ' ' + Math.round(b.right)); }
  return out;
})()`

func readLayout(t *testing.T, tab context.Context) layoutView {
	t.Helper()
	return run(t, tab, 20*time.Second, chromedp.Evaluate[layoutView](readLayoutJS))
}

func overlaps(a, b box) bool {
	return a.Shown && b.Shown && a.Left < b.Right-1 && b.Left < a.Right-1 && a.Top < b.Bottom-1 && b.Top < a.Bottom-1
}

// checkLayout: the headline cards (the speedup among them) start in the
// first screen, nothing scrolls sideways, and header, controls, cards and
// the first chart do not overlap.
func checkLayout(t *testing.T, name string, v layoutView) {
	t.Helper()
	if !v.Boxes["cards"].Shown || v.Boxes["cards"].Top >= v.InnerH {
		t.Errorf("%s: headline cards at %+v, not in the first screen (height %v)", name, v.Boxes["cards"], v.InnerH)
	}
	if !v.Boxes["speedup"].Shown || v.Boxes["speedup"].Top >= v.InnerH {
		t.Errorf("%s: speedup card at %+v, not in the first screen (height %v)", name, v.Boxes["speedup"], v.InnerH)
	}
	if v.ScrollW > v.Inner {
		t.Errorf("%s: scrolls sideways: scrollWidth %v > innerWidth %v; wider: %v", name, v.ScrollW, v.Inner, v.Widest)
	}
	names := []string{"top", "controls", "cards", "chart"}
	for i, a := range names {
		for _, b := range names[i+1:] {
			if overlaps(v.Boxes[a], v.Boxes[b]) {
				t.Errorf("%s: %s %+v overlaps %s %+v", name, a, v.Boxes[a], b, v.Boxes[b])
			}
		}
	}
}

func saveLayoutShot(t *testing.T, name string, png []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "layout-"+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s: %s", name, p)
	if dir := os.Getenv("SPECDASH_SCREENSHOT_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "layout-"+name+".png"), png, 0o644)
	}
}

func closeEnough(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestLayoutNowCards: against a real Prometheus with known data, the
// headline cards read the window as a ratio of sums with rates per second
// of data, and "now" (the last complete minute) as 0 drafts/s since the
// traffic stopped 5 minutes before the end; without group= the view is per
// model and the split charts show one model (or say they blend).
func TestLayoutNowCards(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 900))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+layoutWindow().Encode()))
	waitReady(t, tab, 90*time.Second)
	v := readLayout(t, tab)

	var drafts, tokens, accepted float64
	for _, m := range layoutModels {
		drafts += float64(m.drafts * layoutTicks)
		tokens += float64(m.tokens * layoutTicks)
		accepted += float64(m.accepts * layoutTicks)
	}
	covered, err := strconv.ParseFloat(v.Covered, 64)
	stepSec, err2 := strconv.ParseFloat(v.Step, 64)
	if err != nil || err2 != nil {
		t.Fatalf("covered seconds %q, step %q: %v %v", v.Covered, v.Step, err, err2)
	}
	// Data from the bucket holding layoutFirst: covered = end - that
	// bucket's start, within one step of 1500 s.
	if covered < float64(layoutEnd-layoutFirst) || covered > float64(layoutEnd-layoutFirst)+stepSec {
		t.Errorf("covered %v s, want 1500 s up to one step (%v s) more", covered, stepSec)
	}
	checks := []struct {
		name string
		got  string
		want float64
	}{
		{"window acceptance-rate", v.Window["acceptance-rate"], accepted / tokens},
		{"window mean-acceptance-length", v.Window["mean-acceptance-length"], 1 + accepted/drafts},
		{"window drafts-per-second", v.Window["drafts-per-second"], drafts / covered},
		{"window drafted-throughput", v.Window["drafted-throughput"], tokens / covered},
		{"now drafts-per-second", v.Now["drafts-per-second"], 0},
		{"now accepted-throughput", v.Now["accepted-throughput"], 0},
	}
	for _, c := range checks {
		got, err := strconv.ParseFloat(c.got, 64)
		if err != nil || !closeEnough(got, c.want) {
			t.Errorf("%s: shows %q, want %v", c.name, c.got, c.want)
		}
	}
	// The breakdown table: per second of data too (the same seconds as
	// the cards), so its rows add up to the card (the window's first 300 s
	// have no data).
	rows := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.breakdown tbody tr')).map(r => r.querySelector('[data-label=model_name]').textContent + '=' + r.querySelector('[data-cell=drafts-per-second]').dataset.value)`))
	if len(rows) != len(layoutModels) {
		t.Errorf("breakdown rows %q, want one per model", rows)
	}
	for _, r := range rows {
		name, val, _ := strings.Cut(r, "=")
		for _, m := range layoutModels {
			if m.name != name {
				continue
			}
			want := float64(m.drafts*layoutTicks) / covered
			if got, err := strconv.ParseFloat(val, 64); err != nil || !closeEnough(got, want) {
				t.Errorf("breakdown %s drafts/s %q, want %v (per %v s of data, as the cards)", name, val, want, covered)
			}
		}
	}
	if v.NowState != "stopped" || v.Now["acceptance-rate"] != "undefined" {
		t.Errorf("now: state %q, acceptance %q; want stopped, undefined (no drafts)", v.NowState, v.Now["acceptance-rate"])
	}
	// Per model by default: two groups; the split charts blend them and
	// say so.
	if v.Split["mode"] != "groups" || v.Split["blended"] != "true" || !strings.Contains(v.Insights, "All 2 models blended") {
		t.Errorf("default split %v, insights caption %q: want the blend of 2 models, said", v.Split, v.Insights)
	}
	// One model chosen (URL-shareable): its own per-position rates.
	q := layoutWindow()
	q.Set("split", "v:"+base64.RawURLEncoding.EncodeToString([]byte(`["model-a"]`)))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReady(t, tab, 90*time.Second)
	v = readLayout(t, tab)
	if v.Split["group"] != "model-a" || v.Split["blended"] != "false" || !strings.Contains(v.Insights, "model-a") {
		t.Errorf("split=model-a: %v, caption %q", v.Split, v.Insights)
	}
	a := layoutModels[0]
	pos1 := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-metric=per-position-acceptance-rate][data-position="1"]').dataset.value`))
	if got, err := strconv.ParseFloat(pos1, 64); err != nil || !closeEnough(got, float64(a.pos[0])/float64(a.drafts)) {
		t.Errorf("model-a pos 1: shows %q, want %v", pos1, float64(a.pos[0])/float64(a.drafts))
	}
	// group=none: one group, no selector.
	q = layoutWindow()
	q.Set("group", "none")
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReady(t, tab, 90*time.Second)
	if v = readLayout(t, tab); v.Split["mode"] != "none" {
		t.Errorf("group=none: split %v", v.Split)
	}
}

// TestLayoutScreens: at 390, 1440 and 1920 px, light and dark, the cards
// are in the first screen without sideways scrolling or overlaps; on a
// phone the controls sit behind the View button; ?kiosk hides them and
// rotates the split charts through the models; /logs fits a phone.
func TestLayoutScreens(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	for _, sz := range []struct{ w, h int64 }{{390, 844}, {1440, 900}, {1920, 1080}} {
		for _, theme := range []string{"light", "dark"} {
			name := fmt.Sprintf("%d-%s", sz.w, theme)
			q := layoutWindow()
			q.Set("theme", theme)
			step(t, tab, 10*time.Second, chromedp.EmulateViewport(sz.w, sz.h))
			step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
			waitReady(t, tab, 90*time.Second)
			v := readLayout(t, tab)
			if v.Theme != theme {
				t.Errorf("%s: theme %q", name, v.Theme)
			}
			checkLayout(t, name, v)
			if phone := sz.w < 700; phone != v.ToggleShown {
				t.Errorf("%s: View button shown %v", name, v.ToggleShown)
			}
			saveLayoutShot(t, name, run(t, tab, 30*time.Second, chromedp.CaptureScreenshot()))
		}
	}
	// Phone: the View button opens the controls (aria-expanded).
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(390, 844))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+layoutWindow().Encode()))
	waitReady(t, tab, 90*time.Second)
	if run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`document.querySelector('#range').getBoundingClientRect().height > 0`)) {
		t.Error("phone: the range control is shown before View is pressed")
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(document.querySelector('#view-toggle').click(), true)`))
	waitJS(t, tab, 10*time.Second, `document.querySelector('#view-toggle').getAttribute('aria-expanded') === 'true' && document.querySelector('#range').getBoundingClientRect().height > 0`)
	if v := readLayout(t, tab); v.ScrollW > v.Inner {
		t.Errorf("phone, controls open: scrolls sideways (%v > %v): %v", v.ScrollW, v.Inner, v.Widest)
	}

	// Wall screen, kiosk: no controls; the split charts rotate.
	q := layoutWindow()
	q.Set("kiosk", "2s")
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1920, 1080))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReady(t, tab, 90*time.Second)
	v := readLayout(t, tab)
	if v.Boxes["controls"].Shown {
		t.Errorf("kiosk: controls shown at %+v", v.Boxes["controls"])
	}
	checkLayout(t, "kiosk", v)
	if v.Boxes["chart"].Top >= v.InnerH {
		t.Errorf("kiosk: the first chart starts below the screen (%v >= %v)", v.Boxes["chart"].Top, v.InnerH)
	}
	saveLayoutShot(t, "1920-kiosk", run(t, tab, 30*time.Second, chromedp.CaptureScreenshot()))
	first := v.Split["group"]
	waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => { const s = document.querySelector('[data-split]'); return !!s && s.dataset.splitGroup !== '' && s.dataset.splitGroup !== %s; })()`, strconv.Quote(first)))

	// /logs on a phone: no sideways scrolling.
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(390, 844))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/logs"))
	waitJS(t, tab, 60*time.Second, `!!document.querySelector('.log-text')`)
	if w := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`[document.scrollingElement.scrollWidth, innerWidth]`)); len(w) != 2 || w[0] > w[1] {
		t.Errorf("/logs at 390 px scrolls sideways: scrollWidth, innerWidth = %v", w)
	}
}

// TestLayoutPreferences: without theme= the page follows the OS
// (prefers-color-scheme); a chosen theme and refresh period are remembered
// for the next visit; URL parameters still win. On an absolute window (the
// Live button shifts the controls after the first render) the refresh
// select sets the refresh period (app.handlerKey).
func TestLayoutPreferences(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	dark := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})
	step(t, tab, 10*time.Second, dark)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+layoutWindow().Encode()))
	waitReady(t, tab, 90*time.Second)
	waitJS(t, tab, 20*time.Second, `document.querySelector('[data-dashboard]').dataset.theme === 'dark'`)
	// Choose light and a refresh period: remembered.
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(document.querySelector('#theme').click(), true)`))
	waitJS(t, tab, 20*time.Second, `document.querySelector('[data-dashboard]').dataset.theme === 'light'`)
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('#refresh'); s.value = '1m'; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	waitJS(t, tab, 20*time.Second, `new URL(location.href).searchParams.get('refresh') === '1m'`)
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m"))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state !== 'loading'; })()`)
	waitJS(t, tab, 20*time.Second, `document.querySelector('[data-dashboard]').dataset.theme === 'light' && document.querySelector('#refresh').value === '1m'`)
	// The URL wins.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=15m&theme=dark&refresh=5s"))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state !== 'loading' && r.dataset.theme === 'dark' && document.querySelector('#refresh').value === '5s'; })()`)
}
