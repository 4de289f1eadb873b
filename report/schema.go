package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/metricsclient"
)

// SchemaInfo is the schema part of a Result (embedded: its JSON fields sit
// at the top level). Build detects the schema (metricsclient.Detect) and
// reads it; see metricsclient.Schemas for the schemas and their limits.
type SchemaInfo struct {
	// Schema is the human name of the schema read, e.g. "vLLM V1",
	// "vLLM (Ray Serve)", "llama.cpp", "vLLM V0", "SGLang".
	Schema string `json:"schema,omitempty"`
	// SchemaID is its stable ID, e.g. "vllm-v1" (metricsclient.SchemaByID).
	SchemaID string `json:"schema_id,omitempty"`
	// OtherSchemas are the names of other schemas with series in the window
	// (not read).
	OtherSchemas []string `json:"other_schemas,omitempty"`
	// AveragedOverTime is true for a gauge schema (SGLang): the acceptance
	// rate and mean acceptance length are averages over time (and series)
	// of gauges that each cover one logging window, not ratios of sums.
	AveragedOverTime bool `json:"averaged_over_time,omitempty"`
	// Unavailable are the JSON fields of "groups" and "total" that the
	// schema cannot provide: they hold 0 (counts) or null (derived values)
	// and must not be shown as numbers.
	Unavailable []string `json:"unavailable,omitempty"`
	// Limits say what cannot be computed and why (metricsclient.Schema.Limits).
	Limits []string `json:"limits,omitempty"`
	// TotalV0 are vLLM V0's extra numbers over all series.
	TotalV0 *V0Stats `json:"total_v0,omitempty"`
	// TotalAveraged are the time-averaged gauges over all series (SGLang).
	TotalAveraged *GaugeStats `json:"total_averaged,omitempty"`
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
	// Options.K is given, since V0 does not export k.
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

// groupKey is the key of a label set's group under groupBy (a missing
// label counts as "", as in compute.Aggregate).
func groupKey(labels map[string]string, groupBy []string) string {
	var b strings.Builder
	for _, l := range groupBy {
		v := labels[l]
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
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

// applySchema records the detected schema in r and computes the schema's
// own numbers: V0's emitted tokens and lifetime gauges, a gauge schema's
// time averages (which then replace the groups and total).
func (r *Result) applySchema(f *metricsclient.Fetched, o Options) {
	s := f.Schema()
	r.Schema, r.SchemaID = s.Name, s.ID
	r.OtherSchemas = f.Detection.OtherNames()
	r.AveragedOverTime = f.AveragedOverTime
	r.Unavailable = unavailableFields(s)
	r.Limits = append([]string(nil), s.Limits...)

	byRole := map[metricsclient.Role]map[string][]metricsclient.ExtraSeries{}
	var order []string
	groupLabels := map[string]map[string]string{}
	for _, es := range f.Extra {
		k := groupKey(es.Labels, o.GroupBy)
		if byRole[es.Role] == nil {
			byRole[es.Role] = map[string][]metricsclient.ExtraSeries{}
		}
		byRole[es.Role][k] = append(byRole[es.Role][k], es)
		if _, ok := groupLabels[k]; !ok {
			gl := map[string]string{}
			for _, l := range o.GroupBy {
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
			for _, l := range o.GroupBy {
				if a[l] != b[l] {
					return a[l] < b[l]
				}
			}
			return false
		})
		r.Groups = make([]Group, 0, len(order))
		for _, k := range order {
			gs := r.gaugeStats(byRole[metricsclient.WindowAcceptLength][k], byRole[metricsclient.WindowAcceptRate][k])
			r.Groups = append(r.Groups, Group{Labels: groupLabels[k], Stats: gaugeAsStats(gs, o.Convention, s), Averaged: gs})
		}
		r.TotalAveraged = r.gaugeStats(all(metricsclient.WindowAcceptLength), all(metricsclient.WindowAcceptRate))
		r.Total = gaugeAsStats(r.TotalAveraged, o.Convention, s)
	case s.ID == metricsclient.VLLMV0.ID:
		for i := range r.Groups {
			k := groupKey(r.Groups[i].Labels, o.GroupBy)
			r.Groups[i].V0 = r.v0Stats(r.Groups[i].Stats, o.K, byRole, k)
		}
		r.TotalV0 = r.v0StatsOf(r.Total, o.K, all(metricsclient.EmittedTokens),
			all(metricsclient.LifetimeAcceptanceRate), all(metricsclient.LifetimeEfficiency))
	}
	for i := range r.Groups {
		clearUnavailable(&r.Groups[i].Stats, s)
	}
	clearUnavailable(&r.Total, s)
}

func points(ss []metricsclient.ExtraSeries) [][]compute.Point {
	out := make([][]compute.Point, len(ss))
	for i, s := range ss {
		out[i] = s.Points
	}
	return out
}

func (r *Result) gaugeStats(length, rate []metricsclient.ExtraSeries) *GaugeStats {
	return &GaugeStats{
		AveragedOverTime:     true,
		MeanAcceptanceLength: compute.AverageGauge(points(length), r.Grid.Start, r.Grid.End),
		AcceptanceRate:       compute.AverageGauge(points(rate), r.Grid.Start, r.Grid.End),
	}
}

// gaugeAsStats puts the averages where the counter schemas' ratios go, so
// that a reader of Stats sees them (Result.AveragedOverTime says what they
// are). SGLang's length includes the bonus token; WithoutBonus subtracts it.
func gaugeAsStats(gs *GaugeStats, conv compute.Convention, s metricsclient.Schema) compute.Stats {
	st := compute.Derive(compute.Counts{}, 0, conv)
	st.AcceptanceRate = gs.AcceptanceRate.Value
	st.MeanAcceptanceLength = gs.MeanAcceptanceLength.Value
	if st.MeanAcceptanceLength.OK && conv == compute.WithoutBonus {
		st.MeanAcceptanceLength = compute.Defined(st.MeanAcceptanceLength.V - 1)
	}
	return st
}

func (r *Result) v0Stats(st compute.Stats, k int, byRole map[metricsclient.Role]map[string][]metricsclient.ExtraSeries, key string) *V0Stats {
	return r.v0StatsOf(st, k, byRole[metricsclient.EmittedTokens][key],
		byRole[metricsclient.LifetimeAcceptanceRate][key], byRole[metricsclient.LifetimeEfficiency][key])
}

func (r *Result) v0StatsOf(st compute.Stats, k int, emitted, rate, eff []metricsclient.ExtraSeries) *V0Stats {
	v := &V0Stats{K: k, Reasons: map[string]string{}}
	for _, es := range emitted {
		v.EmittedTokens += compute.Increase(es.Points, r.Grid.Start, r.Grid.End)
	}
	if len(emitted) == 0 {
		v.Reasons["emitted_throughput"] = "no vllm:spec_decode_num_emitted_tokens_total series"
	} else if r.WindowSeconds > 0 {
		v.EmittedThroughput = compute.Defined(v.EmittedTokens / r.WindowSeconds)
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
	v.LifetimeAcceptanceRate = r.lastValue(rate, "lifetime_acceptance_rate", v.Reasons)
	v.LifetimeSystemEfficiency = r.lastValue(eff, "lifetime_system_efficiency", v.Reasons)
	if len(v.Reasons) == 0 {
		v.Reasons = nil
	}
	return v
}

// lastValue is the last value in (Start, End] of the only series of ss.
func (r *Result) lastValue(ss []metricsclient.ExtraSeries, field string, reasons map[string]string) compute.Value {
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
		if p.T > r.Grid.Start && p.T <= r.Grid.End {
			out = compute.Defined(p.V)
		}
	}
	if !out.OK {
		reasons[field] = "no value in the window"
	}
	return out
}

// writeSchemaText prints the schema line (when it is not plain vLLM V1)
// and its limits.
func (r *Result) writeSchemaText(w io.Writer) {
	if r.Schema == "" || (r.SchemaID == metricsclient.VLLMV1.ID && len(r.OtherSchemas) == 0) {
		return
	}
	fmt.Fprintf(w, "schema: %s", r.Schema)
	if len(r.OtherSchemas) > 0 {
		fmt.Fprintf(w, " (also present, not read: %s)", strings.Join(r.OtherSchemas, ", "))
	}
	fmt.Fprintln(w)
	for _, l := range r.Limits {
		fmt.Fprintf(w, "  limit: %s\n", l)
	}
}

// statsLine is vLLM's log line for counter schemas, and the averaged
// gauges for a gauge schema.
func (r *Result) statsLine(s compute.Stats, gs *GaugeStats) string {
	if gs == nil {
		return compute.FormatLogLine(s)
	}
	length := "n/a"
	if gs.MeanAcceptanceLength.Value.OK {
		length = strconv.FormatFloat(gs.MeanAcceptanceLength.Value.V, 'f', 2, 64)
	}
	return fmt.Sprintf("%s gauges averaged over time: mean acceptance length %s tokens/draft (bonus token included; %d values), acceptance rate %s (%d values)",
		r.Schema, length, gs.MeanAcceptanceLength.Samples, compute.FormatPercent(gs.AcceptanceRate.Value, 1), gs.AcceptanceRate.Samples)
}

// writeV0Text prints V0's extra numbers on an indented line.
func writeV0Text(w io.Writer, v *V0Stats) {
	if v == nil {
		return
	}
	eff := compute.FormatRatio(v.SystemEfficiency)
	if why := v.Reasons["system_efficiency"]; why != "" {
		eff += " (" + why + ")"
	}
	fmt.Fprintf(w, "  vLLM V0: emitted %s (%s), system efficiency %s, lifetime acceptance rate %s, lifetime system efficiency %s\n",
		compute.FormatCount(v.EmittedTokens, "tokens"), compute.FormatRate(v.EmittedThroughput, "tokens/s"), eff,
		compute.FormatRatio(v.LifetimeAcceptanceRate), compute.FormatRatio(v.LifetimeSystemEfficiency))
}
