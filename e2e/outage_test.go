//go:build !js

package e2e

import (
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

// outageMarks is what the page shows of the Outage fixture: its notes and
// the marks of the acceptance-rate and throughput charts (the x-axis
// category of each mark).
type outageMarks struct {
	Notes []string            `json:"notes"`
	Areas map[string][]string `json:"areas"`
	Lines map[string][]string `json:"lines"`
}

const readOutageJS = `(() => {
  const out = {notes: [], areas: {}, lines: {}};
  for (const el of document.querySelectorAll('body > [data-dashboard] .messages .msg-note')) out.notes.push(el.textContent);
  for (const name of ['acceptance-rate', 'token-throughput']) {
    const el = document.querySelector('body > [data-dashboard] [data-chart="' + name + '"]');
    const inst = el && window.echarts && echarts.getInstanceByDom(el);
    if (!inst) continue;
    const o = inst.getOption(), cats = o.xAxis[0].data, s = o.series[0];
    out.areas[name] = ((s.markArea || {}).data || []).map(d => (d[0].label && d[0].label.formatter ? d[0].label.formatter : 'area') + '@' + cats[d[0].xAxis] + '-' + cats[d[1].xAxis]);
    out.lines[name] = ((s.markLine || {}).data || []).map(d => d.name + '@' + cats[d.xAxis]);
  }
  return out;
})()`

// TestOutageOnPage: over the Outage fixture (an outage, a reset, a restart
// that only _created reveals; 1 m buckets), the dashboard names the gap and
// the restarts in its notes and marks them on the acceptance-rate and
// token-throughput charts: the gap from 00:15 to 00:20 as "no data", the
// bucket ending 00:21 as holding the gap's counts, restarts at the buckets
// ending 00:25 and 00:30.
func TestOutageOnPage(t *testing.T) {
	tab := newTab(t)
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.Outage())})
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: time.Minute, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	start := time.Unix(fixtures.OutageStartUnix, 0).UTC()
	u := base + "/?" + url.Values{"from": {start.Format(time.RFC3339)}, "to": {start.Add(40 * time.Minute).Format(time.RFC3339)}, "tz": {"UTC"}}.Encode()
	step(t, tab, 30*time.Second, chromedp.Navigate(u))
	waitReady(t, tab, 90*time.Second)
	for _, name := range []string{"acceptance-rate", "token-throughput"} {
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(() => { document.querySelector('body > [data-dashboard] [data-chart="`+name+`"]').scrollIntoView({block: 'center'}); return true; })()`))
		waitJS(t, tab, 60*time.Second, `(() => { const el = document.querySelector('body > [data-dashboard] [data-chart="`+name+`"]'); const i = el && window.echarts && echarts.getInstanceByDom(el); return !!i && !!i.getOption().series[0].markLine; })()`)
	}
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[outageMarks](readOutageJS))
	gapNote := "no samples for 5m from 2025-06-01T00:15:00Z: the source or its targets were down; the bucket after the gap holds the counts of the gap too, so its rates read high (marked on the charts)"
	restartNote := "2 counter restart(s) in 2 engine(s) in this window: each restart's new value is counted as its increase (marked on the charts)"
	for _, n := range []string{gapNote, restartNote} {
		if !slices.Contains(p.Notes, n) {
			t.Errorf("page notes %q lack %q", p.Notes, n)
		}
	}
	for _, name := range []string{"acceptance-rate", "token-throughput"} {
		if got, want := p.Areas[name], []string{"no data@00:15-00:20", "holds the gap's counts@00:20-00:21"}; !slices.Equal(got, want) {
			t.Errorf("%s: mark areas %q, want %q", name, got, want)
		}
		if got, want := p.Lines[name], []string{"restart@00:25", "restart@00:30"}; !slices.Equal(got, want) {
			t.Errorf("%s: mark lines %q, want %q", name, got, want)
		}
	}
	if t.Failed() {
		t.Logf("notes: %s", strings.Join(p.Notes, " | "))
	}
}
