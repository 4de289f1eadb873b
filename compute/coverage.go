package compute

import "fmt"

// Coverage is the part of a grid that holds data: FirstBucket is the index
// of the first bucket with a sample of any series (g.Buckets() when there
// is none), DataFrom that bucket's start (Unix ms).
type Coverage struct {
	FirstBucket int
	DataFrom    int64
	// DataTo is when the counts end (Unix ms) when that is before the
	// grid's end (a window that ends in the future ends its data at now);
	// 0: the grid's end.
	DataTo int64
}

// CoverageOf finds the first bucket of g that holds a sample of series
// (the bucket ending at or after the earliest first point).
func CoverageOf(series []Series, g Grid) Coverage {
	var first int64
	for _, s := range series {
		if len(s.Points) > 0 && (first == 0 || s.Points[0].T < first) {
			first = s.Points[0].T
		}
	}
	j := g.BucketAt(first)
	return Coverage{FirstBucket: j, DataFrom: g.BucketStart(j)}
}

// BucketAt is the index of the first bucket ending at or after t (Unix
// ms; a point at t belongs to it), or Buckets() when t is 0 (no point) or
// after the grid.
func (g Grid) BucketAt(t int64) int {
	n := g.Buckets()
	if t == 0 || g.Step <= 0 {
		return n
	}
	if t <= g.Start {
		return 0
	}
	j := int((t-g.Start+g.Step-1)/g.Step) - 1
	if j >= n {
		return n
	}
	return j
}

// Note says when the data starts well inside the window (after its first
// tenth), and that the rates (drafts/s, tokens/s) are then per second of
// the part with data (model.Model.CoveredStatsOf: cards, breakdown table,
// exports and `specdash report` alike), not per window second. "" when
// the data covers (almost) the whole window, or there is none.
func (c Coverage) Note(g Grid) string {
	n := g.Buckets()
	if n == 0 || c.FirstBucket <= 0 || c.FirstBucket >= n {
		return ""
	}
	to := g.End
	if c.DataTo > 0 && c.DataTo < to {
		to = c.DataTo
	}
	window, covered := g.End-g.Start, to-c.DataFrom
	if covered*10 > window*9 {
		return ""
	}
	return "Data covers the last " + SpanText(covered) + " of this " + SpanText(window) +
		" window; rates (drafts/s, tokens/s) are per second of data (" + SpanText(covered) + ")"
}

// SpanText prints a span of ms as "1m 05s", "2h 03m", "45s", "15m", "2d 3h",
// rounded to the nearest second (67.9 s is "1m 08s"), as the cards' "per s
// of data" and `specdash report` round it: a truncated span would name a
// second fewer than the rates beside it are per.
func SpanText(ms int64) string {
	s := (ms + 500) / 1000
	if ms < 0 {
		s = (ms - 500) / 1000
	}
	d, h, m, sec := s/86400, s%86400/3600, s%3600/60, s%60
	switch {
	case d > 0 && h > 0:
		return fmt.Sprintf("%dd %dh", d, h)
	case d > 0:
		return fmt.Sprintf("%dd", d)
	case h > 0 && m > 0:
		return fmt.Sprintf("%dh %02dm", h, m)
	case h > 0:
		return fmt.Sprintf("%dh", h)
	case m > 0 && sec > 0:
		return fmt.Sprintf("%dm %02ds", m, sec)
	case m > 0:
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%ds", sec)
}
