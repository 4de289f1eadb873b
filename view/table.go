package view

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/model"
)

// SortGroups returns the groups ordered by a sort key (Query.Sort): a column
// (ColGroup, ColRate, ...), "-" prefixed for descending; "" keeps the given
// order (by label values). Undefined numbers sort last either way; ties keep
// the label order.
func SortGroups(groups []model.Group, key string) []model.Group {
	out := slices.Clone(groups)
	col, desc := strings.CutPrefix(key, "-")
	if col == "" {
		return out
	}
	value := func(g model.Group) compute.Value {
		switch col {
		case ColRate:
			return g.Stats.AcceptanceRate
		case ColLength:
			return g.Stats.MeanAcceptanceLength
		case ColK:
			return compute.Value{V: float64(g.Stats.K), OK: g.Stats.K > 0}
		case ColDrafts:
			return g.Stats.DraftsPerSecond
		case ColAccepted:
			return g.Stats.AcceptedThroughput
		}
		return compute.Value{}
	}
	slices.SortStableFunc(out, func(a, b model.Group) int {
		if col == ColGroup {
			c := cmp.Compare(a.Name, b.Name)
			if desc {
				c = -c
			}
			return c
		}
		va, vb := value(a), value(b)
		switch {
		case !va.OK && !vb.OK:
			return 0
		case !va.OK:
			return 1
		case !vb.OK:
			return -1
		}
		c := cmp.Compare(va.V, vb.V)
		if desc {
			c = -c
		}
		return c
	})
	return out
}

// Sparkline is an inline SVG of a ratio series (0..1) per bucket: one
// polyline per run of defined values (gaps stay gaps), the part from bucket
// complete on (incomplete) dashed. Only numbers go into the markup.
func Sparkline(vals []compute.Value, complete int) string {
	const w, h = 120.0, 28.0
	n := len(vals)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" viewBox="0 0 %d %d" width="%d" height="%d" preserveAspectRatio="none" aria-hidden="true">`, int(w), int(h), int(w), int(h))
	type pt struct{ x, y float64 }
	var seg []pt
	incomplete := false
	emit := func() {
		cls := "spark-line"
		if incomplete {
			cls += " spark-incomplete"
		}
		switch {
		case len(seg) == 1:
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="1.5"/>`, cls, seg[0].x, seg[0].y)
		case len(seg) > 1:
			parts := make([]string, len(seg))
			for i, p := range seg {
				parts[i] = fmt.Sprintf("%.1f,%.1f", p.x, p.y)
			}
			fmt.Fprintf(&b, `<polyline class="%s" points="%s"/>`, cls, strings.Join(parts, " "))
		}
	}
	for j, v := range vals {
		inc := j >= complete
		if !v.OK {
			emit()
			seg = nil
			continue
		}
		x := w / 2
		if n > 1 {
			x = 1 + float64(j)*(w-2)/float64(n-1)
		}
		p := pt{x, h - 2 - min(max(v.V, 0), 1)*(h-4)}
		if inc && !incomplete && len(seg) > 0 {
			emit()
			seg = []pt{seg[len(seg)-1]}
		}
		if len(seg) == 0 || inc {
			incomplete = inc
		}
		seg = append(seg, p)
	}
	emit()
	b.WriteString(`</svg>`)
	return b.String()
}

// SparkRuns are the points ("x,y") of a card's sparkline of vals in a
// 100 x 20 box, one run per stretch of defined values (a run of one point
// is drawn as a dot); the scale is 0..1 for a ratio, else 0..the largest
// value.
func SparkRuns(vals []compute.Value, ratio bool) [][]string {
	const w, h = 100.0, 20.0
	top := 1.0
	if !ratio {
		top = 0
		for _, v := range vals {
			if v.OK && !math.IsInf(v.V, 0) && v.V > top {
				top = v.V
			}
		}
	}
	var runs [][]string
	var pts []string
	flush := func() {
		if len(pts) > 0 {
			runs = append(runs, pts)
		}
		pts = nil
	}
	n := len(vals)
	for j, v := range vals {
		if !v.OK || top <= 0 || math.IsNaN(v.V) || math.IsInf(v.V, 0) {
			flush()
			continue
		}
		x := w / 2
		if n > 1 {
			x = 1 + float64(j)*(w-2)/float64(n-1)
		}
		y := h - 1 - min(max(v.V/top, 0), 1)*(h-2)
		pts = append(pts, strconv.FormatFloat(x, 'f', 1, 64)+","+strconv.FormatFloat(y, 'f', 1, 64))
	}
	flush()
	return runs
}

// RatesOf are the acceptance rates of buckets (a breakdown row's
// sparkline).
func RatesOf(buckets []compute.Stats) []compute.Value {
	out := make([]compute.Value, len(buckets))
	for j, b := range buckets {
		out[j] = b.AcceptanceRate
	}
	return out
}

// BreakdownNote is the breakdown table's note for res (nil before a load),
// grouped or not.
func (res *Result) BreakdownNote(grouped bool) string {
	note := "One row per group: ratio of sums within the group; drafts/s and tokens/s per second of data, as on the cards" + res.PerDataText() +
		". Click a column header (or Tab to it and press Enter) to sort."
	if !grouped {
		note = "Choose labels under Group by to split the numbers. " + note
	}
	return note
}
