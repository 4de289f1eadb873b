package model

import (
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

// flatAfter is a counter rising by inc per 10 s until stop, then flat
// (traffic stopped, still scraped) until end.
func flatAfter(f compute.Family, labels map[string]string, pos int, start, stop, end int64, inc float64) compute.Series {
	s := compute.Series{Family: f, Labels: labels, Position: pos}
	v := 0.0
	for t := start; t <= end; t += 10_000 {
		s.Points = append(s.Points, compute.Point{T: t, V: v})
		if t < stop {
			v += inc
		}
	}
	return s
}

func nowSeries(stop, end int64) []compute.Series {
	l := map[string]string{"model_name": "a"}
	return []compute.Series{
		flatAfter(compute.Drafts, l, -1, 300_000, stop, end, 2),
		flatAfter(compute.DraftTokens, l, -1, 300_000, stop, end, 6),
		flatAfter(compute.AcceptedTokens, l, -1, 300_000, stop, end, 3),
		flatAfter(compute.AcceptedPerPosition, l, 0, 300_000, stop, end, 2),
		flatAfter(compute.AcceptedPerPosition, l, 1, 300_000, stop, end, 1),
		flatAfter(compute.AcceptedPerPosition, l, 2, 300_000, stop, end, 0),
	}
}

// TestNowLive: traffic to the end: the last complete minute (two 30 s
// buckets) reads the per-10 s increase as a rate, and the window's rates
// are per second of data (from the first bucket with data), not per
// window second.
func TestNowLive(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000} // 30 buckets
	now := time.UnixMilli(g.End + 40_000)                   // every bucket complete at scrape 30 s
	m := FromSeries(nowSeries(g.End, g.End), Request{Grid: g, Now: now, Scrape: 30 * time.Second})
	n := m.Now()
	if n.State != NowLive || n.Buckets != 2 || n.From != 840_000 || n.To != 900_000 {
		t.Fatalf("now %+v", n)
	}
	// 2 drafts per 10 s = 0.2 drafts/s; acceptance 3/6.
	if !closeTo(n.Stats.DraftsPerSecond.V, 0.2) || !closeTo(n.Stats.AcceptanceRate.V, 0.5) || n.Counts.Drafts != 12 {
		t.Errorf("now stats %+v", n.Stats)
	}
	// Data from bucket 9 (first point 300 s is in bucket (270, 300]); the
	// counts start at that point (the base, no _created): covered 900-300
	// = 600 s; drafts = 2 per 10 s from 300 s to 900 s = 120, 0.2/s, the
	// true rate.
	if m.FirstBucket != 9 || m.CoveredSeconds() != 600 {
		t.Fatalf("first bucket %d covered %v", m.FirstBucket, m.CoveredSeconds())
	}
	cs := m.CoveredStats()
	if cs.Drafts != 120 || !closeTo(cs.DraftsPerSecond.V, 0.2) || !closeTo(m.Stats.DraftsPerSecond.V, 120.0/900) {
		t.Errorf("covered drafts/s %v (window %v), drafts %v", cs.DraftsPerSecond, m.Stats.DraftsPerSecond, cs.Drafts)
	}
	if !closeTo(cs.AcceptanceRate.V, 0.5) {
		t.Errorf("window acceptance %v", cs.AcceptanceRate)
	}
	// A rate the schema leaves undefined (no drafts family) stays so.
	m.Stats.DraftsPerSecond = compute.Value{}
	if cs := m.CoveredStats(); cs.DraftsPerSecond.OK || !cs.DraftedThroughput.OK {
		t.Errorf("undefined drafts/s became %v", cs.DraftsPerSecond)
	}
}

// TestNowStopped: traffic stops 5 min before the end while the counters
// are still scraped: the now interval has points but no increase, so it
// reads 0 drafts/s (undefined acceptance), while the window keeps its
// ratio of sums.
func TestNowStopped(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	m := FromSeries(nowSeries(600_000, g.End), Request{Grid: g, Now: time.UnixMilli(g.End + 40_000), Scrape: 30 * time.Second})
	n := m.Now()
	if n.State != NowStopped || !n.Stats.DraftsPerSecond.OK || n.Stats.DraftsPerSecond.V != 0 || n.Stats.AcceptanceRate.OK {
		t.Fatalf("now %+v", n)
	}
	if m.Stats.Drafts != 60 || !closeTo(m.CoveredStats().DraftsPerSecond.V, 60.0/600) {
		t.Errorf("window drafts %v, covered rate %v", m.Stats.Drafts, m.CoveredStats().DraftsPerSecond)
	}
}

// TestNowStale: the series end 3 min before the window does (the target
// is gone): no point in the last minute, stale since the last point.
// With sample counts, the last bucket with a sample decides instead.
func TestNowStale(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	m := FromSeries(nowSeries(720_000, 720_000), Request{Grid: g, Now: time.UnixMilli(g.End + 40_000), Scrape: 30 * time.Second})
	n := m.Now()
	if n.State != NowStale || n.LastData != 720_000 {
		t.Fatalf("now %+v", n)
	}
	samples := make([]float64, g.Buckets())
	for j := range 27 {
		samples[j] = 3
	}
	s := LastInterval(m.Grid, m.Total, m.Complete, m.Request.Convention, samples, m.LastPoint, m.DataFrom)
	if s.State != NowStale || s.LastData != g.BucketEnd(26) {
		t.Errorf("with samples: %+v", s)
	}
	samples[29] = 1
	if s := LastInterval(m.Grid, m.Total, m.Complete, m.Request.Convention, samples, 0, 0); s.State != NowStopped {
		t.Errorf("samples in the interval, no increase: %s", s.State)
	}
}

// TestNowIncompleteAndLongBuckets: the interval ends at the last complete
// bucket; a bucket longer than a minute is the interval by itself; no
// complete bucket is NowNone.
func TestNowIncompleteAndLongBuckets(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	// Now 20 s after the end at scrape 30 s: the last bucket is incomplete.
	m := FromSeries(nowSeries(g.End, g.End), Request{Grid: g, Now: time.UnixMilli(g.End + 20_000), Scrape: 30 * time.Second})
	if n := m.Now(); n.To != 870_000 || n.From != 810_000 || m.Complete != 29 {
		t.Errorf("now (%d, %d], complete %d", n.From, n.To, m.Complete)
	}
	long := compute.Grid{Start: 0, End: 900_000, Step: 300_000}
	if NowBuckets(long) != 1 || NowBuckets(compute.Grid{Step: 7_000}) != 9 {
		t.Errorf("now buckets %d %d", NowBuckets(long), NowBuckets(compute.Grid{Step: 7_000}))
	}
	if n := LastInterval(g, compute.Group{}, 0, compute.WithBonus, nil, 0, 0); n.State != NowNone {
		t.Errorf("no complete bucket: %s", n.State)
	}
	v := []compute.Value{{V: 1, OK: true}, {V: 2, OK: true}, {V: 3, OK: true}, {V: 4, OK: true}}
	if s := Spark(v, 3, 1, 5); len(s) != 3 || s[0].OK || s[2].V != 3 {
		t.Errorf("spark %v", s)
	}
}

// TestForGroup: one group's model has the group's counts, fit and first
// bucket; an unknown key gives the model itself.
func TestForGroup(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	a := nowSeries(g.End, g.End)
	b := nowSeries(600_000, g.End)
	for i := range b {
		b[i].Labels = map[string]string{"model_name": "b"}
		b[i].Points = b[i].Points[10:] // starts 100 s later
	}
	m := FromSeries(append(a, b...), Request{Grid: g, GroupBy: []string{"model_name"}, Now: time.UnixMilli(g.End + 40_000), Scrape: 30 * time.Second})
	sub, ok := m.ForGroup(m.Groups[1].Key)
	if !ok || sub.Stats.Drafts != m.Groups[1].Stats.Drafts || sub.Total.Total.Drafts != sub.Stats.Drafts || sub.FirstBucket != m.Groups[1].FirstBucket {
		t.Fatalf("group b: ok %v drafts %v want %v, first %d want %d", ok, sub.Stats.Drafts, m.Groups[1].Stats.Drafts, sub.FirstBucket, m.Groups[1].FirstBucket)
	}
	if sub.Stats.Drafts == m.Stats.Drafts || m.Stats.Drafts != m.Groups[0].Stats.Drafts+m.Groups[1].Stats.Drafts {
		t.Errorf("total %v, groups %v + %v", m.Stats.Drafts, m.Groups[0].Stats.Drafts, m.Groups[1].Stats.Drafts)
	}
	if n := sub.Now(); n.State != NowStopped {
		t.Errorf("group b stopped at 600 s: now %s", n.State)
	}
	if same, ok := m.ForGroup("nope"); ok || same != m {
		t.Errorf("unknown key: %v", ok)
	}
}

// TestNowJustStarted: a server that started from 0 (its _created) 25 s
// before the window's end and was first scraped 20 s before it: the
// window's counts include what it drafted before the first scrape, and
// both the window's rates and now's are per second from its start, so
// they read the true 0.2 drafts/s (2 per 10 s), not a rate over the
// whole last minute or from the first scrape only.
func TestNowJustStarted(t *testing.T) {
	g := compute.Grid{Start: 0, End: 900_000, Step: 30_000}
	created := int64(875_000)
	l := map[string]string{"model_name": "a"}
	series := []compute.Series{}
	for _, f := range []struct {
		fam compute.Family
		pos int
		inc float64
	}{{compute.Drafts, -1, 2}, {compute.DraftTokens, -1, 6}, {compute.AcceptedTokens, -1, 3}, {compute.AcceptedPerPosition, 0, 2}, {compute.AcceptedPerPosition, 1, 1}} {
		// 2 drafts per 10 s since 875 s: 1 at the first scrape (880 s).
		s := compute.Series{Family: f.fam, Labels: l, Position: f.pos, Created: created}
		for t := int64(880_000); t <= g.End; t += 10_000 {
			s.Points = append(s.Points, compute.Point{T: t, V: f.inc * float64(t-created) / 10_000})
		}
		series = append(series, s)
	}
	m := FromSeries(series, Request{Grid: g, Now: time.UnixMilli(g.End + 40_000), Scrape: 10 * time.Second})
	if m.DataFrom != created || m.CoveredSeconds() != 25 || m.Stats.Drafts != 5 {
		t.Fatalf("data from %d, covered %v s, %v drafts; want %d, 25 s, 5", m.DataFrom, m.CoveredSeconds(), m.Stats.Drafts, created)
	}
	if cs := m.CoveredStats(); !closeTo(cs.DraftsPerSecond.V, 0.2) {
		t.Errorf("window drafts/s %v, want 0.2", cs.DraftsPerSecond)
	}
	n := m.Now()
	if n.State != NowLive || n.Counts.Drafts != 5 || !closeTo(n.Stats.DraftsPerSecond.V, 0.2) {
		t.Errorf("now %+v: want 5 drafts over the 25 s since the start, 0.2/s", n)
	}
}

// TestCoveredSecondsFutureEnd: an absolute window that ends an hour after
// Request.Now (the page accepts an end up to a day ahead) holds 5 min of
// counts (300 s to Now at 600 s): its rates and its health verdict are
// per second up to Now (0.2 drafts/s over the last 5m), not per second up
// to the window's end (0.015/s "over the last 1h 05m"). A window ending
// before Now is unchanged.
func TestCoveredSecondsFutureEnd(t *testing.T) {
	g := compute.Grid{Start: 0, End: 4_200_000, Step: 30_000} // 70 min
	now := time.UnixMilli(600_000)
	m := FromSeries(nowSeries(g.End, 600_000), Request{Grid: g, Now: now, Scrape: 10 * time.Second})
	m.AddHealth()
	if got := m.CoveredSeconds(); got != 300 {
		t.Errorf("covered %v s, want 300 (first point to now)", got)
	}
	cs := m.CoveredStats()
	if cs.Drafts != 60 || !closeTo(cs.DraftsPerSecond.V, 0.2) || !closeTo(cs.DraftedThroughput.V, 0.6) {
		t.Errorf("drafts %v, drafts/s %v, drafted tokens/s %v; want 60, 0.2, 0.6", cs.Drafts, cs.DraftsPerSecond, cs.DraftedThroughput)
	}
	if m.Health == nil || !m.Health.DraftsPerSecond.OK || !closeTo(m.Health.DraftsPerSecond.V, 0.2) ||
		m.Health.Summary != "acceptance rate 50.0 % over the last 5m, mean acceptance length 2.50" {
		t.Errorf("health %+v, want 0.2 drafts/s over the last 5m", m.Health)
	}
	// Now after the end: the window's end, as before.
	past := FromSeries(nowSeries(600_000, 600_000), Request{Grid: compute.Grid{Start: 0, End: 600_000, Step: 30_000}, Now: time.UnixMilli(700_000)})
	if got := past.CoveredSeconds(); got != 300 {
		t.Errorf("past window: covered %v s, want 300", got)
	}
	// The whole window in the future: nothing covered, no rate.
	ahead := FromSeries(nowSeries(g.End, 600_000), Request{Grid: compute.Grid{Start: 900_000, End: 1_200_000, Step: 30_000}, Now: now})
	if got := ahead.CoveredSeconds(); got != 0 {
		t.Errorf("window after now: covered %v s, want 0", got)
	}
}

// TestNoteWindowEnd: a live 7 d window of 30 min steps at 19:16 ends at
// 19:00 (grids end on a step boundary): the note says the newest 16 min
// show at 19:30, in the page's zone; 4 min left out, a fixed window or a
// report (no Now) say nothing.
func TestNoteWindowEnd(t *testing.T) {
	end := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC).UnixMilli()
	g := compute.Grid{Start: end - 7*24*3600_000, End: end, Step: 1800_000}
	zone := time.FixedZone("", 3600)
	cases := []struct {
		r    Request
		want string
	}{
		{Request{Now: time.UnixMilli(end).Add(16 * time.Minute), Location: zone},
			"the window ends at 2026-12-01T20:00:00+01:00, where its current 30m step began: the newest 16m of data show when that step ends at 2026-12-01T20:30:00+01:00 (a shorter range has shorter steps)"},
		{Request{Now: time.UnixMilli(end).Add(4 * time.Minute)}, ""},
		{Request{Now: time.UnixMilli(end).Add(16 * time.Minute), Fixed: true}, ""},
		{Request{}, ""},
	}
	for i, c := range cases {
		m := &Model{Request: c.r, Grid: g}
		m.noteWindowEnd()
		got := strings.Join(m.Notes, "|")
		if got != c.want {
			t.Errorf("case %d: notes %q, want %q", i, got, c.want)
		}
	}
}
