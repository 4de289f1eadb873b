package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/report"
)

// fixtureEngine backfills the known-answer fixture into a fresh directory
// and opens an engine on it (no targets, not run).
func fixtureEngine(t *testing.T) *Engine {
	t.Helper()
	dir := t.TempDir()
	if err := BackfillOpenMetrics(dir, []byte(fixtures.KnownAnswer().OpenMetrics), nil); err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{StoragePath: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// TestKnownAnswersAgainstPrometheus: the known-answer fixture backfilled
// into the embedded TSDB and into a real Prometheus gives, through
// report.Build, the fixture's hand-computed answers and identical results
// from both.
func TestKnownAnswersAgainstPrometheus(t *testing.T) {
	fx := fixtures.KnownAnswer()
	e := fixtureEngine(t)
	eURL, _ := serveOnly(t, e)
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	scrape := time.Duration(fixtures.StepSeconds) * time.Second
	ce, cp := client(t, eURL, scrape), client(t, prom.URL, scrape)
	ctx := context.Background()
	for _, w := range []fixtures.Window{fx.Whole, fx.Sub} {
		for _, step := range []time.Duration{0, scrape} {
			o := report.Options{Range: time.Duration(w.End-w.Start) * time.Second, End: w.EndTime(), Step: step, GroupBy: []string{"model_name", "engine"}}
			name := fmt.Sprintf("%s step=%v", w.Name, step)
			re, err := report.Build(ctx, ce, o)
			if err != nil {
				t.Fatalf("%s embedded: %v", name, err)
			}
			rp, err := report.Build(ctx, cp, o)
			if err != nil {
				t.Fatalf("%s prometheus: %v", name, err)
			}
			// The fixture's models draft k=3 and k=4, and one engine
			// restarts: the mixed-k warning and the restart note, the same
			// as Prometheus's.
			if len(re.Warnings) != 2 || !strings.HasPrefix(re.Warnings[0], "the selected series mix k = 3 and 4 ") ||
				!strings.HasPrefix(re.Warnings[1], "1 counter restart(s) in 1 engine(s) in this window") || !reflect.DeepEqual(re.Warnings, rp.Warnings) {
				t.Errorf("%s: warnings %q, Prometheus's %q", name, re.Warnings, rp.Warnings)
			}
			if len(re.Groups) != len(w.Series) {
				t.Fatalf("%s: %d groups, want %d", name, len(re.Groups), len(w.Series))
			}
			for _, g := range re.Groups {
				want, ok := w.Series[fixtures.Key{Model: g.Labels["model_name"], Engine: g.Labels["engine"]}]
				if !ok {
					t.Errorf("%s: unexpected group %v", name, g.Labels)
					continue
				}
				expectFixture(t, name+fmt.Sprint(g.Labels), g.Stats.Drafts, g.Stats.DraftTokens, g.Stats.AcceptedTokens, g.Stats.AcceptedPerPosition, g.Stats.MeanAcceptanceLength.V, want)
			}
			expectFixture(t, name+" total", re.Total.Drafts, re.Total.DraftTokens, re.Total.AcceptedTokens, re.Total.AcceptedPerPosition, re.Total.MeanAcceptanceLength.V, w.Total)
			je, _ := json.Marshal(re)
			jp, _ := json.Marshal(rp)
			if string(je) != string(jp) {
				t.Errorf("%s: embedded and Prometheus differ:\nembedded   %s\nprometheus %s", name, je, jp)
			}
		}
	}
}

func expectFixture(t *testing.T, what string, d, dt, a float64, pp []float64, mal float64, want fixtures.Expected) {
	t.Helper()
	wc := want.Counts
	if d != wc.Drafts || dt != wc.DraftTokens || a != wc.AcceptedTokens || !reflect.DeepEqual(pp, wc.AcceptedPerPosition) {
		t.Errorf("%s: counts %v/%v/%v %v, want %v/%v/%v %v", what, d, dt, a, pp, wc.Drafts, wc.DraftTokens, wc.AcceptedTokens, wc.AcceptedPerPosition)
	}
	if math.Abs(mal-want.MeanAcceptanceLength) > 1e-12*want.MeanAcceptanceLength {
		t.Errorf("%s: mean acceptance length %v, want %v", what, mal, want.MeanAcceptanceLength)
	}
}

// TestAPIMatchesPrometheus sends the same requests to the embedded API and
// to a real Prometheus over the same backfilled data: success bodies'
// data must be equal JSON, errors must have the same HTTP code, status and
// errorType. The test Prometheus is 2.42 (Debian); the engine is Prometheus
// 3's code, so requests whose answer changed in 3.0 are left out: rate()
// and increase() (range selectors became left-open), floats below 1e-6
// (now in exponent form) and label names such as "1bad" (valid UTF-8
// names since 3.0).
func TestAPIMatchesPrometheus(t *testing.T) {
	fx := fixtures.KnownAnswer()
	e := fixtureEngine(t)
	eURL, _ := serveOnly(t, e)
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})

	at := fmt.Sprint(fixtures.EndUnix)
	s, en := fmt.Sprint(fixtures.StartUnix), fmt.Sprint(fixtures.EndUnix)
	endRFC := time.Unix(fixtures.EndUnix, 0).UTC().Format(time.RFC3339)
	drafts := `vllm:spec_decode_num_drafts_total`
	sel := `{__name__="vllm:spec_decode_num_accepted_tokens_per_pos_total",model_name="Llama 3 \"chat\" 8B"}`
	type req struct {
		method, path string
		form         url.Values
	}
	v := func(kv ...string) url.Values {
		out := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	reqs := []req{
		{"GET", "/api/v1/query", v("query", drafts, "time", at)},
		{"POST", "/api/v1/query", v("query", `sum by (model_name) (`+drafts+`)`, "time", endRFC)},
		{"GET", "/api/v1/query", v("query", `1.5e-3 * 2`, "time", at)},
		{"GET", "/api/v1/query", v("query", `"a string"`, "time", at)},
		{"GET", "/api/v1/query", v("query", `vllm:spec_decode_num_drafts_created`, "time", at)},
		{"GET", "/api/v1/query", v("query", drafts+` / 0`, "time", at)},
		{"GET", "/api/v1/query", v("query", `up`, "time", at)},
		{"GET", "/api/v1/query_range", v("query", sel, "start", s, "end", en, "step", "15")},
		{"POST", "/api/v1/query_range", v("query", `sum(`+drafts+`) - 2 * sum(`+drafts+` offset 1m)`, "start", s, "end", en, "step", "1m")},
		{"GET", "/api/v1/query_range", v("query", drafts+`{engine="9"}`, "start", s, "end", en, "step", "60s")},
		{"GET", "/api/v1/labels", v("start", s, "end", en)},
		{"POST", "/api/v1/labels", v("match[]", sel, "start", s, "end", en)},
		{"GET", "/api/v1/label/model_name/values", v("start", s, "end", en)},
		{"GET", "/api/v1/label/position/values", v("match[]", sel, "start", s, "end", en)},
		{"GET", "/api/v1/label/engine/values", v("match[]", drafts, "match[]", sel, "start", s, "end", en)},
		{"GET", "/api/v1/series", v("match[]", sel, "start", s, "end", en)},
		{"POST", "/api/v1/series", v("match[]", drafts, "match[]", sel, "start", s, "end", en)},
		// Errors.
		{"GET", "/api/v1/query", v("query", `sum(`, "time", at)},
		{"GET", "/api/v1/query", v("query", drafts, "time", "yesterday")},
		{"GET", "/api/v1/query", v("query", drafts+` + on(model_name) `+drafts, "time", at)},
		{"GET", "/api/v1/query_range", v("query", drafts, "start", s, "end", en)},
		{"GET", "/api/v1/query_range", v("query", drafts, "start", s, "end", en, "step", "0")},
		{"GET", "/api/v1/query_range", v("query", drafts, "start", en, "end", s, "step", "15")},
		{"GET", "/api/v1/query_range", v("query", drafts, "start", "0", "end", en, "step", "1")},
		{"GET", "/api/v1/label/%ff/values", nil},
		{"GET", "/api/v1/series", v("start", s)},
		{"GET", "/api/v1/series", v("match[]", `{engine=~".*"}`)},
		{"GET", "/api/v1/labels", v("match[]", `{`)},
	}
	for _, r := range reqs {
		name := r.method + " " + r.path + "?" + r.form.Encode()
		ce, be := do(t, eURL, r.method, r.path, r.form)
		cp, bp := do(t, prom.URL, r.method, r.path, r.form)
		if ce != cp {
			t.Errorf("%s: HTTP %d, Prometheus %d\nembedded   %s\nprometheus %s", name, ce, cp, be, bp)
			continue
		}
		var je, jp map[string]any
		if err := json.Unmarshal(be, &je); err != nil {
			t.Errorf("%s: embedded body %q: %v", name, be, err)
			continue
		}
		if err := json.Unmarshal(bp, &jp); err != nil {
			t.Fatalf("%s: Prometheus body %q: %v", name, bp, err)
		}
		if je["status"] != jp["status"] || je["errorType"] != jp["errorType"] {
			t.Errorf("%s: status %v/%v, Prometheus %v/%v (%v)", name, je["status"], je["errorType"], jp["status"], jp["errorType"], jp["error"])
		}
		if jp["status"] == "success" && !reflect.DeepEqual(je["data"], jp["data"]) {
			t.Errorf("%s: data differ\nembedded   %s\nprometheus %s", name, be, bp)
		}
		if jp["status"] == "error" && (je["error"] == "" || je["error"] == nil) {
			t.Errorf("%s: no error message", name)
		}
	}

	// buildinfo: the same keys, parsed by client_golang.
	_, be := do(t, eURL, "GET", "/api/v1/status/buildinfo", nil)
	_, bp := do(t, prom.URL, "GET", "/api/v1/status/buildinfo", nil)
	var ie, ip struct{ Data map[string]any }
	_ = json.Unmarshal(be, &ie)
	_ = json.Unmarshal(bp, &ip)
	for k := range ip.Data {
		if _, ok := ie.Data[k]; !ok {
			t.Errorf("buildinfo lacks %q: %s", k, be)
		}
	}
	// Unknown path and wrong method.
	if c, _ := do(t, eURL, "GET", "/api/v1/nope", nil); c != http.StatusNotFound {
		t.Errorf("unknown path: HTTP %d, want 404", c)
	}
	if c, _ := do(t, eURL, "DELETE", "/api/v1/query", nil); c != http.StatusMethodNotAllowed {
		t.Errorf("DELETE query: HTTP %d, want 405", c)
	}
}

func do(t *testing.T, base, method, path string, form url.Values) (int, []byte) {
	t.Helper()
	var req *http.Request
	var err error
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if method == "POST" {
		req, err = http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		u := base + path
		if len(form) > 0 {
			u += "?" + form.Encode()
		}
		req, err = http.NewRequestWithContext(ctx, method, u, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}
