package model

import (
	"context"
	"slices"

	"specdash/compute"
	"specdash/metricsclient"
)

// RawSeriesMax is the largest selection (counter series) a live view
// reads series by series: its refreshes then re-read only the newest
// points (Request.Prev). Larger selections, and every load without Now
// (the report), take the shaped read, whose answer grows with groups,
// not engines, and re-read the whole window on each refresh
// (docs/ARCHITECTURE.md, "Query plan"). 256 series are 32 engines of
// k = 5: a raw read of at most a few hundred kB at a day's 288 points.
const RawSeriesMax = 256

// maxIrregularNotes is how many series or gaps the notes name one by one.
const maxIrregularNotes = 3

// addIrregular finds the counter restarts, the engines counted before
// their first sample and the data gaps of the window (Model.Resets,
// StartGaps, Gaps) and names them in the notes. Restarts come
// from the shaped read (sh: it reads the samples of every irregular
// series, so it sees a restart between two grid points and one that only
// a changed _created value reveals) or, on the raw path, from the
// decreases of the fetched series (compute.Resets). Gaps are the buckets
// without any sample of the selection (one query of per-bucket sample
// counts, metricsclient.Client.SampleCounts; compute.FindGaps).
//
// samples is the sample counts' read, started by the caller
// (startSampleCounts; nil: no check).
func (m *Model) addIrregular(ctx context.Context, f *metricsclient.Fetched, sh *metricsclient.Shaped, samples *pending[*metricsclient.SampleCounts]) {
	g := m.Grid
	if sh != nil {
		m.Resets = sh.Resets
	} else {
		m.Resets = compute.Resets(f.Series, g)
	}
	m.Notes = append(m.Notes, compute.ResetNotes(m.Resets, maxIrregularNotes)...)
	m.StartGaps = compute.StartGaps(f.Series, g)
	m.Notes = append(m.Notes, compute.StartGapNotes(m.StartGaps, g, maxIrregularNotes, m.Request.Location)...)
	if samples == nil {
		return
	}
	sc, err := samples.wait()
	if sc != nil {
		m.Notes = append(m.Notes, sc.Warnings...)
	}
	if err != nil {
		if ctx.Err() == nil {
			m.Notes = append(m.Notes, "data gaps could not be looked for: "+err.Error())
		}
		return
	}
	m.samples = sc.Counts
	m.Gaps = compute.FindGaps(sc.Counts)
	m.Notes = append(m.Notes, compute.GapNotes(m.Gaps, g, maxIrregularNotes, m.Request.Location)...)
}

// RestartBuckets are the buckets holding a counter restart (of series
// that do not go backwards more often than restarts explain), ascending
// and distinct; BackwardsBuckets those of the series that do.
func (m *Model) RestartBuckets() (restarts, backwards []int) {
	seenR, seenB := map[int]bool{}, map[int]bool{}
	for _, r := range m.Resets {
		seen, out := seenR, &restarts
		if r.Backwards() {
			seen, out = seenB, &backwards
		}
		for _, j := range r.Buckets {
			if !seen[j] {
				seen[j] = true
				*out = append(*out, j)
			}
		}
	}
	slices.Sort(restarts)
	slices.Sort(backwards)
	return restarts, backwards
}
