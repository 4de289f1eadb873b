package metricsclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
)

// omEscape escapes an OpenMetrics label value.
func omEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

const (
	omStep    = 15 // seconds between backfilled samples
	omSamples = 21 // 0..300 s
)

// omValue is the value of family f (0..3; 3+p for position p) of model j at
// sample i: distinct per model so that a wrong selection shows.
func omValue(j, f, i int) float64 { return float64((j+1)*(f+1)*i) * 10 }

// backfillNasty writes the four vLLM counters for every nasty model name
// (engine "0", k = 2), a _created gauge family and a V0 gauge, starting at
// base (Unix seconds), and starts Prometheus over them.
func backfillNasty(t *testing.T, base int64) *promtest.Server {
	var b strings.Builder
	fams := []struct {
		family, typ string
		pos         int // -1: no position label
		f           int
	}{
		{"vllm:spec_decode_num_drafts", "counter", -1, 0},
		{"vllm:spec_decode_num_draft_tokens", "counter", -1, 1},
		{"vllm:spec_decode_num_accepted_tokens", "counter", -1, 2},
		{"vllm:spec_decode_num_accepted_tokens_per_pos", "counter", 0, 3},
		{"vllm:spec_decode_num_accepted_tokens_per_pos", "counter", 1, 4},
	}
	lastFamily := ""
	for _, fm := range fams {
		if fm.family != lastFamily {
			fmt.Fprintf(&b, "# TYPE %s %s\n", fm.family, fm.typ)
			lastFamily = fm.family
		}
		for j, name := range nasty {
			pos := ""
			if fm.pos >= 0 {
				pos = fmt.Sprintf(`,position="%d"`, fm.pos)
			}
			for i := 0; i < omSamples; i++ {
				fmt.Fprintf(&b, "%s_total{engine=\"0\",model_name=\"%s\"%s} %g %d\n", fm.family, omEscape(name), pos, omValue(j, fm.f, i), base+int64(i*omStep))
			}
		}
	}
	b.WriteString("# TYPE vllm:spec_decode_num_drafts_created gauge\n")
	for i := 0; i < omSamples; i++ {
		fmt.Fprintf(&b, "vllm:spec_decode_num_drafts_created{engine=\"0\",model_name=\"m\"} 1.7e+09 %d\n", base+int64(i*omStep))
	}
	b.WriteString("# TYPE vllm:spec_decode_draft_acceptance_rate gauge\n")
	for i := 0; i < omSamples; i++ {
		fmt.Fprintf(&b, "vllm:spec_decode_draft_acceptance_rate{model_name=\"v0\"} 0.5 %d\n", base+int64(i*omStep))
	}
	b.WriteString("# EOF\n")
	dir := promtest.Backfill(t, b.String())
	return promtest.Start(t, promtest.Options{DataDir: dir})
}

func TestPrometheusSelectors(t *testing.T) {
	// Recent enough for the default 15 d retention, aligned to a minute.
	base := time.Now().Add(-2*time.Hour).Unix() / 60 * 60
	srv := backfillNasty(t, base)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: omStep * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := compute.Grid{Start: base * 1000, End: (base + (omSamples-1)*omStep) * 1000, Step: omStep * 1000}

	all, warns, err := c.FetchSeries(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	if len(all) != 5*len(nasty) {
		t.Fatalf("%d series without filters, want %d", len(all), 5*len(nasty))
	}

	modelIndex := map[string]int{}
	for j, n := range nasty {
		modelIndex[n] = j
	}
	check := func(series []compute.Series, want map[string]bool) {
		t.Helper()
		got := map[string]int{}
		for _, s := range series {
			name := s.Labels["model_name"]
			got[name]++
			if !want[name] {
				t.Errorf("series of model %q selected, want only %q", name, sortedKeys(want))
				continue
			}
			if _, has := s.Labels["position"]; has || s.Labels["__name__"] != "" {
				t.Errorf("labels %v hold position or __name__", s.Labels)
			}
			f := int(s.Family)
			if s.Family == compute.AcceptedPerPosition {
				f = 3 + s.Position
			} else if s.Position != -1 {
				t.Errorf("family %d with position %d", s.Family, s.Position)
			}
			if len(s.Points) != omSamples {
				t.Errorf("model %q family %d: %d points, want %d", name, f, len(s.Points), omSamples)
				continue
			}
			for i, p := range s.Points {
				wantT := (base + int64(i*omStep)) * 1000
				if p.T != wantT || p.V != omValue(modelIndex[name], f, i) {
					t.Errorf("model %q family %d point %d = %+v, want {%d %g}", name, f, i, p, wantT, omValue(modelIndex[name], f, i))
					break
				}
			}
		}
		for n := range want {
			if got[n] != 5 {
				t.Errorf("model %q: %d series, want 5", n, got[n])
			}
		}
	}
	check(all, func() map[string]bool {
		m := map[string]bool{}
		for _, n := range nasty {
			m[n] = true
		}
		return m
	}())
	for _, name := range nasty {
		s, _, err := c.FetchSeries(ctx, g, []Filter{{Name: "model_name", Values: []string{name}}})
		if err != nil {
			t.Errorf("filter %q: %v", name, err)
			continue
		}
		check(s, map[string]bool{name: true})
	}
	// Several values: exactly those (regexp metacharacters literal).
	for i := range nasty {
		two := []string{nasty[i], nasty[(i+3)%len(nasty)]}
		s, _, err := c.FetchSeries(ctx, g, []Filter{{Name: "model_name", Values: two}, {Name: "engine", Values: []string{"0"}}})
		if err != nil {
			t.Errorf("filter %q: %v", two, err)
			continue
		}
		check(s, map[string]bool{two[0]: true, two[1]: true})
	}

	// Label values: every model, sorted; the V0 gauge's model is not among them.
	vals, err := c.LabelValues(ctx, "model_name", nil, time.Unix(base, 0), time.Unix(base+300, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), nasty...)
	sort.Strings(want)
	if !reflect.DeepEqual(vals, want) {
		t.Errorf("LabelValues = %q, want %q", vals, want)
	}
	vals, err = c.LabelValues(ctx, "engine", []Filter{{Name: "model_name", Values: []string{nasty[2]}}}, time.Unix(base, 0), time.Unix(base+300, 0))
	if err != nil || !reflect.DeepEqual(vals, []string{"0"}) {
		t.Errorf("LabelValues(engine) = %q, %v", vals, err)
	}
	if _, err := c.LabelValues(ctx, "bad label", nil, time.Unix(base, 0), time.Unix(base+300, 0)); err == nil || !strings.Contains(err.Error(), `invalid label name "bad label"`) {
		t.Errorf("bad label name: %v", err)
	}

	// An absent model: a MissingMetricsError naming what exists.
	_, _, err = c.FetchSeries(ctx, g, []Filter{{Name: "model_name", Values: []string{"absent-model"}}})
	var me *MissingMetricsError
	if !errors.As(err, &me) {
		t.Fatalf("absent model: error %v, want *MissingMetricsError", err)
	}
	if !me.ExistWithoutFilters || !reflect.DeepEqual(me.FilterValues["model_name"], want) || me.DiagnosisErr != nil {
		t.Errorf("absent model: %+v", me)
	}
	wantSpec := []string{"vllm:spec_decode_draft_acceptance_rate", "vllm:spec_decode_num_accepted_tokens_per_pos_total",
		"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_draft_tokens_total",
		"vllm:spec_decode_num_drafts_total"} // not vllm:spec_decode_num_drafts_created, which is there too
	if !reflect.DeepEqual(me.SpecLike, wantSpec) {
		t.Errorf("SpecLike = %q, want %q", me.SpecLike, wantSpec)
	}
	for _, s := range []string{`matched {__name__=~`, `model_name="absent-model"}`, "the metrics exist without the filters", `model_name values present: `, `"say \"hi\""`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q:\n%s", s, err)
		}
	}

	// A window without data: said so, not an empty success.
	early := compute.Grid{Start: (base - 86400) * 1000, End: (base - 86400 + 600) * 1000, Step: 15000}
	_, _, err = c.FetchSeries(ctx, early, nil)
	if !errors.As(err, &me) || !me.ExistOutsideWindow || !strings.Contains(err.Error(), "series exist outside this window") {
		t.Errorf("empty window: %v", err)
	}

	// More points than Prometheus allows: refused before asking.
	_, _, err = c.FetchSeries(ctx, compute.Grid{Start: 0, End: 11000 * 1000, Step: 1000}, nil)
	if err == nil || !strings.Contains(err.Error(), "more than Prometheus' limit of 11000") {
		t.Errorf("11,001 points: %v", err)
	}

	// A wrong path prefix: a readable client error.
	bad, err := New(Config{Address: srv.URL + "/nope"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = bad.FetchSeries(ctx, g, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Kind != ClientError || !strings.Contains(err.Error(), "404") {
		t.Errorf("wrong prefix: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := New(Config{Address: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err = c.FetchSeries(ctx, compute.Grid{Start: 0, End: 60000, Step: 15000}, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Kind != Unreachable || !strings.Contains(err.Error(), "cannot reach Prometheus at http://"+addr) {
		t.Errorf("closed port: %v", err)
	}
}

func TestNewAddress(t *testing.T) {
	for _, a := range []string{"http://127.0.0.1:9090", "https://prom.example/prometheus", "/prom", " /prom/ "} {
		if _, err := New(Config{Address: a}); err != nil {
			t.Errorf("New(%q): %v", a, err)
		}
	}
	for a, want := range map[string]string{
		"":                      "no Prometheus address",
		"localhost:9090":        "use http://host:port",
		"prom":                  "use http://host:port",
		"ftp://x":               "use http://host:port",
		"http://":               "no host",
		"http://x:9090/?a=b":    "no query string",
		"http://[::1:9090":      "invalid Prometheus address",
		"//host-without-scheme": "use http://host:port",
	} {
		if _, err := New(Config{Address: a}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q) = %v, want %q", a, err, want)
		}
	}
	c, _ := New(Config{Address: "/prom"})
	if c.ScrapeInterval() != DefaultScrapeInterval || c.Schema().Name != "vLLM V1" || c.Address() != "/prom" {
		t.Errorf("defaults: %v %v %v", c.ScrapeInterval(), c.Schema().Name, c.Address())
	}
}
