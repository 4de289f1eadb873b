package compute

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// Irregularities that make a bucket's counts need a word of explanation
// (docs/RELIABILITY.md, "Resets and outages"). Two kinds are found here, from
// the values a source returned:
//   - a counter that goes backwards: once is a restart (its new value is the
//     increase, IncreaseSince), more often than MaxPlausibleResets in a window
//     is not a counter at all (a target exporting a gauge under a counter's
//     name, or several processes behind one label set), and its numbers are
//     unreliable;
//   - a data gap: buckets in which the selection has no sample at all (the
//     source or the targets were down); the counts of the gap land in the
//     bucket after it, which then reads as a spike.

// MaxPlausibleResets is the number of decreases of one series in one window
// up to which specdash takes them for restarts whatever else it knows: a
// process restart resets a counter once. Above it, a series is called "not
// a counter" (Reset.Backwards) only when it also falls at more than a
// quarter of its steps (MaxRestartShare): an engine in a crash loop
// restarts many times in a window, but between restarts its counters only
// grow, where a gauge exported under a counter's name, or two processes
// sharing one label set, fall about every other step.
const MaxPlausibleResets = 3

// MaxRestartShare is the share of a series' steps at which it may fall and
// still be taken for a counter that restarts (see MaxPlausibleResets).
const MaxRestartShare = 0.25

// Reset is a decrease of one counter series: a restart, or a value that is
// not a counter's.
type Reset struct {
	// Labels of the series (without __name__ and position); Family and
	// Position as in Series.
	Labels   map[string]string
	Family   Family
	Position int
	// Count is the number of decreases in the grid; Buckets are the grid
	// buckets holding them (ascending, one entry per decrease).
	Count   int
	Buckets []int
	// Steps is how many steps of the series lie in the grid (pairs of
	// consecutive usable values, the later one in (Start, End]): the
	// chances it had to fall; 0 when unknown.
	Steps int
	// Explained is how many of the Count a changed _created shows to be
	// restarts of the process (the shaped read's samples; 0 when unknown).
	Explained int
}

// Backwards reports whether the series went down more often than restarts
// explain: more than MaxPlausibleResets decreases that no changed _created
// explains, at more than MaxRestartShare of its steps (when they are
// known).
func (r Reset) Backwards() bool {
	u := r.Count - r.Explained
	return u > MaxPlausibleResets && (r.Steps <= 0 || float64(u) > MaxRestartShare*float64(r.Steps))
}

// Resets returns the series of series that decrease inside g (a usable
// point in (g.Start, g.End] lower than the previous usable point), sorted by
// the number of decreases (most first), then by labels. Stale markers (NaN)
// and unusable values are skipped as in Increase.
func Resets(series []Series, g Grid) []Reset {
	var out []Reset
	for _, s := range series {
		var r *Reset
		prev, have, steps := 0.0, false, 0
		for _, p := range s.Points {
			if !usable(p.V) {
				continue
			}
			if have && p.T > g.Start && p.T <= g.End {
				steps++
				if p.V < prev {
					if r == nil {
						out = append(out, Reset{Labels: s.Labels, Family: s.Family, Position: s.Position})
						r = &out[len(out)-1]
					}
					r.Count++
					r.Buckets = append(r.Buckets, g.BucketAt(p.T))
				}
			}
			prev, have = p.V, true
		}
		if r != nil {
			r.Steps = steps
		}
	}
	SortResets(out)
	return out
}

// SortResets sorts resets as Resets returns them: by the number of
// decreases (most first), then by labels.
func SortResets(out []Reset) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return LabelString(out[i].Labels) < LabelString(out[j].Labels)
	})
}

// ResetNotes turns Resets into notes for the page and the report: one
// sentence per series that goes backwards more often than a restart explains
// (at most max, then how many more), and one sentence counting the
// restarts of the others. Nothing when no series decreased.
func ResetNotes(resets []Reset, max int) []string {
	var out []string
	var backwards []Reset
	restarts, restarted, seen := 0, map[string]bool{}, map[string]bool{}
	for _, r := range resets {
		if r.Backwards() {
			backwards = append(backwards, r)
			continue
		}
		// One restart of an engine resets each of its counters: count it
		// once per engine and bucket.
		id := LabelString(r.Labels)
		restarted[id] = true
		for _, j := range r.Buckets {
			if k := fmt.Sprintf("%s\x00%d", id, j); !seen[k] {
				seen[k] = true
				restarts++
			}
		}
	}
	for i, r := range backwards {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more series go backwards more often than restarts explain", len(backwards)-i))
			break
		}
		out = append(out, fmt.Sprintf("series %s (%s) went backwards %d times in this window: more than restarts explain (at most %d), so it is probably not a counter (a gauge exported under a counter's name, or several processes sharing one label set); its counts and the totals that include it are unreliable",
			LabelString(r.Labels), familyText(r.Family, r.Position), r.Count, MaxPlausibleResets))
	}
	if restarts > 0 {
		out = append(out, fmt.Sprintf("%d counter restart(s) in %d engine(s) in this window: each restart's new value is counted as its increase (marked on the charts)", restarts, len(restarted)))
	}
	return out
}

// familyText names a counter family for notes ("drafts", "accepted tokens
// at pos 3").
func familyText(f Family, position int) string {
	switch f {
	case Drafts:
		return "drafts"
	case DraftTokens:
		return "draft tokens"
	case AcceptedTokens:
		return "accepted tokens"
	case AcceptedPerPosition:
		return fmt.Sprintf("accepted tokens at pos %d", position+1)
	}
	return "counter"
}

// Gap is a run of buckets [From, To) in which the selection has no sample,
// with data before and after it. Next (== To) is the bucket after the gap:
// it holds what the counters counted during the gap, so its rates are not
// the rates of its own span.
type Gap struct {
	From, To int
}

// Next is the bucket after the gap, which holds the gap's counts.
func (g Gap) Next() int { return g.To }

// FindGaps returns the gaps of a selection from its per-bucket sample counts
// (samples[j]: the number of samples of its series stored in bucket j, for
// example of the drafts counter, summed over the selection). Buckets before
// the first bucket with a sample and after the last one are not gaps (the
// data starts or ends there; Coverage says so); nor is a bucket whose count
// is unknown (negative).
func FindGaps(samples []float64) []Gap {
	first, last := -1, -1
	for j, n := range samples {
		if n > 0 {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	var out []Gap
	for j := first + 1; first >= 0 && j < last; j++ {
		if samples[j] != 0 {
			continue
		}
		from := j
		for j < last && samples[j] == 0 {
			j++
		}
		out = append(out, Gap{From: from, To: j})
	}
	return out
}

// GapNotes says, for each gap (at most max, then how many more), when the
// selection had no data (the time in loc, nil: UTC) and that the next
// bucket holds the gap's counts.
func GapNotes(gaps []Gap, g Grid, max int, loc *time.Location) []string {
	var out []string
	for i, gp := range gaps {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more gaps in the data", len(gaps)-i))
			break
		}
		from, to := g.BucketStart(gp.From), g.BucketStart(gp.To)
		out = append(out, fmt.Sprintf("no samples for %s from %s: the source or its targets were down; the bucket after the gap holds the counts of the gap too, so its rates read high (marked on the charts)",
			SpanText(to-from), FormatTimeIn(from, loc)))
	}
	return out
}

// FormatTimeIn prints a Unix ms time as RFC 3339 in loc (nil: UTC), to
// the second: "2025-06-01T00:15:00Z", "2025-06-01T02:15:00+02:00".
func FormatTimeIn(ms int64, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return time.UnixMilli(ms).In(loc).Format(time.RFC3339)
}

// StartGap is a run of buckets [From, To) in which series that started
// inside the grid counted before their first sample: their start (Created)
// lies in bucket From, their first sample in bucket To (Next), which
// therefore holds all they counted since their start
// (BucketIncreasesSince), so its rates read high, as the bucket after a
// Gap's. This happens when scraping began after the engines started (an
// embedded specdash started next to running engines) or a new engine's
// first scrapes failed. Series is how many drafts series share the run;
// Labels, Created and First (Unix ms) are the first one's labels, start
// and first sample.
type StartGap struct {
	Gap
	Series         int
	Labels         map[string]string
	Created, First int64
}

// StartGapMin is the shortest time between a series' start and its first
// sample that StartGaps reports: a new target's first scrapes (service
// discovery, Prometheus starting next to the engines) take seconds to
// tens of seconds; an embedded specdash started next to engines that
// have run for hours is what the note is for.
const StartGapMin = time.Minute

// StartGaps returns the start gaps of the drafts series among series (one
// per engine: a start resets all of an engine's counters) in g, by From,
// then To: a series with a start time (Created) inside the grid, no usable
// point at or before g.Start, and its first usable point at least two
// buckets after the one its start lies in (in the next one, the first
// sample holds at most a step more than a bucket's counts: any engine that
// starts between two scrapes does that) and StartGapMin after its start.
func StartGaps(series []Series, g Grid) []StartGap {
	n := g.Buckets()
	if n == 0 {
		return nil
	}
	end := g.Start + int64(n)*g.Step
	var out []StartGap
	at := map[Gap]int{}
	for _, s := range series {
		if s.Family != Drafts || !startsInside(s.Created, g.Start) || s.Created >= end {
			continue
		}
		first := int64(-1)
		for _, p := range s.Points {
			if usable(p.V) {
				first = p.T
				break
			}
		}
		if first <= g.Start || first > end {
			continue // counted from a point at or before the grid, or not in it
		}
		// The bucket holding (Created, Created+1ms] and the one holding the
		// first point (buckets are (start, end]).
		gp := Gap{From: int((s.Created - g.Start) / g.Step), To: int((first - g.Start - 1) / g.Step)}
		if gp.To-gp.From < 2 || first-s.Created < StartGapMin.Milliseconds() {
			// The next bucket (at most one step of counts before the
			// first sample, as when any engine starts between scrapes),
			// or a first scrape within StartGapMin of the start.
			continue
		}
		if i, ok := at[gp]; ok {
			out[i].Series++
			continue
		}
		at[gp] = len(out)
		out = append(out, StartGap{Gap: gp, Series: 1, Labels: s.Labels, Created: s.Created, First: first})
	}
	slices.SortFunc(out, func(a, b StartGap) int {
		if a.From != b.From {
			return a.From - b.From
		}
		return a.To - b.To
	})
	return out
}

// StartGapNotes says, for each start gap (at most max, then how many
// more), when its series started and were first sampled (times in loc,
// nil: UTC), and that the bucket of the first sample holds their counts
// since the start.
func StartGapNotes(gaps []StartGap, g Grid, max int, loc *time.Location) []string {
	var out []string
	for i, sg := range gaps {
		if i == max {
			out = append(out, fmt.Sprintf("and %s of series counted before their first sample", Quantity(len(gaps)-i, "more run")))
			break
		}
		who, verb := "series "+LabelString(sg.Labels), "was"
		if sg.Series > 1 {
			who, verb = fmt.Sprintf("%d series (%s and %d more)", sg.Series, LabelString(sg.Labels), sg.Series-1), "were"
		}
		out = append(out, fmt.Sprintf("%s started at %s but %s first sampled at %s: the bucket ending %s holds the counts since the start, so its rates read high (marked on the charts)",
			who, FormatTimeIn(sg.Created, loc), verb, FormatTimeIn(sg.First, loc), FormatTimeIn(g.BucketEnd(sg.To), loc)))
	}
	return out
}

// Quantity is n with its noun, plural unless n is 1: "1 value",
// "3 values" (the notes and the report's texts).
func Quantity(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
