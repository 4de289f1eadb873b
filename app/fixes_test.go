package app

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

// Labels on the per-position bars, the heatmap cells and the insights
// chart round as the chips do (compute.FormatPercent): 959/2800 = 34.25 %
// is "34.2 %" everywhere (math.Round gave 34.3 on the bars).
func TestPercentLabelsMatchChips(t *testing.T) {
	s := compute.Derive(compute.Counts{Drafts: 2800, DraftTokens: 2800, AcceptedTokens: 959, AcceptedPerPosition: []float64{959}}, 10, compute.WithBonus)
	chip := compute.FormatPercent(s.PerPositionAcceptanceRate[0], 1)
	if chip != "34.2 %" {
		t.Fatalf("chip %q, want 34.2 %%", chip)
	}
	want := strings.TrimSuffix(chip, " %")
	var o echartsOption
	if err := json.Unmarshal([]byte(PerPositionOption(s)), &o); err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatFloat(o.Series[0].Data[0].Value.(float64), 'f', -1, 64); got != want {
		t.Errorf("bar label %s %%, chip %s", got, chip)
	}
	var h struct {
		Series []struct {
			Data []struct {
				Value []float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
	}
	g := compute.Grid{Start: 0, End: 10_000, Step: 10_000}
	if err := json.Unmarshal([]byte(HeatmapOption(g, []compute.Stats{s}, 1, 1, time.UTC, PaletteFor(ThemeLight))), &h); err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatFloat(h.Series[0].Data[0].Value[2], 'f', -1, 64); got != want {
		t.Errorf("heatmap label %s %%, chip %s", got, chip)
	}
	for _, c := range []struct {
		v    float64
		d    int
		want float64
	}{{34.25, 1, 34.2}, {0.125, 2, 0.12}, {2.675, 2, 2.67}, {-0.0001, 2, 0}} {
		if got := round(c.v, c.d); got != c.want {
			t.Errorf("round(%v, %d) = %v, want %v (as strconv.FormatFloat)", c.v, c.d, got, c.want)
		}
	}
}
