package embedded

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/internal/simtest"
	"specdash/metricsclient"
	"specdash/report"
	"specdash/simulate"
)

// liveModels need escaping in PromQL and in the exposition.
var liveModels = []string{"meta-llama/Llama 3 8B", `eagle "q" \ 7b`}

func liveSimConfig() simulate.Config {
	return simulate.Config{
		Models:          liveModels,
		Engines:         2,
		K:               3,
		Acceptance:      []float64{0.8, 0.7, 0.6},
		PerModel:        map[string]simulate.ModelOptions{liveModels[1]: {K: 2, Acceptance: []float64{0.5}}},
		DraftsPerSecond: 40,
		Seed:            7,
		Tick:            20 * time.Millisecond,
	}
}

// TestSimulatorTarget: the simulator scraped every second by the engine;
// after a few seconds of load and a pause, report.Build through
// metricsclient against the engine's API gives exactly the simulator's
// true counts, per (model, engine), per model and in total; the target has
// up=1 with job and instance labels.
func TestSimulatorTarget(t *testing.T) {
	sim, hs := newSim(t, liveSimConfig())
	began := time.Now()
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second})
	instance := strings.TrimPrefix(hs.URL, "http://")

	waitFor(t, e.API, `count(vllm:spec_decode_num_drafts_total) == 4`, nonEmpty, 2*time.Minute)
	up := waitFor(t, e.API, `up`, nonEmpty, 2*time.Minute)
	if len(up) != 1 || up[0].Value != 1 || up[0].Metric["job"] != "vllm" || string(up[0].Metric["instance"]) != instance {
		t.Errorf("up = %v, want one series 1 {job=vllm, instance=%s}", up, instance)
	}
	ts := e.Targets()
	if len(ts) != 1 || !ts[0].Up || ts[0].Health != "up" || ts[0].LastError != "" || ts[0].LastScrape.IsZero() || ts[0].Instance != instance {
		t.Errorf("Targets() = %+v", ts)
	}

	sim.Resume()
	// Every series scraped moving at least twice.
	waitFor(t, e.API, `min(changes(vllm:spec_decode_num_drafts_total[1m])) >= 2`, nonEmpty, 2*time.Minute)
	sim.Pause()
	truth := sim.Truth()
	want := sumCounts(truth.Series, 3, nil)
	if want.Drafts == 0 {
		t.Fatal("the simulator produced no drafts")
	}
	waitFor(t, e.API, `sum(vllm:spec_decode_num_drafts_total)`, equals(float64(want.Drafts)), 2*time.Minute)

	c := client(t, e.URL, time.Second)
	end := time.Now().Add(2 * time.Second)
	opts := report.Options{Range: end.Sub(began) + 10*time.Second, End: end, GroupBy: []string{"model_name", "engine"}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := report.Build(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The models draft k=3 and k=2: the mixed-k warning; the window starts
	// 10 s before the first scrape: the coverage note.
	// A busy machine may delay a scrape past a bucket: a gap note then
	// follows (the counts stay exact), or, for a first scrape, a
	// start-gap note; nothing else.
	warns := slices.DeleteFunc(slices.Clone(res.Warnings), func(w string) bool {
		return strings.HasPrefix(w, "no samples for ") || strings.Contains(w, " first sampled at ")
	})
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "the selected series mix k = 2 and 3 ") ||
		!strings.HasPrefix(warns[1], "Data covers the last ") {
		t.Errorf("warnings: %q, want the mixed-k one and the coverage note (and gap and start-gap notes only)", res.Warnings)
	}
	if len(res.Groups) != len(truth.Series) {
		t.Fatalf("%d groups, want %d", len(res.Groups), len(truth.Series))
	}
	for _, s := range truth.Series {
		found := false
		for _, g := range res.Groups {
			if g.Labels["model_name"] == s.Model && g.Labels["engine"] == s.Engine {
				found = true
				checkCounts(t, s.Model+"/"+s.Engine, g.Stats, s.Total, res.CoveredSeconds)
			}
		}
		if !found {
			t.Errorf("no group for %q engine %s", s.Model, s.Engine)
		}
	}
	// Mixed k: pos 3's rate is over the drafts of the k=3 series only.
	atPos := make([]int64, 3)
	for _, s := range truth.Series {
		for i := range s.Total.AcceptedPerPosition {
			atPos[i] += s.Total.Drafts
		}
	}
	if atPos[2] == want.Drafts {
		t.Fatalf("the simulated series do not mix k: drafts at positions %v", atPos)
	}
	simtest.CheckCountsAt(t, "total", res.Total, want, atPos, res.CoveredSeconds)

	// A filter on a model name with quotes and a backslash.
	res, err = report.Build(ctx, c, report.Options{Range: opts.Range, End: end, GroupBy: []string{"model_name"},
		Filters: mustFilters(t, "model_name="+liveModels[1])})
	if err != nil {
		t.Fatal(err)
	}
	m1 := sumCounts(truth.Series, 2, func(s simulate.TrueSeries) bool { return s.Model == liveModels[1] })
	if len(res.Groups) != 1 || res.Groups[0].Labels["model_name"] != liveModels[1] {
		t.Fatalf("filtered groups: %+v", res.Groups)
	}
	checkCounts(t, "filtered", res.Total, m1, res.CoveredSeconds)

	// Label values through metricsclient (label/<name>/values).
	vals, err := c.LabelValues(ctx, "model_name", nil, began.Add(-time.Minute), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2 || vals[0] != liveModels[1] && vals[1] != liveModels[1] {
		t.Errorf("model_name values %q, want %q", vals, liveModels)
	}
}

func mustFilters(t *testing.T, args ...string) []metricsclient.Filter {
	t.Helper()
	f, err := report.ParseFilters(args)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCounterReset: an engine of the simulator restarts (its counters go
// back to 0) during the run; the report over the run still equals the true
// counts, which keep counting across the restart.
func TestCounterReset(t *testing.T) {
	cfg := liveSimConfig()
	cfg.Models = liveModels[:1]
	cfg.PerModel = nil
	sim, hs := newSim(t, cfg)
	began := time.Now()
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: time.Second})
	waitFor(t, e.API, `count(vllm:spec_decode_num_drafts_total) == 2`, nonEmpty, 2*time.Minute)

	sim.Resume()
	waitFor(t, e.API, `min(changes(vllm:spec_decode_num_drafts_total[1m])) >= 2`, nonEmpty, 2*time.Minute)
	sim.Pause()
	before := sim.Truth()
	var d0 int64
	for _, s := range before.Series {
		if s.Engine == "0" {
			d0 = s.Exposed.Drafts
		}
	}
	if d0 == 0 {
		t.Fatal("no drafts before the reset")
	}
	// The pre-reset value is scraped before the restart.
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total{engine="0"}`, equals(float64(d0)), 2*time.Minute)
	if err := sim.ResetCounters(liveModels[0], "0"); err != nil {
		t.Fatal(err)
	}
	// The reset value scraped before the engine counts again (the engine
	// sees the decrease whatever the machine's speed), then a scrape of
	// counts after the reset.
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total{engine="0"} == 0`, nonEmpty, 2*time.Minute)
	sim.Resume()
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total{engine="0"} > 0`, nonEmpty, 2*time.Minute)
	sim.Pause()
	truth := sim.Truth()
	var exposed0 int64
	for _, s := range truth.Series {
		if s.Engine == "0" {
			exposed0 = s.Exposed.Drafts
			if s.Resets != 1 || s.Exposed.Drafts >= s.Total.Drafts {
				t.Fatalf("engine 0 not reset: %+v", s)
			}
		}
	}
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total{engine="0"}`, equals(float64(exposed0)), 2*time.Minute)
	want := sumCounts(truth.Series, 3, nil)
	waitFor(t, e.API, `sum(vllm:spec_decode_num_draft_tokens_total)`, nonEmpty, 2*time.Minute)

	end := time.Now().Add(2 * time.Second)
	res, err := report.Build(context.Background(), client(t, e.URL, time.Second),
		report.Options{Range: end.Sub(began) + 10*time.Second, End: end})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, "total across a reset", res.Total, want, res.CoveredSeconds)
}

// TestTargetDownAndBack: the target's listener closes; the engine records
// up=0 and the scrape error, the target's series go stale (no value now,
// the old values still there at an earlier time); when it listens again on
// the same address, up returns to 1 and the counters are current again.
func TestTargetDownAndBack(t *testing.T) {
	cfg := liveSimConfig()
	cfg.Models = liveModels[:1]
	cfg.Engines = 1
	cfg.PerModel = nil
	sim, err := simulate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sim.Pause()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: sim}
	go srv.Serve(ln)
	e := start(t, Config{Targets: []string{"http://" + addr + "/metrics"}, ScrapeInterval: time.Second})
	waitFor(t, e.API, `up == 1`, nonEmpty, 2*time.Minute)
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total`, nonEmpty, 2*time.Minute)
	upAt := time.Now()

	_ = srv.Close()
	waitFor(t, e.API, `up == 0`, nonEmpty, 2*time.Minute)
	ts := e.Targets()
	if len(ts) != 1 || ts[0].Up || ts[0].Health != "down" || !strings.Contains(ts[0].LastError, "connection refused") {
		t.Errorf("Targets() while down = %+v, want down with a connection error", ts)
	}
	// Stale now (Prometheus wrote staleness markers), present before.
	waitFor(t, e.API, `absent(vllm:spec_decode_num_drafts_total)`, nonEmpty, 2*time.Minute)
	v, _, _, err := e.API.Query(context.Background(), `vllm:spec_decode_num_drafts_total`, upAt)
	if err != nil || len(v.(model.Vector)) != 1 {
		t.Errorf("old sample at %v: %v %v, want it kept", upAt, v, err)
	}
	// The targets endpoint in Prometheus' shape, parsed by client_golang.
	tr, err := e.API.Targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Active) != 1 || tr.Active[0].Health != "down" || tr.Active[0].LastError == "" ||
		tr.Active[0].Labels["instance"] != model.LabelValue(addr) || tr.Active[0].ScrapePool != "vllm" {
		t.Errorf("/api/v1/targets: %+v", tr.Active)
	}

	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	srv2 := &http.Server{Handler: sim}
	go srv2.Serve(ln2)
	defer srv2.Close()
	sim.Step(10 * time.Second)
	sim.Resume()
	sim.Step(time.Second)
	sim.Pause()
	want := sim.Truth().Series[0].Total.Drafts
	waitFor(t, e.API, `up == 1`, nonEmpty, 2*time.Minute)
	waitFor(t, e.API, `vllm:spec_decode_num_drafts_total`, equals(float64(want)), 2*time.Minute)
	if ts := e.Targets(); !ts[0].Up || ts[0].LastError != "" {
		t.Errorf("Targets() after coming back = %+v", ts)
	}
}
