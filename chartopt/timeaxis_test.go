package chartopt

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestTimeChartsAligned: every time chart of one grid (rate in %, length
// in tokens, throughput in tokens/s with large numbers, the heatmap) has
// the same plot area insets (fixed, containLabel off: y labels of
// different widths do not move it) and the same x categories, so a bucket
// is at the same x on each; the unit is the y axis name, not part of the
// labels.
func TestTimeChartsAligned(t *testing.T) {
	g := compute.Grid{Start: 0, End: 10 * 60_000, Step: 60_000}
	n := g.Buckets()
	vals := func(scale float64) []compute.Value {
		out := make([]compute.Value, n)
		for j := range out {
			out[j] = compute.Defined(scale * float64(j+1))
		}
		return out
	}
	p := PaletteFor(ThemeLight)
	buckets := make([]compute.Stats, n)
	for j := range buckets {
		buckets[j].PerPositionAcceptanceRate = []compute.Value{compute.Defined(0.8), compute.Defined(0.5)}
	}
	opts := map[string]*Option{
		"rate":       Lines(g, []model.Line{{Name: "a", Values: vals(0.05)}}, n, 100, 1, "%", 0, 100, time.UTC, p),
		"length":     Lines(g, []model.Line{{Name: "a", Values: vals(0.3)}, {Name: "b", Values: vals(0.2)}}, n, 1, 3, "tokens", nil, nil, time.UTC, p),
		"throughput": Lines(g, []model.Line{{Name: "a", Values: vals(12345)}}, n-2, 1, 2, "tokens/s", 0, nil, time.UTC, p),
		"heatmap":    Heatmap(g, buckets, 2, n, time.UTC, p),
	}
	wantX := TimeLabels(g, n, time.UTC)
	for name, o := range opts {
		if o == nil {
			t.Fatalf("%s: no option", name)
		}
		gr := o.Grid[0]
		if gr.Left != strconv.Itoa(TimeGridLeft) || gr.Right != strconv.Itoa(TimeGridRight) || gr.ContainLabel == nil || *gr.ContainLabel {
			t.Errorf("%s: grid left %q right %q containLabel %v, want %d, %d, false", name, gr.Left, gr.Right, gr.ContainLabel, TimeGridLeft, TimeGridRight)
		}
		if x, _ := o.XAxis[0].Data.([]string); !slices.Equal(x, wantX) {
			t.Errorf("%s: x categories %v, want %v", name, x, wantX)
		}
		// As ECharts reads it: no containLabel true slips through JSON.
		var back struct {
			Grid []struct {
				ContainLabel *bool `json:"containLabel"`
			} `json:"grid"`
		}
		if err := json.Unmarshal([]byte(o.JSON()), &back); err != nil || back.Grid[0].ContainLabel == nil || *back.Grid[0].ContainLabel {
			t.Errorf("%s: JSON grid containLabel %v (%v), want false", name, back.Grid, err)
		}
	}
	for name, unit := range map[string]string{"rate": "%", "length": "tokens", "throughput": "tokens/s"} {
		y := opts[name].YAxis[0]
		if y.Name != unit || (y.AxisLabel != nil && y.AxisLabel.Formatter != "") {
			t.Errorf("%s: y axis name %q, label formatter %q; want name %q and plain numbers", name, y.Name, y.AxisLabel.Formatter, unit)
		}
	}
	if b := opts["heatmap"].Grid[0].Bottom; b != strconv.Itoa(44+timeLabelRoom) {
		t.Errorf("heatmap grid bottom %q: want room for the visual map and the x labels", b)
	}
}
