//go:build !js

package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/report"
	"specdash/server"
	"specdash/simulate"
)

// healthTile is one tile of the health row, read from the page.
type healthTile struct {
	Group   string `json:"group"`
	State   string `json:"state"`
	Name    string `json:"name"`
	Label   string `json:"label"`
	Summary string `json:"summary"`
	Details string `json:"details"`
	Sign    string `json:"sign"`
	Role    string `json:"role"`
}

const readHealthJS = `(() => {
  const row = document.querySelector('.health-row');
  const t = (el, sel) => ((el.querySelector(sel) || {}).textContent || '').trim();
  return Array.from(document.querySelectorAll('.health-tile')).map(el => ({
    group: el.dataset.healthGroup || '', state: el.dataset.healthState || '',
    name: t(el, '.health-name'), label: t(el, '.health-label'), summary: t(el, '.health-summary'),
    details: t(el, '.health-details'), sign: t(el, '.health-sign'), role: row ? (row.getAttribute('role') || '') : '',
  }));
})()`

// TestHealthRowCollapse: the simulator's collapse pattern for one model
// (switched on with POST /control/pattern), scraped by a real Prometheus,
// makes that model's tile in the health row say "collapsed" with its
// evidence and usual cause, while the other model's tile says "healthy";
// the breakdown's health column agrees.
func TestHealthRowCollapse(t *testing.T) {
	needAssets(t)
	sim, err := simulate.New(simulate.Config{
		Models: []string{modelA, modelB}, Engines: 1, K: 3,
		Acceptance: []float64{0.8, 0.7, 0.6}, DraftsPerSecond: 20, Seed: 11,
	})
	if err != nil {
		t.Fatal(err)
	}
	simSrv := httptest.NewServer(sim)
	t.Cleanup(simSrv.Close)
	resp, err := http.Post(simSrv.URL+"/control/pattern?"+url.Values{"mode": {"collapse"}, "model": {modelB}}.Encode(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /control/pattern: %s", resp.Status)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)

	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simSrv.URL, "http://")}, ScrapeInterval: scrapeInterval})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 2`, promtest.NonEmpty, 60*time.Second)
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)

	browser := newTab(t)
	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s&group=model_name"))
	waitReady(t, browser, 120*time.Second)
	// Until both models have enough drafts to be judged (50 drafts each;
	// 20 drafts/s): the row then shows one collapsed and one healthy tile.
	waitJS(t, browser, 180*time.Second, `(() => {
	  const s = Array.from(document.querySelectorAll('.health-tile')).map(el => el.dataset.healthState).sort().join(',');
	  return s === 'collapsed,healthy';
	})()`)
	tiles := run(t, browser, 10*time.Second, chromedp.Evaluate[[]healthTile](readHealthJS))
	t.Logf("health tiles: %+v", tiles)
	byName := map[string]healthTile{}
	for _, tl := range tiles {
		byName[tl.Name] = tl
	}
	bad, good := byName[modelB], byName[modelA]
	if bad.State != "collapsed" || bad.Label != "collapsed" || bad.Sign != "✕" || bad.Role != "status" {
		t.Errorf("%s tile: %+v, want collapsed with its sign, in a status row", modelB, bad)
	}
	if !strings.HasPrefix(bad.Summary, "drafts ") || !strings.Contains(bad.Summary, "/s but mean acceptance length 1.0") ||
		!strings.HasSuffix(bad.Summary, ": drafted tokens are almost all rejected") {
		t.Errorf("%s summary %q: want drafts/s and a mean acceptance length of about 1.0", modelB, bad.Summary)
	}
	// 20 drafts/s from one engine, over the part of the window with data
	// (not the whole 5m: the simulator started seconds ago).
	if m := regexp.MustCompile(`^drafts ([0-9.]+)/s `).FindStringSubmatch(bad.Summary); m == nil {
		t.Errorf("%s summary %q has no drafts/s", modelB, bad.Summary)
	} else if r, _ := strconv.ParseFloat(m[1], 64); r < 2 || r > 60 {
		t.Errorf("%s: %v drafts/s, want about 20 (the simulator's rate)", modelB, r)
	}
	if !strings.Contains(bad.Details, "below the collapse threshold 5.0 %") || !strings.Contains(bad.Details, "draft tokens)") ||
		!strings.Contains(bad.Details, "Usual cause: the drafter's proposals never match the target") {
		t.Errorf("%s evidence %q", modelB, bad.Details)
	}
	if good.State != "healthy" || good.Label != "healthy" || good.Sign != "✓" ||
		!strings.HasPrefix(good.Summary, "acceptance rate ") || !strings.Contains(good.Summary, ", mean acceptance length ") ||
		!strings.Contains(good.Details, "95 % interval") {
		t.Errorf("%s tile: %+v, want healthy with its rate and interval", modelA, good)
	}

	// specdash report over the page's window: the same verdicts.
	client, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: scrapeInterval})
	if err != nil {
		t.Fatal(err)
	}
	rep := buildReport(t, client, readTable(t, browser), report.Options{GroupBy: []string{"model_name"}})
	for _, g := range rep.Groups {
		name := g.Labels["model_name"]
		if g.Health == nil || string(g.Health.State) != byName[name].State {
			t.Errorf("report's verdict of %s: %+v, page %q", name, g.Health, byName[name].State)
		}
	}

	// The breakdown's health column: the same verdicts, by row.
	cells := run(t, browser, 10*time.Second, chromedp.Evaluate[map[string]string](`(() => {
	  const out = {};
	  for (const tr of document.querySelectorAll('table.breakdown tbody tr')) {
	    const l = tr.querySelector('[data-label="model_name"]'), h = tr.querySelector('[data-cell="health"]');
	    if (l && h) out[l.textContent] = h.dataset.state + '|' + h.textContent.trim();
	  }
	  return out;
	})()`))
	if cells[modelB] != "collapsed|✕ collapsed" || cells[modelA] != "healthy|✓ healthy" {
		t.Errorf("breakdown health column %q", cells)
	}
}

// TestHealthChangeLink: a model that collapses while the page is open
// (POST /control/pattern after some healthy traffic) gets a change point:
// a line under the acceptance-rate chart with the rates before and after,
// a markLine on its series, and a link that opens the compare view of the
// windows before and after, where the drop is significant.
func TestHealthChangeLink(t *testing.T) {
	needAssets(t)
	sim, err := simulate.New(simulate.Config{
		Models: []string{modelA, modelB}, Engines: 1, K: 3,
		Acceptance: []float64{0.8, 0.7, 0.6}, DraftsPerSecond: 20, Seed: 13,
	})
	if err != nil {
		t.Fatal(err)
	}
	simSrv := httptest.NewServer(sim)
	t.Cleanup(simSrv.Close)
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simSrv.URL, "http://")}, ScrapeInterval: scrapeInterval})
	// 15 healthy scrapes of each model before the collapse.
	prom.WaitFor(t, `min(count_over_time(vllm:spec_decode_num_drafts_total[5m])) >= 15`, promtest.NonEmpty, 120*time.Second)
	resp, err := http.Post(simSrv.URL+"/control/pattern?"+url.Values{"mode": {"collapse"}, "model": {modelB}}.Encode(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /control/pattern: %s", resp.Status)
	}
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	browser := newTab(t)
	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s&group=model_name&tz=utc"))
	waitReady(t, browser, 120*time.Second)
	wantLine := modelB + ": acceptance rate changed at "
	// Until the change is listed and the segment after it holds only
	// collapsed buckets (the bucket of the switch mixes both rates).
	waitJS(t, browser, 240*time.Second, `Array.from(document.querySelectorAll('.rate-changes li')).some(li =>
	  li.textContent.startsWith(`+strconv.Quote(wantLine)+`) && +((li.textContent.match(/ to ([0-9.]+) %/) || [])[1] ?? 100) < 5)`)
	// The tile judges the model since its change: collapsed, with the
	// whole window's verdict in a note.
	waitJS(t, browser, 60*time.Second, `Array.from(document.querySelectorAll('.health-tile')).some(el =>
	  el.querySelector('.health-name').textContent === `+strconv.Quote(modelB)+` && el.dataset.healthState === 'collapsed' &&
	  el.querySelector('.health-details').textContent.includes('judged since the last change of the acceptance rate'))`)
	// The chart is drawn when in view (lazy redraw, app/chart.go).
	run(t, browser, 10*time.Second, chromedp.Evaluate[bool](`(document.querySelector('[data-chart="acceptance-rate"]').scrollIntoView(), true)`))
	waitJS(t, browser, 60*time.Second, `(() => {
	  const el = document.querySelector('[data-chart="acceptance-rate"]');
	  const inst = el && window.echarts ? window.echarts.getInstanceByDom(el) : null;
	  const s = inst ? (inst.getOption().series || []).find(s => s.name === `+strconv.Quote(modelB)+`) : null;
	  return !!s && !!s.markLine && (s.markLine.data || []).length > 0;
	})()`)
	type changeLine struct {
		Text, Href string
		Marks      int
	}
	got := run(t, browser, 10*time.Second, chromedp.Evaluate[changeLine](`(() => {
	  const li = Array.from(document.querySelectorAll('.rate-changes li')).find(li => li.textContent.startsWith(`+strconv.Quote(wantLine)+`));
	  const el = document.querySelector('[data-chart="acceptance-rate"]');
	  const inst = el && window.echarts ? window.echarts.getInstanceByDom(el) : null;
	  const s = inst ? (inst.getOption().series || []).find(s => s.name === `+strconv.Quote(modelB)+`) : null;
	  return {Text: li.textContent, Href: li.querySelector('a').getAttribute('href'), Marks: s && s.markLine && s.markLine.data ? s.markLine.data.length : 0};
	})()`))
	t.Logf("change line: %+v", got)
	m := regexp.MustCompile(`changed at \d\d:\d\d from ([0-9.]+) % to ([0-9.]+) % \(p < 0\.001\) — compare before/after$`).FindStringSubmatch(got.Text)
	if m == nil {
		t.Fatalf("change line %q", got.Text)
	}
	before, _ := strconv.ParseFloat(m[1], 64)
	after, _ := strconv.ParseFloat(m[2], 64)
	// Acceptance 0.8, 0.7, 0.6 conditional: about 57 % of draft tokens;
	// collapse: 0.3 % per position.
	if before < 40 || after > 5 {
		t.Errorf("rates before %v %% after %v %%, want about 57 %% then under 5 %%", before, after)
	}
	if got.Marks < 1 {
		t.Errorf("no markLine on %s's acceptance-rate series", modelB)
	}
	q, err := url.ParseQuery(strings.TrimPrefix(got.Href, "/?"))
	if err != nil || q.Get("compare") != "window" || q.Get("base_to") == "" || q.Get("base_to") != q.Get("from") || q.Get("to") == "" || q.Get("refresh") != "" {
		t.Errorf("compare link %q", got.Href)
	}

	// Following the link: the compare view of after (B) against before
	// (A) finds the drop significant. The link is found again by its
	// line, not by the href read above: a live refresh in between moves
	// the window end the href carries.
	run(t, browser, 10*time.Second, chromedp.Evaluate[bool](`(Array.from(document.querySelectorAll('.rate-changes li')).find(li => li.textContent.startsWith(`+strconv.Quote(wantLine)+`)).querySelector('a').click(), true)`))
	waitJS(t, browser, 120*time.Second, `(() => {
	  const r = document.querySelector('[data-dashboard]'), row = document.querySelector('tr[data-compare="acceptance-rate"]');
	  return !!r && r.dataset.state === 'ready' && location.search.includes('compare=window') && !!row && row.dataset.significant === 'yes';
	})()`)
	shot := run(t, browser, 30*time.Second, chromedp.FullScreenshot(90))
	saveScreenshot(t, shot)
}
