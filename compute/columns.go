package compute

// Columns sums runs of buckets into columns, for a view that cannot show
// every bucket (a heatmap a few hundred pixels wide showing 360 buckets).
// buckets are a group's per-bucket counts on grid g (Group.Buckets); a
// column holds the buckets whose start lies in one span of f steps
// aligned to multiples of f × g.Step in Unix time, so that a live window
// sliding by one step keeps its columns' contents (only the first and
// last columns, which may hold fewer than f buckets, change). first[c] is
// the index of column c's first bucket (increasing, first[0] = 0); the
// column holds buckets first[c] up to first[c+1]-1 (the last up to
// len(buckets)-1), and counts[c] is their sum (Counts.Add: ratio of sums
// over the column, never an average of the buckets' ratios). f <= 1, or an
// invalid grid, gives one column per bucket.
func Columns(buckets []Counts, g Grid, f int) (first []int, counts []Counts) {
	n := len(buckets)
	if n == 0 {
		return nil, nil
	}
	if f <= 1 || g.Step <= 0 {
		first = make([]int, n)
		counts = make([]Counts, n)
		for j := range buckets {
			first[j] = j
			counts[j] = Counts{}.Add(buckets[j])
		}
		return first, counts
	}
	span := int64(f) * g.Step
	col := func(j int) int64 { // the aligned span holding bucket j's start
		s := g.BucketStart(j)
		c := s / span
		if s%span < 0 {
			c--
		}
		return c
	}
	for j := 0; j < n; j++ {
		if j == 0 || col(j) != col(j-1) {
			first = append(first, j)
			counts = append(counts, Counts{})
		}
		c := &counts[len(counts)-1]
		*c = c.Add(buckets[j])
	}
	return first, counts
}

// ColumnFactor is the number of buckets per column that fits n buckets in
// at most max columns: ceil(n / max), at least 1.
func ColumnFactor(n, max int) int {
	if max <= 0 || n <= max {
		return 1
	}
	return (n + max - 1) / max
}
