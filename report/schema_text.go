package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/model"
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

// V0Stats and GaugeStats are the view model's (model.V0Stats,
// model.GaugeStats).
type (
	V0Stats    = model.V0Stats
	GaugeStats = model.GaugeStats
)

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
	return fmt.Sprintf("%s gauges averaged over time: mean acceptance length %s tokens/draft (bonus token included; %s), acceptance rate %s (%s)",
		r.Schema, length, compute.Quantity(gs.MeanAcceptanceLength.Samples, "value"), compute.FormatPercent(gs.AcceptanceRate.Value, 1), compute.Quantity(gs.AcceptanceRate.Samples, "value"))
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
