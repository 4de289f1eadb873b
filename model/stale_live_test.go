//go:build !js

package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

// TestTargetGone: counters scraped every 15 s for 20 minutes, then
// nothing (the target died) while the window runs 5 minutes more. The
// selection's sample counts (the gap check's) make the "now" interval
// stale at once, since the last sample, where the points alone
// (last_over_time over a 5-minute lookback) still looked stopped; and the
// window's health verdict says it judges the data before.
func TestTargetGone(t *testing.T) {
	const t0 = int64(1748736000) // Unix s
	var b strings.Builder
	fams := []struct{ name, pos string }{{"vllm:spec_decode_num_drafts", ""}, {"vllm:spec_decode_num_draft_tokens", ""}, {"vllm:spec_decode_num_accepted_tokens", ""}, {"vllm:spec_decode_num_accepted_tokens_per_pos", "0"}}
	for i, f := range fams {
		fmt.Fprintf(&b, "# TYPE %s counter\n", f.name)
		labels := `engine="0",model_name="m"`
		if f.pos != "" {
			labels += `,position="0"`
		}
		for j := int64(0); j <= 80; j++ { // 20 minutes at 15 s
			v := []int64{10, 30, 20, 20}[i] * j
			fmt.Fprintf(&b, "%s_total{%s} %d %d\n", f.name, labels, v, t0+15*j)
		}
	}
	b.WriteString("# EOF\n")
	_, c := backfilledClient(t, b.String())
	g := compute.Grid{Start: t0 * 1000, End: (t0 + 25*60) * 1000, Step: 15_000}
	m, err := Compute(t.Context(), c, Request{Grid: g, Now: time.UnixMilli(g.End).Add(time.Minute), Scrape: 15 * time.Second, Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	n := m.Now()
	last := (t0 + 20*60) * 1000
	if n.State != NowStale || n.LastData != last {
		t.Errorf("now %v since %d, want stale since the last sample %d", n.State, n.LastData, last)
	}
	if m.Health == nil || m.Health.State != compute.Healthy ||
		!slices.ContainsFunc(m.Health.Notes, func(s string) bool { return strings.HasPrefix(s, "no samples since 2025-06-01T00:20:00Z: ") }) {
		t.Errorf("verdict %+v: want healthy with the note that the targets are gone", m.Health)
	}
	// The page's time zone (Request.Location): the same instant there.
	m, err = Compute(t.Context(), c, Request{Grid: g, Now: time.UnixMilli(g.End).Add(time.Minute), Scrape: 15 * time.Second, Fixed: true,
		Location: time.FixedZone("UTC+2", 2*3600)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Health == nil || !slices.ContainsFunc(m.Health.Notes, func(s string) bool { return strings.HasPrefix(s, "no samples since 2025-06-01T02:20:00+02:00: ") }) {
		t.Errorf("verdict %+v: want the note's time in UTC+2", m.Health)
	}
}
