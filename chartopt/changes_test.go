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
				Symbol []string `json:"symbol"`
				Data   []struct {
					Name      string `json:"name"`
					XAxis     int    `json:"xAxis"`
					LineStyle struct {
						Color string `json:"color"`
						Type  string `json:"type"`
					} `json:"lineStyle"`
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
	if d.LineStyle.Type != "dashed" || d.LineStyle.Color != p.Series[1] || len(ml.Symbol) != 2 || ml.Symbol[0] != "none" {
		t.Errorf("mark line style %+v symbol %v", d.LineStyle, ml.Symbol)
	}
}

// TestMarkChangesWithRestarts: a restart mark and a change mark on the same
// series are both in its one markLine (they share ECharts' markLine key).
func TestMarkChangesWithRestarts(t *testing.T) {
	g := compute.Grid{Start: 0, End: 600_000, Step: 60_000}
	vals := make([]compute.Value, 10)
	for j := range vals {
		vals[j] = compute.Value{V: 0.5, OK: true}
	}
	p := PaletteFor(ThemeLight)
	o := Lines(g, []model.Line{{Name: "a", Values: vals}}, 10, 100, 1, "%", 0, 100, time.UTC, p)
	o.Mark(Marks{Restarts: []int{3}}, 10, p)
	MarkChanges(o, 0, []compute.ChangePoint{{Bucket: 7,
		Before: compute.Interval{Estimate: compute.Value{V: 0.6, OK: true}},
		After:  compute.Interval{Estimate: compute.Value{V: 0.3, OK: true}}}}, nil)
	var doc struct {
		Series []struct {
			MarkLine struct {
				Silent bool `json:"silent"`
				Data   []struct {
					Name  string `json:"name"`
					XAxis int    `json:"xAxis"`
				} `json:"data"`
			} `json:"markLine"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(o.JSON()), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Series[0].MarkLine.Data
	if len(d) != 2 || d[0].XAxis != 3 || d[0].Name != MarkRestartLabel || d[1].XAxis != 7 ||
		d[1].Name != "a: acceptance changed 60.0 % → 30.0 %" || doc.Series[0].MarkLine.Silent {
		t.Fatalf("mark lines %+v", doc.Series[0].MarkLine)
	}
}
