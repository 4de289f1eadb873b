//go:build !js

package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"image/png"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestExportSplitAndSummary: with one model chosen for the split charts
// (split=model-a) and a filter (engine=0), the per-position chart's CSV
// holds model-a's own rates (not the blend of both models) and says
// which group it shows, the page's summary line, the window, source and
// convention; its PNG has title lines above the chart (taller than the
// chart, with text pixels in the band above it).
func TestExportSplitAndSummary(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	q := layoutWindow()
	q.Set("engine", "0")
	q.Set("split", "v:"+base64.RawURLEncoding.EncodeToString([]byte(`["model-a"]`)))
	step(t, tab, 10*time.Second, chromedp.EmulateViewport(1440, 900))
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitReady(t, tab, 90*time.Second)
	waitJS(t, tab, 30*time.Second, `document.querySelector('[data-split]').dataset.splitGroup === 'model-a'`)

	text := exportText(t, tab, "per-position.csv")
	for _, want := range []string{"# shows: model-a (1 of 2 models)\n", "# summary: engine = 0 · 2025-06-01 ", "# window_start: 2025-06-01T00:00:00Z\n",
		"# filters: engine in [0]\n", "# source: http://127.0.0.1:", "# convention: with bonus token", "# rates: drafts/s and tokens/s per second of data: "} {
		if !strings.Contains(text, want) {
			t.Errorf("per-position CSV lacks %q:\n%s", want, text)
		}
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("per-position CSV: %d records, %v:\n%s", len(recs), err, text)
	}
	a := layoutModels[0]
	for i := 0; i < 3; i++ {
		want := float64(a.pos[i]) / float64(a.drafts) // model-a's own rate; the blend differs
		if got, err := strconv.ParseFloat(recs[i+1][3], 64); err != nil || !closeEnough(got, want) {
			t.Errorf("per-position CSV pos %d rate %q, want model-a's %v", i+1, recs[i+1][3], want)
		}
	}

	// The PNG: the data URL the export's link gets.
	href := run(t, tab, 30*time.Second, chromedp.Evaluate[string](`(async () => {
	  let got = '';
	  const orig = HTMLAnchorElement.prototype.click;
	  HTMLAnchorElement.prototype.click = function () { got = this.href; };
	  try { document.querySelector('[data-export="per-position.png"]').click(); } finally { HTMLAnchorElement.prototype.click = orig; }
	  return got;
	})()`, func(p *cdpruntime.EvaluateParams) { yes := true; p.AwaitPromise = &yes }))
	b64, ok := strings.CutPrefix(href, "data:image/png;base64,")
	if !ok {
		t.Fatalf("PNG export link %.60q, want a PNG data URL", href)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	saveLayoutShot(t, "per-position-export", raw)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("PNG export: %v", err)
	}
	css := run(t, tab, 10*time.Second, chromedp.Evaluate[[]float64](`(() => { const r = echarts.getInstanceByDom(document.querySelector('[data-chart="per-position"]')); return [r.getWidth(), r.getHeight()]; })()`))
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	// Three title lines (at least): 8 px padding + 3 × 17 px line height, at pixel ratio 2.
	minTop := 2 * (8 + 3*17)
	if w != int(2*css[0]) || h < int(2*css[1])+minTop {
		t.Fatalf("PNG %dx%d, chart %vx%v css px: want the chart at twice the size under >= %d px of title", w, h, css[0], css[1], minTop)
	}
	top := h - int(2*css[1])
	dark := 0
	for y := 0; y < top; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 128 && g>>8 < 128 && b>>8 < 128 {
				dark++
			}
		}
	}
	if dark < 500 {
		t.Errorf("PNG title band (%d px high): %d text pixels, want the summary's text", top, dark)
	}
}
