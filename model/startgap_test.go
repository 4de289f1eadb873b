//go:build !js

package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
)

// lateStartOM is two engines over 40 min from S, scraped every 15 s:
// engine 0 running since an hour before S (10 drafts a scrape), engine 1
// started at S+300 s (_created) but first scraped at S+900 s, with 600
// drafts by then (1 a second), then 15 a scrape. The other families are
// the drafts times 2, 1.2 and, for pos 1 and 2, 0.8 and 0.4.
func lateStartOM() string {
	const S = fixtures.OutageStartUnix
	var b strings.Builder
	fams := []struct {
		name string
		mult []float64
	}{
		{fixtures.FamilyDrafts, []float64{1}},
		{fixtures.FamilyDraftTokens, []float64{2}},
		{fixtures.FamilyAcceptedTokens, []float64{1.2}},
		{fixtures.FamilyAcceptedPerPos, []float64{0.8, 0.4}},
	}
	for _, f := range fams {
		fmt.Fprintf(&b, "# HELP %s late start fixture\n# TYPE %s counter\n", f.name, f.name)
		for e := 0; e < 2; e++ {
			for p, mult := range f.mult {
				labels := fmt.Sprintf(`engine="%d",model_name="late-model"`, e)
				if f.name == fixtures.FamilyAcceptedPerPos {
					labels += fmt.Sprintf(`,position="%d"`, p)
				}
				for ts := int64(S); ts <= S+2400; ts += 15 {
					drafts, created := 10*(ts-S)/15+1000, int64(S-3600)
					if e == 1 {
						if ts < S+900 {
							continue
						}
						drafts, created = 600+(ts-S-900), S+300
					}
					fmt.Fprintf(&b, "%s_total{%s} %g %d\n", f.name, labels, float64(drafts)*mult, ts)
					fmt.Fprintf(&b, "%s_created{%s} %d %d\n", f.name, labels, created, ts)
				}
			}
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// TestStartGapMarked: an engine that started (S+300 s) 10 min before its
// first sample (S+900 s) has all 600 drafts of those 10 min in the first
// sample's bucket (compute.BucketIncreasesSince): the window's total is
// exact, and that bucket's spike is named in a note and marked (StartGaps:
// buckets 5..13, bucket 14 holding the counts), on the shaped read (the
// report) and on a small live view's raw read alike.
func TestStartGapMarked(t *testing.T) {
	_, c := backfilledClient(t, lateStartOM())
	start := int64(fixtures.OutageStartUnix) * 1000
	g := compute.Grid{Start: start, End: start + 2400_000, Step: 60_000}
	note := `series {engine="1", model_name="late-model"} started at 2025-06-01T00:05:00Z but was first sampled at 2025-06-01T00:15:00Z: the bucket ending 2025-06-01T00:15:00Z holds the counts since the start, so its rates read high (marked on the charts)`
	for _, live := range []bool{false, true} {
		r := Request{Grid: g}
		if live {
			r.Now, r.Scrape = time.UnixMilli(g.End).Add(time.Hour), 15*time.Second
		}
		m, err := Compute(t.Context(), c, r)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("live %v (shaped %v)", live, m.Shaped)
		if m.Shaped == live {
			t.Errorf("%s: want the shaped read for the report and the raw one for a small live view", what)
		}
		if len(m.StartGaps) != 1 || m.StartGaps[0].Gap != (compute.Gap{From: 5, To: 14}) || m.StartGaps[0].Series != 1 {
			t.Fatalf("%s: start gaps %+v, want buckets 5..13 before engine 1's first sample in bucket 14", what, m.StartGaps)
		}
		if !slices.Contains(m.Notes, note) {
			t.Errorf("%s: notes %q lack %q", what, m.Notes, note)
		}
		// Engine 0: 40 drafts a minute over 40 min; engine 1: 600 by its
		// first sample, then 1500 over the last 25 min.
		if m.Stats.Drafts != 1600+600+1500 {
			t.Errorf("%s: %v drafts, want 3700", what, m.Stats.Drafts)
		}
		if m.Buckets[14].Drafts != 40+600 || m.Buckets[13].Drafts != 40 || m.Buckets[15].Drafts != 40+60 {
			t.Errorf("%s: buckets 13..15 hold %v, %v, %v drafts; want 40, 640, 100", what, m.Buckets[13].Drafts, m.Buckets[14].Drafts, m.Buckets[15].Drafts)
		}
	}
}
