//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/server"
	"specdash/simulate"
)

// sourceState is the source the page reads, from its hooks and URL.
type sourceState struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Param   string   `json:"param"`
	Options []string `json:"options"`
	Summary string   `json:"summary"`
}

const readSourceStateJS = `(() => {
  const st = document.querySelector('[data-source-status]');
  const sel = document.getElementById('source');
  const sum = document.querySelector('[data-source-summary]');
  return {
    name: st ? st.dataset.sourceName || '' : '',
    kind: st ? st.dataset.sourceKind || '' : '',
    param: new URLSearchParams(location.search).get('source') || '',
    options: sel ? Array.from(sel.options).map(o => o.value) : [],
    summary: sum ? sum.textContent : '',
  };
})()`

// TestSourceSelector: two named sources, each a real Prometheus scraping
// its own simulator (different models, k and acceptance). The page opens
// on the default source; choosing the other one in the selector puts its
// name in the URL and shows that source's numbers, equal to report.Build
// against it; choosing the first again goes back.
func TestSourceSelector(t *testing.T) {
	tab := newTab(t)
	simA, err := simulate.New(simulate.Config{Models: []string{"alpha-8B"}, K: 4, Acceptance: []float64{0.85, 0.75, 0.65, 0.55}, DraftsPerSecond: 20, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	simB, err := simulate.New(simulate.Config{Models: []string{"beta-70B"}, K: 3, Acceptance: []float64{0.5, 0.4, 0.3}, DraftsPerSecond: 12, Seed: 22})
	if err != nil {
		t.Fatal(err)
	}
	promA := startSim(t, simA, 1)
	promB := startSim(t, simB, 1)
	h, err := server.New(server.Config{
		Version:       "e2e",
		DefaultSource: "lab-a",
		Sources: []server.Source{
			{Name: "lab-a", URL: promA.URL, Label: "Prometheus A", ScrapeInterval: scrapeInterval},
			{Name: "lab-b.eu", URL: promB.URL, Label: "Prometheus B", ScrapeInterval: scrapeInterval},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	clientFor := func(p *promtest.Server) *metricsclient.Client {
		c, err := metricsclient.New(metricsclient.Config{Address: p.URL, ScrapeInterval: scrapeInterval})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// Let a few samples accumulate, then pause both simulators: once both
	// Prometheus hold the paused values, a window's numbers no longer
	// change and the page must equal report.Build exactly.
	for _, p := range []*promtest.Server{promA, promB} {
		p.WaitFor(t, `min(count_over_time(vllm:spec_decode_num_drafts_total[1m])) >= 5`, promtest.NonEmpty, 60*time.Second)
	}
	simA.Pause()
	simB.Pause()
	settled := time.Now().Add(3 * scrapeInterval)
	for _, p := range []*promtest.Server{promA, promB} {
		p.WaitFor(t, fmt.Sprintf(`min(timestamp(vllm:spec_decode_num_drafts_total)) > %d`, settled.Unix()), promtest.NonEmpty, 2*time.Minute)
	}
	waitSettled := func() {
		t.Helper()
		waitJS(t, tab, 60*time.Second, fmt.Sprintf(
			`(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.state === 'ready' && +r.dataset.windowEnd >= %d; })()`, settled.UnixMilli()))
	}

	// The default source.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&refresh=5s"))
	waitReady(t, tab, 120*time.Second)
	waitSettled()
	st := run(t, tab, 10*time.Second, chromedp.Evaluate[sourceState](readSourceStateJS))
	t.Logf("default: %+v", st)
	if st.Name != "lab-a" || st.Kind != "prometheus" || strings.Join(st.Options, ",") != "lab-a,lab-b.eu" {
		t.Errorf("page opened on source %q (%s) offering %q; want lab-a (prometheus) offering lab-a, lab-b.eu", st.Name, st.Kind, st.Options)
	}
	if !strings.Contains(st.Summary, "Prometheus A") {
		t.Errorf("source line %q does not name Prometheus A", st.Summary)
	}
	pa := readPageMenu(t, tab)
	t.Logf("lab-a: k %s, acceptance rate %s, mean acceptance length %s", pa.Metrics["k"], pa.Metrics["acceptance-rate"], pa.Metrics["mean-acceptance-length"])
	compareWithReport(t, clientFor(promA), pa, nil)
	if pa.Metrics["k"] != "4" || strings.Join(pa.Models, "|") != "all|alpha-8B" {
		t.Errorf("default source shows k %q, models %q; want 4 and alpha-8B only", pa.Metrics["k"], pa.Models)
	}

	// Switch with the selector.
	choose := func(name string) {
		t.Helper()
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		  window.__beforeSwitch = true;
		  const s = document.getElementById('source');
		  s.value = %q;
		  s.dispatchEvent(new Event('change', {bubbles: true}));
		  return true;
		})()`, name)))
		// The selector loads the page anew: poll (tolerating the
		// navigation) until a new document reads the chosen source.
		cond := fmt.Sprintf(`(() => {
		  const st = document.querySelector('[data-source-status]');
		  return !window.__beforeSwitch && new URLSearchParams(location.search).get('source') === %q && !!st && st.dataset.sourceName === %q;
		})()`, name, name)
		var err error
		if !testwait.Until(0, func() bool {
			ctx, cancel := context.WithTimeout(tab, 30*time.Second)
			defer cancel()
			var ok bool
			ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
			return err == nil && ok
		}) {
			t.Fatalf("after choosing source %s: the page did not load it within %s (last error %v)", name, testwait.Timeout, err)
		}
		waitReady(t, tab, 120*time.Second)
		waitSettled()
	}
	choose("lab-b.eu")
	st = run(t, tab, 10*time.Second, chromedp.Evaluate[sourceState](readSourceStateJS))
	t.Logf("after choosing lab-b.eu: %+v", st)
	if st.Param != "lab-b.eu" || st.Name != "lab-b.eu" || !strings.Contains(st.Summary, "Prometheus B") {
		t.Errorf("after choosing lab-b.eu: URL source %q, page source %q, line %q", st.Param, st.Name, st.Summary)
	}
	if q := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`)); !strings.Contains(q, "range=5m") {
		t.Errorf("URL after switching %q: the range was not kept", q)
	}
	pb := readPageMenu(t, tab)
	t.Logf("lab-b.eu: k %s, acceptance rate %s, mean acceptance length %s", pb.Metrics["k"], pb.Metrics["acceptance-rate"], pb.Metrics["mean-acceptance-length"])
	compareWithReport(t, clientFor(promB), pb, nil)
	if pb.Metrics["k"] != "3" || len(pb.Positions) != 3 || strings.Join(pb.Models, "|") != "all|beta-70B" {
		t.Errorf("source lab-b.eu shows k %q, %d positions, models %q; want 3, 3, beta-70B only", pb.Metrics["k"], len(pb.Positions), pb.Models)
	}
	if pb.Metrics["acceptance-rate"] == pa.Metrics["acceptance-rate"] {
		t.Errorf("both sources show acceptance rate %s: the switch changed nothing", pa.Metrics["acceptance-rate"])
	}

	// And back.
	choose("lab-a")
	back := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
	compareWithReport(t, clientFor(promA), back, nil)
	if back.Metrics["k"] != "4" {
		t.Errorf("back on lab-a: k %q, want 4", back.Metrics["k"])
	}

	// A ?source= that names no configured source: the page says it shows
	// the default one, and its summary line names that one, not the
	// unknown name.
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?range=5m&source=nope"))
	waitReady(t, tab, 120*time.Second)
	texts := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`[document.body.innerText, (document.querySelector('[data-filter-summary]') || {}).textContent || '']`))
	if !strings.Contains(texts[0], `unknown source "nope"`) || !strings.HasSuffix(texts[1], "source Prometheus A") || strings.Contains(texts[1], "nope") {
		t.Errorf("?source=nope: page says unknown source %v, summary line %q; want the notice and the default source (Prometheus A) named", strings.Contains(texts[0], `unknown source "nope"`), texts[1])
	}
}

// startSim runs sim on a loopback port and a real Prometheus scraping it
// every scrapeInterval, waiting for its series.
func startSim(t *testing.T, sim *simulate.Simulator, series int) *promtest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sim.Run(ctx)
	u := serve(t, sim)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(u, "http://")}, ScrapeInterval: scrapeInterval})
	prom.WaitFor(t, fmt.Sprintf(`count(vllm:spec_decode_num_drafts_total) == %d`, series), promtest.NonEmpty, 60*time.Second)
	return prom
}
