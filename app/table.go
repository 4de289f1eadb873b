package app

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
)

// SortGroups returns the groups ordered by a sort key (Query.Sort): a column
// (ColGroup, ColRate, ...), "-" prefixed for descending; "" keeps the given
// order (by label values). Undefined numbers sort last either way; ties keep
// the label order.
func SortGroups(groups []GroupResult, key string) []GroupResult {
	out := slices.Clone(groups)
	col, desc := strings.CutPrefix(key, "-")
	if col == "" {
		return out
	}
	value := func(g GroupResult) compute.Value {
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
	slices.SortStableFunc(out, func(a, b GroupResult) int {
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

// cell is one numeric table cell with its data-value hook.
func cell(col string, v compute.Value, text string) app.UI {
	td := app.Td().Class("num").DataSet("cell", col)
	if v.OK {
		return td.DataSet("value", plain(v.V)).Text(text)
	}
	return td.DataSet("undefined", "true").Class("undefined").Text(text)
}

// tipPerData ends the rate columns' tips: which seconds they are per.
const tipPerData = " Per second of data: from the first bucket with a sample to the window's end, as the cards (the same seconds for every row)."

// perDataText is " (25m 30s)": the seconds the rates are per, when the
// data covers less than the window; "" otherwise.
func (d *Dashboard) perDataText() string {
	if d.res == nil {
		return ""
	}
	g := d.res.Grid
	covered := int64(d.res.CoveredSeconds() * 1000)
	if covered <= 0 || covered >= g.End-g.Start {
		return ""
	}
	return " (" + compute.SpanText(covered) + " of the " + compute.SpanText(g.End-g.Start) + " window)"
}

func (d *Dashboard) renderBreakdown(v *view) app.UI {
	gb := d.q.Grouping()
	if d.res != nil {
		gb = d.res.Request.GroupBy
	}
	head := d.sortHeader
	var cols []app.UI
	if len(gb) == 0 {
		cols = append(cols, head(ColGroup, "group", "All selected series together."))
	}
	for _, l := range gb {
		cols = append(cols, app.Th().Class("label-col").Text(l))
	}
	cols = append(cols,
		head(ColRate, "acceptance rate", tipRate),
		head(ColLength, "mean acceptance length", tipLength),
		head(ColK, "k", tipK),
		head(ColDrafts, "drafts/s", tipDrafts+tipPerData),
		head(ColAccepted, "accepted tokens/s", tipAccepted+tipPerData),
		app.Th().Title(tipHealth).Text("health"), // health.go
		app.Th().Title("Acceptance rate per bucket over the window (0–100 %).").Text("acceptance rate over time"),
	)
	note := "One row per group: ratio of sums within the group; drafts/s and tokens/s per second of data, as on the cards" + d.perDataText() +
		". Click a column header (or Tab to it and press Enter) to sort."
	if len(gb) == 0 {
		note = "Choose labels under Group by to split the numbers. " + note
	}
	rows := v.groups
	body := app.Range(rows).Slice(func(i int) app.UI {
		g := rows[i]
		var tds []app.UI
		if len(gb) == 0 {
			tds = append(tds, app.Td().Class("label-cell").Text(g.Name))
		}
		for _, l := range gb {
			tds = append(tds, app.Td().Class("label-cell").DataSet("label", l).Text(model.LabelText(g.Labels[l])))
		}
		s := d.res.CoveredStatsOf(g.Stats) // rates per second of data, as the cards
		kText := "unknown"
		if s.K > 0 {
			kText = strconv.Itoa(s.K)
		}
		spark := make([]compute.Value, len(g.Buckets))
		for j, b := range g.Buckets {
			spark[j] = b.AcceptanceRate
		}
		tds = append(tds,
			cell(ColRate, s.AcceptanceRate, compute.FormatPercent(s.AcceptanceRate, 1)),
			cell(ColLength, s.MeanAcceptanceLength, compute.FormatLength(s.MeanAcceptanceLength)),
			cell(ColK, compute.Value{V: float64(s.K), OK: s.K > 0}, kText),
			cell(ColDrafts, s.DraftsPerSecond, compute.FormatRate(s.DraftsPerSecond, "drafts/s")),
			cell(ColAccepted, s.AcceptedThroughput, compute.FormatRate(s.AcceptedThroughput, "tokens/s")),
			healthCell(g.Health),
			app.Td().Class("spark-cell").Body(app.Raw(Sparkline(spark, d.res.Complete))),
		)
		return app.Tr().DataSet("row", i).DataSet("group", encodeOption(g.Key)).Body(tds...)
	})
	table := app.Div().Class("table-scroll").Body(
		app.Table().Class("breakdown").Body(
			app.THead().Body(app.Tr().Body(cols...)),
			app.TBody().Body(body),
		),
	)
	if d.res == nil {
		table = app.Div().Class("table-empty").Text(d.emptyText())
	}
	return app.Div().Class("row").Body(d.panel("breakdown", "Breakdown", note, false, table))
}
