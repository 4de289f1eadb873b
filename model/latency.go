package model

import (
	"context"
	"fmt"
	"strings"

	"specdash/compute"
	"specdash/metricsclient"
)

// Latency next to acceptance: whether speculation pays. The numbers come
// from the schema's optional families (metricsclient.FetchOptionalSummed:
// the source sums the steady series; only when the schema names them):
//
//   - inter-token latency (vllm:inter_token_latency_seconds, formerly
//     vllm:time_per_output_token_seconds): p50/p95/p99 and mean over the
//     window and per bucket, from the bucket increases summed across
//     series (ratio of sums; quantiles as Prometheus' histogram_quantile,
//     compute.Histogram), from a classic histogram (_bucket series) or,
//     when the source stores it so, a native histogram
//     (compute.NativeHistogram; Latency.ITLNative). vLLM records one observation per engine step of
//     a request: with speculation one step can emit several tokens, so the
//     ITL is per step, not per token (ITLCaveat);
//   - output tokens (vllm:generation_tokens_total): output tokens/s and the
//     share of output that came from accepted drafts (accepted tokens /
//     generation tokens, compute.OutputShare);
//   - running requests (vllm:num_requests_running): the load bins
//     (compute.BinByLoad: per bucket the gauge's average over the bucket).
//
// Absent families are no error: Latency.Missing says which metric was
// looked for and not found, and what was found instead.

// Dash is shown for an undefined latency or output number, next to its
// reason.
const Dash = "–"

// ITLCaveat is shown next to every inter-token latency number.
const ITLCaveat = "vLLM records one inter-token latency per engine step; with speculation one step can emit several tokens, so ITL is per step, not per token"

// OptionalSource is a Source that can also read a schema's optional
// families summed over the selection
// (*metricsclient.Client.FetchOptionalSummed: a live window that slid
// forward continues prev's read). Compute reads latency only from such a
// source.
type OptionalSource interface {
	FetchOptionalSummed(ctx context.Context, prev *metricsclient.Window, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, roles ...metricsclient.OptionalRole) (*metricsclient.OptionalFetch, error)
}

// LatencyNotRead is the reason of every latency number when the read of
// the optional families failed (Latency.Err says why).
const LatencyNotRead = "not read: the source did not answer (see the message below)"

// latencyRoles are the optional families Compute reads.
var latencyRoles = []metricsclient.OptionalRole{metricsclient.InterTokenLatency, metricsclient.GenerationTokens, metricsclient.RequestsRunning}

// roleTitle names a role for the user.
func roleTitle(r metricsclient.OptionalRole) string {
	switch r {
	case metricsclient.InterTokenLatency:
		return "inter-token latency"
	case metricsclient.GenerationTokens:
		return "output tokens"
	case metricsclient.RequestsRunning:
		return "running requests"
	}
	return string(r)
}

// Latency is the window's latency and output numbers (Model.Latency).
type Latency struct {
	// ITLMetric is the inter-token latency histogram read ("" when none).
	ITLMetric string
	// ITLNative is true when the source stores it as a native histogram
	// (ITLKind says "native"; else "classic"), ITLCustomBuckets when as a
	// native histogram with custom buckets (Prometheus 3's schema -53,
	// read as the classic histogram of the same observations; ITLKind
	// "native, custom buckets").
	ITLNative, ITLCustomBuckets bool
	// ITL summarizes the window's histogram (seconds); Buckets one per grid
	// bucket (empty when there is no histogram).
	ITL     compute.LatencySummary
	Buckets []compute.LatencySummary
	// Histogram is the window's histogram (increases summed over series
	// and buckets).
	Histogram compute.Histogram
	// GenerationMetric is the output-token counter read ("" when none);
	// GenerationTokens its increase over the window; OutputPerSecond that
	// per second of data (CoveredSeconds, as the cards' rates);
	// OutputShare accepted tokens / generation tokens.
	GenerationMetric string
	GenerationTokens float64
	OutputPerSecond  compute.Value
	OutputShare      compute.Value
	// LoadMetric is the running-requests gauge read ("" when none); Load
	// the bins of the window's buckets by it (compute.BinByLoad).
	LoadMetric string
	Load       []compute.LoadBin
	// LoadCost is the draft cost ratio c of the load bins' estimated
	// speedup (Request.DraftCost's default).
	LoadCost float64
	// Missing are sentences naming each family looked for and not found,
	// and what was found instead.
	Missing []string
	// Reasons say why a value is undefined: keys "itl", "output_share",
	// "output_per_second", "load".
	Reasons map[string]string
	// Err is why the optional families could not be read (the rest is
	// empty); the counters' numbers are unaffected.
	Err error
}

// ITLKind names the kind of histogram the inter-token latency was read
// from: "native", "native, custom buckets" or "classic" ("" when none was
// read).
func (l *Latency) ITLKind() string {
	switch {
	case l == nil || l.ITLMetric == "":
		return ""
	case l.ITLCustomBuckets:
		return "native, custom buckets"
	case l.ITLNative:
		return "native"
	}
	return "classic"
}

// Measured is a speedup measured from inter-token latency against a
// baseline window without drafts (Model.SpeedupShown).
type Measured struct {
	// Speedup = BaselinePerToken / CurrentPerToken (ratio).
	Speedup compute.Value
	// BaselinePerToken and CurrentPerToken are seconds per output token:
	// ITL sum / (ITL observations + accepted tokens). Each observation is
	// one engine step of one request that emits 1 + the tokens it accepted,
	// so this is the time per token even with speculation; without drafts
	// it is the mean ITL.
	BaselinePerToken, CurrentPerToken compute.Value
	// Reason is why there is no measured speedup ("" when Speedup is set).
	Reason string
}

// perToken is ITL sum / (observations + accepted tokens): seconds per
// output token of the steps the histogram observed.
func perToken(h compute.Histogram, accepted float64) compute.Value {
	if h.Count <= 0 {
		return compute.Value{}
	}
	return compute.Defined(h.Sum / (h.Count + accepted))
}

// schemaLatencyRoles are the latency roles (latencyRoles) schema s has
// metrics for.
func schemaLatencyRoles(s metricsclient.Schema) []metricsclient.OptionalRole {
	var roles []metricsclient.OptionalRole
	for _, r := range latencyRoles {
		if len(s.OptionalNames(r)) > 0 {
			roles = append(roles, r)
		}
	}
	return roles
}

// addLatency sets m.Latency from the read of the optional families of the
// schema s over the window (startOptional; nothing when src cannot read
// them).
func (m *Model) addLatency(src Source, s metricsclient.Schema, read *pending[*metricsclient.OptionalFetch]) {
	if _, ok := src.(OptionalSource); !ok {
		return
	}
	l := &Latency{Reasons: map[string]string{}}
	m.Latency = l
	roles := schemaLatencyRoles(s)
	for _, r := range latencyRoles {
		if len(s.OptionalNames(r)) == 0 {
			l.Missing = append(l.Missing, fmt.Sprintf("%s: the %s schema exports no such metric", roleTitle(r), s.Name))
		}
	}
	if len(roles) == 0 || read == nil {
		l.Reasons["itl"] = "no inter-token latency metric in the " + s.Name + " schema"
		return
	}
	g := m.Grid
	f, err := read.wait()
	if err != nil {
		l.Err = err
		m.Notes = append(m.Notes, "latency: "+err.Error())
		// Each number says it was not read, not that the window had no
		// drafts (the counters may have come before the source failed).
		for _, k := range []string{"itl", "output_share", "output_per_second", "load"} {
			l.Reasons[k] = LatencyNotRead
		}
		return
	}
	m.Notes = append(m.Notes, f.Warnings...)
	var found []string
	for _, r := range roles {
		if fam, ok := f.Families[r]; ok {
			found = append(found, fam.Name)
		}
	}
	for _, r := range roles {
		if _, ok := f.Families[r]; ok {
			continue
		}
		names := s.OptionalNames(r)
		msg := roleTitle(r) + ": " + names[0] + " not found"
		if len(names) > 1 {
			msg += " (nor " + strings.Join(names[1:], ", ") + ")"
		}
		if len(found) > 0 {
			msg += "; found " + strings.Join(found, ", ")
		} else {
			msg += "; none of the latency, output or load metrics were found"
		}
		l.Missing = append(l.Missing, msg)
	}
	total := m.Total.Total
	var perBucket []compute.Histogram
	if fam, ok := f.Families[metricsclient.InterTokenLatency]; ok {
		l.ITLMetric = fam.Name
		l.ITLNative, l.ITLCustomBuckets = fam.Native() || fam.CustomBuckets, fam.CustomBuckets
		perBucket = fam.HistogramIncreases(g)
		l.Histogram = compute.SumOverBuckets(perBucket)
		l.ITL = l.Histogram.Summarize()
		l.Buckets = make([]compute.LatencySummary, len(perBucket))
		for j, h := range perBucket {
			l.Buckets[j] = h.Summarize()
		}
		if l.ITL.NonMonotonic {
			m.Notes = append(m.Notes, fam.Name+": bucket counts decrease with le somewhere (inconsistent data at the source); made monotonic as Prometheus' histogram_quantile does")
		}
		if r := itlReason(l.Histogram, l.ITL); r != "" {
			l.Reasons["itl"] = r
		}
	} else {
		l.Reasons["itl"] = "no inter-token latency histogram"
	}
	if fam, ok := f.Families[metricsclient.GenerationTokens]; ok {
		l.GenerationMetric = fam.Name
		l.GenerationTokens = fam.Increase(g.Start, g.End)
		l.OutputPerSecond = compute.PerSecond(l.GenerationTokens, m.CoveredSeconds())
		l.OutputShare = compute.OutputShare(total.AcceptedTokens, l.GenerationTokens)
		switch {
		case s.Kind == metricsclient.Gauges || !s.HasFamily(compute.AcceptedTokens):
			l.OutputShare = compute.Value{}
			l.Reasons["output_share"] = "the " + s.Name + " schema exports no accepted-token counter"
		case !l.OutputShare.OK:
			l.Reasons["output_share"] = "no output tokens in the window"
		}
		if !l.OutputPerSecond.OK {
			l.Reasons["output_per_second"] = "no window length"
		}
	} else {
		l.Reasons["output_share"] = "no output-token counter"
		l.Reasons["output_per_second"] = "no output-token counter"
	}
	if fam, ok := f.Families[metricsclient.RequestsRunning]; ok {
		l.LoadMetric = fam.Name
		l.LoadCost = m.Request.DraftCost.For(nil)
		l.Load = compute.BinByLoad(fam.BucketAverages(g), m.Total.Buckets, perBucket, l.LoadCost)
		if len(l.Load) == 0 {
			l.Reasons["load"] = "no bucket with both a running-requests value and drafts or latency observations"
		}
	} else {
		l.Reasons["load"] = "no running-requests gauge"
	}
	if len(l.Reasons) == 0 {
		l.Reasons = nil
	}
}

// measure sets m.Measured from the baseline window when it had no drafts
// (speculation off) but an inter-token latency histogram; otherwise it
// says why there is no measured speedup.
func (m *Model) measure(ctx context.Context, src Source, s metricsclient.Schema) {
	b := m.Baseline
	if b == nil {
		return
	}
	me := &Measured{}
	m.Measured = me
	l := m.Latency
	switch {
	case l == nil || l.ITLMetric == "" || !l.ITL.Mean.OK:
		me.Reason = "no inter-token latency in this window"
		return
	case b.Err == nil && b.Total.Total.Drafts > 0:
		me.Reason = "the baseline window has drafts (speculation on): no baseline without speculation"
		return
	}
	os, ok := src.(OptionalSource)
	if !ok {
		me.Reason = "the source cannot read inter-token latency"
		return
	}
	f, err := os.FetchOptionalSummed(ctx, nil, s, b.Grid, m.Request.Filters, metricsclient.InterTokenLatency)
	if err != nil {
		me.Reason = "baseline inter-token latency: " + err.Error()
		return
	}
	fam, ok := f.Families[metricsclient.InterTokenLatency]
	if !ok {
		me.Reason = "no inter-token latency in the baseline window"
		return
	}
	bh := compute.SumOverBuckets(fam.HistogramIncreases(b.Grid))
	me.BaselinePerToken = perToken(bh, 0)
	me.CurrentPerToken = perToken(l.Histogram, m.Total.Total.AcceptedTokens)
	if me.BaselinePerToken.OK && me.CurrentPerToken.OK && me.CurrentPerToken.V > 0 {
		me.Speedup = compute.Defined(me.BaselinePerToken.V / me.CurrentPerToken.V)
	}
	if !me.Speedup.OK {
		me.Reason = "no inter-token latency observations in the baseline window"
	}
}

// SpeedupShown is the speedup the dashboard's card and the report show,
// and which kind it is.
type SpeedupShown struct {
	Value compute.Value
	// Measured is true for a speedup measured against a baseline window
	// without drafts (Model.Measured); false for the estimate.
	Measured bool
	// Label says which it is: "measured (…)" or "estimated (Leviathan
	// formula, draft cost c = …)".
	Label string
	// Reason is why Value is undefined.
	Reason string
}

// SpeedupShown returns the measured speedup when the compared baseline
// window had no drafts and both windows have inter-token latency
// (Model.Measured), else the estimate est (compute.EstimateSpeedup).
func (m *Model) SpeedupShown(est compute.Speedup) SpeedupShown {
	if me := m.Measured; me != nil && me.Speedup.OK {
		return SpeedupShown{Value: me.Speedup, Measured: true,
			Label: fmt.Sprintf("measured: time per output token without drafts (baseline window) %s / with drafts %s; per token = ITL sum / (ITL observations + accepted tokens)",
				FormatMs(me.BaselinePerToken), FormatMs(me.CurrentPerToken))}
	}
	s := SpeedupShown{Value: est.Speedup, Reason: est.Reason,
		Label: fmt.Sprintf("estimated (Leviathan formula, draft cost c = %g)", est.DraftCostRatio)}
	if !est.Speedup.OK && s.Reason == "" {
		s.Reason = compute.Undefined
	}
	return s
}

// FormatMs prints seconds as milliseconds with up to 3 significant
// decimals ("12.3 ms"), or Dash when undefined.
func FormatMs(v compute.Value) string {
	if !v.OK {
		return Dash
	}
	ms := v.V * 1000
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// draftLengthNote is compute.CheckDraftLengths' note for the window's
// counts when some drafts were shorter than k: it names the per-position
// rates that are lower bounds. "" when every draft had k tokens, and when
// there are more draft tokens than k x drafts (compute.Check's
// violations report that).
func draftLengthNote(c compute.Counts) string {
	d := compute.CheckDraftLengths(c)
	if d.Shortfall <= 0 {
		return ""
	}
	return d.Note()
}

// itlReason says why the window's inter-token latency summary s of the
// histogram h lacks a value: "" when the quantiles and the mean are
// defined. With observations but no quantiles (classic and native
// buckets both in the window, a source that changed its histogram kind;
// or buckets without +Inf), it says so: the quantile cards showed the
// generic "no drafts in window" there, next to a defined mean.
func itlReason(h compute.Histogram, s compute.LatencySummary) string {
	switch {
	case !s.Mean.OK:
		return "no inter-token latency observations in the window"
	case s.P50.OK:
		return ""
	case h.Native != nil && len(h.Buckets) > 0:
		return "classic and native histogram buckets both in the window: no quantiles"
	}
	return "no quantiles from these buckets (no +Inf bucket)"
}
