//go:build !js

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/report"
	"specdash/simulate"
)

// insightsView is the window and the insights panel's numbers.
type insightsView struct {
	State   string            `json:"state"`
	Start   string            `json:"start"`
	End     string            `json:"end"`
	Cost    string            `json:"cost"`
	Metrics map[string]string `json:"metrics"`
	Extra   string            `json:"extra"`
	URL     string            `json:"url"`
}

const readInsightsJS = `(() => {
  const out = {state: '', start: '', end: '', cost: '', metrics: {}, extra: '', url: location.search};
  const root = document.querySelector('[data-dashboard]');
  if (!root) return out;
  out.state = root.dataset.state || '';
  out.start = root.dataset.windowStart || '';
  out.end = root.dataset.windowEnd || '';
  const ins = document.querySelector('[data-insights]');
  if (!ins) return out;
  out.cost = ins.dataset.cost || '';
  for (const el of ins.querySelectorAll('[data-metric]')) {
    const key = el.dataset.metric + (el.dataset.position ? ':' + el.dataset.position : '');
    out.metrics[key] = el.dataset.value === undefined ? 'undefined' : el.dataset.value;
    if (el.dataset.metric === 'best-k') out.extra = el.dataset.extrapolated || '';
  }
  return out;
})()`

// TestInsightsPanel: with the simulator paused, the panel's speedup, best
// k, fit and intervals equal compute's on report.Build's counts for the
// window in data-window-start/end, at the cost from ?cost=, and a new cost
// typed in goes into the URL and the numbers.
func TestInsightsPanel(t *testing.T) {
	sim, err := simulate.New(simulate.Config{
		Models: []string{"m"}, Engines: 1, K: 3,
		Acceptance: []float64{0.8, 0.7, 0.6}, DraftsPerSecond: 20, Seed: 11,
	})
	if err != nil {
		t.Fatalf("simulate.New: %v", err)
	}
	simCtx, stopSim := context.WithCancel(context.Background())
	t.Cleanup(stopSim)
	go sim.Run(simCtx)
	simSrv := httptestServer(t, sim)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(simSrv, "http://")}, ScrapeInterval: scrapeInterval})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 1`, promtest.NonEmpty, 60*time.Second)
	base := startSpecdash(t, prom.URL)
	browser := startBrowser(t)
	client, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: scrapeInterval})
	if err != nil {
		t.Fatal(err)
	}

	// Let drafts accumulate, pause, and wait until Prometheus holds the
	// paused values: the window's counts then stay put.
	prom.WaitFor(t, `sum(vllm:spec_decode_num_drafts_total) > 150`, promtest.NonEmpty, 60*time.Second)
	sim.Pause()
	// The page's window end is aligned down to its step (1 s here), so the
	// wait below compares with settled aligned down too (it loads once:
	// refresh is off).
	settled := time.Now().Add(3 * scrapeInterval).UnixMilli()
	prom.WaitFor(t, fmt.Sprintf(`min(timestamp(vllm:spec_decode_num_drafts_total)) > %d`, settled/1000), promtest.NonEmpty, 2*time.Minute)

	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/?range=5m&cost=0.1"))
	waitJS(t, browser, 120*time.Second, fmt.Sprintf(`(() => { const r = document.querySelector('[data-dashboard]'); const i = document.querySelector('[data-insights] [data-metric=speedup]');
	  return r && r.dataset.state === 'ready' && +r.dataset.windowEnd >= %d && i && i.dataset.value !== undefined; })()`, settled/1000*1000))
	v := run(t, browser, 10*time.Second, chromedp.Evaluate[insightsView](readInsightsJS))
	t.Logf("insights: %+v", v)
	checkInsights(t, client, v, 0.1)

	// Type another cost: the URL and the numbers follow.
	run(t, browser, 10*time.Second, chromedp.Evaluate[bool](`(() => {
	  const i = document.getElementById('draft-cost-ratio');
	  i.value = '0.3';
	  i.dispatchEvent(new Event('change', {bubbles: true}));
	  return true;
	})()`))
	waitJS(t, browser, 30*time.Second, `(() => { const i = document.querySelector('[data-insights]'); return i && i.dataset.cost === '0.3' && new URLSearchParams(location.search).get('cost') === '0.3'; })()`)
	v = run(t, browser, 10*time.Second, chromedp.Evaluate[insightsView](readInsightsJS))
	checkInsights(t, client, v, 0.3)
	if !strings.Contains(v.URL, "range=5m") {
		t.Errorf("URL %q lost the range", v.URL)
	}
}

func checkInsights(t *testing.T, c *metricsclient.Client, v insightsView, cost float64) {
	t.Helper()
	if v.State != "ready" || v.Cost != strconv.FormatFloat(cost, 'g', -1, 64) {
		t.Fatalf("state %q cost %q, want ready and %v", v.State, v.Cost, cost)
	}
	start, _ := strconv.ParseInt(v.Start, 10, 64)
	end, _ := strconv.ParseInt(v.End, 10, 64)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := report.Build(ctx, c, report.Options{Range: time.Duration(end-start) * time.Millisecond, End: time.UnixMilli(end)})
	if err != nil {
		t.Fatalf("report.Build: %v", err)
	}
	if r.Grid.Start != start || r.Grid.End != end {
		t.Fatalf("report grid (%d, %d] differs from the page's (%d, %d]", r.Grid.Start, r.Grid.End, start, end)
	}
	counts := report.CountsOf(r.Total)
	if counts.Drafts == 0 {
		t.Fatalf("no drafts in the window: proves nothing")
	}
	sp := compute.EstimateSpeedup(counts, cost)
	bk := compute.FindBestK(counts, cost, 0)
	fit := compute.FitGeometric(counts)
	ar := compute.AcceptanceRateInterval(counts, 0)
	pp := compute.PerPositionIntervals(counts, 0)
	want := map[string]compute.Value{
		"speedup":               sp.Speedup,
		"best-k":                compute.Defined(float64(bk.BestK)),
		"best-k-speedup":        bk.Best,
		"current-k-speedup":     bk.Current,
		"fit-alpha":             fit.Alpha,
		"fit-chi-square":        fit.ChiSquare,
		"acceptance-rate-lower": ar.Lower,
		"acceptance-rate-upper": ar.Upper,
	}
	if bk.BestK != bk.CurrentK {
		want["best-k-gain"] = bk.Gain()
	} else if _, ok := v.Metrics["best-k-gain"]; ok {
		t.Errorf("best k is the current k %d, yet the page shows a gain", bk.CurrentK)
	}
	for i, iv := range pp {
		want[fmt.Sprintf("per-position-lower:%d", i+1)] = iv.Lower
		want[fmt.Sprintf("per-position-upper:%d", i+1)] = iv.Upper
	}
	for name, w := range want {
		checkValue(t, "insights "+name, v.Metrics[name], w)
	}
	if (v.Extra == "true") != bk.BestExtrapolated {
		t.Errorf("best k extrapolated mark %q, compute says %v", v.Extra, bk.BestExtrapolated)
	}
	t.Logf("cost %v: speedup %v, best k %d (extrapolated %v) %v vs current %v", cost, sp.Speedup, bk.BestK, bk.BestExtrapolated, bk.Best, bk.Current)
}

// httptestServer serves h on a loopback port for the test and returns its
// URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	forgetOrigin(t, s.URL)
	return s.URL
}
