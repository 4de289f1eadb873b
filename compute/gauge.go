package compute

// GaugeAverage is the mean of gauge values over time: the values of one or
// more series at step points, summed and divided by their number. It is
// for engines that export ratios as gauges, each value covering one of the
// server's logging windows (SGLang's sglang:spec_accept_length and
// sglang:spec_accept_rate, docs/METRICS.md "SGLang"): such values can
// only be averaged over time, never rate()d, and never combined as a ratio
// of sums (they carry no counts). Label the result "averaged over time".
type GaugeAverage struct {
	// Value is the mean (the gauge's unit); undefined when no value fell in
	// the interval.
	Value Value `json:"value"`
	// Samples is the number of values averaged (step points x series).
	Samples int `json:"samples"`
	// Series is the number of series that contributed at least one value.
	Series int `json:"series"`
}

// AverageGauge returns the mean of the values of all series at points with
// from < T <= to (Unix ms; the half-open interval of a Grid bucket). Each
// point weighs the same, so with step-point values (a query_range) this is
// the time average of each series, and across series the plain mean of
// those values. NaN and Inf values are skipped. Points must be in ascending
// T. No values gives an undefined Value.
func AverageGauge(series [][]Point, from, to int64) GaugeAverage {
	var sum float64
	var out GaugeAverage
	for _, pts := range series {
		n := 0
		for _, p := range pts {
			if p.T <= from || !finite(p.V) {
				continue
			}
			if p.T > to {
				break
			}
			sum += p.V
			n++
		}
		if n > 0 {
			out.Series++
			out.Samples += n
		}
	}
	if out.Samples > 0 {
		out.Value = Defined(sum / float64(out.Samples))
	}
	return out
}

// BucketAverageGauge returns AverageGauge for each bucket of g (element j
// covers (g.BucketStart(j), g.BucketEnd(j)]); none for an invalid grid.
// One pass over the points (each series' points in ascending time, as
// AverageGauge takes them), adding in AverageGauge's order.
func BucketAverageGauge(series [][]Point, g Grid) []GaugeAverage {
	n := g.Buckets()
	out := make([]GaugeAverage, n)
	if n == 0 {
		return out
	}
	sums := make([]float64, n)
	counts := make([]int, n)
	end := g.BucketEnd(n - 1)
	for _, pts := range series {
		for j := range counts {
			counts[j] = 0
		}
		for _, p := range pts {
			if p.T <= g.Start || p.T > end || !finite(p.V) {
				continue
			}
			j := g.BucketAt(p.T)
			sums[j] += p.V
			counts[j]++
		}
		for j, c := range counts {
			if c > 0 {
				out[j].Series++
				out[j].Samples += c
			}
		}
	}
	for j := range out {
		if out[j].Samples > 0 {
			out[j].Value = Defined(sums[j] / float64(out[j].Samples))
		}
	}
	return out
}

// BucketAverageSums is BucketAverageGauge of series the source summed:
// sums[i] is the sum of the series' values at counts[i].T and counts[i].V
// how many series that sum holds (both in ascending T, at the same
// points). Element j is sum of sums / sum of counts over the bucket's
// points, as BucketAverageGauge averages the series' values; Series is the
// most series summed at one of its points (the source's sums do not say
// how many distinct series contributed).
func BucketAverageSums(sums, counts []Point, g Grid) []GaugeAverage {
	n := g.Buckets()
	out := make([]GaugeAverage, n)
	if n == 0 {
		return out
	}
	total := make([]float64, n)
	end := g.BucketEnd(n - 1)
	for i, c := range counts {
		if i >= len(sums) || c.T <= g.Start || c.T > end || !finite(sums[i].V) || !finite(c.V) || c.V <= 0 {
			continue
		}
		j := g.BucketAt(c.T)
		total[j] += sums[i].V
		out[j].Samples += int(c.V)
		out[j].Series = max(out[j].Series, int(c.V))
	}
	for j := range out {
		if out[j].Samples > 0 {
			out[j].Value = Defined(total[j] / float64(out[j].Samples))
		}
	}
	return out
}

// SystemEfficiency returns vLLM V0's system efficiency, emitted tokens /
// ((draft tokens / k) * (k + 1)): the tokens emitted per the most that k
// draft tokens per step could emit (k accepted plus the bonus token).
// Source: docs/METRICS.md ("Known answers": V0 log line of vLLM issue 9539,
// k = 3, draft 13311, emitted 10616 -> 0.598). Ratio 0..1 (tokens / tokens).
// Undefined when k < 1, draft tokens <= 0 or an input is not finite: vLLM V0
// does not export k, so it must be given.
func SystemEfficiency(emittedTokens, draftTokens float64, k int) Value {
	if k < 1 || !finite(emittedTokens) || !finite(draftTokens) || draftTokens <= 0 {
		return Value{}
	}
	return ratio(emittedTokens, draftTokens/float64(k)*float64(k+1))
}
