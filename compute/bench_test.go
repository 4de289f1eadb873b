package compute

import (
	"strconv"
	"testing"
)

// benchSeries builds engines x (3 + k) counter series with one point per
// step over hours, as a range query with step = scrape interval returns.
func benchSeries(engines, k int, hours int, step int64) ([]Series, Grid, int) {
	n := int(int64(hours) * 3600_000 / step)
	g := Grid{Start: 1_700_000_000_000, Step: step}
	g.End = g.Start + int64(n)*step
	var out []Series
	samples := 0
	for e := range engines {
		labels := map[string]string{"engine": strconv.Itoa(e), "model_name": "m" + strconv.Itoa(e%2)}
		mk := func(f Family, pos int, perStep float64) {
			p := make([]Point, n+1)
			v := 0.0
			for i := range p {
				p[i] = Point{T: g.Start + int64(i)*step, V: v}
				v += perStep + float64(i%7)
			}
			out = append(out, Series{Family: f, Labels: labels, Position: pos, Points: p})
			samples += len(p)
		}
		mk(Drafts, -1, 100)
		mk(DraftTokens, -1, 100*float64(k))
		mk(AcceptedTokens, -1, 300)
		for pos := range k {
			mk(AcceptedPerPosition, pos, float64(90-10*pos))
		}
	}
	return out, g, samples
}

func benchAggregate(b *testing.B, hours int) {
	series, g, samples := benchSeries(16, 8, hours, 15_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		groups := Aggregate(series, []string{"model_name"}, g)
		_ = Sum(groups).BucketStats(g, WithBonus)
	}
	b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(samples), "samples/op")
}

// BenchmarkAggregate: 16 engines x 8 positions (176 series), 15 s step,
// grouped by model, plus the total row's per-bucket stats.
func BenchmarkAggregate(b *testing.B) {
	b.Run("6h", func(b *testing.B) { benchAggregate(b, 6) })
	b.Run("24h", func(b *testing.B) { benchAggregate(b, 24) })
}
