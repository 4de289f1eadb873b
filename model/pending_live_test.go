//go:build !js

package model

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// meetingSource is a real client whose sample counts and latency reads
// each wait until the other has started: read one after the other, the
// first would wait for ever (here: until its context's deadline, then
// fail). panicLatency makes the latency read panic instead.
type meetingSource struct {
	*metricsclient.Client
	samplesIn, latencyIn chan struct{}
	panicLatency         bool
}

func (s *meetingSource) SchemaSampleCounts(ctx context.Context, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter) ([]float64, []string, error) {
	close(s.samplesIn)
	select {
	case <-s.latencyIn:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return s.Client.SchemaSampleCounts(ctx, sc, g, filters)
}

func (s *meetingSource) FetchOptional(ctx context.Context, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, roles ...metricsclient.OptionalRole) (*metricsclient.OptionalFetch, error) {
	if s.panicLatency {
		panic("latency read failed badly")
	}
	close(s.latencyIn)
	select {
	case <-s.samplesIn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Client.FetchOptional(ctx, sc, g, filters, roles...)
}

// TestComputeReadsAlongside: once the counters are fetched, Compute reads
// the gap check's sample counts and the latency families at the same time
// (each of the two reads here waits for the other to start), and the Model
// equals the one of a plain client. A panic in one of those reads becomes
// the latency's error and a note; the rest of the Model stands.
func TestComputeReadsAlongside(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	g := latencyGrid()
	req := Request{Grid: g, Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{"m-v1"}}}}
	plain, err := Compute(t.Context(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Latency == nil || plain.Latency.Err != nil || plain.samples == nil {
		t.Fatalf("plain client: latency %+v, samples %v: the test needs both reads", plain.Latency, plain.samples)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	src := &meetingSource{Client: c, samplesIn: make(chan struct{}), latencyIn: make(chan struct{})}
	m, err := Compute(ctx, src, req)
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency == nil || m.Latency.Err != nil {
		t.Fatalf("latency %+v: the two reads did not run at the same time", m.Latency)
	}
	if strings.Join(m.Notes, "\n") != strings.Join(plain.Notes, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(m.Notes, "\n"), strings.Join(plain.Notes, "\n"))
	}
	if len(m.samples) != len(plain.samples) || m.Latency.ITL != plain.Latency.ITL || m.Latency.GenerationTokens != plain.Latency.GenerationTokens || !reflect.DeepEqual(m.Stats, plain.Stats) {
		t.Errorf("model differs from a plain client's: samples %v / %v, ITL %+v / %+v, generation %v / %v, stats %+v / %+v",
			m.samples, plain.samples, m.Latency.ITL, plain.Latency.ITL, m.Latency.GenerationTokens, plain.Latency.GenerationTokens, m.Stats, plain.Stats)
	}

	bad := &meetingSource{Client: c, samplesIn: make(chan struct{}), latencyIn: make(chan struct{}), panicLatency: true}
	close(bad.latencyIn) // the sample counts need not wait
	m, err = Compute(t.Context(), bad, req)
	if err != nil {
		t.Fatalf("a panicking latency read failed the load: %v", err)
	}
	if m.Latency == nil || m.Latency.Err == nil || !strings.Contains(m.Latency.Err.Error(), "latency read failed badly") {
		t.Errorf("latency %+v: want the panic as its error", m.Latency)
	}
	if !reflect.DeepEqual(m.Stats, plain.Stats) || len(m.samples) != len(plain.samples) {
		t.Errorf("stats %+v, samples %v: want the plain client's %+v, %v", m.Stats, m.samples, plain.Stats, plain.samples)
	}
}
