//go:build !js

package e2e

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/server"
)

// schemaStep is the schema fixtures' sample interval (and the sources'
// scrape interval, so that a 600 s window has a 15 s step that sees every
// sample).
const schemaStep = 15 * time.Second

// withJob returns the OpenMetrics sample lines of body with the label
// job="<job>" added, grouped by family ("# TYPE" line first).
func withJob(body, job string) (order []string, fams map[string][]string) {
	fams = map[string][]string{}
	cur := ""
	for _, line := range strings.Split(body, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# TYPE "):
			cur = line
			if _, ok := fams[cur]; !ok {
				order = append(order, cur)
				fams[cur] = nil
			}
		case strings.HasPrefix(line, "#"):
		default:
			lbl := `job="` + job + `"`
			if i := strings.IndexByte(line, '{'); i >= 0 && i < strings.IndexByte(line, ' ') {
				line = line[:i+1] + lbl + "," + line[i+1:]
			} else {
				name, rest, _ := strings.Cut(line, " ")
				line = name + "{" + lbl + "} " + rest
			}
			fams[cur] = append(fams[cur], line)
		}
	}
	return order, fams
}

// jobsOpenMetrics joins fixtures into one backfill input, each fixture's
// series labelled job=<its schema ID>: families of the same name (vLLM V0
// and V1 share two counters) are merged under one "# TYPE" line, so every
// schema fixture fits in one Prometheus, told apart by the job filter.
func jobsOpenMetrics(fx []fixtures.SchemaFixture) string {
	var order []string
	all := map[string][]string{}
	for _, f := range fx {
		o, fams := withJob(f.Body, f.ID)
		for _, name := range o {
			if _, ok := all[name]; !ok {
				order = append(order, name)
			}
			all[name] = append(all[name], fams[name]...)
		}
	}
	var b strings.Builder
	for _, name := range order {
		b.WriteString(name + "\n")
		for _, l := range all[name] {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// schemaServer backfills openMetrics into a fresh Prometheus (query only)
// and serves the dashboard in front of it; it returns the dashboard's URL.
func schemaServer(t *testing.T, openMetrics string) string {
	t.Helper()
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, openMetrics)})
	h, err := server.New(server.Config{PrometheusURL: prom.URL, ScrapeInterval: schemaStep, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h)
}

// shownMetric is one [data-metric] element.
type shownMetric struct {
	Value     string `json:"value"`
	Text      string `json:"text"`
	Undefined bool   `json:"undefined"`
	Samples   string `json:"samples"`
}

// schemaPage is what the dashboard shows about the schema and its numbers.
type schemaPage struct {
	State     string                 `json:"state"`
	Schema    string                 `json:"schema"`
	Start     string                 `json:"start"`
	End       string                 `json:"end"`
	Step      string                 `json:"step"`
	Error     string                 `json:"error"`
	Metrics   map[string]shownMetric `json:"metrics"`
	Positions []shownMetric          `json:"positions"`
	Limits    []string               `json:"limits"`
	Body      string                 `json:"body"`
}

const readSchemaPageJS = `(() => {
  const r = document.querySelector('[data-dashboard]');
  const out = {state: r.dataset.state || '', schema: '', start: r.dataset.windowStart || '', end: r.dataset.windowEnd || '',
    step: r.dataset.stepSeconds || '', error: '', metrics: {}, positions: [], limits: [], body: document.body.innerText};
  const s = document.querySelector('[data-schema]');
  out.schema = s ? s.dataset.schema : '';
  const e = document.querySelector('[data-error]');
  out.error = e ? e.textContent : '';
  for (const el of document.querySelectorAll('[data-metric]')) {
    const m = {value: el.dataset.value || '', text: el.textContent, undefined: el.dataset.undefined === 'true', samples: el.dataset.samples || ''};
    const row = el.closest('tr[data-averaged-row]');
    const key = row ? el.dataset.metric + '/' + row.querySelector('.group-name').textContent : el.dataset.metric;
    if (el.dataset.metric === 'per-position-acceptance-rate') out.positions.push(m); else out.metrics[key] = m;
  }
  for (const el of document.querySelectorAll('[data-schema-limit]')) out.limits.push(el.textContent);
  return out;
})()`

// openSchema opens the dashboard at base for the window (from, to] (Unix
// s) with extra URL parameters and waits until it has loaded (ready or
// error, as want).
func openSchema(t *testing.T, tab context.Context, base string, from, to int64, extra url.Values, want string) schemaPage {
	t.Helper()
	q := url.Values{"from": {time.Unix(from, 0).UTC().Format(time.RFC3339)}, "to": {time.Unix(to, 0).UTC().Format(time.RFC3339)}}
	for k, v := range extra {
		q[k] = v
	}
	step(t, tab, 30*time.Second, chromedp.Navigate(base+"/?"+q.Encode()))
	waitJS(t, tab, 60*time.Second, `(() => { const r = document.querySelector('[data-dashboard]'); return !!r && (r.dataset.state === 'ready' || r.dataset.state === 'error') && !document.querySelector('[data-loading="true"]'); })()`)
	p := run(t, tab, 10*time.Second, chromedp.Evaluate[schemaPage](readSchemaPageJS))
	if p.State != want {
		t.Fatalf("%s: dashboard state %q, want %q; error: %s", q.Encode(), p.State, want, p.Error)
	}
	if want == "ready" {
		if p.Start != strconv.FormatInt(from*1000, 10) || p.End != strconv.FormatInt(to*1000, 10) || p.Step != "15" {
			t.Errorf("window (%s, %s] step %s s, want the fixture's (%d000, %d000] step 15 s", p.Start, p.End, p.Step, from, to)
		}
	}
	for _, bad := range []string{"NaN", "Infinity", "+Inf", "-Inf"} {
		if strings.Contains(p.Body, bad) {
			t.Errorf("the page shows %q", bad)
		}
	}
	return p
}

// checkShownValue compares a shown number with a hand-computed answer:
// counts exactly, ratios and rates to 1e-9; undefined answers must be
// shown as undefined (no data-value, data-undefined, a readable text).
func checkShownValue(t *testing.T, name string, got shownMetric, ok bool, want compute.Value) {
	t.Helper()
	if !ok {
		t.Errorf("%s: not shown (no [data-metric=%q])", name, name)
		return
	}
	if !want.OK {
		if got.Value != "" || !got.Undefined {
			t.Errorf("%s: shows %q (data-value %q), want undefined", name, got.Text, got.Value)
		}
		if txt := strings.TrimSpace(got.Text); txt != compute.Undefined && !strings.Contains(txt, "n/a") && !strings.Contains(txt, "not available") && !strings.Contains(txt, "needs") {
			t.Errorf("%s: undefined shown as %q, want %q or n/a", name, txt, compute.Undefined)
		}
		return
	}
	v, err := strconv.ParseFloat(got.Value, 64)
	if err != nil {
		t.Errorf("%s: data-value %q (text %q) is not a number, want %v", name, got.Value, got.Text, want.V)
		return
	}
	if math.Abs(v-want.V) > 1e-9*math.Max(1, math.Abs(want.V)) {
		t.Errorf("%s: shows %v, want %v (diff %g)", name, v, want.V, v-want.V)
	}
}

// checkCounterAnswer checks the headline cards and per-position numbers
// against a counter schema's answer; k is the expected k (0: unknown).
func checkCounterAnswer(t *testing.T, p schemaPage, a fixtures.SchemaAnswer, k int) {
	t.Helper()
	m := func(n string) (shownMetric, bool) { v, ok := p.Metrics[n]; return v, ok }
	for _, c := range []struct {
		name string
		want compute.Value
	}{
		{"acceptance-rate", a.AcceptanceRate},
		{"mean-acceptance-length", a.MeanAcceptanceLength},
		{"drafts-per-second", a.DraftsPerSecond},
		{"accepted-throughput", a.AcceptedPerSecond},
		{"drafted-throughput", a.DraftedPerSecond},
	} {
		got, ok := m(c.name)
		checkShownValue(t, c.name, got, ok, c.want)
	}
	kw := compute.Value{}
	if k > 0 {
		kw = compute.Defined(float64(k))
	}
	if got, ok := m("k"); !ok || (k > 0 && got.Value != strconv.Itoa(k)) || (k == 0 && (got.Value != "" || !got.Undefined)) {
		t.Errorf("k: shows %q (data-value %q), want %v", got.Text, got.Value, kw)
	}
	if len(p.Positions) != len(a.PerPositionRate) {
		t.Errorf("%d per-position numbers, want %d (%v)", len(p.Positions), len(a.PerPositionRate), a.PerPositionRate)
		return
	}
	for i, r := range a.PerPositionRate {
		checkShownValue(t, fmt.Sprintf("per-position acceptance rate pos %d", i+1), p.Positions[i], true, compute.Defined(r))
	}
}

// checkLimits checks that each of the schema's limits is shown as a note.
func checkLimits(t *testing.T, p schemaPage, name string) {
	t.Helper()
	s, ok := metricsclient.SchemaByID(name)
	if !ok {
		t.Fatalf("no schema %q", name)
	}
	for _, l := range s.Limits {
		found := false
		for _, shown := range p.Limits {
			found = found || strings.Contains(shown, l)
		}
		if !found {
			t.Errorf("%s's limit not shown as a [data-schema-limit] note: %q (shown: %q)", s.Name, l, p.Limits)
		}
	}
	if len(s.Limits) == 0 && len(p.Limits) != 0 {
		t.Errorf("%s has no limits, the page shows %q", s.Name, p.Limits)
	}
}

// Each schema from its exposition fixture (internal/fixtures, hand-computed
// answers), through a real Prometheus and the dashboard in a real browser:
// the page names the detected schema, shows the fixture's numbers where the
// schema has them and "no drafts in window"/n/a where it has not, and the
// schema's limits as notes. All seven schemas live in one Prometheus, one
// job each (the page filters by job); the two no-schema cases (spec
// decoding off, renamed metrics) each need a Prometheus of their own, since
// the diagnosis looks at every name in the database.
func TestSchemasInBrowser(t *testing.T) {
	all := fixtures.AllSchemaFixtures()
	base := schemaServer(t, jobsOpenMetrics(all))
	tab := newTab(t)
	from, to := fixtures.SchemaStartUnix, fixtures.SchemaEndUnix

	for _, f := range all {
		t.Run(f.ID, func(t *testing.T) {
			job := url.Values{"f.job": {f.ID}}
			wFrom := from
			if f.ID == metricsclient.LlamaCpp.ID {
				wFrom = fixtures.LlamaCppFromUnix // the window where every family has a base sample
			}
			p := openSchema(t, tab, base, wFrom, to, job, "ready")
			if p.Schema != f.Schema {
				t.Errorf("page names schema %q, want %q", p.Schema, f.Schema)
			}
			if !strings.Contains(p.Body, "schema "+f.Schema) {
				t.Errorf("the header does not say %q", "schema "+f.Schema)
			}
			checkLimits(t, p, f.ID)
			if dir := os.Getenv("SPECDASH_SCREENSHOT_DIR"); dir != "" {
				shot := run(t, tab, 30*time.Second, chromedp.FullScreenshot(100))
				_ = os.WriteFile(filepath.Join(dir, "schema-"+f.ID+".png"), shot, 0o644)
			}
			a := f.Total
			switch f.ID {
			case metricsclient.SGLang.ID:
				// Gauges averaged over time: labelled so, never rates; no
				// counts, so no throughputs, drafts/s, k or positions.
				checkCounterAnswer(t, p, fixtures.SchemaAnswer{}, 0)
				// ... and say why, not "no drafts in window".
				if got := p.Metrics["acceptance-rate"].Text; !strings.Contains(got, "not available: SGLang exports gauges") {
					t.Errorf("SGLang acceptance-rate card shows %q, want it to point to the averaged gauges", got)
				}
				for name, want := range map[string]compute.Value{
					"averaged-acceptance-rate":        a.AcceptanceRate,
					"averaged-mean-acceptance-length": a.MeanAcceptanceLength,
				} {
					got, ok := p.Metrics[name]
					checkShownValue(t, name, got, ok, want)
					if ok && got.Samples != strconv.Itoa(a.Samples) {
						t.Errorf("%s averages %q values, want %d", name, got.Samples, a.Samples)
					}
				}
				if !strings.Contains(p.Body, "averaged over time") {
					t.Errorf("SGLang's numbers are not labelled \"averaged over time\"")
				}
				// Grouped by dp_rank: one average per rank.
				g := openSchema(t, tab, base, from, to, url.Values{"f.job": {f.ID}, "group": {f.GroupLabel}}, "ready")
				for key, ga := range f.ByGroup {
					for name, want := range map[string]compute.Value{
						"averaged-acceptance-rate":        ga.AcceptanceRate,
						"averaged-mean-acceptance-length": ga.MeanAcceptanceLength,
					} {
						n := name + "/" + key // the row's group name: the dp_rank value
						got, ok := g.Metrics[n]
						checkShownValue(t, n, got, ok, want)
					}
				}
			case metricsclient.VLLMV0.ID:
				checkCounterAnswer(t, p, a, 0)
				for name, want := range map[string]compute.Value{
					"emitted-throughput":         compute.Defined(a.EmittedTokens / 600),
					"lifetime-acceptance-rate":   a.LifetimeAcceptanceRate,
					"lifetime-system-efficiency": a.LifetimeEfficiency,
					// V0 does not export k: the windowed efficiency needs it.
					"system-efficiency": {},
				} {
					got, ok := p.Metrics[name]
					checkShownValue(t, name, got, ok, want)
				}
				if got := p.Metrics["emitted-throughput"]; !strings.Contains(p.Body, strconv.FormatFloat(a.EmittedTokens, 'f', -1, 64)) {
					t.Errorf("emitted tokens %v not shown (card %q)", a.EmittedTokens, got.Text)
				}
			case metricsclient.LlamaCpp.ID:
				checkCounterAnswer(t, p, a, 2)
				// (t_0, t_4]: before the first speculative request; the
				// per-position family does not exist yet: counts 0, ratios
				// undefined, throughputs 0.
				e := openSchema(t, tab, base, from, fixtures.LlamaCppEarlyEndUnix, job, "ready")
				if e.Schema != f.Schema {
					t.Errorf("early window: page names schema %q, want %q", e.Schema, f.Schema)
				}
				checkCounterAnswer(t, e, fixtures.SchemaAnswer{
					DraftsPerSecond: compute.Defined(0), AcceptedPerSecond: compute.Defined(0), DraftedPerSecond: compute.Defined(0),
				}, 0)
			default:
				k := len(a.PerPositionRate)
				checkCounterAnswer(t, p, a, k)
			}
		})
	}

	t.Run("no schema", func(t *testing.T) {
		wanted := []string{"vllm:spec_decode_num_drafts_total", "ray_vllm:spec_decode_num_drafts_total", "ray_vllm_spec_decode_num_drafts_total",
			"llamacpp:spec_decode_num_drafts_total", "trtllm_spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_emitted_tokens_total", "sglang:spec_accept_rate"}
		for _, c := range []struct {
			name, om string
			cause    metricsclient.Cause
			found    []string
			say      []string
		}{
			{"spec decoding off", fixtures.NoSpecDecode(), metricsclient.CauseSpecDecodingOff, nil,
				[]string{"no metric whose name contains spec, draft or accept was found", "vllm:num_requests_running", "speculative decoding looks off"}},
			{"renamed", fixtures.RenamedSpecDecode(), metricsclient.CauseRenamed,
				[]string{"myprefix_spec_decode_num_accepted_tokens_per_pos_total", "myprefix_spec_decode_num_accepted_tokens_total", "myprefix_spec_decode_num_draft_tokens_total", "myprefix_spec_decode_num_drafts_total"},
				[]string{"renamed by relabelling"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				b := schemaServer(t, c.om)
				p := openSchema(t, tab, b, from, to, nil, "error")
				if p.Schema != "" {
					t.Errorf("page names schema %q, want none", p.Schema)
				}
				for _, s := range metricsclient.Schemas {
					if !strings.Contains(p.Error, s.Name) {
						t.Errorf("diagnosis does not name schema %q: %s", s.Name, p.Error)
					}
				}
				for _, n := range wanted {
					if !strings.Contains(p.Error, n) {
						t.Errorf("diagnosis does not name the looked-for metric %s: %s", n, p.Error)
					}
				}
				if len(c.found) > 0 && !strings.Contains(p.Error, "metrics found instead: "+strings.Join(c.found, ", ")) {
					t.Errorf("diagnosis does not list the spec-like names %v: %s", c.found, p.Error)
				}
				cause := (&metricsclient.MissingMetricsError{Cause: c.cause, EngineMetrics: []string{"vllm:num_requests_running"}}).LikelyCause()
				if !strings.Contains(p.Error, "likely cause: "+cause) {
					t.Errorf("diagnosis does not give the likely cause %q: %s", cause, p.Error)
				}
				for _, s := range c.say {
					if !strings.Contains(p.Error, s) {
						t.Errorf("diagnosis does not say %q: %s", s, p.Error)
					}
				}
				if strings.Contains(p.Body, "NaN") {
					t.Errorf("the page shows NaN")
				}
				// Nothing is loading any more: no chart says "Loading…".
				if strings.Contains(p.Body, "Loading…") {
					t.Errorf("the failed page still says Loading…")
				}
			})
		}
	})
}
