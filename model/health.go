package model

import (
	"fmt"
	"net/url"
	"strconv"

	"specdash/compute"
)

// Health of the model: a verdict (compute.Health) per group and for the
// selection, and the changes of the acceptance rate over time
// (compute.GroupChangePoints), computed from the counts in FromSeries.
// Thresholds and the change test's options are Request.Health and
// Request.Changes (zero fields: compute.DefaultHealthThresholds and the
// ChangeOptions defaults; docs/ALERTING.md explains each).

// HealthOptions are the settable limits of the health verdicts and of the
// change detection (Request.Health).
type HealthOptions struct {
	Thresholds compute.HealthThresholds
	Changes    compute.ChangeOptions
}

// healthK is the k Health judges with: the per-position counts' own k,
// else Request.K (vLLM V0 has no per-position counts); 0 when unknown.
func (m *Model) healthK(c compute.Counts) int {
	if len(c.AcceptedPerPosition) > 0 {
		return 0
	}
	return m.Request.K
}

// changeBuckets are the buckets the change detection reads: the complete
// ones (an incomplete bucket may miss a series' newest scrape, which
// would bias its rate); indices stay those of the grid.
func (m *Model) changeBuckets(b []compute.Counts) []compute.Counts {
	return b[:min(len(b), max(m.Complete, 0))]
}

// AddHealth computes the health verdict and the change points of every
// group and of the total (Model.Health, Model.Changes, Group.Health,
// Group.Changes) from the counts. With a change point the verdict judges
// the buckets since the last change (a note gives the whole window's). A gauge schema (no counters:
// SchemaNumbers.Averaged) gets none: its counts are empty, and an empty
// window is not idle.
func (m *Model) AddHealth() {
	if sn := m.Schema; sn != nil && sn.Averaged != nil {
		m.Health, m.Changes = nil, nil
		for i := range m.Groups {
			m.Groups[i].Health, m.Groups[i].Changes = nil, nil
		}
		return
	}
	th, co := m.Request.Health.Thresholds, m.Request.Health.Changes
	th.Convention = m.Request.Convention
	changes := func(c compute.Group) []compute.ChangePoint {
		if m.Grid.Step <= 0 {
			return nil
		}
		return compute.GroupChangePoints(compute.Group{Buckets: m.changeBuckets(c.Buckets)}, co)
	}
	verdict := func(c compute.Group, dataFrom int64, cps []compute.ChangePoint) *compute.Verdict {
		v := compute.Health(c.Total, m.coveredSeconds(dataFrom), m.healthK(c.Total), th)
		if len(cps) == 0 {
			return &v
		}
		// The rate is steady since the last change (that is what the
		// change test says): judge that segment, so that a collapse a
		// minute ago is not averaged away by the healthy minutes before.
		last := cps[len(cps)-1]
		var since compute.Counts
		for _, b := range c.Buckets[last.Bucket:] {
			since = since.Add(b)
		}
		at := last.Start(m.Grid)
		sv := compute.Health(since, float64(max(0, m.dataEnd()-at))/1000, m.healthK(since), th)
		if sv.State == compute.Idle || sv.State == compute.NotEnoughData {
			return &v
		}
		sv.Notes = append(sv.Notes, fmt.Sprintf("judged since the last change of the acceptance rate (from %s to %s, %s); over the whole window: %s",
			compute.FormatPercent(last.Before.Estimate, 1), compute.FormatPercent(last.After.Estimate, 1), PText(last.PValue), v.Summary))
		return &sv
	}
	m.Changes = changes(m.Total)
	m.Health = verdict(m.Total, m.DataFrom, m.Changes)
	if n := m.Now(); n.State == NowStale && m.Health != nil && m.Health.State != compute.NotEnoughData {
		// The target is gone: the verdict is of the data before.
		since := "its last sample"
		if n.LastData > 0 {
			since = compute.FormatTimeIn(n.LastData, m.Request.Location)
		}
		m.Health.Notes = append(m.Health.Notes, fmt.Sprintf("no samples since %s: the targets are down or no longer scraped; this verdict judges the data before", since))
	}
	for i := range m.Groups {
		g := &m.Groups[i]
		g.Changes = changes(g.Counts)
		g.Health = verdict(g.Counts, g.DataFrom, g.Changes)
	}
}

// coveredSeconds is the part of the window the verdict's rates (drafts/s)
// and "over the last ..." cover: from dataFrom (when the counts start,
// Model.DataFrom or Group.DataFrom) to the window's end, so that a series
// that started a minute ago in a 1h window is not judged at 1/60 of its
// drafts/s, nor one whose counts since its _created came before its first
// scrape at more than it drafted. The whole window when dataFrom is at or
// before its start or out of range (log input: WindowSeconds).
//
// A window that ends after Request.Now (absolute, in the future) is
// covered up to Now only (Model.dataEnd).
func (m *Model) coveredSeconds(dataFrom int64) float64 {
	g := m.Grid
	end := m.dataEnd()
	if g.Step <= 0 {
		return m.WindowSeconds
	}
	if dataFrom <= g.Start || dataFrom >= end {
		if end < g.End {
			return float64(end-g.Start) / 1000
		}
		return m.WindowSeconds
	}
	return float64(end-dataFrom) / 1000
}

// HealthRow is one tile of the health row: a group (or the selection) and
// its verdict.
type HealthRow struct {
	// Key and Name are the group's (Key "" and Name "all series" for the
	// selection).
	Key, Name string
	Verdict   compute.Verdict
}

// HealthRows are the tiles of the health row: one per group when grouped,
// else one for the selection; none without verdicts.
func (m *Model) HealthRows() []HealthRow {
	if m == nil {
		return nil
	}
	if len(m.Request.GroupBy) > 0 {
		var out []HealthRow
		for _, g := range m.Groups {
			if g.Health != nil {
				out = append(out, HealthRow{Key: g.Key, Name: g.Name, Verdict: *g.Health})
			}
		}
		return out
	}
	if m.Health == nil {
		return nil
	}
	return []HealthRow{{Name: GroupName(nil, nil), Verdict: *m.Health}}
}

// Change is a change point with the windows on either side of it (Unix
// ms, bucket bounds): before is [BeforeFrom, At], after [At, AfterTo],
// each up to the neighbouring change or the window's data.
type Change struct {
	compute.ChangePoint
	At, BeforeFrom, AfterTo int64
}

// ChangesOf places the change points cps (of one group, over m's grid)
// in time: each one's start and the before and after windows.
func (m *Model) ChangesOf(cps []compute.ChangePoint) []Change {
	g := m.Grid
	out := make([]Change, len(cps))
	for i, c := range cps {
		from := g.BucketStart(max(m.FirstBucket, 0))
		if i > 0 {
			from = cps[i-1].Start(g)
		}
		to := g.BucketEnd(max(m.Complete-1, 0))
		if i+1 < len(cps) {
			to = cps[i+1].Start(g)
		}
		at := c.Start(g)
		if from >= at {
			from = g.Start
		}
		out[i] = Change{ChangePoint: c, At: at, BeforeFrom: from, AfterTo: max(to, at+g.Step)}
	}
	return out
}

// PText is the change's p-value: "p < 0.001" or "p = 0.004".
func PText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'f', 3, 64)
}

// Text is "acceptance rate changed at <at> from 62.0 % to 41.0 % (p < 0.001)";
// at is the change's time as the caller shows it.
func (c Change) Text(at string) string {
	return fmt.Sprintf("acceptance rate changed at %s from %s to %s (%s)", at,
		compute.FormatPercent(c.Before.Estimate, 1), compute.FormatPercent(c.After.Estimate, 1), PText(c.PValue))
}

// HealthURLParams are the URL parameters that override the health
// thresholds (Request.Health): health.<json name of a
// compute.HealthThresholds field>, e.g. health.collapse_rate=0.1.
var healthURLParams = []struct {
	name string
	ptr  func(*compute.HealthThresholds) *float64
}{
	{"min_drafts", func(t *compute.HealthThresholds) *float64 { return &t.MinDrafts }},
	{"min_draft_tokens", func(t *compute.HealthThresholds) *float64 { return &t.MinDraftTokens }},
	{"collapse_rate", func(t *compute.HealthThresholds) *float64 { return &t.CollapseRate }},
	{"degraded_rate", func(t *compute.HealthThresholds) *float64 { return &t.DegradedRate }},
	{"loop_rate", func(t *compute.HealthThresholds) *float64 { return &t.LoopRate }},
	{"cliff_healthy", func(t *compute.HealthThresholds) *float64 { return &t.CliffHealthy }},
	{"cliff_dead", func(t *compute.HealthThresholds) *float64 { return &t.CliffDead }},
	{"drop_relative", func(t *compute.HealthThresholds) *float64 { return &t.DropRelative }},
}

// HealthParamPrefix prefixes the URL parameters of ParseHealthThresholds.
const HealthParamPrefix = "health."

// ParseHealthThresholds reads threshold overrides from URL parameters
// health.<name> (names as in compute.HealthThresholds' JSON, e.g.
// health.collapse_rate=0.1); fields not given stay zero (the defaults).
// Values that are not positive numbers are skipped and listed in the
// result as name="value".
func ParseHealthThresholds(v url.Values) (compute.HealthThresholds, []string) {
	var th compute.HealthThresholds
	var warn []string
	for _, p := range healthURLParams {
		s := v.Get(HealthParamPrefix + p.name)
		if s == "" {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f > 0) || f > 1e12 {
			warn = append(warn, HealthParamPrefix+p.name+"="+strconv.Quote(s))
			continue
		}
		*p.ptr(&th) = f
	}
	return th, warn
}

// HealthValues encodes th's non-zero fields as ParseHealthThresholds'
// URL parameters.
func HealthValues(th compute.HealthThresholds, v url.Values) {
	for _, p := range healthURLParams {
		if f := *p.ptr(&th); f > 0 {
			v.Set(HealthParamPrefix+p.name, strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
}
