package metricsclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
)

// TestShapedLatePositions: FetchShaped's detection reads the drafts
// counter only. An engine whose per-position series start inside the
// window while its drafts are steady (llama.cpp exports them only after
// the first speculative request) makes its group's count of per-position
// series change between grid points; FetchShaped then names it with the
// detection query of that family and reads it as an irregular engine: no
// fallback to the raw path, and every group's numbers are the raw path's
// (FetchSeries: the late series start on a grid point's sample, so the
// raw path loses nothing there).
func TestShapedLatePositions(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(16, gs)[:8] // one instance, k 3, no scenario engine
	late := engines[3]
	from := gs + 7*fleetStep // a grid point, sampled
	var om strings.Builder
	if err := writeFleetOM(&om, engines); err != nil {
		t.Fatal(err)
	}
	var kept strings.Builder
	dropped := 0
	own := fmt.Sprintf(`{instance="%s",engine="%s",`, late.inst, late.engine)
	for _, line := range strings.SplitAfter(om.String(), "\n") {
		if strings.HasPrefix(line, "vllm:spec_decode_num_accepted_tokens_per_pos_") && strings.Contains(line, own) {
			f := strings.Fields(line)
			ts, err := strconv.ParseInt(f[len(f)-1], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if ts < from {
				dropped++
				continue
			}
		}
		kept.WriteString(line)
	}
	if dropped == 0 {
		t.Fatal("no per-position sample dropped")
	}
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, kept.String()), ScrapeInterval: fleetScrape * time.Second})
	ct := &countingTransport{}
	defer ct.checkStepLocal(t)
	c, err := New(Config{Address: srv.URL, ScrapeInterval: fleetScrape * time.Second, RoundTripper: ct})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	raw, _, err := c.FetchSeries(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := fleetTruthSeries(engines, gs)
	ct.take()
	for _, groupBy := range [][]string{nil, {"model_name"}, {"instance", "engine"}} {
		name := fmt.Sprintf("by %v", groupBy)
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, n := ct.take()
		t.Logf("%s: %d queries (%v), warnings %q", name, sh.Queries, n, sh.Warnings)
		if sh.Raw || sh.Irregular != 1 || len(sh.Warnings) != 0 {
			t.Errorf("%s: raw %v, %d irregular engines, warnings %q: want the late engine read alone, no warning", name, sh.Raw, sh.Irregular, sh.Warnings)
		}
		// The first look read the drafts only; then the family whose
		// counts changed, and the probe for series with gaps.
		if n["detect"] != 3 {
			t.Errorf("%s: %d detection queries, want 3", name, n["detect"])
		}
		got := sh.Groups(g)
		sameGroups(t, name+" shaped vs raw path", got, compute.Aggregate(raw, groupBy, g))
		// The drafts, untouched, are the truth's.
		want := compute.Aggregate(truth, groupBy, g)
		for i := range got {
			if i < len(want) && got[i].Total.Drafts != want[i].Total.Drafts {
				t.Errorf("%s: group %v: %v drafts, want %v", name, got[i].Labels, got[i].Total.Drafts, want[i].Total.Drafts)
			}
		}
		if len(groupBy) == 2 {
			if p := got[3].Total.AcceptedPerPosition; len(p) != late.k || p[0] <= 0 || p[0] >= want[3].Total.AcceptedPerPosition[0] {
				t.Errorf("late engine %v: accepted per position %v, want %d positions, fewer than the %v of the whole window", got[3].Labels, p, late.k, want[3].Total.AcceptedPerPosition)
			}
		}
	}

	// A steady selection reads the drafts' detection only.
	sh, err := c.FetchShaped(ctx, g, []Filter{{Name: "engine", Values: []string{"0", "1", "2", "4"}}}, []string{"model_name"})
	if err != nil {
		t.Fatal(err)
	}
	if _, n := ct.take(); sh.Raw || sh.Irregular != 0 || n["detect"] != 1 {
		t.Errorf("steady engines: raw %v, %d irregular, %d detection queries, want 0 and 1", sh.Raw, sh.Irregular, n["detect"])
	}
}
