package compute

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// decodeSeries turns fuzz bytes into series: per series a header (family,
// position, label choice, point count) then points (time delta, value bits
// or a small whole value).
func decodeSeries(data []byte, g Grid) []Series {
	var out []Series
	engines := []string{"0", "1", "", "2"}
	models := []string{"a", "b b", `c"`}
	for len(data) >= 4 && len(out) < 64 {
		fam := Family(int8(data[0]) % 6)
		startByte := data[2]
		pos := int(int16(binary.LittleEndian.Uint16(data[1:3])))
		if data[0]&0x80 == 0 {
			pos = int(data[1] % 8)
		}
		labels := map[string]string{"engine": engines[data[3]%4], "model_name": models[(data[3]/4)%3]}
		if data[3]&0x80 != 0 {
			delete(labels, "model_name")
		}
		n := int(data[3]>>4) + 1
		data = data[4:]
		s := Series{Family: fam, Position: pos, Labels: labels}
		if startByte&1 == 1 {
			// A start time around the grid's start (before, at or inside).
			s.Created = g.Start + (int64(startByte)-64)*max(g.Step/8, 1)
		}
		t := g.Start - g.Step
		for i := 0; i < n && len(data) >= 3; i++ {
			t += int64(data[0]) * max(g.Step/16, 1)
			var v float64
			if data[1]&1 == 1 && len(data) >= 10 {
				v = math.Float64frombits(binary.LittleEndian.Uint64(data[2:10]))
				data = data[10:]
			} else {
				v = float64(data[2])
				data = data[3:]
			}
			s.Points = append(s.Points, Point{T: t, V: v})
		}
		out = append(out, s)
	}
	return out
}

func checkValue(t *testing.T, what string, v Value) {
	if v.OK && !finite(v.V) {
		t.Fatalf("%s: defined non-finite %v", what, v.V)
	}
}

func checkStats(t *testing.T, s Stats) {
	for _, v := range append([]Value{s.AcceptanceRate, s.MeanAcceptanceLength, s.AcceptedThroughput, s.DraftedThroughput, s.DraftsPerSecond}, s.PerPositionAcceptanceRate...) {
		checkValue(t, "stats", v)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Fatalf("marshal: %v", err)
	}
	for _, line := range []string{FormatLogLine(s), FormatLegacyLogLine(s), FormatPercent(s.AcceptanceRate, 1), FormatLength(s.MeanAcceptanceLength), FormatRate(s.DraftedThroughput, "tokens/s")} {
		if l := strings.ToLower(line); strings.Contains(l, "nan") || strings.Contains(l, "inf") {
			t.Fatalf("NaN/Inf printed: %s", line)
		}
	}
}

func nonNegative(t *testing.T, what string, c Counts) {
	for _, v := range append([]float64{c.Drafts, c.DraftTokens, c.AcceptedTokens}, c.AcceptedPerPosition...) {
		if !(v >= 0) {
			t.Fatalf("%s: count %v", what, v)
		}
	}
}

func FuzzAggregate(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0x30, 1, 0, 5, 1, 0, 9, 1, 0, 12}, int64(0), int64(15000), uint16(4))
	f.Add([]byte{3, 2, 0, 0x21, 0, 0, 50, 3, 0, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 0, 9}, int64(-30000), int64(15000), uint16(3))
	f.Add([]byte{0x83, 0xff, 0x7f, 0x10, 1, 0, 1, 1, 0, 2}, int64(1700000000000), int64(1), uint16(40))
	f.Add([]byte{1, 0, 0, 0xf0, 2, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 2, 0, 3, 2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 2, 0, 0}, int64(0), int64(1000), uint16(2))
	f.Add([]byte{2, 0, 0, 0x40, 1, 0, 7}, int64(math.MaxInt64-10), int64(5), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, start, step int64, nb uint16) {
		g := Grid{Start: start, Step: step}
		g.End = start + step*int64(nb%300)
		series := decodeSeries(data, g)
		for _, s := range series {
			b := BucketIncreasesSince(s.Points, s.Created, g)
			sum, abs := 0.0, 0.0
			for _, v := range b {
				if !(v >= 0) {
					t.Fatalf("bucket increase %v", v)
				}
				sum += v
				abs += math.Abs(v)
			}
			total := IncreaseSince(s.Points, s.Created, g.Start, g.Start+int64(len(b))*g.Step)
			if !(total >= 0) {
				t.Fatalf("increase %v", total)
			}
			if finite(sum) && finite(total) && math.Abs(sum-total) > 1e-12*abs {
				t.Fatalf("tiling: buckets sum %v, Increase %v", sum, total)
			}
		}
		for _, by := range [][]string{nil, {"model_name"}, {"engine", "model_name"}} {
			groups := Aggregate(series, by, g)
			for _, gr := range groups {
				nonNegative(t, "total", gr.Total)
				checkStats(t, gr.TotalStats(g, WithBonus))
				for _, s := range gr.BucketStats(g, WithoutBonus) {
					checkStats(t, s)
				}
				for _, b := range gr.Buckets {
					nonNegative(t, "bucket", b)
					if len(b.AcceptedPerPosition) != len(gr.Total.AcceptedPerPosition) {
						t.Fatalf("bucket k %d, total k %d", len(b.AcceptedPerPosition), len(gr.Total.AcceptedPerPosition))
					}
				}
			}
			checkStats(t, Sum(groups).TotalStats(g, WithBonus))
		}
	})
}
