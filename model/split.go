package model

import "specdash/compute"

// ForGroup is the Model of one of m's groups: a shallow copy whose total
// (Total, Stats, Buckets, Fit, FirstBucket, Insights) is the group's, so
// the charts drawn from a Model's total (per-position, heatmap, token
// rates, speedup and best k) can show one group instead of the blend of
// all. The groups are left as they are. ok is false when no group has
// that key.
func (m *Model) ForGroup(key string) (sub *Model, ok bool) {
	for i := range m.Groups {
		g := &m.Groups[i]
		if g.Key != key {
			continue
		}
		c := *m
		c.Total, c.Stats, c.Buckets = g.Counts, g.Stats, g.Buckets
		c.Fit = compute.FitGeometric(g.Counts.Total)
		c.FirstBucket = g.FirstBucket
		c.DataFrom = g.DataFrom
		c.Insights = g.Insights
		return &c, true
	}
	return m, false
}
