package chartopt

import (
	"strconv"

	"github.com/go-echarts/go-echarts/v2/opts"
)

// Time charts share one plot area and one x axis, so that a bucket is at
// the same x on every chart (with the shared crosshair, app/chart.go and
// web/static/charts.js): the grid's left and right edges are fixed
// (containLabel off: the y labels' width no longer moves the plot), and
// the x axis is the grid's buckets with the same labels, so ECharts picks
// the same label interval on every chart of one width. The unit leaves
// the y labels (its width would differ) for the axis name above them.
const (
	// TimeGridLeft and TimeGridRight are the plot area's insets (CSS px).
	TimeGridLeft  = 64
	TimeGridRight = 40
	// timeLabelRoom is the room under the plot for one line of x labels.
	timeLabelRoom = 24
)

// alignTime fixes o's plot area to the time charts' one, leaving bottom
// px of room below the x labels, and moves unit into the y axis name.
func (o *Option) alignTime(unit string, bottom int) {
	if len(o.Grid) == 0 {
		o.Grid = []opts.Grid{{}}
	}
	g := &o.Grid[0]
	g.Left, g.Right = strconv.Itoa(TimeGridLeft), strconv.Itoa(TimeGridRight)
	g.Bottom = strconv.Itoa(bottom + timeLabelRoom)
	g.ContainLabel = opts.Bool(false)
	if len(o.YAxis) > 0 && unit != "" {
		y := &o.YAxis[0]
		y.Name, y.NameLocation, y.NameGap = unit, "end", 8
		if y.AxisLabel != nil {
			y.AxisLabel.Formatter = ""
		}
	}
}
