package model

import (
	"fmt"
	"sort"

	"specdash/compute"
	"specdash/metricsclient"
)

// SchemaNumbers is the detected schema and what it adds to the counter
// numbers (metricsclient.Schemas): its limits, the fields it cannot fill,
// and the numbers only it has, from the fetch's Extra series.
type SchemaNumbers struct {
	// Schema is the schema read; OtherSchemas are the names of other
	// schemas with series in the window (not read).
	Schema       metricsclient.Schema
	OtherSchemas []string
	// AveragedOverTime is true for a gauge schema (SGLang): the acceptance
	// rate and mean acceptance length are averages over time (and series)
	// of gauges that each cover one logging window, not ratios of sums.
	AveragedOverTime bool
	// Unavailable are the JSON fields of compute.Stats that the schema
	// cannot provide: they hold 0 (counts) or null (derived values) and
	// must not be shown as numbers.
	Unavailable []string
	// Averaged are a gauge schema's numbers (SGLang): Total over all
	// series, Groups one per label set of the gauges under the request's
	// group-by labels, sorted as compute.Aggregate's groups. Their Stats
	// hold the averages where the counter schemas' ratios go (the mean
	// acceptance length in the request's convention); Averaged the
	// averages themselves (bonus token included, as SGLang exports it).
	// Nil for counter schemas.
	Averaged *Averaged
	// V0 are vLLM V0's numbers over all series (the groups' are on
	// Group.V0); nil for other schemas.
	V0 *V0Stats
}

// Averaged are a gauge schema's time-averaged numbers.
type Averaged struct {
	Total  Group
	Groups []Group
}

// V0Stats are vLLM V0's numbers beyond the acceptance rate, for one group.
type V0Stats struct {
	// EmittedTokens is the increase of vllm:spec_decode_num_emitted_tokens_total
	// over the window (tokens).
	EmittedTokens float64 `json:"emitted_tokens"`
	// EmittedThroughput is EmittedTokens / window seconds (tokens/s).
	EmittedThroughput compute.Value `json:"emitted_throughput"`
	// SystemEfficiency is emitted / ((draft tokens / k) * (k + 1)) over the
	// window (compute.SystemEfficiency, ratio 0..1); null unless
	// Request.K is given, since V0 does not export k.
	SystemEfficiency compute.Value `json:"system_efficiency"`
	// K is the k used for SystemEfficiency (0: unknown).
	K int `json:"k_given,omitempty"`
	// LifetimeAcceptanceRate and LifetimeSystemEfficiency are the last
	// values in the window of the gauges vllm:spec_decode_draft_acceptance_rate
	// and vllm:spec_decode_efficiency: ratios since the server started, not
	// windowed. Null when the group has no such series or more than one
	// (lifetime ratios of different servers cannot be combined).
	LifetimeAcceptanceRate   compute.Value `json:"lifetime_acceptance_rate"`
	LifetimeSystemEfficiency compute.Value `json:"lifetime_system_efficiency"`
	// Reasons maps a null field to why it is null.
	Reasons map[string]string `json:"reasons,omitempty"`
}

// GaugeStats are a gauge schema's numbers for one group (SGLang): averages
// over time of sglang:spec_accept_length and sglang:spec_accept_rate
// (compute.AverageGauge of their values at the step points in the window,
// all series of the group together). Never rate(), never a ratio of sums.
type GaugeStats struct {
	// AveragedOverTime is always true: say so next to the numbers.
	AveragedOverTime bool `json:"averaged_over_time"`
	// MeanAcceptanceLength averages sglang:spec_accept_length (tokens per
	// draft, bonus token included, as SGLang exports it).
	MeanAcceptanceLength compute.GaugeAverage `json:"mean_acceptance_length"`
	// AcceptanceRate averages sglang:spec_accept_rate (ratio 0..1).
	AcceptanceRate compute.GaugeAverage `json:"acceptance_rate"`
}

// unavailableFields returns the JSON fields of compute.Stats a schema
// cannot fill.
func unavailableFields(s metricsclient.Schema) []string {
	if s.Kind == metricsclient.Gauges {
		return []string{"k", "drafts", "draft_tokens", "accepted_tokens", "accepted_per_position",
			"per_position_acceptance_rate", "accepted_throughput", "drafted_throughput", "drafts_per_second"}
	}
	var out []string
	if !s.HasFamily(compute.Drafts) {
		out = append(out, "drafts", "mean_acceptance_length", "drafts_per_second")
	}
	if !s.HasFamily(compute.AcceptedPerPosition) {
		out = append(out, "k", "accepted_per_position", "per_position_acceptance_rate")
	}
	if !s.HasFamily(compute.DraftTokens) {
		out = append(out, "draft_tokens", "acceptance_rate", "drafted_throughput")
	}
	if !s.HasFamily(compute.AcceptedTokens) {
		out = append(out, "accepted_tokens", "acceptance_rate", "accepted_throughput")
	}
	sort.Strings(out)
	return compactStrings(out)
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// clearUnavailable sets the derived values the schema cannot give to
// undefined (a rate of a count that does not exist is not 0).
func clearUnavailable(s *compute.Stats, schema metricsclient.Schema) {
	if schema.Kind == metricsclient.Gauges {
		s.AcceptedThroughput, s.DraftedThroughput, s.DraftsPerSecond = compute.Value{}, compute.Value{}, compute.Value{}
		return
	}
	if !schema.HasFamily(compute.Drafts) {
		s.DraftsPerSecond = compute.Value{}
	}
}

// applySchema records the detected schema and computes its own numbers:
// V0's emitted tokens and lifetime gauges, a gauge schema's time averages;
// and clears the derived values the schema cannot give: a rate of a count
// the engine does not export is undefined, not 0 (drafts/s without a
// drafts counter; every throughput of a gauge schema).
func (m *Model) applySchema(f *metricsclient.Fetched) {
	s := f.Schema()
	groupBy := m.Request.GroupBy
	sn := &SchemaNumbers{Schema: s, OtherSchemas: f.Detection.OtherNames(), AveragedOverTime: f.AveragedOverTime,
		Unavailable: unavailableFields(s)}
	m.Schema = sn

	byRole := map[metricsclient.Role]map[string][]metricsclient.ExtraSeries{}
	var order []string
	groupLabels := map[string]map[string]string{}
	for _, es := range f.Extra {
		k := compute.GroupKey(es.Labels, groupBy)
		if byRole[es.Role] == nil {
			byRole[es.Role] = map[string][]metricsclient.ExtraSeries{}
		}
		byRole[es.Role][k] = append(byRole[es.Role][k], es)
		if _, ok := groupLabels[k]; !ok {
			gl := map[string]string{}
			for _, l := range groupBy {
				gl[l] = es.Labels[l]
			}
			groupLabels[k] = gl
			order = append(order, k)
		}
	}
	all := func(role metricsclient.Role) []metricsclient.ExtraSeries {
		var out []metricsclient.ExtraSeries
		for _, k := range order {
			out = append(out, byRole[role][k]...)
		}
		return out
	}

	switch {
	case s.Kind == metricsclient.Gauges:
		// The counter groups are empty: one group per label set of the
		// gauges, sorted like compute.Aggregate's.
		sort.Slice(order, func(i, j int) bool {
			a, b := groupLabels[order[i]], groupLabels[order[j]]
			for _, l := range groupBy {
				if a[l] != b[l] {
					return a[l] < b[l]
				}
			}
			return false
		})
		av := &Averaged{Groups: make([]Group, 0, len(order))}
		for _, k := range order {
			gs := m.gaugeStats(byRole[metricsclient.WindowAcceptLength][k], byRole[metricsclient.WindowAcceptRate][k])
			av.Groups = append(av.Groups, Group{Key: k, Name: GroupName(groupLabels[k], groupBy), Labels: groupLabels[k],
				Stats: gaugeAsStats(gs, m.Request.Convention), Averaged: gs})
		}
		gs := m.gaugeStats(all(metricsclient.WindowAcceptLength), all(metricsclient.WindowAcceptRate))
		av.Total = Group{Name: GroupName(nil, nil), Stats: gaugeAsStats(gs, m.Request.Convention), Averaged: gs}
		for i := range av.Groups {
			clearUnavailable(&av.Groups[i].Stats, s)
		}
		clearUnavailable(&av.Total.Stats, s)
		sn.Averaged = av
	case s.ID == metricsclient.VLLMV0.ID:
		for i := range m.Groups {
			m.Groups[i].V0 = m.v0Stats(m.Groups[i].Stats, m.Request.K, byRole, m.Groups[i].Key)
		}
		sn.V0 = m.v0StatsOf(m.Stats, m.Request.K, all(metricsclient.EmittedTokens),
			all(metricsclient.LifetimeAcceptanceRate), all(metricsclient.LifetimeEfficiency))
	}
	clearUnavailable(&m.Stats, s)
	for i := range m.Buckets {
		clearUnavailable(&m.Buckets[i], s)
	}
	for i := range m.Groups {
		clearUnavailable(&m.Groups[i].Stats, s)
		for j := range m.Groups[i].Buckets {
			clearUnavailable(&m.Groups[i].Buckets[j], s)
		}
	}
}

func points(ss []metricsclient.ExtraSeries) [][]compute.Point {
	out := make([][]compute.Point, len(ss))
	for i, s := range ss {
		out[i] = s.Points
	}
	return out
}

func (m *Model) gaugeStats(length, rate []metricsclient.ExtraSeries) *GaugeStats {
	return &GaugeStats{
		AveragedOverTime:     true,
		MeanAcceptanceLength: compute.AverageGauge(points(length), m.Grid.Start, m.Grid.End),
		AcceptanceRate:       compute.AverageGauge(points(rate), m.Grid.Start, m.Grid.End),
	}
}

// gaugeAsStats puts the averages where the counter schemas' ratios go, so
// that a reader of Stats sees them (SchemaNumbers.AveragedOverTime says what they
// are). SGLang's length includes the bonus token; WithoutBonus subtracts it.
func gaugeAsStats(gs *GaugeStats, conv compute.Convention) compute.Stats {
	st := compute.Derive(compute.Counts{}, 0, conv)
	st.AcceptanceRate = gs.AcceptanceRate.Value
	st.MeanAcceptanceLength = gs.MeanAcceptanceLength.Value
	if st.MeanAcceptanceLength.OK && conv == compute.WithoutBonus {
		st.MeanAcceptanceLength = compute.Defined(st.MeanAcceptanceLength.V - 1)
	}
	return st
}

func (m *Model) v0Stats(st compute.Stats, k int, byRole map[metricsclient.Role]map[string][]metricsclient.ExtraSeries, key string) *V0Stats {
	return m.v0StatsOf(st, k, byRole[metricsclient.EmittedTokens][key],
		byRole[metricsclient.LifetimeAcceptanceRate][key], byRole[metricsclient.LifetimeEfficiency][key])
}

func (m *Model) v0StatsOf(st compute.Stats, k int, emitted, rate, eff []metricsclient.ExtraSeries) *V0Stats {
	v := &V0Stats{K: k, Reasons: map[string]string{}}
	for _, es := range emitted {
		v.EmittedTokens += compute.Increase(es.Points, m.Grid.Start, m.Grid.End)
	}
	if len(emitted) == 0 {
		v.Reasons["emitted_throughput"] = "no vllm:spec_decode_num_emitted_tokens_total series"
	} else if m.WindowSeconds > 0 {
		v.EmittedThroughput = compute.Defined(v.EmittedTokens / m.WindowSeconds)
	}
	switch {
	case k < 1:
		v.Reasons["system_efficiency"] = "needs k (num_speculative_tokens), which vLLM V0 does not export: give it (specdash report --k, report.Options.K)"
	case len(emitted) == 0:
		v.Reasons["system_efficiency"] = "no emitted-tokens series"
	default:
		v.SystemEfficiency = compute.SystemEfficiency(v.EmittedTokens, st.DraftTokens, k)
		if !v.SystemEfficiency.OK {
			v.Reasons["system_efficiency"] = "no draft tokens in the window"
		}
	}
	v.LifetimeAcceptanceRate = m.lastValue(rate, "lifetime_acceptance_rate", v.Reasons)
	v.LifetimeSystemEfficiency = m.lastValue(eff, "lifetime_system_efficiency", v.Reasons)
	if len(v.Reasons) == 0 {
		v.Reasons = nil
	}
	return v
}

// lastValue is the last value in (Start, End] of the only series of ss.
func (m *Model) lastValue(ss []metricsclient.ExtraSeries, field string, reasons map[string]string) compute.Value {
	if len(ss) != 1 {
		if len(ss) == 0 {
			reasons[field] = "no series of this lifetime gauge"
		} else {
			reasons[field] = fmt.Sprintf("%d series: lifetime ratios of different servers cannot be combined (group by model_name, instance)", len(ss))
		}
		return compute.Value{}
	}
	var out compute.Value
	for _, p := range ss[0].Points {
		if p.T > m.Grid.Start && p.T <= m.Grid.End {
			out = compute.Defined(p.V)
		}
	}
	if !out.OK {
		reasons[field] = "no value in the window"
	}
	return out
}

// SchemaName is the name of the schema read ("vLLM V1", ...), "" before
// any was detected.
func (m *Model) SchemaName() string {
	if m.Schema == nil {
		return ""
	}
	return m.Schema.Schema.Name
}
