package chartopt

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestAppendJSONFloat: the hand-written number form of the chart options
// is encoding/json's, for ordinary values, whole numbers, the edges of
// the exponent form and negative zero.
func TestAppendJSONFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 12.3, 100, 2.675, 1e-6, 9.99e-7, 1e-7, 1.5e-10,
		-1e-7, 1e20, 1e21, 1.2345e22, -3e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendJSONFloat(%v) = %s, encoding/json %s", f, got, want)
		}
	}
	if got := string(appendJSONFloat(nil, math.NaN())); got != `"-"` {
		t.Errorf("NaN = %s, want the gap marker", got)
	}
}

// TestOptionDataEncoding: the line and heatmap data written by hand equal
// what encoding/json writes for the same points ({"value":v}, gaps as
// "-"; heatmap cells [x,y,v], the incomplete bucket's in a second series
// at half opacity; no cells: an empty list).
func TestOptionDataEncoding(t *testing.T) {
	g := compute.Grid{Start: 0, End: 40_000, Step: 10_000}
	vals := []compute.Value{compute.Defined(0.61234), {}, compute.Defined(2e-7), compute.Defined(4e21)}
	js := Lines(g, []model.Line{{Name: "a", Values: vals}, {Name: "b", Values: vals[:2]}}, 3, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeLight)).JSON()
	var o struct {
		Series []struct {
			Data json.RawMessage `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(js), &o); err != nil || len(o.Series) != 2 {
		t.Fatalf("%v: %s", err, js)
	}
	type point struct {
		Value any `json:"value"`
	}
	wants := [][]point{
		{{61.2}, {"-"}, {0.0}, {4e23}},
		{{61.2}, {"-"}, {"-"}, {"-"}},
	}
	for i, w := range wants {
		b, _ := json.Marshal(w)
		if string(o.Series[i].Data) != string(b) {
			t.Errorf("line %d data %s, want %s", i, o.Series[i].Data, b)
		}
	}

	s := compute.Derive(compute.Counts{Drafts: 3, DraftTokens: 9, AcceptedTokens: 4, AcceptedPerPosition: []float64{3, 1, 0}}, 10, compute.WithBonus)
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	for _, tc := range []struct {
		buckets           []compute.Stats
		final, incomplete [][]any
	}{
		{[]compute.Stats{s, none, s, s},
			[][]any{{0, 0, 100.0}, {0, 1, 33.3}, {0, 2, 0.0}, {2, 0, 100.0}, {2, 1, 33.3}, {2, 2, 0.0}},
			[][]any{{3, 0, 100.0}, {3, 1, 33.3}, {3, 2, 0.0}}},
		{[]compute.Stats{none, none, none, none}, [][]any{}, nil},
	} {
		var h struct {
			Series []struct {
				Data      json.RawMessage `json:"data"`
				ItemStyle map[string]any  `json:"itemStyle"`
			} `json:"series"`
		}
		js := Heatmap(g, tc.buckets, 3, 3, time.UTC, PaletteFor(ThemeDark)).JSON()
		if err := json.Unmarshal([]byte(js), &h); err != nil || len(h.Series) != 1+min(len(tc.incomplete), 1) {
			t.Fatalf("%v: %s", err, js)
		}
		for i, want := range [][][]any{tc.final, tc.incomplete} {
			if i == 1 && want == nil {
				break
			}
			b, _ := json.Marshal(want)
			if string(h.Series[i].Data) != string(b) {
				t.Errorf("heatmap series %d data %s, want %s", i, h.Series[i].Data, b)
			}
		}
		if len(h.Series) == 2 && (h.Series[0].ItemStyle != nil || h.Series[1].ItemStyle["opacity"] != 0.45) {
			t.Errorf("item styles %v, %v: want the incomplete series at opacity 0.45", h.Series[0].ItemStyle, h.Series[1].ItemStyle)
		}
	}
}

// TestRound: chart values round as strconv.FormatFloat (and so as
// compute's format helpers) do; -0 gives 0.
func TestRound(t *testing.T) {
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

// TestComparedValuesCanonical: the top-level values that the dashboard's
// chart update compares as text (all but the swapped components: series,
// axes, grid, title, legend, tooltip, visualMap) read the same after the
// option is decoded and encoded again, so a re-encoded option with the same
// brush and toolbox is a data change (a merge), not a structure change.
func TestComparedValuesCanonical(t *testing.T) {
	g := compute.Grid{Start: 0, End: 40_000, Step: 10_000}
	vals := []compute.Value{compute.Defined(0.5), {}, compute.Defined(1), compute.Defined(0.25)}
	s := compute.Derive(compute.Counts{Drafts: 3, DraftTokens: 9, AcceptedTokens: 4, AcceptedPerPosition: []float64{3, 1, 0}}, 10, compute.WithBonus)
	swapped := map[string]bool{"series": true, "xAxis": true, "yAxis": true, "grid": true, "title": true, "legend": true, "tooltip": true, "visualMap": true}
	for _, theme := range []string{ThemeLight, ThemeDark} {
		p := PaletteFor(theme)
		for name, o := range map[string]*Option{
			"lines":   Lines(g, []model.Line{{Name: "a", Values: vals}}, 3, 100, 1, "%", 0, 100, time.UTC, p),
			"heatmap": Heatmap(g, []compute.Stats{s, s, s, s}, 3, 2, time.UTC, p),
			"bars":    PerPosition(s, compute.FitGeometric(s.Counts()), p),
		} {
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(o.JSON()), &raw); err != nil {
				t.Fatal(err)
			}
			for k, v := range raw {
				if swapped[k] {
					continue
				}
				var tree any
				if err := json.Unmarshal(v, &tree); err != nil {
					t.Fatal(err)
				}
				again, _ := json.Marshal(tree)
				if string(again) != string(v) {
					t.Errorf("%s %s: %q is %s, re-encoded %s", theme, name, k, v, again)
				}
			}
		}
	}
}
