//go:build !js

package model

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/metricsclient"
	"specdash/simulate"
)

// simProcess is one life of a simulator process on addr: its counters
// start from zero when it starts and are gone when it is killed.
type simProcess struct {
	sim *simulate.Simulator
	hs  *http.Server
}

// startSim starts a simulator on addr (a port an earlier, killed process
// may have used) whose counters have run for ran of simulated time and
// then stay fixed.
func startSim(t *testing.T, addr string, seed int64, ran time.Duration) *simProcess {
	t.Helper()
	sim, err := simulate.New(simulate.Config{
		Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7},
		DraftsPerSecond: 40, Seed: seed, Start: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	sim.Step(ran)
	sim.Pause()
	var l net.Listener
	// The killed process's socket may linger a moment.
	testwait.For(t, "listen on "+addr+" again", time.Minute, func() bool {
		l, err = net.Listen("tcp", addr)
		return err == nil
	})
	p := &simProcess{sim: sim, hs: &http.Server{Handler: sim}}
	go p.hs.Serve(l)
	t.Cleanup(func() { p.hs.Close() })
	return p
}

// kill stops the process at once (connections dropped, nothing flushed).
func (p *simProcess) kill() { p.hs.Close() }

// drafts is the process's exposed drafts counter summed over its engines.
func (p *simProcess) drafts() int64 { return p.sim.Truth().Sum("", true).Drafts }

// waitSampleAt waits until Prometheus holds a sample of the target at or
// after ms (Unix ms).
func waitSampleAt(t *testing.T, prom *promtest.Server, ms int64) {
	t.Helper()
	prom.WaitFor(t, fmt.Sprintf(`timestamp(up) >= %d`, (ms+999)/1000), nil, 2*time.Minute)
}

// waitScraped waits until Prometheus holds a scrape of p's final counts
// for every engine.
func waitScraped(t *testing.T, prom *promtest.Server, p *simProcess) {
	t.Helper()
	for _, s := range p.sim.Truth().Series {
		prom.WaitFor(t, fmt.Sprintf(`vllm:spec_decode_num_drafts_total{engine=%q} == %d`, s.Engine, s.Exposed.Drafts), nil, 2*time.Minute)
	}
}

// TestSimulatorKilledMidStep: a real Prometheus scrapes a simulator every
// second; the simulator is killed and started again twice between two
// step points of the view, once with fewer counts than before (a plain
// reset) and once with more (a restart only its _created reveals). Both
// the report's shaped read and the raw read of a small live view count
// exactly what the new processes drafted (their new values), and name the
// restarts; a 1-bucket grid and a grid at the scrape interval agree.
func TestSimulatorKilledMidStep(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	first := startSim(t, addr, 1, 200*time.Second)
	prom := promtest.Start(t, promtest.Options{Targets: []string{addr}, ScrapeInterval: time.Second})
	waitScraped(t, prom, first)
	c, err := metricsclient.New(metricsclient.Config{Address: prom.URL, ScrapeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The window starts here, after the first process's counts are in:
	// they are constant from now on and count nothing. A live view of
	// its first seconds (2 s steps) is read series by series, with a
	// Window that a refresh after the restarts continues.
	const step = 2000
	start := (time.Now().UnixMilli()/step + 1) * step
	t1 := start + 3*step
	waitSampleAt(t, prom, t1+2*step)
	before, err := Compute(t.Context(), c, Request{Grid: compute.Grid{Start: start, End: t1, Step: step}, Now: time.UnixMilli(t1 + 2*step), Scrape: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if before.Shaped || before.Window == nil || before.Stats.Drafts != 0 {
		t.Fatalf("live view before the restarts: shaped %v, window %v, %v drafts; want the raw read with a Window and 0 drafts", before.Shaped, before.Window != nil, before.Stats.Drafts)
	}

	first.kill()
	below := startSim(t, addr, 2, 20*time.Second) // fewer drafts than before: the counter drops
	if below.drafts() >= first.drafts() {
		t.Fatalf("second process: %d drafts, want fewer than the first's %d", below.drafts(), first.drafts())
	}
	waitScraped(t, prom, below)
	below.kill()
	above := startSim(t, addr, 3, 500*time.Second) // more drafts than before: only _created changes
	if above.drafts() <= below.drafts() {
		t.Fatalf("third process: %d drafts, want more than the second's %d", above.drafts(), below.drafts())
	}
	waitScraped(t, prom, above)
	end := (time.Now().UnixMilli()/step + 1) * step
	waitSampleAt(t, prom, end+2*step)

	want := below.sim.Truth().Sum("", true)
	wantAbove := above.sim.Truth().Sum("", true)
	want.Drafts += wantAbove.Drafts
	want.DraftTokens += wantAbove.DraftTokens
	want.AcceptedTokens += wantAbove.AcceptedTokens

	span := end - start
	now := time.UnixMilli(end + 2*step)
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"report, one bucket", Request{Grid: compute.Grid{Start: start, End: end, Step: span}}},
		{"report, step = scrape", Request{Grid: compute.Grid{Start: start, End: end, Step: 1000}}},
		{"live view, one bucket", Request{Grid: compute.Grid{Start: start, End: end, Step: span}, Now: now, Scrape: time.Second}},
		{"live view, refresh of the Window read before", Request{Grid: compute.Grid{Start: start, End: end, Step: step}, Now: now, Scrape: time.Second, Prev: before.Window}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compute(t.Context(), c, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if m.Stats.Drafts != float64(want.Drafts) || m.Stats.DraftTokens != float64(want.DraftTokens) || m.Stats.AcceptedTokens != float64(want.AcceptedTokens) {
				t.Errorf("drafts %v, draft tokens %v, accepted tokens %v; want the new processes' %d, %d, %d (shaped %v)",
					m.Stats.Drafts, m.Stats.DraftTokens, m.Stats.AcceptedTokens, want.Drafts, want.DraftTokens, want.AcceptedTokens, m.Shaped)
			}
			if m.Window != nil {
				t.Errorf("a live view with restarts in its window kept a raw Window: its refresh would lose them")
			}
			if !slices.ContainsFunc(m.Notes, func(n string) bool {
				return strings.Contains(n, "counter restart(s) in 2 engine(s)")
			}) {
				t.Errorf("notes %q do not name the restarts of both engines", m.Notes)
			}
		})
	}
}
