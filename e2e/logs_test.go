//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/internal/browsertest"
	"specdash/internal/testwait"
	"specdash/server"
	"specdash/web"
)

// startBrowser starts headless Chromium with a fresh profile (the flags of
// TestDashboardEndToEnd) and records console errors for failure reports.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	skipShort(t)
	if _, err := fs.Stat(web.FS, "dist/app.wasm"); err != nil {
		t.Fatalf("web/dist/app.wasm is not built (embedded web.FS has none): run `make assets` first, then rerun the test")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s not found (%v): install it with `make deps`", chromiumPath, err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(t.TempDir())...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var consoleLog []string
	logConsole(browser, &consoleLog)
	t.Cleanup(func() {
		if t.Failed() && len(consoleLog) > 0 {
			t.Logf("browser console:\n%s", strings.Join(consoleLog, "\n"))
		}
	})
	return browser
}

// startSpecdash serves specdash on a loopback port for promURL.
func startSpecdash(t *testing.T, promURL string) string {
	t.Helper()
	h, err := server.New(server.Config{PrometheusURL: promURL, ScrapeInterval: scrapeInterval, Version: "e2e"})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	base := "http://" + ln.Addr().String()
	forgetOrigin(t, base)
	return base
}

// logsView is what the /logs page shows, read from its test hooks.
type logsView struct {
	State    string            `json:"state"`
	Total    map[string]string `json:"total"`
	Text     map[string]string `json:"text"`
	Derived  string            `json:"derived"`
	Pos      []string          `json:"pos"`
	Sources  []map[string]string
	Problems []string          `json:"problems"`
	Lines    []string          `json:"lines"`
	Insights map[string]string `json:"insights"`
	Bars     int               `json:"bars"`
	FitBars  int               `json:"fitBars"`
	Error    string            `json:"error"`
}

const readLogsJS = `(() => {
  const out = {state: '', total: {}, text: {}, derived: '', pos: [], sources: [], problems: [], lines: [], insights: {}, bars: 0, fitBars: 0, error: ''};
  const root = document.querySelector('[data-logs]');
  if (!root) return out;
  out.state = root.dataset.state || '';
  const err = document.querySelector('[data-error]');
  out.error = err ? err.textContent : '';
  const total = document.querySelector('[data-scope=total]');
  if (total) {
    for (const el of total.querySelectorAll('[data-metric]')) {
      if (el.dataset.metric === 'per-position-acceptance-rate') { out.pos.push(el.dataset.value || ''); continue; }
      out.total[el.dataset.metric] = el.dataset.value === undefined ? 'undefined' : el.dataset.value;
      out.text[el.dataset.metric] = el.textContent;
      if (el.dataset.metric === 'drafts') out.derived = el.dataset.derived || '';
    }
  }
  for (const row of document.querySelectorAll('[data-source]')) {
    const m = {name: row.cells[0].textContent};
    for (const el of row.querySelectorAll('[data-metric]')) m[el.dataset.metric] = el.dataset.value === undefined ? 'undefined' : el.dataset.value;
    out.sources.push(m);
  }
  for (const el of document.querySelectorAll('[data-problem]')) { out.problems.push(el.textContent); out.lines.push(el.dataset.line); }
  const ins = document.querySelector('[data-insights]');
  if (ins) for (const el of ins.querySelectorAll('[data-metric]')) {
    const key = el.dataset.metric + (el.dataset.position ? ':' + el.dataset.position : '');
    out.insights[key] = el.dataset.value === undefined ? 'undefined' : el.dataset.value;
  }
  const chartOf = name => {
    const el = document.querySelector('[data-chart="' + name + '"]');
    const inst = el && window.echarts ? window.echarts.getInstanceByDom(el) : null;
    if (!inst) return 0;
    const o = inst.getOption();
    return o.series && o.series[0] && o.series[0].data ? o.series[0].data.length : 0;
  };
  out.bars = chartOf('per-position');
  out.fitBars = chartOf('insights-fit');
  return out;
})()`

// pasteAndParse types text into the textarea (an input event, as a paste
// gives) and presses the button.
func pasteAndParse(t *testing.T, browser context.Context, text string) bool {
	t.Helper()
	js, _ := json.Marshal(text)
	return run(t, browser, 10*time.Second, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
	  const ta = document.getElementById('log-text');
	  if (!ta || !document.getElementById('parse')) return false;
	  ta.value = %s;
	  ta.dispatchEvent(new Event('input', {bubbles: true}));
	  document.getElementById('parse').click();
	  return true;
	})()`, js)))
}

func mustPaste(t *testing.T, browser context.Context, text string) {
	t.Helper()
	if !pasteAndParse(t, browser, text) {
		t.Fatal("no #log-text or #parse on the page")
	}
}

func numEq(t *testing.T, name, got string, want float64) {
	t.Helper()
	v, err := strconv.ParseFloat(got, 64)
	if err != nil || !near(v, want) {
		t.Errorf("%s: page %q, want %v", name, got, want)
	}
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := b
	if m < 0 {
		m = -m
	}
	return d <= 1e-9*max(1, m)
}

// TestLogsPage pastes the log lines of vLLM PR 16665's review thread
// (logparse/testdata/seed_000.log; docs/METRICS.md "Known answers") into
// /logs and checks the numbers against hand-computed counts, then garbage
// and a mixed input.
func TestLogsPage(t *testing.T) {
	browser := startBrowser(t)
	// No Prometheus is needed for /logs: the upstream is never contacted.
	base := startSpecdash(t, "http://127.0.0.1:9")

	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/logs"))
	waitJS(t, browser, 120*time.Second, `!!document.getElementById('log-text') && !!document.getElementById('parse')`)
	// Wait until the wasm app runs (the button answers).
	seed, err := os.ReadFile("../logparse/testdata/seed_000.log")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(seed), "\n", 2)[0]
	testwait.ForEvery(t, "/logs to show numbers", 0, 500*time.Millisecond, func() bool {
		_ = pasteAndParse(t, browser, first)
		return run(t, browser, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS)).State == "ready"
	})
	// The first PR 16665 line, as vLLM printed it: k = 4, accepted 686 of
	// drafted 2384: drafts = 2384/4 = 596 (derived), acceptance 686/2384 =
	// 0.28775 ("28.8%"), mean length without bonus (auto: as the log
	// printed it) 686/596 = 1.151 ("1.15"); per position round(0.576·596)
	// = 343, 195, 95, 53 -> 343/596, 195/596, 95/596, 53/596.
	// Charts out of view are drawn in idle time (app/chart.go).
	waitChartsDrawn(t, browser, 30*time.Second)
	v := run(t, browser, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS))
	t.Logf("one PR 16665 line: %+v", v)
	numEq(t, "drafts", v.Total["drafts"], 596)
	numEq(t, "acceptance-rate", v.Total["acceptance-rate"], 686.0/2384)
	numEq(t, "mean-acceptance-length", v.Total["mean-acceptance-length"], 686.0/596)
	numEq(t, "k", v.Total["k"], 4)
	if v.Derived != "true" {
		t.Errorf("drafts not marked derived: %q", v.Derived)
	}
	if v.Text["acceptance-rate"] != "28.8 %" || v.Text["mean-acceptance-length"] != "1.15 tokens/draft" || v.Total["accepted-throughput"] != "undefined" {
		t.Errorf("shown: %q, %q, throughput %q", v.Text["acceptance-rate"], v.Text["mean-acceptance-length"], v.Total["accepted-throughput"])
	}
	if len(v.Pos) != 4 {
		t.Fatalf("positions %q", v.Pos)
	}
	for i, n := range []float64{343, 195, 95, 53} {
		numEq(t, fmt.Sprintf("pos %d", i+1), v.Pos[i], n/596)
	}
	// Insights: L = 1 + 686/596 (tokens per target pass, with bonus), k = 4,
	// c = 0.05: speedup (1 + 686/596) / 1.2.
	numEq(t, "speedup", v.Insights["speedup"], (1+686.0/596)/1.2)
	if v.Bars != 4 || v.FitBars < 4 {
		t.Errorf("charts: %d per-position bars, %d fit-chart bars", v.Bars, v.FitBars)
	}

	// All eight PR 16665 lines: one source; accepted 21961 of 69622 drafted
	// (sums in logparse's TestSeedLines); drafts 596 + 1816 + 2746 + 3256 +
	// 3021 + 2315 + 3012 (k = 4) + 858 (k = 3) = 17620.
	mustPaste(t, browser, string(seed))
	waitJS(t, browser, 30*time.Second, `(() => { const e = document.querySelector('[data-scope=total] [data-metric=draft-tokens]'); return !!e && e.dataset.value === '69622'; })()`)
	v = run(t, browser, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS))
	numEq(t, "total drafts", v.Total["drafts"], 17620)
	numEq(t, "total acceptance-rate", v.Total["acceptance-rate"], 21961.0/69622)
	numEq(t, "total mean length", v.Total["mean-acceptance-length"], 21961.0/17620)
	// The last line has k = 3: a group of its own (2574 drafted), the
	// seven k = 4 lines another (69622 - 2574 = 67048), and a warning.
	if len(v.Sources) != 2 || v.Sources[0]["draft-tokens"] != "2574" || v.Sources[0]["k"] != "3" || v.Sources[1]["draft-tokens"] != "67048" || len(v.Problems) != 0 {
		t.Errorf("sources %+v problems %q", v.Sources, v.Problems)
	}
	if got := run(t, browser, 10*time.Second, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-warning]')).map(e => e.textContent).join('\n')`)); !strings.Contains(got, "the log mixes lines with different k (k = 3: 1 line from line 8; k = 4: 7 lines from line 1)") {
		t.Errorf("no mixed-k warning; warnings:\n%s", got)
	}
	// Throughput: the log has no window (not "no drafts").
	if got := run(t, browser, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-scope=total] [data-metric=accepted-throughput]').textContent`)); got != "throughput n/a (log window unknown)" {
		t.Errorf("accepted throughput shows %q", got)
	}

	// Reference lines with container and engine prefixes: one row per
	// source; the vllm-0 engine 0 line: k = 2, accepted 69 of 104 -> drafts
	// 52, mean length (current form, with bonus) 1 + 69/52 = 2.327.
	ref, err := os.ReadFile("../logparse/testdata/reference.log")
	if err != nil {
		t.Fatal(err)
	}
	mustPaste(t, browser, string(ref))
	waitJS(t, browser, 30*time.Second, `document.querySelectorAll('[data-source]').length === 5`)
	v = run(t, browser, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS))
	var found bool
	for _, s := range v.Sources {
		if strings.Contains(s["name"], "container vllm-0, engine 0") {
			found = true
			numEq(t, "vllm-0 drafts", s["drafts"], 52)
			numEq(t, "vllm-0 mean length", s["mean-acceptance-length"], 1+69.0/52)
			numEq(t, "vllm-0 acceptance", s["acceptance-rate"], 69.0/104)
		}
	}
	if !found {
		t.Errorf("no vllm-0 source row: %+v", v.Sources)
	}

	// Garbage with one truncated metrics line: an error state, the problem
	// listed with its line number, no numbers.
	mustPaste(t, browser, "hello <b>world</b>\n"+first[:90]+"\n")
	waitJS(t, browser, 30*time.Second, `(() => { const r = document.querySelector('[data-logs]'); return r && r.dataset.state === 'error'; })()`)
	v = run(t, browser, 10*time.Second, chromedp.Evaluate[logsView](readLogsJS))
	t.Logf("garbage: %+v", v)
	if len(v.Problems) != 1 || v.Lines[0] != "2" || !strings.HasPrefix(v.Problems[0], "line 2: ") || v.Error == "" || len(v.Total) != 0 {
		t.Errorf("garbage: %+v", v)
	}
	// The markup in the input stayed text.
	if n := run(t, browser, 10*time.Second, chromedp.Evaluate[int](`document.querySelectorAll('.logs b').length`)); n != 0 {
		t.Errorf("input markup became %d elements", n)
	}
}

// TestLogsLayout: /logs sits in the dashboard's .wrap container (padded,
// centred) and its paste box takes the panel's width (it was 182 px wide
// and flush left). A screenshot is written for a look.
func TestLogsLayout(t *testing.T) {
	browser := startBrowser(t)
	base := startSpecdash(t, "http://127.0.0.1:9")
	step(t, browser, 30*time.Second, chromedp.Navigate(base+"/logs"))
	waitJS(t, browser, 120*time.Second, `!!document.getElementById('log-text') && getComputedStyle(document.body).fontFamily !== ''`)
	type box struct {
		Wrap, WrapPadLeft, TopLeft, PanelWidth, TextWidth, TextLeft, PanelLeft, ViewWidth float64
	}
	b := run(t, browser, 10*time.Second, chromedp.Evaluate[box](`(() => {
	  const r = e => e ? e.getBoundingClientRect() : {left: -1, width: -1};
	  const wrap = document.querySelector('[data-logs] > .wrap');
	  const ta = document.getElementById('log-text');
	  const panel = ta.closest('.panel');
	  const cs = getComputedStyle(panel);
	  return {Wrap: wrap ? 1 : 0, WrapPadLeft: wrap ? parseFloat(getComputedStyle(wrap).paddingLeft) : 0,
	    TopLeft: r(document.querySelector('.top')).left,
	    PanelWidth: panel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
	    TextWidth: r(ta).width, TextLeft: r(ta).left, PanelLeft: r(panel).left, ViewWidth: window.innerWidth};
	})()`))
	t.Logf("layout %+v", b)
	if b.Wrap != 1 || b.WrapPadLeft < 16 || b.TopLeft < 16 {
		t.Errorf("no padded .wrap around the page: %+v", b)
	}
	if b.TextWidth < b.PanelWidth-2 || b.TextWidth < 0.8*b.ViewWidth-100 {
		t.Errorf("paste box %.0f px wide in a panel of %.0f px (window %.0f)", b.TextWidth, b.PanelWidth, b.ViewWidth)
	}
	seed, err := os.ReadFile("../logparse/testdata/seed_000.log")
	if err != nil {
		t.Fatal(err)
	}
	testwait.ForEvery(t, "/logs to show numbers", 0, 500*time.Millisecond, func() bool {
		if run(t, browser, 10*time.Second, chromedp.Evaluate[string](`document.querySelector('[data-logs]').dataset.state`)) == "ready" {
			return true
		}
		_ = pasteAndParse(t, browser, string(seed))
		return false
	})
	png := run(t, browser, 30*time.Second, chromedp.FullScreenshot(100))
	p := filepath.Join(os.TempDir(), "specdash-logs-layout.png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}
