package chartopt

import (
	"math"
	"strconv"
	"strings"

	"specdash/compute"
)

// The data of the options: typed points and heatmap cells, each encoded
// by its MarshalJSON as encoding/json would write the plain form (a
// series' points as {"value":v}, gaps as "-"; a cell as [x,y,v]). A
// refresh builds thousands of them in wasm: reflection over each cost most
// of an option's time there.

// Point is one data point of a line or bar: V when OK, else a gap.
type Point struct {
	V  float64
	OK bool
}

// Points are a series' data: [{"value":v},...], "-" for a gap.
type Points []Point

// MarshalJSON writes the points.
func (ps Points) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(ps)*16+2)
	b = append(b, '[')
	for j, p := range ps {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		if p.OK {
			b = appendJSONFloat(b, p.V)
		} else {
			b = append(b, `"`+gap+`"`...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// points are n values of vals times scale rounded to decimals; gaps where
// undefined or missing.
func points(vals []compute.Value, n int, scale float64, decimals int) Points {
	ps := make(Points, n)
	for j := range ps {
		if j < len(vals) && vals[j].OK {
			ps[j] = Point{V: round(vals[j].V*scale, decimals), OK: true}
		}
	}
	return ps
}

// Cell is one heatmap cell: column X, row Y, value V.
type Cell struct {
	X, Y int
	V    float64
}

// Cells are a heatmap series' data: [[x,y,v],...] (plain arrays: an
// object cell makes ECharts build an item model per cell).
type Cells []Cell

// MarshalJSON writes the cells.
func (cs Cells) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(cs)*16+2)
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(c.X), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.Y), 10)
		b = append(b, ',')
		b = appendJSONFloat(b, c.V)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// round keeps d decimals (chart data only; the exact numbers are in the
// data-value attributes and the exports). It rounds as compute's format
// helpers do (strconv.FormatFloat of the float64, so 34.25 -> 34.2 like
// compute.FormatPercent), so a chart label never differs from the number
// printed next to it; -0 and NaN/Inf give 0.
func round(v float64, d int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', min(max(d, 0), 9), 64), 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r == 0 {
		return 0
	}
	return r
}

// pct is a ratio as a chart point in percent with one decimal: the number
// compute.FormatPercent(v, 1) prints (one formatting path for bar labels,
// heatmap cells and the chips); a gap when undefined.
func pct(v compute.Value) Point {
	if !v.OK {
		return Point{}
	}
	r, err := strconv.ParseFloat(strings.TrimSuffix(compute.FormatPercent(v, 1), " %"), 64)
	if err != nil {
		return Point{}
	}
	if r == 0 {
		r = 0 // no -0
	}
	return Point{V: r, OK: true}
}

// appendJSONFloat appends f as encoding/json writes a float64 (ES6 number
// form: %f, or %e with a short exponent outside [1e-6, 1e21)); NaN and
// Inf as the gap marker.
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, `"`+gap+`"`...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
