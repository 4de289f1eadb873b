package app

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"specdash/compute"
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
// "-"; heatmap cells {"value":[x,y,v]} with the incomplete ones'
// itemStyle), and no cells give null.
func TestOptionDataEncoding(t *testing.T) {
	g := compute.Grid{Start: 0, End: 40_000, Step: 10_000}
	vals := []compute.Value{compute.Defined(0.61234), {}, compute.Defined(2e-7), compute.Defined(4e21)}
	js := LinesOption(g, []Line{{"a", vals}, {"b", vals[:2]}}, 3, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeLight))
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
	type cell struct {
		Value     []any          `json:"value"`
		ItemStyle map[string]any `json:"itemStyle,omitempty"`
	}
	half := map[string]any{"opacity": 0.45}
	for _, tc := range []struct {
		buckets []compute.Stats
		want    []cell
	}{
		{[]compute.Stats{s, none, s, s}, []cell{
			{Value: []any{0, 0, 100.0}}, {Value: []any{0, 1, 33.3}}, {Value: []any{0, 2, 0.0}},
			{Value: []any{2, 0, 100.0}}, {Value: []any{2, 1, 33.3}}, {Value: []any{2, 2, 0.0}},
			{[]any{3, 0, 100.0}, half}, {[]any{3, 1, 33.3}, half}, {[]any{3, 2, 0.0}, half}}},
		{[]compute.Stats{none, none, none, none}, nil},
	} {
		var h struct {
			Series []struct {
				Data json.RawMessage `json:"data"`
			} `json:"series"`
		}
		js := HeatmapOption(g, tc.buckets, 3, 3, time.UTC, PaletteFor(ThemeDark))
		if err := json.Unmarshal([]byte(js), &h); err != nil || len(h.Series) != 1 {
			t.Fatalf("%v: %s", err, js)
		}
		b, _ := json.Marshal(tc.want)
		if string(h.Series[0].Data) != string(b) {
			t.Errorf("heatmap data %s, want %s", h.Series[0].Data, b)
		}
	}
}
