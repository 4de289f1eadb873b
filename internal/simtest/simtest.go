// Package simtest compares specdash's numbers with the simulator's true
// counts: the check shared by the live tests of report/ and embedded/; and
// it starts the simulator behind a real Prometheus (Prometheus) for the
// server's and the browser's tests.
package simtest

import (
	"context"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/simulate"
)

// Prometheus runs the simulator with cfg and a real Prometheus scraping it
// every second, and returns that Prometheus once it holds series drafts
// series (one per engine).
func Prometheus(t *testing.T, cfg simulate.Config, series int) *promtest.Server {
	t.Helper()
	sim, err := simulate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sim.Run(ctx)
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	prom := promtest.Start(t, promtest.Options{Targets: []string{strings.TrimPrefix(hs.URL, "http://")}, ScrapeInterval: time.Second})
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total) == `+strconv.Itoa(series), promtest.NonEmpty, 60*time.Second)
	return prom
}

// CheckCounts compares stats computed over a window of window seconds with
// true counts c: drafts, draft tokens, accepted tokens, k and accepted per
// position exactly; acceptance rate, mean acceptance length (with bonus),
// per-position rates and throughputs (tokens/s) to 1e-12 (relative above
// 1); no invariant violations.
func CheckCounts(t testing.TB, what string, s compute.Stats, c simulate.Counts, window float64) {
	t.Helper()
	CheckCountsAt(t, what, s, c, nil, window)
}

// CheckCountsAt is CheckCounts for a sum of series that mix k: atPos[i] is
// the drafts of the series with k > i, the per-position rates'
// denominators (nil: c.Drafts for every position).
func CheckCountsAt(t testing.TB, what string, s compute.Stats, c simulate.Counts, atPos []int64, window float64) {
	t.Helper()
	if s.Drafts != float64(c.Drafts) || s.DraftTokens != float64(c.DraftTokens) || s.AcceptedTokens != float64(c.AcceptedTokens) {
		t.Errorf("%s: drafts/draft/accepted = %v/%v/%v, want %d/%d/%d", what, s.Drafts, s.DraftTokens, s.AcceptedTokens, c.Drafts, c.DraftTokens, c.AcceptedTokens)
	}
	if s.K != len(c.AcceptedPerPosition) {
		t.Errorf("%s: k = %d, want %d", what, s.K, len(c.AcceptedPerPosition))
		return
	}
	for i, v := range c.AcceptedPerPosition {
		if s.AcceptedPerPosition[i] != float64(v) {
			t.Errorf("%s: accepted at position %d = %v, want %d", what, i, s.AcceptedPerPosition[i], v)
		}
		d := c.Drafts
		if atPos != nil {
			d = atPos[i]
		}
		Near(t, what+" per-position rate", s.PerPositionAcceptanceRate[i], float64(v)/float64(d))
	}
	Near(t, what+" acceptance rate", s.AcceptanceRate, float64(c.AcceptedTokens)/float64(c.DraftTokens))
	Near(t, what+" mean acceptance length", s.MeanAcceptanceLength, 1+float64(c.AcceptedTokens)/float64(c.Drafts))
	Near(t, what+" accepted throughput", s.AcceptedThroughput, float64(c.AcceptedTokens)/window)
	Near(t, what+" drafted throughput", s.DraftedThroughput, float64(c.DraftTokens)/window)
	if len(s.Violations) != 0 {
		t.Errorf("%s: violations %q", what, s.Violations)
	}
}

// Near checks that got is defined and within 1e-12 of want (relative when
// |want| > 1).
func Near(t testing.TB, what string, got compute.Value, want float64) {
	t.Helper()
	if !got.OK || math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %+v, want %.15g", what, got, want)
	}
}
