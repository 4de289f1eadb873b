package report

import (
	"fmt"
	"io"
	"strconv"

	"specdash/compute"
	"specdash/model"
)

// LatencyInfo is the report's "latency" object (model.Latency): the
// window's inter-token latency (seconds, per engine step), output tokens/s,
// the share of output from accepted drafts, the load bins and the speedup
// shown with what kind it is. Undefined values are null with a reason in
// "reasons".
type LatencyInfo struct {
	// ITLMetric is the histogram read ("" when none); ITLNote the caveat
	// that vLLM's ITL is per engine step, not per token.
	ITLMetric string `json:"itl_metric,omitempty"`
	// ITLHistogram is the kind of histogram read: "classic" (_bucket
	// series), "native" or "native, custom buckets" (model.Latency.ITLKind).
	ITLHistogram string       `json:"itl_histogram,omitempty"`
	ITLNote      string       `json:"itl_note"`
	ITL          ITLQuantiles `json:"itl_seconds"`
	// GenerationMetric is the output-token counter read; GenerationTokens
	// its increase over the window.
	GenerationMetric      string        `json:"generation_metric,omitempty"`
	GenerationTokens      float64       `json:"generation_tokens"`
	OutputTokensPerSecond compute.Value `json:"output_tokens_per_second"`
	// OutputShare is accepted tokens / generation tokens (ratio 0..1).
	OutputShare compute.Value `json:"output_share"`
	// LoadMetric is the running-requests gauge read; Load the bins
	// (compute.BinByLoad: load = running requests per engine averaged over
	// each bucket).
	LoadMetric string            `json:"load_metric,omitempty"`
	Load       []compute.LoadBin `json:"load,omitempty"`
	LoadCost   float64           `json:"load_draft_cost_ratio,omitempty"`
	// Speedup is the speedup shown (model.Model.SpeedupShown).
	Speedup SpeedupShown `json:"speedup"`
	// Missing name the families looked for and not found.
	Missing []string          `json:"missing,omitempty"`
	Reasons map[string]string `json:"reasons,omitempty"`
}

// ITLQuantiles are inter-token latency numbers in seconds.
type ITLQuantiles struct {
	P50          compute.Value `json:"p50"`
	P95          compute.Value `json:"p95"`
	P99          compute.Value `json:"p99"`
	Mean         compute.Value `json:"mean"`
	Observations float64       `json:"observations"`
}

// SpeedupShown is model.SpeedupShown in JSON.
type SpeedupShown struct {
	Value    compute.Value `json:"value"`
	Measured bool          `json:"measured"`
	Label    string        `json:"label"`
	Reason   string        `json:"reason,omitempty"`
}

// latencyInfo is m's LatencyInfo; nil when the source could not read
// latency (log input).
func latencyInfo(m *model.Model) *LatencyInfo {
	l := m.Latency
	if l == nil {
		return nil
	}
	sh := m.SpeedupShown(compute.EstimateSpeedup(m.Total.Total, m.Request.DraftCost.For(nil)))
	out := &LatencyInfo{
		ITLMetric: l.ITLMetric, ITLHistogram: l.ITLKind(), ITLNote: model.ITLCaveat,
		ITL:              ITLQuantiles{P50: l.ITL.P50, P95: l.ITL.P95, P99: l.ITL.P99, Mean: l.ITL.Mean, Observations: l.ITL.Observations},
		GenerationMetric: l.GenerationMetric, GenerationTokens: l.GenerationTokens,
		OutputTokensPerSecond: l.OutputPerSecond, OutputShare: l.OutputShare,
		LoadMetric: l.LoadMetric, Load: l.Load, LoadCost: l.LoadCost,
		Speedup: SpeedupShown{Value: sh.Value, Measured: sh.Measured, Label: sh.Label, Reason: sh.Reason},
		Missing: l.Missing, Reasons: l.Reasons,
	}
	if l.Err != nil {
		out.Missing = append(out.Missing, "latency: "+l.Err.Error())
	}
	return out
}

// orReason prints s, or Dash and the reason when v is undefined.
func orReason(v compute.Value, s, reason string) string {
	if v.OK {
		return s
	}
	if reason == "" {
		return model.Dash
	}
	return model.Dash + " (" + reason + ")"
}

// writeLatencyText prints the latency lines when the source had at least
// one of the families: ITL quantiles and mean with the per-step caveat,
// output tokens/s and share, the speedup shown, the load bins and the
// missing families.
func (r *Result) writeLatencyText(w io.Writer) {
	l := r.Latency
	if l == nil || (l.ITLMetric == "" && l.GenerationMetric == "" && l.LoadMetric == "") {
		// None of the families: the JSON's "missing" says which were
		// looked for; the text stays the counters' report.
		return
	}
	q := l.ITL
	if l.ITLMetric != "" && q.Mean.OK {
		fmt.Fprintf(w, "inter-token latency (%s, %s histogram, per engine step): p50 %s, p95 %s, p99 %s, mean %s over %s steps\n",
			l.ITLMetric, l.ITLHistogram, model.FormatMs(q.P50), model.FormatMs(q.P95), model.FormatMs(q.P99), model.FormatMs(q.Mean), compute.FormatCount(q.Observations, ""))
		fmt.Fprintf(w, "  note: %s\n", l.ITLNote)
	} else {
		fmt.Fprintf(w, "inter-token latency: %s (%s)\n", model.Dash, l.Reasons["itl"])
	}
	fmt.Fprintf(w, "output: %s, %s from accepted drafts",
		orReason(l.OutputTokensPerSecond, strconv.FormatFloat(l.OutputTokensPerSecond.V, 'f', 2, 64)+" tokens/s", l.Reasons["output_per_second"]),
		orReason(l.OutputShare, compute.FormatPercent(l.OutputShare, 1), l.Reasons["output_share"]))
	if l.OutputShare.OK {
		fmt.Fprintf(w, " (%s of %s output tokens)", compute.FormatCount(r.Total.AcceptedTokens, ""), compute.FormatCount(l.GenerationTokens, ""))
	}
	fmt.Fprintln(w)
	sp := model.Dash
	if l.Speedup.Value.OK {
		sp = strconv.FormatFloat(l.Speedup.Value.V, 'f', 2, 64) + "×"
	} else if l.Speedup.Reason != "" {
		sp += " (" + l.Speedup.Reason + ")"
	}
	fmt.Fprintf(w, "speedup: %s %s\n", sp, l.Speedup.Label)
	if len(l.Load) > 0 {
		fmt.Fprintf(w, "load (%s per engine, bucket average) -> acceptance rate, mean ITL, estimated speedup (c = %g):\n", l.LoadMetric, l.LoadCost)
		for _, b := range l.Load {
			fmt.Fprintf(w, "  %s running: %s, %s, %s (%s)\n", b.Label(),
				orReason(b.AcceptanceRate, compute.FormatPercent(b.AcceptanceRate, 1), "no draft tokens"),
				orReason(b.MeanITL, model.FormatMs(b.MeanITL), "no ITL"),
				orReason(b.Speedup.Speedup, strconv.FormatFloat(b.Speedup.Speedup.V, 'f', 2, 64)+"×", b.Speedup.Reason), compute.Quantity(b.Buckets, "bucket"))
		}
	}
	for _, m := range l.Missing {
		fmt.Fprintf(w, "missing: %s\n", m)
	}
}
