package metricsclient

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"specdash/compute"
)

// kLabelPreferred is the label compute.DistinctK tries first for the
// label that decides k; the shaped read looks it up when k mixes and
// no group-by label decides it (KMix).
const kLabelPreferred = "model_name"

// kByLabel looks up, when the summed series mix k and no group-by label
// decides it, which k each value of model_name has (one instant query, one
// value per model and k), so that KMix names the label as
// compute.DistinctK of the raw series does. Nothing when model_name is a
// group-by label (the groups already tell) or does not decide k.
func (r *shapedRead) kByLabel(ctx context.Context, out *Shaped) error {
	m := compute.DistinctK(out.Series)
	if !m.Mixed() || (m.Label != "" && m.Label != KLabel) || slices.Contains(r.groupBy, kLabelPreferred) || r.ppName() == "" {
		return nil
	}
	sel, err := Selector([]string{r.ppName()}, r.filters)
	if err != nil {
		return err
	}
	g := r.g
	span := time.Duration(g.End-g.Start) * time.Millisecond
	d := dur(span + Lookback(time.Duration(g.Step)*time.Millisecond))
	q := fmt.Sprintf(`count_values by (%s) (%q, count without(%s) (last_over_time(%s[%s])))`,
		kLabelPreferred, KLabel, r.s.PositionLabel, sel, d)
	r.count()
	v, ws, err := r.c.queryVector(ctx, q, time.UnixMilli(g.End))
	out.Warnings = append(out.Warnings, ws...)
	if err != nil {
		return err
	}
	byVal := map[string]int{}
	for _, s := range v {
		val := string(s.Metric[kLabelPreferred])
		var k int
		if _, err := fmt.Sscan(string(s.Metric[KLabel]), &k); err != nil {
			return nil
		}
		if old, ok := byVal[val]; ok && old != k {
			return nil // model_name does not decide k
		}
		byVal[val] = k
	}
	if len(byVal) == 0 {
		return nil
	}
	lk := make([]compute.LabelK, 0, len(byVal))
	for val, k := range byVal {
		lk = append(lk, compute.LabelK{Value: val, K: k})
	}
	slices.SortFunc(lk, func(a, b compute.LabelK) int { return strings.Compare(a.Value, b.Value) })
	out.kLabel, out.kByLabel = kLabelPreferred, lk
	return nil
}
