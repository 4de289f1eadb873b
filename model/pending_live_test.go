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
	"specdash/metricsclient"
)

// meetingSource is a real client whose sample counts and latency reads
// each wait until the other has started, and whose shaped read waits
// until the sample counts' has: read one after the other, the first would
// wait for ever (here: until its context's deadline, then fail).
// panicLatency makes the latency read panic instead.
type meetingSource struct {
	*metricsclient.Client
	samplesIn, latencyIn chan struct{}
	panicLatency         bool
}

func (s *meetingSource) FetchShapedAuto(ctx context.Context, r metricsclient.FetchRequest, groupBy []string) (*metricsclient.Fetched, *metricsclient.Shaped, error) {
	select {
	case <-s.samplesIn:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return s.Client.FetchShapedAuto(ctx, r, groupBy)
}

func (s *meetingSource) SchemaSampleCounts(ctx context.Context, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) (*metricsclient.SampleCounts, error) {
	close(s.samplesIn)
	select {
	case <-s.latencyIn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Client.SchemaSampleCounts(ctx, sc, g, filters, prev)
}

func (s *meetingSource) FetchOptionalSummed(ctx context.Context, prev *metricsclient.Window, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, roles ...metricsclient.OptionalRole) (*metricsclient.OptionalFetch, error) {
	if s.panicLatency {
		panic("latency read failed badly")
	}
	close(s.latencyIn)
	select {
	case <-s.samplesIn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Client.FetchOptionalSummed(ctx, prev, sc, g, filters, roles...)
}

// TestComputeReadsAlongside: Compute reads the gap check's sample counts
// and the latency families of the client's schema alongside the counters
// (each of the three reads here waits for another to start), and the
// Model equals the one of a plain client; so does that of a client of
// another schema, whose early reads are read again for the schema the
// fetch found. A panic in one of those reads becomes the latency's error
// and a note; the rest of the Model stands.
func TestComputeReadsAlongside(t *testing.T) {
	srv, c := backfilledClient(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")
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

	llama, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second, Schema: metricsclient.LlamaCpp})
	if err != nil {
		t.Fatal(err)
	}
	m, err = Compute(t.Context(), llama, req)
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency == nil || m.Latency.Err != nil || m.Latency.ITL != plain.Latency.ITL || len(m.samples) != len(plain.samples) ||
		!reflect.DeepEqual(m.Stats, plain.Stats) || strings.Join(m.Notes, "\n") != strings.Join(plain.Notes, "\n") {
		t.Errorf("client of llama.cpp: latency %+v, samples %v, notes %q; want a vLLM V1 client's %+v, %v, %q",
			m.Latency, m.samples, m.Notes, plain.Latency, plain.samples, plain.Notes)
	}

	bad := &meetingSource{Client: c, samplesIn: make(chan struct{}), latencyIn: make(chan struct{}), panicLatency: true}
	close(bad.latencyIn) // the sample counts need not wait
	m, err = Compute(t.Context(), bad, req)
	if err != nil {
		t.Fatalf("a panicking latency read failed the load: %v", err)
	}
	if m.Latency == nil || m.Latency.Err == nil || !strings.Contains(m.Latency.Err.Error(), "latency read failed badly") {
		t.Errorf("latency %+v: want the panic as its error", m.Latency)
	} else if want := map[string]string{"itl": LatencyNotRead, "output_share": LatencyNotRead, "output_per_second": LatencyNotRead, "load": LatencyNotRead}; !reflect.DeepEqual(m.Latency.Reasons, want) {
		t.Errorf("latency reasons %q: want each number to say it was not read", m.Latency.Reasons)
	}
	if !reflect.DeepEqual(m.Stats, plain.Stats) || len(m.samples) != len(plain.samples) {
		t.Errorf("stats %+v, samples %v: want the plain client's %+v, %v", m.Stats, m.samples, plain.Stats, plain.samples)
	}
}

// incrementalSource is a real client that records whether each sample
// counts' and latency read continued the previous load's (Incremental).
type incrementalSource struct {
	*metricsclient.Client
	samples, latency []bool
}

func (s *incrementalSource) SchemaSampleCounts(ctx context.Context, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) (*metricsclient.SampleCounts, error) {
	r, err := s.Client.SchemaSampleCounts(ctx, sc, g, filters, prev)
	if err == nil {
		s.samples = append(s.samples, r.Incremental)
	}
	return r, err
}

func (s *incrementalSource) FetchOptionalSummed(ctx context.Context, prev *metricsclient.Window, sc metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, roles ...metricsclient.OptionalRole) (*metricsclient.OptionalFetch, error) {
	r, err := s.Client.FetchOptionalSummed(ctx, prev, sc, g, filters, roles...)
	if err == nil {
		s.latency = append(s.latency, r.Incremental)
	}
	return r, err
}

// TestRefreshContinuesSchemaReads: a live view's refreshes (Request.Prev,
// the window sliding forward) read the gap check's sample counts and the
// latency families continuing the previous load's, as the counters are
// (only the newest points: metricsclient.Window.WithReads), and each
// refresh's Model has the same gaps, sample counts and latency as a full
// load of its window, over vLLM V1's counters and latency families in a
// real Prometheus (a reset in one engine's histogram). A load of another
// filter reads them in full.
func TestRefreshContinuesSchemaReads(t *testing.T) {
	_, c := backfilledClient(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")
	const scrape = 15 * time.Second
	S := fixtures.SchemaStartUnix
	src := &incrementalSource{Client: c}
	filters := []metricsclient.Filter{{Name: "model_name", Values: []string{"m-v1"}}}
	var prev *metricsclient.Window
	for i, sec := range []int64{S + 330, S + 361, S + 420, S + 497, S + 580} {
		now := time.Unix(sec, 0)
		req := Request{Grid: metricsclient.AlignGrid(now, 5*time.Minute, scrape), Filters: filters, Now: now, Scrape: scrape}
		full, err := Compute(t.Context(), c, req)
		if err != nil {
			t.Fatal(err)
		}
		req.Prev = prev
		src.samples, src.latency = nil, nil
		m, err := Compute(t.Context(), src, req)
		if err != nil {
			t.Fatal(err)
		}
		want := i > 0
		if m.Incremental != want || !reflect.DeepEqual(src.samples, []bool{want}) || !reflect.DeepEqual(src.latency, []bool{want}) {
			t.Fatalf("load %d: counters incremental %v, sample counts %v, latency %v; want %v each", i, m.Incremental, src.samples, src.latency, want)
		}
		if full.Latency == nil || full.Latency.Err != nil || full.Latency.ITL.Observations == 0 || len(full.samples) == 0 {
			t.Fatalf("load %d: full load's latency %+v, samples %v: the comparison proves nothing", i, full.Latency, full.samples)
		}
		if !reflect.DeepEqual(m.samples, full.samples) || !reflect.DeepEqual(m.Gaps, full.Gaps) || !reflect.DeepEqual(m.Latency, full.Latency) ||
			!reflect.DeepEqual(m.Stats, full.Stats) || strings.Join(m.Notes, "\n") != strings.Join(full.Notes, "\n") {
			t.Fatalf("load %d: refresh differs from a full load:\nsamples %v / %v\nlatency %+v\n/ %+v\nnotes %q / %q",
				i, m.samples, full.samples, m.Latency, full.Latency, m.Notes, full.Notes)
		}
		prev = m.Window
	}
	now := time.Unix(S+600, 0)
	src.samples, src.latency = nil, nil
	req := Request{Grid: metricsclient.AlignGrid(now, 5*time.Minute, scrape), Now: now, Scrape: scrape, Prev: prev}
	if _, err := Compute(t.Context(), src, req); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(src.samples, []bool{false}) || !reflect.DeepEqual(src.latency, []bool{false}) {
		t.Errorf("another filter: sample counts %v, latency %v; want full reads", src.samples, src.latency)
	}
}
