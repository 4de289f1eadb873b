package chartsvg_test

import (
	"strings"
	"testing"
	"time"

	"specdash/chartopt"
	"specdash/chartsvg"
	"specdash/compute"
	"specdash/model"
)

// TestDrawMarks: the first paint draws the time charts' marks as ECharts
// does: the gap's band and the band of the bucket after it in their own
// colours and with their own labels, and a dashed line per restart.
func TestDrawMarks(t *testing.T) {
	g := compute.Grid{Start: 0, End: 8 * 60_000, Step: 60_000}
	vals := make([]compute.Value, 8)
	for i := range vals {
		vals[i] = compute.Defined(0.5)
	}
	p := chartopt.PaletteFor(chartopt.ThemeLight)
	o := chartopt.Lines(g, []model.Line{{Name: "a", Values: vals}}, 8, 100, 1, "%", 0, 100, time.UTC, p)
	o.Mark(chartopt.Marks{Gaps: []compute.Gap{{From: 2, To: 4}}, Restarts: []int{6}}, 8, p)
	root := parse(t, chartsvg.DrawOption(o))
	// x = (j + 0.5) / 8 * 1000: the gap from point 1 (187.5) to 3 (437.5),
	// the bucket after it from 3 to 4 (562.5).
	bands := root.all(func(n *node) bool { return n.Name == "rect" && n.Attr["height"] == "1000" })
	if len(bands) != 2 || bands[0].Attr["x"] != "187.5" || bands[0].Attr["width"] != "250" ||
		bands[1].Attr["x"] != "437.5" || bands[1].Attr["width"] != "125" || bands[0].Attr["fill"] == bands[1].Attr["fill"] {
		t.Errorf("bands %+v, want x 187.5 width 250 and x 437.5 width 125 in two colours", bands)
	}
	restart := root.all(func(n *node) bool { return n.Name == "path" && n.Attr["stroke-dasharray"] != "" })
	if len(restart) != 1 || restart[0].Attr["d"] != "M812.5 0V1000" {
		t.Errorf("restart lines %+v, want one at x 812.5", restart)
	}
	text := root.text()
	for _, s := range []string{chartopt.MarkGapLabel, chartopt.MarkAfterGapLabel, chartopt.MarkRestartLabel} {
		if !strings.Contains(text, s) {
			t.Errorf("drawing lacks the mark label %q", s)
		}
	}
	if strings.Contains(text, "incomplete") {
		t.Error("complete chart labelled incomplete")
	}
}
