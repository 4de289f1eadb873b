package metricsclient

import (
	"time"

	"specdash/compute"
)

const (
	// MaxBuckets is the largest number of buckets ChooseStep produces for a
	// range (about one per pixel of a chart column).
	MaxBuckets = 600
	// MaxPoints is the most points per series a query_range may return:
	// Prometheus refuses more than 11,000 ("exceeded maximum resolution of
	// 11,000 points per timeseries"). A grid has Buckets()+1 points;
	// FetchSeries refuses a grid with more (it never changes the caller's
	// grid behind its back) and says which step would fit.
	MaxPoints = 11000
	// DefaultScrapeInterval is Prometheus' default scrape interval, used when
	// none is configured.
	DefaultScrapeInterval = 15 * time.Second
)

// NiceSteps are the steps ChooseStep picks from, ascending.
var NiceSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// ChooseStep returns the step for a range rng: the smallest of NiceSteps
// that is >= scrapeInterval (a step below it would show buckets without a
// new sample) and splits rng into at most MaxBuckets buckets. A
// scrapeInterval <= 0 means DefaultScrapeInterval. Beyond the largest nice
// step (ranges over 600 days, or a scrape interval over a day) it returns
// the smallest whole number of days satisfying both constraints.
func ChooseStep(rng, scrapeInterval time.Duration) time.Duration {
	if scrapeInterval <= 0 {
		scrapeInterval = DefaultScrapeInterval
	}
	for _, s := range NiceSteps {
		if s >= scrapeInterval && bucketsFor(rng, s) <= MaxBuckets {
			return s
		}
	}
	day := 24 * time.Hour
	minStep := max(scrapeInterval, ceilDiv(rng, MaxBuckets))
	return ceilDiv(minStep, day) * day
}

func ceilDiv(a, b time.Duration) time.Duration {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func bucketsFor(rng, step time.Duration) int64 {
	return int64(ceilDiv(rng, step))
}

// AlignGrid returns the grid of step-aligned buckets that covers the range of
// length rng ending at end: End is end rounded down to a multiple of step
// (counted from the Unix epoch, so refreshes keep bucket boundaries and
// Mimir-style caches hit), Start is End - rng rounded up to whole steps (at
// least one bucket). Times are Unix milliseconds. step must be at least one
// millisecond; otherwise AlignGrid returns the zero Grid, which FetchSeries
// refuses.
func AlignGrid(end time.Time, rng, step time.Duration) compute.Grid {
	st := step.Milliseconds()
	if st <= 0 {
		return compute.Grid{}
	}
	e := end.UnixMilli()
	e = floorDiv(e, st) * st
	n := int64(ceilDiv(rng, time.Duration(st)*time.Millisecond))
	if n < 1 {
		n = 1
	}
	return compute.Grid{Start: e - n*st, End: e, Step: st}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// RateWindow returns the range to use in rate()/increase() queries for a
// step: max(4 x scrapeInterval, step + scrapeInterval), like Grafana's
// $__rate_interval, so every window holds at least two samples and adjacent
// windows overlap by one scrape. A scrapeInterval <= 0 means
// DefaultScrapeInterval. specdash itself does not use rate(): it takes the
// difference of raw counter values at step points (compute.Increase), which
// is exact; this is for anyone writing rate() queries next to it.
func RateWindow(step, scrapeInterval time.Duration) time.Duration {
	if scrapeInterval <= 0 {
		scrapeInterval = DefaultScrapeInterval
	}
	return max(4*scrapeInterval, step+scrapeInterval)
}
