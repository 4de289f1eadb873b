package chartopt

import (
	"encoding/json"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestMarkChanges: a change point becomes a dashed markLine on its series
// at the change's bucket, in the series' colour, labelled with the rates
// before and after and named with the series and the p-value; other series
// get none, and bad arguments change nothing.
func TestMarkChanges(t *testing.T) {
	g := compute.Grid{Start: 0, End: 1_200_000, Step: 60_000}
	vals := make([]compute.Value, 20)
	for j := range vals {
		vals[j] = compute.Value{V: 0.5, OK: true}
	}
	p := PaletteFor(ThemeDark)
	o := Lines(g, []model.Line{{Name: "a", Values: vals}, {Name: "b {x}", Values: vals}}, 20, 100, 1, "%", 0, 100, time.UTC, p)
	cp := compute.ChangePoint{Bucket: 10, PValue: 1e-9,
		Before: compute.Interval{Estimate: compute.Value{V: 0.62, OK: true}},
		After:  compute.Interval{Estimate: compute.Value{V: 0.41, OK: true}}}
	MarkChanges(o, 1, []compute.ChangePoint{cp}, func(p float64) string { return "p < 0.001" })
	MarkChanges(o, 5, []compute.ChangePoint{cp}, nil) // out of range: nothing
	MarkChanges(nil, 0, []compute.ChangePoint{cp}, nil)

	var doc struct {
		Series []struct {
			Name     string `json:"name"`
			MarkLine *struct {
				Symbol    []string `json:"symbol"`
				LineStyle struct {
					Color string `json:"color"`
					Type  string `json:"type"`
				} `json:"lineStyle"`
				Data []struct {
					Name  string `json:"name"`
					XAxis int    `json:"xAxis"`
					Label struct {
						Show      bool   `json:"show"`
						Formatter string `json:"formatter"`
						Color     string `json:"color"`
					} `json:"label"`
				} `json:"data"`
			} `json:"markLine"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(o.JSON()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Series) != 2 || doc.Series[0].MarkLine != nil {
		t.Fatalf("series 0 has a mark line, or series lost: %s", o.JSON())
	}
	ml := doc.Series[1].MarkLine
	if ml == nil || len(ml.Data) != 1 {
		t.Fatalf("series 1: no mark line: %s", o.JSON())
	}
	d := ml.Data[0]
	if d.XAxis != 10 || !d.Label.Show || d.Label.Formatter != "62.0 % → 41.0 %" || d.Label.Color != p.Series[1] ||
		d.Name != "b (x): acceptance changed 62.0 % → 41.0 % (p < 0.001)" {
		t.Errorf("mark %+v", d)
	}
	if ml.LineStyle.Type != "dashed" || ml.LineStyle.Color != p.Series[1] || len(ml.Symbol) != 2 || ml.Symbol[0] != "none" {
		t.Errorf("mark line style %+v symbol %v", ml.LineStyle, ml.Symbol)
	}
}
