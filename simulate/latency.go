package simulate

import (
	"bytes"
	"fmt"
)

// InterTokenLatencyBoundsMs are the upper bounds (milliseconds) of the
// simulated vllm:inter_token_latency_seconds histogram: vLLM's buckets
// (vllm/v1/metrics/loggers.py) up to 2.5 s, then +Inf.
var InterTokenLatencyBoundsMs = []int64{10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 2500}

// StepLatencyMs is the simulated latency of one engine step whose draft
// had n accepted tokens: 20 + 10 n ms (a longer accepted run, a longer
// step). Each draft is one observation of the inter-token latency
// histogram, as vLLM observes one interval per request per step.
func StepLatencyMs(n int) int64 { return 20 + 10*int64(n) }

// InterTokenLatency returns the histogram the simulator exposes for these
// counts (Config.Latency): cumulative counts at InterTokenLatencyBoundsMs
// and +Inf (the last element), and the sum in seconds. It is a function of
// the counts alone: the drafts that accepted exactly n tokens are
// AcceptedPerPosition[n-1] - AcceptedPerPosition[n] (drafts for n = 0, 0
// past k), each observed at StepLatencyMs(n).
func (c Counts) InterTokenLatency() (cumulative []int64, sumSeconds float64) {
	k := len(c.AcceptedPerPosition)
	atLeast := func(n int) int64 { // drafts with at least n accepted
		switch {
		case n == 0:
			return c.Drafts
		case n > k:
			return 0
		}
		return c.AcceptedPerPosition[n-1]
	}
	cumulative = make([]int64, len(InterTokenLatencyBoundsMs)+1)
	var sumMs int64
	for n := 0; n <= k; n++ {
		exactly := atLeast(n) - atLeast(n+1)
		ms := StepLatencyMs(n)
		sumMs += exactly * ms
		for i, b := range InterTokenLatencyBoundsMs {
			if ms <= b {
				cumulative[i] += exactly
			}
		}
		cumulative[len(cumulative)-1] += exactly
	}
	return cumulative, float64(sumMs) / 1000
}

// latencyText writes vllm:inter_token_latency_seconds as prometheus_client
// does for a labelled Histogram in text format 0.0.4: per series the
// buckets (labels in label-name order, then le), _count, _sum; then the
// _created family.
func (s *Simulator) latencyText() []byte {
	name := s.cfg.Prefix + "inter_token_latency_seconds"
	const help = "Histogram of inter-token latency in seconds."
	ss := s.snapshot()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	for _, x := range ss {
		cum, sum := x.c.InterTokenLatency()
		ls := [][2]string{{"engine", x.engine}, {"model_name", x.model}}
		for i, c := range cum {
			le := "+Inf"
			if i < len(InterTokenLatencyBoundsMs) {
				le = FloatToGoString(float64(InterTokenLatencyBoundsMs[i]) / 1000)
			}
			writeSample(&b, name+"_bucket", append(ls[:2:2], [2]string{"le", le}), float64(c))
		}
		writeSample(&b, name+"_count", ls, float64(cum[len(cum)-1]))
		writeSample(&b, name+"_sum", ls, sum)
	}
	if !s.cfg.Multiprocess {
		fmt.Fprintf(&b, "# HELP %s_created %s\n# TYPE %s_created gauge\n", name, help, name)
		for _, x := range ss {
			writeSample(&b, name+"_created", [][2]string{{"engine", x.engine}, {"model_name", x.model}}, x.created)
		}
	}
	return b.Bytes()
}
