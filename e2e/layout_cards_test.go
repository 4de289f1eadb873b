//go:build !js

package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cardTextJS lists every headline card text that is cut: a block (label,
// number, window note, now line) whose content is wider than its box
// (scrollWidth > clientWidth: an ellipsis or a clip), or a part (number,
// unit, now label and value) reaching past its card's padding box. It
// also returns how many cards it read.
const cardTextJS = `(() => {
  const out = {cards: 0, cut: []};
  for (const c of document.querySelectorAll('.cards-now [data-card]')) {
    out.cards++;
    const cr = c.getBoundingClientRect();
    for (const sel of ['.card-label', '.metric-value', '.card-sub', '.card-now', '.now-label']) {
      for (const e of c.querySelectorAll(sel)) {
        if (e.getClientRects().length === 0) continue; // not shown (the phone hides the window note)
        if (e.scrollWidth > e.clientWidth) out.cut.push(c.dataset.card + ' ' + sel + ': ' + JSON.stringify(e.textContent) + ' ' + e.scrollWidth + ' > ' + e.clientWidth);
      }
    }
    for (const sel of ['.num', '.unit', '.now-label', '.now-value', '.card-label', '.card-sub']) {
      for (const e of c.querySelectorAll(sel)) {
        if (e.getClientRects().length === 0) continue;
        const r = e.getBoundingClientRect();
        if (r.left < cr.left - 0.5 || r.right > cr.right + 0.5) out.cut.push(c.dataset.card + ' ' + sel + ': ' + JSON.stringify(e.textContent) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' outside the card ' + Math.round(cr.left) + '..' + Math.round(cr.right));
      }
    }
  }
  return out;
})()`

type cardText struct {
	Cards int      `json:"cards"`
	Cut   []string `json:"cut"`
}

// TestLayoutCardText: at 1280, 1440 and 1920 px (seven cards in a row on
// the wider two) and on a 390 px phone, in both conventions (the length
// card's label is longer without the bonus token) and in kiosk mode, no
// headline card's label, number, unit, window note or now line is cut:
// text that does not fit wraps inside the card. At 1440 px the label
// "MEAN ACCEPTANCE LENGTH" and the now line ended in an ellipsis before.
func TestLayoutCardText(t *testing.T) {
	base := layoutServer(t)
	tab := newTab(t)
	type view struct {
		w, h  int64
		extra url.Values
	}
	views := []view{{1280, 800, nil}, {1440, 900, nil}, {1920, 1080, nil}, {390, 844, nil},
		{1440, 900, url.Values{"convention": {"nobonus"}}}, {1920, 1080, url.Values{"kiosk": {""}}}}
	for _, v := range views {
		q := layoutWindow()
		for k, vs := range v.extra {
			q[k] = vs
		}
		name := fmt.Sprintf("%dx%d %s", v.w, v.h, strings.TrimSuffix(v.extra.Encode(), "="))
		step(t, tab, 10*time.Second, chromedp.EmulateViewport(v.w, v.h))
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
		waitReady(t, tab, 90*time.Second)
		got := run(t, tab, 20*time.Second, chromedp.Evaluate[cardText](cardTextJS))
		if got.Cards != 7 {
			t.Errorf("%s: %d headline cards, want 7", name, got.Cards)
		}
		for _, c := range got.Cut {
			t.Errorf("%s: cut: %s", name, c)
		}
		if lv := readLayout(t, tab); lv.ScrollW > lv.Inner {
			t.Errorf("%s: scrolls sideways (%v > %v): %v", name, lv.ScrollW, lv.Inner, lv.Widest)
		}
		if t.Failed() {
			saveLayoutShot(t, strings.ReplaceAll(name, " ", "-"), run(t, tab, 30*time.Second, chromedp.CaptureScreenshot()))
		}
	}
}
