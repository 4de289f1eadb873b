package compute

import "fmt"

// MaxBuckets is the largest number of buckets a Grid may have (131,072: a
// day at a 1 s step fits).
// Prometheus answers at most 11,000 points per series and VictoriaMetrics
// 30,000 (docs/METRICS.md, "Prometheus-compatible back ends"), so a larger
// grid is a caller bug;
// refusing it keeps a browser tab from allocating gigabytes.
const MaxBuckets = 1 << 17

// Validate reports why g is not a usable grid, or nil. A usable grid has
// Step > 0, End >= Start, End-Start a multiple of Step (no partial bucket)
// and at most MaxBuckets buckets. Times are Unix milliseconds.
func (g Grid) Validate() error {
	switch {
	case g.Step <= 0:
		return fmt.Errorf("grid step must be > 0 ms, got %d ms", g.Step)
	case g.End < g.Start:
		return fmt.Errorf("grid end (%d ms) is before its start (%d ms)", g.End, g.Start)
	case g.End-g.Start < 0:
		return fmt.Errorf("grid span from %d ms to %d ms overflows int64", g.Start, g.End)
	case (g.End-g.Start)%g.Step != 0:
		return fmt.Errorf("grid span %d ms is not a multiple of the step %d ms: align start and end to the step", g.End-g.Start, g.Step)
	case (g.End-g.Start)/g.Step > MaxBuckets:
		return fmt.Errorf("grid has %d buckets, more than the %d allowed: use a larger step", (g.End-g.Start)/g.Step, MaxBuckets)
	}
	return nil
}

// Buckets returns the number of buckets, (End-Start)/Step, or 0 when the grid
// is not valid (see Validate).
func (g Grid) Buckets() int {
	if g.Validate() != nil {
		return 0
	}
	return int((g.End - g.Start) / g.Step)
}

// Seconds returns the length of the grid's span (Start, End] in seconds, or
// 0 when the grid is not valid. It is the denominator of the window's
// throughputs.
func (g Grid) Seconds() float64 {
	return float64(int64(g.Buckets())*g.Step) / 1000
}

// StepSeconds returns the length of one bucket in seconds (0 when the grid is
// not valid).
func (g Grid) StepSeconds() float64 {
	if g.Validate() != nil {
		return 0
	}
	return float64(g.Step) / 1000
}

// BucketStart returns the exclusive start of bucket j, Start+j*Step, in Unix
// milliseconds. j is not checked against Buckets().
func (g Grid) BucketStart(j int) int64 { return g.Start + int64(j)*g.Step }

// BucketEnd returns the inclusive end of bucket j, Start+(j+1)*Step, in Unix
// milliseconds: the time a bucket's value is plotted at. j is not checked
// against Buckets().
func (g Grid) BucketEnd(j int) int64 { return g.Start + int64(j+1)*g.Step }
