// Package report computes the speculative-decoding numbers of one time window
// from Prometheus, per group of series and in total: what `specdash report`
// prints and what the browser's dashboard must agree with.
//
// It builds for the host and for js/wasm (no os, no syscall/js), so the
// browser end-to-end test can call Build and compare.
//
// Data flow: metricsclient.AlignGrid -> model.Compute (the view model the
// dashboard renders too) -> text or JSON. Formulas and metric
// names: docs/METRICS.md.
package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/model"
)

// Options selects the window and the grouping of a report.
type Options struct {
	// Range is the window's length (> 0). It is rounded up to whole steps.
	Range time.Duration
	// End is the window's end (zero: now); it is rounded down to a multiple
	// of Step, so the newest partial step is left out.
	End time.Time
	// Step is the query resolution; 0 means
	// metricsclient.ChooseStep(Range, client's scrape interval). The
	// counts do not depend on it (exact increases), only which samples
	// bound the window.
	Step time.Duration
	// Filters restrict the series (see metricsclient.Filter).
	Filters []metricsclient.Filter
	// GroupBy are the labels to group by (none: one group of everything).
	GroupBy []string
	// Convention of the mean acceptance length (default compute.WithBonus).
	Convention compute.Convention
	// DraftCost are the draft cost ratios of the insights (nil:
	// compute.DefaultDraftCostRatio); see AddInsights.
	DraftCost *CostRatios
	// K is num_speculative_tokens for vLLM V0's windowed system efficiency
	// (V0 does not export it); 0: unknown (the efficiency is then null).
	K int
}

// Group is one group's numbers: its group-by label values and the derived
// numbers over the window. JSON: {"labels": {...}, "k": ..., "drafts": ...,
// ...} (the compute.Stats fields, undefined values null).
type Group struct {
	Labels map[string]string `json:"labels"`
	compute.Stats
	*Insights // speedup, best k, fit, intervals (insights.go); nil: not computed
	// V0 and Averaged are the schema's own numbers (schema.go): vLLM V0's
	// emitted tokens and lifetime gauges, SGLang's time-averaged gauges.
	V0       *V0Stats    `json:"v0,omitempty"`
	Averaged *GaugeStats `json:"averaged,omitempty"`
	// Health is the group's verdict (compute.Verdict) and Changes the
	// changes of its acceptance rate (health_text.go).
	Health  *compute.Verdict `json:"health,omitempty"`
	Changes []Change         `json:"changes,omitempty"`
}

// Result is a report. JSON:
//
//	{"window_seconds", "start", "end", "step_seconds", "convention",
//	 "groups": [{"labels": {..}, "k", "drafts", "draft_tokens",
//	   "accepted_tokens", "accepted_per_position": [..], "acceptance_rate",
//	   "mean_acceptance_length", "per_position_acceptance_rate": [..],
//	   "accepted_throughput", "drafted_throughput", "drafts_per_second",
//	   "violations"?}],
//	 "total": {the same fields, no labels}, "warnings"?}
//
// Counts are drafts and tokens, ratios 0..1, throughputs tokens/s (drafts/s)
// per second of data ("covered_seconds", model.Model.CoveredStatsOf: the
// dashboard's cards and breakdown table give the same), times RFC 3339 UTC; undefined values (no drafts in the window) are null.
type Result struct {
	// WindowSeconds is End - Start in seconds.
	WindowSeconds float64 `json:"window_seconds"`
	// CoveredSeconds is the part of the window with data (from the first
	// bucket with a sample to End, model.Model.CoveredSeconds): the rates
	// (drafts/s, tokens/s) are per second of it, as on the dashboard's
	// cards and breakdown table.
	CoveredSeconds float64 `json:"covered_seconds"`
	// Start (exclusive) and End (inclusive) of the window, step-aligned.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// StepSeconds is the query step in seconds.
	StepSeconds float64 `json:"step_seconds"`
	// Convention is "bonus" (mean acceptance length = 1 + accepted/drafts)
	// or "no-bonus" (accepted/drafts).
	Convention string `json:"convention"`
	// Groups are sorted by their label values in GroupBy order.
	Groups []Group `json:"groups"`
	// Total is all groups summed (ratio of sums).
	Total compute.Stats `json:"total"`
	// Warnings from Prometheus and specdash (missing families, skipped
	// series, a step below the scrape interval).
	Warnings []string `json:"warnings,omitempty"`

	// GroupBy are the labels the groups are keyed by.
	GroupBy []string `json:"-"`
	// Grid is the aligned query grid (Unix ms).
	Grid compute.Grid `json:"-"`
	// TotalInsights are the total's insights, in JSON inside "total"
	// (insights.go); TextInsights makes WriteText print them.
	TotalInsights *Insights `json:"-"`
	TextInsights  bool      `json:"-"`
	// TotalHealth and TotalChanges are the selection's verdict and
	// changes, in JSON inside "total" (health_text.go).
	TotalHealth  *compute.Verdict `json:"-"`
	TotalChanges []Change         `json:"-"`
	// SchemaInfo says which schema was detected and read (schema.go).
	SchemaInfo
	// Latency is the inter-token latency, output and load numbers
	// (latency_text.go); absent for log input.
	Latency *LatencyInfo `json:"latency,omitempty"`
}

// Validate checks o without querying: Range > 0, Step >= 0 and a whole
// number of milliseconds, group-by labels valid and distinct, filters valid.
func (o Options) Validate() error {
	if o.Range <= 0 {
		return fmt.Errorf("range must be positive, got %s", o.Range)
	}
	if o.Step < 0 {
		return fmt.Errorf("step must not be negative, got %s", o.Step)
	}
	if o.Step > 0 && (o.Step < time.Millisecond || o.Step%time.Millisecond != 0) {
		return fmt.Errorf("step must be a whole number of milliseconds, got %s", o.Step)
	}
	seen := map[string]bool{}
	for _, l := range o.GroupBy {
		if err := metricsclient.ValidateLabelName(l); err != nil {
			return fmt.Errorf("group by: %w", err)
		}
		if seen[l] {
			return fmt.Errorf("group by: label %s given twice", l)
		}
		seen[l] = true
	}
	if _, err := metricsclient.VLLMV1.Selector(o.Filters); err != nil {
		return fmt.Errorf("filter: %w", err)
	}
	if o.Convention != compute.WithBonus && o.Convention != compute.WithoutBonus {
		return fmt.Errorf("unknown convention %d", int(o.Convention))
	}
	return nil
}

// Build queries c for the window of o and computes the report, for whichever
// schema metricsclient.Detect finds (Result.SchemaInfo names it; gauge
// schemas such as SGLang give time averages, see GaugeStats): the view
// model (model.Compute) written as a report. Errors: invalid options, and
// those of Client.FetchAuto (*metricsclient.APIError,
// *metricsclient.MissingMetricsError when no spec-decode series match:
// never an empty success).
func Build(ctx context.Context, c *metricsclient.Client, o Options) (*Result, error) {
	if c == nil {
		return nil, errors.New("no Prometheus client")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	now := time.Now()
	end := o.End
	if end.IsZero() {
		end = now
	}
	step := o.Step
	var warnings []string
	if step == 0 {
		step = metricsclient.ChooseStep(o.Range, c.ScrapeInterval())
	} else if step < c.ScrapeInterval() {
		warnings = append(warnings, fmt.Sprintf("step %s is below the scrape interval %s: some steps hold no new sample", step, c.ScrapeInterval()))
	}
	g := metricsclient.AlignGrid(end, o.Range, step)
	reqNow := futureEndNow(end, now)
	m, err := model.Compute(ctx, c, model.Request{Grid: g, Filters: o.Filters, GroupBy: o.GroupBy,
		Convention: o.Convention, Insights: true, DraftCost: o.DraftCost, K: o.K,
		Now: reqNow, Fixed: !reqNow.IsZero()})
	if err != nil {
		return nil, err
	}
	return FromModel(m, warnings), nil
}

// futureEndNow is the model.Request.Now of a report whose window ends at
// end: now when end is after it (the counts stop at now, so the rates
// and the health verdict are per second up to now, not to end: an end
// 58 min ahead read 137 accepted tokens/s of a fleet doing 2652), else
// zero (every bucket complete, as a report of the past reads).
func futureEndNow(end, now time.Time) time.Time {
	if end.After(now) {
		return now
	}
	return time.Time{}
}

// FromModel writes m (model.Compute) as a report; warnings go before the
// model's notes.
func FromModel(m *model.Model, warnings []string) *Result {
	g := m.Grid
	r := &Result{
		WindowSeconds:  g.Seconds(),
		CoveredSeconds: m.CoveredSeconds(),
		Start:          time.UnixMilli(g.Start).UTC(),
		End:            time.UnixMilli(g.End).UTC(),
		StepSeconds:    g.StepSeconds(),
		Convention:     ConventionName(m.Request.Convention),
		Total:          m.CoveredStats(), // rates per second of data, as the cards
		TotalInsights:  m.Insights,
		Warnings:       append(warnings, m.Notes...),
		GroupBy:        append([]string(nil), m.Request.GroupBy...),
		Grid:           g,
		Latency:        latencyInfo(m),
	}
	groups := m.Groups
	if sn := m.Schema; sn != nil {
		r.Schema, r.SchemaID = sn.Schema.Name, sn.Schema.ID
		r.OtherSchemas = sn.OtherSchemas
		r.AveragedOverTime = sn.AveragedOverTime
		r.Unavailable = sn.Unavailable
		r.Limits = append([]string(nil), sn.Schema.Limits...)
		r.TotalV0 = sn.V0
		if av := sn.Averaged; av != nil {
			groups = av.Groups
			r.Total, r.TotalInsights, r.TotalAveraged = av.Total.Stats, av.Total.Insights, av.Total.Averaged
		}
	}
	r.Groups = make([]Group, len(groups))
	for i, gr := range groups {
		r.Groups[i] = Group{Labels: gr.Labels, Stats: m.CoveredStatsOf(gr.Stats), Insights: gr.Insights, V0: gr.V0, Averaged: gr.Averaged,
			Health: gr.Health, Changes: changesOf(m, gr.Changes)}
	}
	r.TotalHealth, r.TotalChanges = m.Health, changesOf(m, m.Changes)
	return r
}

// ConventionName returns "bonus" for compute.WithBonus and "no-bonus" for
// compute.WithoutBonus (the --convention values): model.ConventionName.
func ConventionName(c compute.Convention) string { return model.ConventionName(c) }

// ParseConvention parses "bonus" (1 + accepted/drafts, vLLM since PR 17908)
// or "no-bonus" (accepted/drafts, PR 16665 until 17908).
func ParseConvention(s string) (compute.Convention, error) {
	switch s {
	case "bonus", "":
		return compute.WithBonus, nil
	case "no-bonus":
		return compute.WithoutBonus, nil
	}
	return 0, fmt.Errorf("unknown convention %q: use bonus or no-bonus", s)
}

// ParseFilters parses "label=value" arguments (split at the first "=", so
// the value may contain "="; an empty value matches series without the
// label). Arguments for the same label are merged into one Filter, meaning
// "any of these values"; filters keep the order of their first appearance.
func ParseFilters(args []string) ([]metricsclient.Filter, error) {
	var out []metricsclient.Filter
	idx := map[string]int{}
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("filter %q: want label=value", a)
		}
		name = strings.TrimSpace(name)
		if err := metricsclient.ValidateLabelName(name); err != nil {
			return nil, fmt.Errorf("filter %q: %w", a, err)
		}
		i, seen := idx[name]
		if !seen {
			i = len(out)
			idx[name] = i
			out = append(out, metricsclient.Filter{Name: name})
		}
		out[i].Values = append(out[i].Values, val)
	}
	return out, nil
}

// WriteJSON writes r as indented JSON (see Result) and a newline.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes a header line (window, step, convention), then one line
// per group (when grouped): its labels, then vLLM's current log line
// (compute.FormatLogLine) for the window; then a total line, and a line per
// violation and warning.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	conv := "with bonus token (1 + accepted/drafts)"
	if r.Convention == "no-bonus" {
		conv = "without bonus token (accepted/drafts)"
	}
	fmt.Fprintf(&b, "window %s (%s to %s), step %s, mean acceptance length %s\n",
		seconds(r.WindowSeconds), r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), seconds(r.StepSeconds), conv)
	if r.CoveredSeconds > 0 && r.CoveredSeconds < r.WindowSeconds {
		fmt.Fprintf(&b, "rates (drafts/s, tokens/s) per second of data: %s of the window\n", compute.SpanText(int64(math.Round(r.CoveredSeconds*1000))))
	}
	r.writeSchemaText(&b)
	if len(r.GroupBy) > 0 {
		for _, g := range r.Groups {
			fmt.Fprintf(&b, "%s: %s\n", LabelString(g.Labels), r.statsLine(g.Stats, g.Averaged))
			writeV0Text(&b, g.V0)
			for _, v := range g.Violations {
				fmt.Fprintf(&b, "  inconsistent counts: %s\n", v)
			}
			if r.TextInsights {
				WriteInsightsText(&b, g.Insights)
			}
			writeHealthText(&b, g.Health, g.Changes)
		}
	}
	fmt.Fprintf(&b, "total: %s\n", r.statsLine(r.Total, r.TotalAveraged))
	writeV0Text(&b, r.TotalV0)
	for _, v := range r.Total.Violations {
		fmt.Fprintf(&b, "  inconsistent counts: %s\n", v)
	}
	if r.TextInsights {
		WriteInsightsText(&b, r.TotalInsights)
	}
	writeHealthText(&b, r.TotalHealth, r.TotalChanges)
	r.writeLatencyText(&b)
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// seconds prints a span of s seconds as a Go duration, rounded to the
// second from a minute on and to the millisecond below (a window taken
// from log timestamps is not a whole number of seconds: "5m0s", not
// "5m0.003124511s").
func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// LabelString prints labels as {a="x", b="y"}, sorted by name, values quoted
// with Go/PromQL escapes; it is compute.LabelString.
func LabelString(labels map[string]string) string { return compute.LabelString(labels) }
