package chartopt

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestInterTokenLatencyChart: the latency chart draws p50, p95 and p99 of
// each bucket in ms (seconds x 1000, 2 decimals), a bucket without
// observations as a gap in all three, "ms" on the axis and in the
// tooltip; no histogram gives no chart.
func TestInterTokenLatencyChart(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	h := compute.Histogram{Buckets: []compute.HistogramBucket{{UpperBound: 0.01, Count: 2}, {UpperBound: 0.05, Count: 10}, {UpperBound: math.Inf(1), Count: 10}}, Sum: 0.2, Count: 10}
	l := &model.Latency{Buckets: []compute.LatencySummary{h.Summarize(), {}, h.Summarize()}}
	o := InterTokenLatency(g, l, 2, time.UTC, PaletteFor(ThemeLight))
	if o == nil {
		t.Fatal("no chart")
	}
	js := o.JSON()
	var v struct {
		Series []struct {
			Name string `json:"name"`
			Data []struct {
				Value any `json:"value"`
			} `json:"data"`
		} `json:"series"`
		YAxis []struct {
			AxisLabel struct{ Formatter string } `json:"axisLabel"`
		} `json:"yAxis"`
		Tooltip struct{ Formatter string } `json:"tooltip"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	// p50: rank 5 in (0.01, 0.05]: 0.01 + 0.04 x 3/8 = 0.025 s; p95 rank
	// 9.5: 0.01 + 0.04 x 7.5/8 = 0.0475; p99 rank 9.9: 0.01 + 0.04 x 7.9/8 = 0.0495.
	want := map[string]float64{"ITL p50": 25, "ITL p95": 47.5, "ITL p99": 49.5}
	if len(v.Series) != 3 {
		t.Fatalf("series %s", js)
	}
	for _, s := range v.Series {
		w, ok := want[s.Name]
		if !ok || len(s.Data) != 3 || s.Data[0].Value != w || s.Data[1].Value != "-" || s.Data[2].Value != w {
			t.Errorf("series %q: %+v, want %v, gap, %v", s.Name, s.Data, w, w)
		}
	}
	if len(v.YAxis) != 1 || v.YAxis[0].AxisLabel.Formatter != "{value} ms" || !strings.Contains(v.Tooltip.Formatter, "ITL p99: {c2} ms") {
		t.Errorf("units: %+v %q", v.YAxis, v.Tooltip.Formatter)
	}
	if InterTokenLatency(g, &model.Latency{}, 3, time.UTC, PaletteFor(ThemeLight)) != nil || InterTokenLatency(g, nil, 3, time.UTC, PaletteFor(ThemeLight)) != nil {
		t.Error("a chart without a histogram")
	}
}

// TestPerPositionLowerBounds: with drafts shorter than k (k = 3, 100
// drafts, 250 draft tokens: 50 short) positions 2 and 3 are marked "≥
// lower bound" and outlined by an extra bar series; fixed-length drafts
// add nothing.
func TestPerPositionLowerBounds(t *testing.T) {
	p := PaletteFor(ThemeLight)
	decode := func(o *Option) (labels []string, series []string) {
		var v struct {
			XAxis []struct {
				Data []string `json:"data"`
			} `json:"xAxis"`
			Series []struct {
				Name string `json:"name"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(o.JSON()), &v); err != nil {
			t.Fatal(err)
		}
		for _, s := range v.Series {
			series = append(series, s.Name)
		}
		return v.XAxis[0].Data, series
	}
	c := compute.Counts{Drafts: 100, DraftTokens: 250, AcceptedTokens: 120, AcceptedPerPosition: []float64{70, 40, 10}}
	s := compute.Derive(c, 10, compute.WithBonus)
	labels, series := decode(PerPosition(s, compute.FitGeometric(c), p))
	if strings.Join(labels, "|") != "pos 1|pos 2"+LowerBoundMark+"|pos 3"+LowerBoundMark || len(series) != 3 || series[2] != "lower bound (drafts shorter than k)" {
		t.Errorf("variable lengths: labels %q series %q", labels, series)
	}
	c.DraftTokens = 300
	s = compute.Derive(c, 10, compute.WithBonus)
	labels, series = decode(PerPosition(s, compute.FitGeometric(c), p))
	if strings.Join(labels, "|") != "pos 1|pos 2|pos 3" || len(series) != 2 {
		t.Errorf("fixed lengths: labels %q series %q", labels, series)
	}
}
