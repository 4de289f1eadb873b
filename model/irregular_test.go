//go:build !js

package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
)

// TestOutageAndRestarts: over the Outage fixture in a real Prometheus, the
// shaped read (no Now: the report's path) finds the gap (buckets 15..19,
// bucket 20 holding its counts), the plain reset of engine 1 (bucket 24)
// and the restart of engine 0 that only its _created reveals (bucket 29),
// names them in the notes and counts the restarts' new values; a small
// live view, whose raw read cannot count these restarts, reads shaped
// too and shows the same.
func TestOutageAndRestarts(t *testing.T) {
	_, c := backfilledClient(t, fixtures.Outage())
	start := int64(fixtures.OutageStartUnix) * 1000
	g := compute.Grid{Start: start, End: start + 2400_000, Step: 60_000}
	gapNote := "no samples for 5m from 2025-06-01T00:15:00Z: the source or its targets were down; the bucket after the gap holds the counts of the gap too, so its rates read high (marked on the charts)"

	m, err := Compute(t.Context(), c, Request{Grid: g, GroupBy: []string{"engine"}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Shaped || m.Series != 10 {
		t.Errorf("shaped %v, %d series; want the shaped read of 10", m.Shaped, m.Series)
	}
	if !slices.Equal(m.Gaps, []compute.Gap{{From: 15, To: 20}}) {
		t.Errorf("gaps %v, want buckets 15..19", m.Gaps)
	}
	restarts, backwards := m.RestartBuckets()
	if !slices.Equal(restarts, []int{24, 29}) || backwards != nil {
		t.Errorf("restart buckets %v, backwards %v; want [24 29] and none", restarts, backwards)
	}
	if len(m.Resets) != 10 {
		t.Errorf("%d reset series, want 10 (5 counters of each engine): %+v", len(m.Resets), m.Resets)
	}
	want := []string{"2 counter restart(s) in 2 engine(s) in this window: each restart's new value is counted as its increase (marked on the charts)", gapNote}
	for _, n := range want {
		if !slices.Contains(m.Notes, n) {
			t.Errorf("notes %q lack %q", m.Notes, n)
		}
	}
	if m.Stats.Drafts != 4373 || m.Stats.DraftTokens != 8746 || m.Stats.AcceptedTokens != 5247 {
		t.Errorf("counts %v %v %v, want 4373 8746 5247", m.Stats.Drafts, m.Stats.DraftTokens, m.Stats.AcceptedTokens)
	}
	if m.Buckets[20].Drafts != 375 {
		t.Errorf("bucket after the gap: %v drafts, want 375", m.Buckets[20].Drafts)
	}
	for _, j := range []int{15, 19} {
		if m.Buckets[j].Drafts != 0 {
			t.Errorf("gap bucket %d: %v drafts, want 0", j, m.Buckets[j].Drafts)
		}
	}

	// A live view of this small selection: its raw read (values at the
	// 60 s step points, scrape 15 s) shows restarts it cannot count, so
	// it gives way to the shaped read: the same gap, both restarts, the
	// same counts, and no Window (refreshes read shaped while the
	// restarts are in the window).
	live, err := Compute(t.Context(), c, Request{Grid: g, GroupBy: []string{"engine"}, Now: time.UnixMilli(g.End).Add(time.Hour), Scrape: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !live.Shaped || live.Window != nil {
		t.Errorf("live small view with restarts: shaped %v, window %v; want the shaped read without a Window", live.Shaped, live.Window)
	}
	restarts, _ = live.RestartBuckets()
	if !slices.Equal(live.Gaps, m.Gaps) || !slices.Equal(restarts, []int{24, 29}) {
		t.Errorf("live view: gaps %v restarts %v; want %v and [24 29]", live.Gaps, restarts, m.Gaps)
	}
	for _, n := range want {
		if !slices.Contains(live.Notes, n) {
			t.Errorf("live view notes %q lack %q", live.Notes, n)
		}
	}
	if live.Stats.Drafts != m.Stats.Drafts || live.Stats.AcceptedTokens != m.Stats.AcceptedTokens || live.Buckets[20].Drafts != 375 {
		t.Errorf("live view: %v drafts, %v accepted, bucket after the gap %v drafts; want %v, %v, 375",
			live.Stats.Drafts, live.Stats.AcceptedTokens, live.Buckets[20].Drafts, m.Stats.Drafts, m.Stats.AcceptedTokens)
	}

	// In the page's time zone (Request.Location) the gap note prints the
	// same instant there.
	m, err = Compute(t.Context(), c, Request{Grid: g, GroupBy: []string{"engine"}, Location: time.FixedZone("UTC+2", 2*3600)})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Replace(gapNote, "2025-06-01T00:15:00Z", "2025-06-01T02:15:00+02:00", 1); !slices.Contains(m.Notes, n) {
		t.Errorf("notes %q lack %q", m.Notes, n)
	}
}
