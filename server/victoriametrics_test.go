package server

import (
	"fmt"
	"math"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/testwait"
	"specdash/internal/vmtest"
	"specdash/metricsclient"
	"specdash/report"
)

// TestKnownAnswersVictoriaMetrics runs the known-answer suite against a
// real VictoriaMetrics configured as a named source with a path prefix
// (/prometheus), through the proxy.
func TestKnownAnswersVictoriaMetrics(t *testing.T) {
	fx := fixtures.KnownAnswer()
	vm := vmtest.Start(t)
	// The known-answer counters, not their _created gauges.
	samples := vmtest.Import(t, vm, fx.OpenMetrics, func(name string) bool { return !strings.Contains(name, "_created") })
	t.Logf("imported %d samples", samples)

	fc, err := ParseConfig([]byte(`default_source: prom
sources:
  - name: prom
    url: http://127.0.0.1:9
  - name: vm
    url: ` + vm + `/prometheus
    scrape_interval: 15s
    params: {nocache: "1"}
`))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []Source
	for _, s := range fc.Sources {
		srcs = append(srcs, s.Source())
	}
	s := newServer(t, Config{Sources: srcs, DefaultSource: fc.DefaultSource})
	c, err := metricsclient.New(metricsclient.Config{Address: s.URL + SourcePrefix("vm"), ScrapeInterval: time.Duration(fixtures.StepSeconds) * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	// Imported data becomes searchable after a moment.
	var last error
	if !testwait.Until(0, func() bool {
		_, last = report.Build(ctx, c, report.Options{Range: time.Duration(fx.Whole.End-fx.Whole.Start) * time.Second, End: fx.Whole.EndTime()})
		return last == nil
	}) {
		t.Fatalf("VictoriaMetrics has no searchable data %s after import: %v", testwait.Timeout, last)
	}

	for _, w := range []fixtures.Window{fx.Whole, fx.Sub} {
		rng := time.Duration(w.End-w.Start) * time.Second
		for _, st := range w.Steps {
			if w.Start%st != 0 || w.End%st != 0 {
				continue
			}
			step := time.Duration(st) * time.Second
			name := fmt.Sprintf("%s/step=%s", w.Name, step)
			res, err := report.Build(ctx, c, report.Options{Range: rng, End: w.EndTime(), Step: step, GroupBy: []string{"model_name", "engine"}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(res.Groups) != len(w.Series) {
				t.Errorf("%s: %d groups, want %d", name, len(res.Groups), len(w.Series))
			}
			for _, g := range res.Groups {
				k := fixtures.Key{Model: g.Labels["model_name"], Engine: g.Labels["engine"]}
				want, ok := w.Series[k]
				if !ok {
					t.Errorf("%s: unexpected group %v", name, g.Labels)
					continue
				}
				expectStats(t, fmt.Sprintf("%s %q/%s", name, k.Model, k.Engine), g.Stats, want)
			}
			expectStats(t, name+" total", res.Total, w.Total)
		}
		// A filter on the model with quotes in its name selects exactly it.
		res, err := report.Build(ctx, c, report.Options{Range: rng, End: w.EndTime(), Step: time.Duration(w.Step) * time.Second,
			Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{fixtures.ModelA}}}})
		if err != nil {
			t.Fatalf("%s filtered: %v", w.Name, err)
		}
		expectStats(t, w.Name+" filtered", res.Total, w.Models[fixtures.ModelA])
	}
}

func expectStats(t *testing.T, what string, s compute.Stats, want fixtures.Expected) {
	t.Helper()
	wc := want.Counts
	if s.Drafts != wc.Drafts || s.DraftTokens != wc.DraftTokens || s.AcceptedTokens != wc.AcceptedTokens ||
		!reflect.DeepEqual(s.AcceptedPerPosition, wc.AcceptedPerPosition) {
		t.Errorf("%s: counts %v/%v/%v %v, want %v/%v/%v %v", what, s.Drafts, s.DraftTokens, s.AcceptedTokens, s.AcceptedPerPosition,
			wc.Drafts, wc.DraftTokens, wc.AcceptedTokens, wc.AcceptedPerPosition)
	}
	close := func(name string, got compute.Value, want float64) {
		if !got.OK || math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: %s = %+v, want %.17g", what, name, got, want)
		}
	}
	close("acceptance rate", s.AcceptanceRate, want.AcceptanceRate)
	close("mean acceptance length", s.MeanAcceptanceLength, want.MeanAcceptanceLength)
	close("accepted throughput", s.AcceptedThroughput, want.AcceptedPerSecond)
	close("drafted throughput", s.DraftedThroughput, want.DraftedPerSecond)
	for i, r := range want.PerPositionRate {
		if i < len(s.PerPositionAcceptanceRate) {
			close(fmt.Sprintf("per-position rate %d", i), s.PerPositionAcceptanceRate[i], r)
		}
	}
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
