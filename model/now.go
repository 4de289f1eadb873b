package model

import (
	"fmt"
	"math"
	"time"

	"specdash/compute"
)

// NowState says what the last complete interval of a window holds.
type NowState string

const (
	// NowLive: the interval has samples and counts (drafts or tokens).
	NowLive NowState = "live"
	// NowStopped: the interval has samples but no increase: traffic has
	// stopped (the rates are 0, the ratios undefined).
	NowStopped NowState = "stopped"
	// NowStale: no sample of the selection in the interval: the target is
	// gone (or no longer scraped); Now.LastData says since when.
	NowStale NowState = "stale"
	// NowNone: no complete interval in the window (or no data at all).
	NowNone NowState = "none"
)

// NowMinInterval is the shortest "now" interval: the last complete
// minute, or the last complete bucket when buckets are longer.
const NowMinInterval int64 = 60_000

// Now is the selection's numbers over the last complete interval of the
// window: "what it does now", next to the window's ratio of sums.
type Now struct {
	// From and To bound the interval (From, To] (Unix ms); First is the
	// index of its first bucket and Buckets how many it spans.
	From, To       int64
	First, Buckets int
	// Counts are the summed increases over the interval, Stats their
	// ratios and rates per second of the interval (compute.Derive).
	Counts compute.Counts
	Stats  compute.Stats
	// State: live, stopped, stale or none.
	State NowState
	// LastData is, when State is NowStale, the end of the last bucket
	// with a sample (samples given) or the last point time of the
	// selection's series (Unix ms); 0 when unknown.
	LastData int64
}

// NowBuckets is the number of buckets of the "now" interval on grid g:
// enough whole buckets to cover NowMinInterval (one when a bucket is a
// minute or longer).
func NowBuckets(g compute.Grid) int {
	if g.Step <= 0 {
		return 0
	}
	return int(max(1, (NowMinInterval+g.Step-1)/g.Step))
}

// LastInterval computes the numbers of the last complete interval of
// group gr on grid g: the NowBuckets(g) buckets that end at bucket
// complete-1 (fewer when the window holds fewer complete buckets). Its
// rates are per second from dataFrom (Model.DataFrom: when the counts
// start) when that lies inside the interval, else per interval second.
//
// Staleness comes from samples (per-bucket sample counts of the
// selection, metricsclient.Client.SampleCounts) when given: no sample in
// the interval is NowStale. Without them it comes from lastPoint, the
// latest point time of the selection's series (Model.LastPoint): no point
// after From is NowStale. The points are last_over_time over the
// lookback (docs/ARCHITECTURE.md, "Query plan"), so without sample counts
// a target that is gone reads as stopped (0/s) for up to one lookback
// before it reads as stale.
func LastInterval(g compute.Grid, gr compute.Group, complete int, conv compute.Convention, samples []float64, lastPoint, dataFrom int64) Now {
	n := NowBuckets(g)
	complete = min(complete, len(gr.Buckets), g.Buckets())
	if n == 0 || complete <= 0 {
		return Now{State: NowNone}
	}
	first := max(0, complete-n)
	out := Now{First: first, Buckets: complete - first, From: g.BucketStart(first), To: g.BucketEnd(complete - 1)}
	k := len(gr.Total.AcceptedPerPosition)
	c := compute.Counts{AcceptedPerPosition: make([]float64, k)}
	for j := first; j < complete; j++ {
		c = c.Add(gr.Buckets[j])
	}
	out.Counts = c
	// Rates per second of data, as the window's: an interval the data
	// entered after its start (the counts' start, dataFrom) is divided
	// by its part with data.
	out.Stats = compute.Derive(c, float64(out.To-max(out.From, dataFrom))/1000, conv)
	stale := false
	if samples != nil {
		seen := 0.0
		for j := first; j < complete && j < len(samples); j++ {
			seen += samples[j]
		}
		stale = seen <= 0
		if stale {
			for j := min(first, len(samples)) - 1; j >= 0; j-- {
				if samples[j] > 0 {
					out.LastData = g.BucketEnd(j)
					break
				}
			}
		}
	} else {
		stale = lastPoint <= out.From
		if stale && lastPoint > 0 {
			out.LastData = lastPoint
		}
	}
	switch {
	case stale:
		out.State = NowStale
	case c.Drafts > 0 || c.DraftTokens > 0 || c.AcceptedTokens > 0:
		out.State = NowLive
	default:
		out.State = NowStopped
	}
	return out
}

// Now is the total's last complete interval (LastInterval of m.Total at
// m.Complete; staleness from the selection's sample counts when the gap
// check read them, else from m.LastPoint).
func (m *Model) Now() Now {
	return LastInterval(m.Grid, m.Total, m.Complete, m.Request.Convention, m.samples, m.LastPoint, m.DataFrom)
}

// CoveredSeconds is the part of the window that has data, in seconds:
// from the first bucket with data (DataFrom) to the window's end, or to
// Request.Now when the window ends later (an absolute window ending in the
// future: its seconds to come hold no counts yet); the whole window for
// log input.
func (m *Model) CoveredSeconds() float64 {
	if m.Grid.Step <= 0 || m.Grid.End <= m.Grid.Start {
		return m.WindowSeconds
	}
	if m.FirstBucket >= m.Grid.Buckets() {
		return 0
	}
	return float64(max(0, m.dataEnd()-max(m.DataFrom, m.Grid.Start))) / 1000
}

// dataEnd is when the window's counts can end (Unix ms): the grid's end,
// or Request.Now when that is earlier (not before the grid's start).
// Dividing by the seconds up to a future end read a window 1 h into the
// future with 2 min of data at 1/30 of its drafts/s.
func (m *Model) dataEnd() int64 {
	end := m.Grid.End
	if !m.Request.Now.IsZero() {
		if now := m.Request.Now.UnixMilli(); now < end {
			end = max(now, m.Grid.Start)
		}
	}
	return end
}

// CoveredStats are the window's numbers (Stats, the schema's fix-ups
// included) with the rates per second of data (CoveredSeconds), not per
// window second: a window whose data starts late does not read lower than
// its charts. Ratios are the window's ratios of sums; a rate the schema
// leaves undefined stays undefined.
func (m *Model) CoveredStats() compute.Stats { return m.CoveredStatsOf(m.Stats) }

// CoveredStatsOf is s (the window's numbers of m's total or of one of its
// groups) with the rates per second of m's data (CoveredSeconds), as the
// cards show them: the breakdown table, its export and `specdash report`
// divide every group by the same seconds, so the groups' rates add up to
// the total's and sort as their counts do. A gauge schema's time averages
// (Schema.Averaged) and a window without data are returned as they are.
func (m *Model) CoveredStatsOf(s compute.Stats) compute.Stats {
	sec := m.CoveredSeconds()
	if !(sec > 0) || math.IsInf(sec, 0) || (m.Schema != nil && m.Schema.Averaged != nil) {
		return s
	}
	per := func(v compute.Value, n float64) compute.Value {
		if !v.OK {
			return v
		}
		return compute.Defined(n / sec)
	}
	s.DraftsPerSecond = per(s.DraftsPerSecond, s.Drafts)
	s.AcceptedThroughput = per(s.AcceptedThroughput, s.AcceptedTokens)
	s.DraftedThroughput = per(s.DraftedThroughput, s.DraftTokens)
	s.WindowSeconds = sec
	return s
}

// Spark is the last n complete buckets' values of one number (for a
// sparkline): values[j] for j in [complete-n, complete), undefined before
// the first bucket with data.
func Spark(values []compute.Value, complete, firstBucket, n int) []compute.Value {
	complete = min(complete, len(values))
	from := max(0, complete-n)
	out := make([]compute.Value, 0, complete-from)
	for j := from; j < complete; j++ {
		v := values[j]
		if j < firstBucket {
			v = compute.Value{}
		}
		out = append(out, v)
	}
	return out
}

// lastPoint is the latest point time of any series (Unix ms); 0 without
// points.
func lastPoint(series []compute.Series) int64 {
	var t int64
	for _, s := range series {
		if n := len(s.Points); n > 0 {
			t = max(t, s.Points[n-1].T)
		}
	}
	return t
}

// windowEndNoteMin is the smallest part of a live window's newest data left
// out by its step (Request.Now after Grid.End) that noteWindowEnd names.
const windowEndNoteMin = 5 * time.Minute

// noteWindowEnd says so when a live window leaves out its newest data: a
// grid ends on a step boundary (its buckets then stay the same from one
// refresh to the next), so a 7 d window of 30 min steps at 19:16 ends at
// 19:00 and shows the last 16 min only when its step ends at 19:30. Named
// from windowEndNoteMin on; nothing for a fixed window or one without Now.
func (m *Model) noteWindowEnd() {
	r, g := m.Request, m.Grid
	if r.Now.IsZero() || r.Fixed || g.Step <= 0 {
		return
	}
	lag := r.Now.UnixMilli() - g.End
	if lag < windowEndNoteMin.Milliseconds() {
		return
	}
	m.Notes = append(m.Notes, fmt.Sprintf("the window ends at %s, where its current %s step began: the newest %s of data show when that step ends at %s (a shorter range has shorter steps)",
		compute.FormatTimeIn(g.End, r.Location), compute.SpanText(g.Step), compute.SpanText(lag), compute.FormatTimeIn(g.End+g.Step, r.Location)))
}
