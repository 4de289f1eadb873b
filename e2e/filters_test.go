package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/server"
)

// TestFilterMatchingNothing: a shared link whose model filter matches no
// series shows the diagnosis (the values present, no other names), and its
// model menu offers the models that exist, so picking one from the menu
// (no URL editing) brings the numbers back: org/model-b's acceptance rate
// over the fixture's whole range.
func TestFilterMatchingNothing(t *testing.T) {
	tab := newTab(t)
	fx, h := knownAnswerHandler(t)
	base := serve(t, h)
	w := fx.Whole
	u := base + "/?" + url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}, "model": {"no-such-model"}}.Encode()
	step(t, tab, 30*time.Second, chromedp.Navigate(u))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && r.dataset.state === 'error'; })()`)
	p := readPageMenu(t, tab)
	for _, want := range []string{"the metrics exist without the filters", "pick values that exist", `"org/model-b"`} {
		if !strings.Contains(p.Error, want) {
			t.Errorf("message lacks %q: %s", want, p.Error)
		}
	}
	for _, not := range []string{"found instead"} {
		if strings.Contains(p.Error, not) {
			t.Errorf("message says %q: %s", not, p.Error)
		}
	}
	for _, m := range []string{fixtures.ModelA, fixtures.ModelB} {
		if !slices.Contains(p.Models, m) {
			t.Errorf("model menu %q lacks %q", p.Models, m)
		}
	}

	// Pick org/model-b alone in the menu: check it, then uncheck the
	// URL's value (one change at a time: each re-renders the menu).
	modelJS, _ := json.Marshal(fixtures.ModelB)
	click := func(text []byte, checked bool) {
		t.Helper()
		js := fmt.Sprintf(`(() => {
		  const b = Array.from(document.querySelectorAll('#model input[type=checkbox]')).find(b => b.parentElement.textContent === %s);
		  if (!b) return false;
		  if (b.checked !== %v) b.click();
		  return true;
		})()`, text, checked)
		waitJS(t, tab, 30*time.Second, js)
		waitJS(t, tab, 30*time.Second, fmt.Sprintf(`(() => {
		  const b = Array.from(document.querySelectorAll('#model input[type=checkbox]')).find(b => b.parentElement.textContent === %s);
		  return !b ? %v === false : b.checked === %v;
		})()`, text, checked, checked))
	}
	openFilterMenus(t, tab, "model-menu") // its boxes are rendered while it is open
	click(modelJS, true)
	click([]byte(`"no-such-model"`), false)
	waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => {
	  const r = document.querySelector('[data-dashboard]');
	  const q = new URLSearchParams(location.search);
	  return !!r && r.dataset.state === 'ready' && q.getAll('model').join() === %s;
	})()`, modelJS))
	p = run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	numEq(t, "acceptance rate after picking "+fixtures.ModelB, p.Metrics["acceptance-rate"], fx.Whole.Models[fixtures.ModelB].AcceptanceRate)
}

// knownAnswerHandler starts a real Prometheus backfilled with the
// known-answer fixture and returns the fixture and a specdash server
// (handler, not yet listening) in front of it, at the fixture's step.
func knownAnswerHandler(t *testing.T) (fixtures.Fixture, http.Handler) {
	t.Helper()
	return knownAnswerServer(t, 0)
}

// knownAnswerServer is knownAnswerHandler with the server's
// PreRenderTimeout preRender (0: its default; negative: the pre-rendered
// page has no numbers, so preview.js draws no chart for the live page to
// adopt, app/chart.go: every chart is the live page's, on canvas).
func knownAnswerServer(t *testing.T, preRender time.Duration) (fixtures.Fixture, http.Handler) {
	t.Helper()
	fx := fixtures.KnownAnswer()
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Duration(fixtures.StepSeconds) * time.Second, Version: "e2e",
		PreRenderTimeout: preRender})
	if err != nil {
		t.Fatal(err)
	}
	return fx, h
}
