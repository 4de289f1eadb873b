package chartopt

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestMarks: a gap of buckets 3..4 is a "no data" band from point 2 to
// point 4 and the bucket after it a band from point 4 to 5 saying it holds
// the gap's counts; a start gap of buckets 0..1 the same with its own
// labels; restarts and a backwards series are labelled dashed
// lines at their buckets; the incomplete band stays first; marks outside
// the chart are left out; the JSON is ECharts' markArea/markLine form.
func TestMarks(t *testing.T) {
	g := compute.Grid{Start: 0, End: 100_000, Step: 10_000}
	vals := make([]compute.Value, 10)
	for i := range vals {
		vals[i] = compute.Defined(0.5)
	}
	o := Lines(g, []model.Line{{Name: "a", Values: vals}}, 9, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeLight))
	o.Mark(Marks{
		Gaps:      []compute.Gap{{From: 3, To: 5}, {From: 8, To: 10}},
		Starts:    []compute.Gap{{From: 0, To: 2}, {From: 9, To: 11}},
		Restarts:  []int{6, 12},
		Backwards: []int{1},
	}, 10, PaletteFor(ThemeLight))
	var got struct {
		Series []struct {
			MarkArea struct {
				Silent bool
				Data   [][]struct {
					Name  string
					XAxis int
					Label struct{ Formatter string }
				}
			}
			MarkLine struct {
				Symbol []string
				Data   []struct {
					XAxis     int
					LineStyle struct{ Color, Type string }
					Label     struct{ Formatter string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(o.JSON()), &got); err != nil {
		t.Fatal(err)
	}
	s := got.Series[0]
	type band struct {
		from, to int
		label    string
	}
	want := []band{{8, 9, "incomplete"}, {2, 4, MarkGapLabel}, {4, 5, MarkAfterGapLabel}, {0, 1, MarkStartLabel}, {1, 2, MarkAfterStartLabel}}
	if len(s.MarkArea.Data) != len(want) {
		t.Fatalf("mark areas %+v, want %v", s.MarkArea.Data, want)
	}
	for i, w := range want {
		d := s.MarkArea.Data[i]
		label := d[0].Label.Formatter
		if i == 0 {
			label = "incomplete" // the area's own label
		}
		if len(d) != 2 || d[0].XAxis != w.from || d[1].XAxis != w.to || label != w.label {
			t.Errorf("mark area %d: %+v, want %v", i, d, w)
		}
	}
	lines := s.MarkLine.Data
	if len(lines) != 2 || lines[0].XAxis != 6 || lines[0].Label.Formatter != MarkRestartLabel ||
		lines[1].XAxis != 1 || lines[1].Label.Formatter != MarkBackwardsLabel || lines[0].LineStyle.Type != "dashed" ||
		lines[0].LineStyle.Color == lines[1].LineStyle.Color {
		t.Errorf("mark lines %+v", lines)
	}
	if len(s.MarkLine.Symbol) != 2 || s.MarkLine.Symbol[0] != "none" {
		t.Errorf("mark line symbols %v", s.MarkLine.Symbol)
	}

	// Nothing to mark: no markLine, the markArea only when incomplete.
	o = Lines(g, []model.Line{{Name: "a", Values: vals}}, 10, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeDark))
	o.Mark(Marks{}, 10, PaletteFor(ThemeDark))
	if o.Series[0].MarkArea != nil || o.Series[0].MarkLine != nil {
		t.Errorf("marks without irregularities: %+v %+v", o.Series[0].MarkArea, o.Series[0].MarkLine)
	}
	var nilOpt *Option
	nilOpt.Mark(Marks{Restarts: []int{1}}, 10, PaletteFor(ThemeLight)) // no panic
}

// TestMarkRestartRuns: restarts close together (a restart loop) are one
// band labelled "restarts" from the first to the last, not a dashed line
// and a label each; a restart on its own stays a line; backwards buckets
// likewise. Over 100 buckets "close" is at most 8 buckets apart.
func TestMarkRestartRuns(t *testing.T) {
	g := compute.Grid{Start: 0, End: 1_000_000, Step: 10_000}
	vals := make([]compute.Value, 100)
	for i := range vals {
		vals[i] = compute.Defined(0.5)
	}
	o := Lines(g, []model.Line{{Name: "a", Values: vals}}, 100, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeLight))
	o.Mark(Marks{Restarts: []int{10, 11, 18, 40, 70, 72, 99, 100}, Backwards: []int{50, 51}}, 100, PaletteFor(ThemeLight))
	var got struct {
		Series []struct {
			MarkArea struct {
				Data [][]struct {
					XAxis     int
					ItemStyle struct{ Color string }
					Label     struct{ Formatter string }
				}
			}
			MarkLine struct {
				Data []struct {
					XAxis int
					Label struct{ Formatter string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(o.JSON()), &got); err != nil {
		t.Fatal(err)
	}
	s := got.Series[0]
	type mark struct {
		from, to int
		label    string
	}
	var bands, lines []mark
	for _, d := range s.MarkArea.Data {
		if len(d) != 2 || d[0].ItemStyle.Color == "" {
			t.Fatalf("mark area %+v", d)
		}
		bands = append(bands, mark{d[0].XAxis, d[1].XAxis, d[0].Label.Formatter})
	}
	for _, d := range s.MarkLine.Data {
		lines = append(lines, mark{d.XAxis, d.XAxis, d.Label.Formatter})
	}
	wantBands := []mark{{10, 18, MarkRestartsLabel}, {70, 72, MarkRestartsLabel}, {50, 51, MarkBackwardsLabel}}
	wantLines := []mark{{40, 40, MarkRestartLabel}, {99, 99, MarkRestartLabel}}
	if !reflect.DeepEqual(bands, wantBands) || !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("bands %v, lines %v; want %v, %v", bands, lines, wantBands, wantLines)
	}
}
