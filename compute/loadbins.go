package compute

import (
	"fmt"
	"math"
	"slices"
)

// Load bins: acceptance, inter-token latency and the estimated speedup
// against load (running requests), so a user sees above which load
// speculation stops paying. The load of a grid bucket is the gauge
// vllm:num_requests_running averaged over the bucket (AverageGauge: every
// step point of every series in (start, end] weighs the same), i.e. the
// mean number of running requests per engine (per series) during the
// bucket: the batch size a step of that engine verifies. The average is
// used rather than the last value because a bucket's counters increase
// over the whole bucket, not only at its end. Each bin sums the counts and
// inter-token latency histograms of its buckets (ratio of sums, never an
// average of the buckets' ratios).

// LoadBin is the numbers of the buckets whose load lies in [Lo, Hi).
type LoadBin struct {
	// Lo and Hi bound the load (running requests per engine, averaged over
	// a bucket): Lo <= load < Hi.
	Lo float64 `json:"load_from"`
	Hi float64 `json:"load_to"`
	// Buckets is the number of grid buckets in the bin.
	Buckets int `json:"buckets"`
	// Counts are the spec-decode increases of those buckets, summed.
	Counts Counts `json:"-"`
	// ITL is their inter-token latency histograms, summed.
	ITL Histogram `json:"-"`
	// AcceptanceRate is accepted / draft tokens of the bin (ratio 0..1).
	AcceptanceRate Value `json:"acceptance_rate"`
	// MeanITL is the ITL histogram's sum / count (seconds per engine step).
	MeanITL Value `json:"mean_itl_seconds"`
	// Speedup is EstimateSpeedup of the bin's counts.
	Speedup Speedup `json:"speedup"`
}

// Label is the bin's load range for display: "2" for a bin one request
// wide starting at an integer, else "2–4".
func (b LoadBin) Label() string {
	if b.Hi-b.Lo == 1 && b.Lo == math.Trunc(b.Lo) {
		return fmt.Sprintf("%g", b.Lo)
	}
	return fmt.Sprintf("%g–%g", b.Lo, b.Hi)
}

// LoadBinWidth returns the bin width for loads up to max: 1 up to 12
// running requests, else the smallest of 2, 5, 10, 20, 50, ... giving at
// most 12 bins.
func LoadBinWidth(max float64) float64 {
	if !finite(max) || max < 12 {
		return 1
	}
	for w := 1.0; ; w *= 10 {
		for _, m := range []float64{2, 5, 10} {
			if max/(w*m) < 12 {
				return w * m
			}
		}
	}
}

// BinByLoad bins the buckets by load: load[j] is bucket j's average
// running requests (BucketAverageGauge), counts[j] its spec-decode
// increases, itl[j] its inter-token latency histogram (nil: no latency).
// Buckets whose load is undefined, or that have neither drafts nor ITL
// observations, are left out. Bins are [n w, (n+1) w) with w =
// LoadBinWidth(largest load), in ascending load; only bins with buckets
// are returned. cost is the draft cost ratio of the estimated speedup.
func BinByLoad(load []GaugeAverage, counts []Counts, itl []Histogram, cost float64) []LoadBin {
	n := min(len(load), len(counts))
	if itl != nil {
		n = min(n, len(itl))
	}
	use := func(j int) bool {
		if !load[j].Value.OK || load[j].Value.V < 0 {
			return false
		}
		return counts[j].Drafts > 0 || (itl != nil && itl[j].Count > 0)
	}
	mx := 0.0
	for j := 0; j < n; j++ {
		if use(j) {
			mx = math.Max(mx, load[j].Value.V)
		}
	}
	w := LoadBinWidth(mx)
	byIndex := map[int]*LoadBin{}
	var order []int
	for j := 0; j < n; j++ {
		if !use(j) {
			continue
		}
		i := int(math.Floor(load[j].Value.V / w))
		b, ok := byIndex[i]
		if !ok {
			b = &LoadBin{Lo: float64(i) * w, Hi: float64(i+1) * w}
			byIndex[i] = b
			order = append(order, i)
		}
		b.Buckets++
		b.Counts = b.Counts.Add(counts[j])
		if itl != nil {
			b.ITL = b.ITL.Add(itl[j])
		}
	}
	slices.Sort(order)
	out := make([]LoadBin, 0, len(order))
	for _, i := range order {
		b := *byIndex[i]
		b.AcceptanceRate = ratio(b.Counts.AcceptedTokens, b.Counts.DraftTokens)
		b.MeanITL = b.ITL.Mean()
		b.Speedup = EstimateSpeedup(b.Counts, cost)
		out = append(out, b)
	}
	return out
}
