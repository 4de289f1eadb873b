//go:build !js

package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/report"
	"specdash/server"
	"specdash/simulate"
)

// The full dashboard against one Prometheus scraping two simulators (three
// models, two instances) and one browser tab, in steps: live (screenshots,
// two refreshes), then paused (numbers against report.Build).
func TestDashboardFull(t *testing.T) {
	testStart := time.Now()
	modelC := "mistral-7b"
	sim1, err := simulate.New(simulate.Config{
		Models: []string{modelA, modelB}, Engines: 2, K: 4,
		Acceptance:      []float64{0.85, 0.8, 0.75, 0.7},
		PerModel:        map[string]simulate.ModelOptions{modelB: {K: 3, Acceptance: []float64{0.6}}},
		DraftsPerSecond: 15, Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	sim2, err := simulate.New(simulate.Config{Models: []string{modelC}, Engines: 1, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 10, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stopSims := context.WithCancel(context.Background())
	t.Cleanup(stopSims)
	go sim1.Run(simCtx)
	go sim2.Run(simCtx)
	srv1, srv2 := httptest.NewServer(sim1), httptest.NewServer(sim2)
	t.Cleanup(srv1.Close)
	t.Cleanup(srv2.Close)
	inst1 := strings.TrimPrefix(srv1.URL, "http://")
	inst2 := strings.TrimPrefix(srv2.URL, "http://")

	prom := promtest.Start(t, promtest.Options{Targets: []string{inst1, inst2}, ScrapeInterval: scrapeInterval})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == 5`, promtest.NonEmpty, 60*time.Second)
	firstScrape := time.Now()
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	client, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: scrapeInterval})
	if err != nil {
		t.Fatal(err)
	}
	tab := newTab(t)

	open := func(q url.Values, minEnd int64) {
		t.Helper()
		began := time.Now()
		step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
		waitReady(t, tab, 120*time.Second)
		if d := time.Since(began); d > 20*time.Second {
			t.Logf("slow page: ready after %v for %s", d, q.Encode())
		}
		waitJS(t, tab, 90*time.Second, fmt.Sprintf(
			`(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.state === 'ready' && !r.dataset.stale && +r.dataset.windowEnd >= %d && !document.querySelector('[data-loading="true"]'); })()`, minEnd))
	}

	// 1. Live, grouped by model: screenshots of both themes.
	live := url.Values{"range": {"5m"}, "refresh": {"5s"}, "group": {"model_name"}}
	open(live, testStart.Add(30*time.Second).UnixMilli())
	// The screenshots show the window since Prometheus holds two scrapes
	// of the simulators (an absolute window, so the charts are filled edge
	// to edge, without the empty start).
	shotFrom := time.UnixMilli(firstScrape.UnixMilli()/1000*1000 + 2000).UTC().Format(time.RFC3339)
	shotTo := time.Now().UTC().Format(time.RFC3339)
	for _, theme := range []string{"light", "dark"} {
		q := url.Values{"range": {"5m"}, "from": {shotFrom}, "to": {shotTo}, "group": {"model_name"}, "theme": {theme}}
		open(q, 0)
		waitJS(t, tab, 30*time.Second, `(() => { const e = document.querySelector('[data-chart="acceptance-rate"]'); return !!(e && window.echarts && echarts.getInstanceByDom(e)); })()`)
		if got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-dashboard]').dataset.theme`)); got != theme {
			t.Errorf("data-theme %q, want %q", got, theme)
		}
		bg := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-dashboard]')).backgroundColor`))
		if dark := strings.HasPrefix(bg, "rgb(11, 17, 32"); dark != (theme == "dark") {
			t.Errorf("%s theme: page background %s", theme, bg)
		}
		rows := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('[data-row]').length`))
		if rows != 3 {
			t.Errorf("%s theme: %d breakdown rows, want 3 models", theme, rows)
		}
		shot := run(t, tab, 30*time.Second, chromedp.FullScreenshot(100))
		saveThemeShot(t, theme, shot)
	}

	// 2. Two refreshes: bucket times and values of complete buckets stay.
	t.Run("no layout shift across refreshes", func(t *testing.T) {
		open(url.Values{"range": {"5m"}, "refresh": {"5s"}}, 0)
		first := exportJSON(t, tab, "acceptance-rate.json")
		end1 := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-dashboard]').dataset.windowEnd`))
		waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => { const r = document.querySelector('[data-dashboard]'); return r && +r.dataset.windowEnd > %s && !document.querySelector('[data-loading="true"]'); })()`, end1))
		second := exportJSON(t, tab, "acceptance-rate.json")
		checkNoShift(t, first, second, 1000)
		// The export says what it holds (report.Table.Meta).
		// The last bucket ends where the window does.
		if len(first.Rows) == 0 || first.Meta["window_end"] != first.Rows[len(first.Rows)-1]["bucket_end"] ||
			first.Meta["window"] != "last 5m (live)" || first.Meta["filters"] != "none" || first.Meta["source"] == "" {
			t.Errorf("JSON export meta %v, want the window's end (the last bucket's), no filters and the source", first.Meta)
		}
	})

	// 3. Pause; once Prometheus holds the final values the window's numbers
	// no longer change and must equal report.Build.
	sim1.Pause()
	sim2.Pause()
	pausedAt := time.Now().UnixMilli()
	settled := time.Now().Add(3 * scrapeInterval).UnixMilli()
	// Whole seconds, rounded up: a page loaded after this holds a window
	// ending (aligned down to the 1 s step) at or after settled.
	prom.WaitFor(t, fmt.Sprintf(`min(timestamp(vllm:spec_decode_num_drafts_total)) > %d`, (settled+999)/1000), promtest.NonEmpty, 2*time.Minute)

	t.Run("grouping equals report", func(t *testing.T) {
		open(url.Values{"range": {"5m"}, "group": {"model_name,engine"}}, settled)
		p := readTable(t, tab)
		want := buildReport(t, client, p, report.Options{GroupBy: []string{"model_name", "engine"}})
		checkTable(t, p, want, false)
		if len(want.Groups) != 5 {
			t.Errorf("report has %d groups, want 5 (model x engine)", len(want.Groups))
		}
	})

	t.Run("CSV export equals report", func(t *testing.T) {
		text := exportText(t, tab, "breakdown.csv")
		for _, want := range []string{"# window_start: ", "# filters: none", "# group_by: model_name, engine", "# source: ", "# convention: with bonus token"} {
			if !strings.Contains(text, "\n"+want) && !strings.HasPrefix(text, want) {
				t.Errorf("CSV export lacks metadata line %q:\n%s", want, text)
			}
		}
		cr := csv.NewReader(strings.NewReader(text))
		cr.Comment = '#' // metadata lines (report.Table.Meta)
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("CSV: %v\n%s", err, text)
		}
		p := readTable(t, tab)
		want := buildReport(t, client, p, report.Options{GroupBy: []string{"model_name", "engine"}})
		if len(recs) != len(want.Groups)+1 {
			t.Fatalf("%d CSV rows, want %d groups + header:\n%s", len(recs), len(want.Groups), text)
		}
		col := map[string]int{}
		for i, c := range recs[0] {
			col[c] = i
		}
		for i, g := range want.Groups {
			r := recs[i+1]
			if r[col["model_name"]] != g.Labels["model_name"] || r[col["engine"]] != g.Labels["engine"] {
				t.Errorf("CSV row %d labels %v, report %v", i, r, g.Labels)
			}
			checkValue(t, "csv acceptance_rate", r[col["acceptance_rate"]], g.AcceptanceRate)
			checkValue(t, "csv mean_acceptance_length_tokens", r[col["mean_acceptance_length_tokens"]], g.MeanAcceptanceLength)
			checkValue(t, "csv drafts_per_second", r[col["drafts_per_second"]], g.DraftsPerSecond)
			checkValue(t, "csv accepted_tokens_per_second", r[col["accepted_tokens_per_second"]], g.AcceptedThroughput)
			checkValue(t, "csv drafted_tokens_per_second", r[col["drafted_tokens_per_second"]], g.DraftedThroughput)
			if r[col["k"]] != strconv.Itoa(g.K) || r[col["drafts"]] != strconv.FormatFloat(g.Drafts, 'f', -1, 64) {
				t.Errorf("CSV row %d k %s drafts %s, report %d %v", i, r[col["k"]], r[col["drafts"]], g.K, g.Drafts)
			}
		}
	})

	t.Run("PNG export", func(t *testing.T) {
		href := run(t, tab, 20*time.Second, chromedp.Evaluate[string](`(async () => {
		  let got = '';
		  const orig = HTMLAnchorElement.prototype.click;
		  HTMLAnchorElement.prototype.click = function () { got = this.href; };
		  document.querySelector('[data-export="per-position.png"]').click();
		  HTMLAnchorElement.prototype.click = orig;
		  return got;
		})()`, func(p *cdpruntime.EvaluateParams) { yes := true; p.AwaitPromise = &yes }))
		if !strings.HasPrefix(href, "data:image/png;base64,") || len(href) < 5000 {
			t.Errorf("PNG export link %.60q (%d bytes), want a PNG data URL", href, len(href))
		}
	})

	t.Run("filters on any label", func(t *testing.T) {
		q := url.Values{"range": {"5m"}, "model": {modelA, modelC}, "f.instance": {inst1}, "group": {"model_name,engine"}}
		open(q, settled)
		p := readTable(t, tab)
		filters := []metricsclient.Filter{{Name: "instance", Values: []string{inst1}}, {Name: "model_name", Values: []string{modelA, modelC}}}
		want := buildReport(t, client, p, report.Options{GroupBy: []string{"model_name", "engine"}, Filters: filters})
		checkTable(t, p, want, false)
		if len(p.Rows) != 2 {
			t.Errorf("%d rows, want modelA's two engines (modelC runs on the other instance)", len(p.Rows))
		}
		headline := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
		compareWithReport(t, client, headline, filters)
		// The live menus render their options while open.
		openFilterMenus(t, tab, "model-menu", "f-instance-menu")
		waitJS(t, tab, 10*time.Second, `document.querySelectorAll('#model input[type=checkbox]').length > 0 && document.querySelectorAll('#f-instance input[type=checkbox]').length > 0`)
		sel := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#model input[type=checkbox]:checked')).map(b => b.parentElement.textContent)`))
		if want := []string{modelA, modelC}; !slices.Equal(sel, want) {
			t.Errorf("model filter shows %q selected, want %q", sel, want)
		}
		opts := run(t, tab, 10*time.Second, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#f-instance input[type=checkbox]')).map(b => b.parentElement.textContent)`))
		if want := sortedStrings(inst1, inst2); !slices.Equal(opts, want) {
			t.Errorf("instance filter offers %q, want %q (the instances of models A and C)", opts, want)
		}
	})

	t.Run("URL round trip", func(t *testing.T) {
		// An absolute window inside the paused period, every parameter set.
		to := (settled / 1000) * 1000
		from := to - 4*60*1000
		srcName := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`(document.querySelector('[data-source-name]') || {dataset: {}}).dataset.sourceName || ''`))
		q := url.Values{
			"range": {"15m"}, "from": {time.UnixMilli(from).UTC().Format(time.RFC3339)}, "to": {time.UnixMilli(to).UTC().Format(time.RFC3339)},
			"refresh": {"30s"}, "model": {modelA, modelB}, "engine": {"1"}, "f.job": {"vllm"},
			"group": {"model_name"}, "convention": {"nobonus"}, "theme": {"dark"}, "tz": {"utc"},
			"sort": {"-acceptance-rate"}, "compare": {"groups"}, "a": {mustJSON([]string{modelB})}, "b": {mustJSON([]string{modelA})},
		}
		if srcName != "" {
			q.Set("source", srcName)
		}
		open(q, 0)
		// The URL is rewritten only by user actions: it still says the same.
		got := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`))
		gv, _ := url.ParseQuery(strings.TrimPrefix(got, "?"))
		if !sameValues(gv, q) {
			t.Errorf("URL after load %q, want %q", gv.Encode(), q.Encode())
		}
		type controls struct {
			Range, Refresh, TZ, Convention, From, To, Theme, Compare, A, B string
			Models, Engines, Jobs                                          []string
			Group                                                          []string
			Start, End                                                     string
			SortHead                                                       string
		}
		c := run(t, tab, 10*time.Second, chromedp.Evaluate[controls](`(() => {
		  const v = id => (document.getElementById(id) || {}).value || '';
		  // The chosen values are chips (a closed menu renders no boxes).
		  const sel = label => Array.from(document.querySelectorAll('[data-chip="' + label + '"] .chip-text')).map(c => c.textContent);
		  const txt = id => { const e = document.getElementById(id); return e && e.selectedIndex >= 0 ? e.options[e.selectedIndex].text : ''; };
		  const r = document.querySelector('[data-dashboard]');
		  const head = Array.from(document.querySelectorAll('th[data-sort]')).find(h => /[▲▼]/.test(h.textContent));
		  return {Range: v('range'), Refresh: v('refresh'), TZ: v('tz'), Convention: v('convention'), From: v('from'), To: v('to'),
		    Theme: r.dataset.theme, Compare: v('compare'), A: txt('compare-a'), B: txt('compare-b'),
		    Models: sel('model_name'), Engines: sel('engine'), Jobs: sel('job'),
		    Group: Array.from(document.querySelectorAll('input[data-group]')).filter(i => i.checked).map(i => i.dataset.group),
		    Start: r.dataset.windowStart, End: r.dataset.windowEnd, SortHead: head ? head.dataset.sort + head.textContent.slice(-1) : ''};
		})()`))
		want := controls{Range: "custom", Refresh: "30s", TZ: "utc", Convention: "nobonus",
			From: time.UnixMilli(from).UTC().Format("2006-01-02 15:04:05"), To: time.UnixMilli(to).UTC().Format("2006-01-02 15:04:05"), // text inputs (app.timeInput)
			Theme: "dark", Compare: "groups", A: modelB, B: modelA,
			Models: []string{modelA, modelB}, Engines: []string{"1"}, Jobs: []string{"vllm"}, Group: []string{"model_name"},
			Start: strconv.FormatInt(from, 10), End: strconv.FormatInt(to, 10), SortHead: "acceptance-rate▼"}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("controls\n%+v\nwant\n%+v", c, want)
		}
		// The numbers: the same window, filters, grouping and convention.
		p := readTable(t, tab)
		filters := []metricsclient.Filter{{Name: "engine", Values: []string{"1"}}, {Name: "job", Values: []string{"vllm"}}, {Name: "model_name", Values: []string{modelA, modelB}}}
		rep := buildReport(t, client, p, report.Options{GroupBy: []string{"model_name"}, Filters: filters, Convention: compute.WithoutBonus})
		checkTable(t, p, rep, true)
		// Sorted by acceptance rate, highest first.
		for i := 1; i < len(p.Rows); i++ {
			if a, b := p.Rows[i-1].Values["acceptance-rate"], p.Rows[i].Values["acceptance-rate"]; parseF(a) < parseF(b) {
				t.Errorf("rows not sorted by acceptance rate descending: %s before %s", a, b)
			}
		}
		// Copy link shows the page's URL: the whole view.
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](`(document.getElementById('copy-link').click(), true)`))
		waitJS(t, tab, 10*time.Second, `!!document.querySelector('input[data-link]')`)
		link := run(t, tab, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('input[data-link]').value`))
		if lu, err := url.Parse(link); err != nil || !sameValues(lu.Query(), q) {
			t.Errorf("copied link %q does not hold the view %q", link, q.Encode())
		}
		// The notice follows the clipboard's promise: copied, or refused
		// with the reason (NotAllowedError without focus or permission).
		waitJS(t, tab, 10*time.Second, `/clipboard was not available \\(NotAllowedError\\)|Link copied to the clipboard/.test(document.body.innerText)`)
		// The comparison is shown with a verdict per row.
		n := run(t, tab, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('[data-compare][data-significant]').length`))
		if n != 1+4 {
			t.Errorf("%d compared proportions, want the acceptance rate and 4 positions", n)
		}
	})

	t.Run("zoom by selecting on a chart", func(t *testing.T) {
		open(url.Values{"range": {"5m"}}, settled)
		g := readGrid(t, tab)
		// Select the 30 buckets that end 10 s before the pause.
		last := int((pausedAt-10_000-g.Start)/g.Step) - 1
		first := last - 29
		if first < 0 {
			t.Fatalf("the pause (%d) is no longer in the window %+v", pausedAt, g)
		}
		run(t, tab, 10*time.Second, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		  const inst = echarts.getInstanceByDom(document.querySelector('[data-chart="acceptance-rate"]'));
		  inst.trigger('brushend', {areas: [{coordRange: [%d, %d]}]}); // what ECharts emits for a finished lineX selection (its event names are lower-cased)
		  return true;
		})()`, first, last)))
		from, to := g.Start+int64(first)*g.Step, g.Start+int64(last+1)*g.Step
		waitJS(t, tab, 60*time.Second, fmt.Sprintf(`(() => { const r = document.querySelector('[data-dashboard]'); return r && r.dataset.state === 'ready' && +r.dataset.windowStart === %d && +r.dataset.windowEnd === %d; })()`, from, to))
		q, _ := url.ParseQuery(strings.TrimPrefix(run(t, tab, 10*time.Second, chromedp.Evaluate[string](`location.search`)), "?"))
		if q.Get("from") != time.UnixMilli(from).UTC().Format(time.RFC3339) || q.Get("to") != time.UnixMilli(to).UTC().Format(time.RFC3339) {
			t.Errorf("URL after zoom %q, want from/to of buckets %d..%d", q.Encode(), first, last)
		}
		headline := run(t, tab, 10*time.Second, chromedp.Evaluate[page](readPageJS))
		compareWithReport(t, client, headline, nil)
	})
}

// tableView is the breakdown table as shown.
type tableView struct {
	Start, End, Step string
	Rows             []struct {
		Labels map[string]string `json:"labels"`
		Values map[string]string `json:"values"`
	}
}

const readTableJS = `(() => {
  const r = document.querySelector('[data-dashboard]');
  const out = {Start: r.dataset.windowStart, End: r.dataset.windowEnd, Step: r.dataset.stepSeconds, Rows: []};
  for (const tr of document.querySelectorAll('tr[data-row]')) {
    const row = {labels: {}, values: {}};
    for (const td of tr.querySelectorAll('[data-label]')) row.labels[td.dataset.label] = td.textContent;
    for (const td of tr.querySelectorAll('[data-cell]')) row.values[td.dataset.cell] = td.dataset.value || '';
    out.Rows.push(row);
  }
  return out;
})()`

func readTable(t *testing.T, tab context.Context) tableView {
	t.Helper()
	return run(t, tab, 10*time.Second, chromedp.Evaluate[tableView](readTableJS))
}

func readGrid(t *testing.T, tab context.Context) compute.Grid {
	t.Helper()
	p := readTable(t, tab)
	start, _ := strconv.ParseInt(p.Start, 10, 64)
	end, _ := strconv.ParseInt(p.End, 10, 64)
	stepS, _ := strconv.ParseFloat(p.Step, 64)
	return compute.Grid{Start: start, End: end, Step: int64(stepS * 1000)}
}

// buildReport runs report.Build for the page's window with o's grouping,
// filters and convention.
func buildReport(t *testing.T, c *metricsclient.Client, p tableView, o report.Options) *report.Result {
	t.Helper()
	start, _ := strconv.ParseInt(p.Start, 10, 64)
	end, _ := strconv.ParseInt(p.End, 10, 64)
	if end <= start {
		t.Fatalf("bad window hooks %q..%q", p.Start, p.End)
	}
	o.Range = time.Duration(end-start) * time.Millisecond
	o.End = time.UnixMilli(end)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := report.Build(ctx, c, o)
	if err != nil {
		t.Fatalf("report.Build: %v", err)
	}
	if r.Grid.Start != start || r.Grid.End != end {
		t.Fatalf("report grid (%d, %d] differs from the page's (%d, %d]", r.Grid.Start, r.Grid.End, start, end)
	}
	return r
}

// checkTable compares the table's rows with the report's groups (by label
// values; in order unless anyOrder).
func checkTable(t *testing.T, p tableView, r *report.Result, anyOrder bool) {
	t.Helper()
	if len(p.Rows) != len(r.Groups) {
		t.Fatalf("%d table rows, report has %d groups", len(p.Rows), len(r.Groups))
	}
	for i, row := range p.Rows {
		g := r.Groups[i]
		if anyOrder {
			found := false
			for _, gg := range r.Groups {
				if reflect.DeepEqual(gg.Labels, row.Labels) {
					g, found = gg, true
				}
			}
			if !found {
				t.Errorf("row %d labels %v not in the report", i, row.Labels)
				continue
			}
		} else if !reflect.DeepEqual(row.Labels, g.Labels) {
			t.Errorf("row %d labels %v, report %v", i, row.Labels, g.Labels)
			continue
		}
		checkValue(t, fmt.Sprintf("row %v acceptance-rate", row.Labels), row.Values["acceptance-rate"], g.AcceptanceRate)
		checkValue(t, fmt.Sprintf("row %v mean-acceptance-length", row.Labels), row.Values["mean-acceptance-length"], g.MeanAcceptanceLength)
		checkValue(t, fmt.Sprintf("row %v drafts-per-second", row.Labels), row.Values["drafts-per-second"], g.DraftsPerSecond)
		checkValue(t, fmt.Sprintf("row %v accepted-throughput", row.Labels), row.Values["accepted-throughput"], g.AcceptedThroughput)
		if row.Values["k"] != strconv.Itoa(g.K) {
			t.Errorf("row %v k %q, report %d", row.Labels, row.Values["k"], g.K)
		}
		if !g.AcceptanceRate.OK {
			t.Errorf("group %v has no drafts: the comparison proves little", g.Labels)
		}
	}
}

// exportText clicks an export button and returns the downloaded Blob's text
// (URL.createObjectURL is wrapped to keep the Blob).
func exportText(t *testing.T, tab context.Context, export string) string {
	t.Helper()
	js := fmt.Sprintf(`(async () => {
	  if (!window.__sdBlobs) {
	    window.__sdBlobs = [];
	    const orig = URL.createObjectURL.bind(URL);
	    URL.createObjectURL = b => { window.__sdBlobs.push(b); return orig(b); };
	  }
	  window.__sdBlobs.length = 0;
	  const b = document.querySelector('[data-export=%q]');
	  if (!b) return 'no button';
	  b.click();
	  for (let i = 0; i < 100 && !window.__sdBlobs.length; i++) await new Promise(r => setTimeout(r, 50));
	  return window.__sdBlobs.length ? await window.__sdBlobs[0].text() : 'no blob';
	})()`, export)
	text := run(t, tab, 20*time.Second, chromedp.Evaluate[string](js, func(p *cdpruntime.EvaluateParams) { yes := true; p.AwaitPromise = &yes }))
	if text == "no button" || text == "no blob" {
		t.Fatalf("export %s: %s", export, text)
	}
	return text
}

type exported struct {
	Meta    map[string]string `json:"meta"`
	Columns []string          `json:"columns"`
	Rows    []map[string]any  `json:"rows"`
}

func exportJSON(t *testing.T, tab context.Context, export string) exported {
	t.Helper()
	var e exported
	if err := json.Unmarshal([]byte(exportText(t, tab, export)), &e); err != nil {
		t.Fatalf("export %s: %v", export, err)
	}
	return e
}

// checkNoShift: every bucket complete in the first export is in the second
// with the same end time and values; bucket ends are step-aligned.
func checkNoShift(t *testing.T, first, second exported, stepMs int64) {
	t.Helper()
	byEnd := map[int64]map[string]any{}
	for _, r := range second.Rows {
		byEnd[int64(r["bucket_end_unix_ms"].(float64))] = r
	}
	compared, incomplete := 0, 0
	var prev int64
	for _, r := range first.Rows {
		end := int64(r["bucket_end_unix_ms"].(float64))
		if end%stepMs != 0 || (prev != 0 && end-prev != stepMs) {
			t.Fatalf("bucket end %d not on the %d ms grid (previous %d)", end, stepMs, prev)
		}
		prev = end
		if r["complete"] != true {
			incomplete++
			continue
		}
		o, ok := byEnd[end]
		if !ok {
			continue // slid out of the window
		}
		if !reflect.DeepEqual(r, o) {
			t.Errorf("complete bucket ending %d changed between refreshes: %v -> %v", end, r, o)
		}
		compared++
	}
	t.Logf("%d complete buckets compared across two refreshes; %d incomplete in the first", compared, incomplete)
	if compared < 100 || incomplete == 0 {
		t.Errorf("compared %d buckets, %d incomplete: want >= 100 and the newest marked incomplete", compared, incomplete)
	}
}

func saveThemeShot(t *testing.T, theme string, png []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dashboard-"+theme+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s theme screenshot: %s", theme, p)
	if dir := os.Getenv("SPECDASH_SCREENSHOT_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "dashboard-"+theme+".png"), png, 0o644)
	}
	if theme == "light" && os.Getenv("SPECDASH_UPDATE_SCREENSHOT") == "1" {
		docs, _ := filepath.Abs(filepath.Join("..", "docs", "screenshot.png"))
		if err := os.WriteFile(docs, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot updated: %s", docs)
	}
}

func sameValues(a, b url.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		x, y := slices.Clone(v), slices.Clone(b[k])
		slices.Sort(x)
		slices.Sort(y)
		if !slices.Equal(x, y) {
			return false
		}
	}
	return true
}

func sortedStrings(s ...string) []string { slices.Sort(s); return s }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func parseF(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
