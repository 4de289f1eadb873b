//go:build !js

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// firstPaint is what the pre-rendered page looks like with the wasm held
// back: the page's and the dashboard root's computed background, the
// root's data-theme and whether go-app's wasm has started.
type firstPaint struct {
	Body  string `json:"body"`
	Root  string `json:"root"`
	Panel string `json:"panel"`
	Theme string `json:"theme"`
	// Button is the theme button's text.
	Button string `json:"button"`
	Wasm   bool   `json:"wasm"`
}

const readFirstPaintJS = `(() => {
  const r = document.querySelector('[data-dashboard]');
  const bg = e => e ? getComputedStyle(e).backgroundColor : '';
  return {body: bg(document.body), root: bg(r), panel: bg(document.querySelector('.controls')),
    theme: r ? (r.dataset.theme || '') : '', button: (document.getElementById('theme') || {}).innerText || '', wasm: !!(r && r.dataset.state === 'ready')};
})()`

// The themes' --bg and --panel (web/static/specdash.css).
const (
	darkBg    = "rgb(11, 17, 32)"    // #0b1120
	darkPanel = "rgb(17, 24, 39)"    // #111827
	lightBg   = "rgb(244, 246, 249)" // #f4f6f9
)

// TestThemeFirstPaint: the server's pre-rendered page, before any wasm
// runs (app.wasm is refused), follows the OS theme when none was chosen
// (prefers-color-scheme emulated): dark with a dark OS, light with a light
// one; a chosen theme wins over the OS: ?theme=light, or the choice the
// dashboard remembered (local storage specdash.theme, as go-app stores it).
func TestThemeFirstPaint(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 900))
	_ = chromedp.Listen(tab, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			go chromedp.Run(tab, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
				return cdp.Call(ctx, tg, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}))
		}
	})
	run(t, tab, 10*time.Second, chromedp.Action[cdp.Empty](func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*app.wasm*"}}})
	}))
	scheme := func(s string) {
		step(t, tab, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
			return err
		}))
	}
	open := func(q url.Values) firstPaint {
		t.Helper()
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
		waitJS(t, tab, 30*time.Second, `!!document.querySelector('[data-dashboard] .controls') && document.readyState !== 'loading'`)
		return run(t, tab, 10*time.Second, chromedp.Evaluate[firstPaint](readFirstPaintJS))
	}
	check := func(name string, got firstPaint, bg, theme string) {
		t.Helper()
		if got.Wasm {
			t.Fatalf("%s: the wasm ran although refused: the test cannot see the first paint", name)
		}
		if got.Body != bg || got.Root != bg || got.Theme != theme {
			t.Errorf("%s: page %s, root %s (data-theme %q); want %s, %q", name, got.Body, got.Root, got.Theme, bg, theme)
		}
		// The button says "Dark theme" (switch to dark) only when the page
		// is light, followed or chosen: the live page's button says the same.
		if want := map[string]string{lightBg: "Dark theme", darkBg: "Light theme"}[bg]; got.Button != want {
			t.Errorf("%s: theme button %q, want %q", name, got.Button, want)
		}
		if bg == darkBg && got.Panel != darkPanel {
			t.Errorf("%s: panels %s, want the dark theme's %s", name, got.Panel, darkPanel)
		}
	}

	scheme("dark")
	check("OS dark, no choice", open(layoutWindow()), darkBg, "auto")
	saveLayoutShot(t, "first-paint-os-dark", run(t, tab, 30*time.Second, chromedp.CaptureScreenshot()))
	q := layoutWindow()
	q.Set("theme", "light")
	check("OS dark, ?theme=light", open(q), lightBg, "light")
	scheme("light")
	check("OS light, no choice", open(layoutWindow()), lightBg, "auto")
	q.Set("theme", "dark")
	check("OS light, ?theme=dark", open(q), darkBg, "dark")

	// Remembered choices (go-app's LocalStorage writes JSON strings).
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(localStorage.setItem('specdash.theme', '"dark"'), true)`))
	check("OS light, remembered dark", open(layoutWindow()), darkBg, "auto")
	scheme("dark")
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(localStorage.setItem('specdash.theme', '"light"'), true)`))
	got := open(layoutWindow())
	check("OS dark, remembered light", got, lightBg, "auto")
	if attr := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.documentElement.dataset.theme || ''`)); !strings.EqualFold(attr, "light") {
		t.Errorf("remembered light: <html data-theme=%q>, want light", attr)
	}
	run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(localStorage.removeItem('specdash.theme'), true)`))
}
