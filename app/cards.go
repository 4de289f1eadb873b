package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/model"
	"specdash/view"
)

// sparkBuckets is how many complete buckets a card's sparkline draws.
const sparkBuckets = 60

// headlineCard is one card of the headline row: the window's value (ratio
// of sums; rates per second of data) and the value over the last complete
// interval ("now") with a sparkline of the last complete buckets.
type headlineCard struct {
	name, label, tip, sub string
	window                compute.Value
	windowText            string
	now                   compute.Value
	nowText               string
	spark                 []compute.Value
	// ratio: the sparkline's scale is 0..1 (else 0..max).
	ratio bool
}

// renderCards is the headline row (replaces renderHeadline): every card
// gives the window's value and now's, the speedup estimate included.
//
// Test hooks: each card is [data-card=<name>]; its window value is
// [data-metric=<name>] (data-value as before; rates per second of data:
// data-covered-seconds on .cards), its now value [data-now=<name>] with
// data-value (or data-undefined) and data-now-state (live, stopped, stale,
// none), data-now-from and data-now-to (Unix ms); the speedup card's
// numbers are [data-metric=headline-speedup] and [data-now=headline-speedup].
func (d *Dashboard) renderCards() app.UI {
	if d.res == nil {
		return d.renderHeadline(compute.Stats{})
	}
	m := &d.res.Model
	gauges := m.Schema != nil && m.Schema.Averaged != nil
	if gauges || m.Log != nil {
		return d.renderHeadline(m.Stats) // gauges and log input: no buckets to read "now" from
	}
	s := m.CoveredStats()
	now := m.Now()
	ns := now.Stats
	covered := m.CoveredSeconds()
	loc := d.q.Location()
	nowLabel := d.nowLabel(now, loc)
	nowTip := ""
	if now.State != model.NowNone {
		nowTip = "Now: the last complete " + view.DurationText(float64(now.To-now.From)/1000) + ", " +
			time.UnixMilli(now.From).In(loc).Format("15:04:05") + " – " + time.UnixMilli(now.To).In(loc).Format("15:04:05")
	}
	perData := "per s of data, " + view.DurationText(covered)
	rate := func(f func(compute.Stats) compute.Value) []compute.Value {
		vals := make([]compute.Value, len(m.Buckets))
		for j, b := range m.Buckets {
			vals[j] = f(b)
		}
		return model.Spark(vals, m.Complete, m.FirstBucket, sparkBuckets)
	}
	nowRate := func(v compute.Value, unit string) string {
		if now.State == model.NowStale || now.State == model.NowNone {
			return ""
		}
		return compute.FormatRate(v, unit)
	}
	nowRatio := func(v compute.Value, text string) string {
		switch {
		case now.State == model.NowStale || now.State == model.NowNone:
			return ""
		case !v.OK && now.State == model.NowStopped:
			return "no drafts"
		}
		return text
	}
	k := compute.Value{V: float64(s.K), OK: s.K > 0}
	kText := "unknown"
	if k.OK {
		kText = strconv.Itoa(s.K)
	}
	nk := compute.Value{V: float64(ns.K), OK: ns.K > 0 && now.Counts.Drafts > 0}
	cost := d.lay.costOr()
	spW, spN := model.Estimate(m.Total.Total, cost).Speedup, model.Estimate(now.Counts, cost).Speedup
	lengthLabel := "Mean acceptance length"
	if d.q.Convention == compute.WithoutBonus {
		lengthLabel += " (without bonus token)"
	}
	cards := []headlineCard{
		{name: "acceptance-rate", label: "Acceptance rate", tip: view.TipRate, sub: "accepted / draft tokens",
			window: s.AcceptanceRate, windowText: compute.FormatPercent(s.AcceptanceRate, 1),
			now: ns.AcceptanceRate, nowText: nowRatio(ns.AcceptanceRate, compute.FormatPercent(ns.AcceptanceRate, 1)),
			spark: rate(func(b compute.Stats) compute.Value { return b.AcceptanceRate }), ratio: true},
		{name: "mean-acceptance-length", label: lengthLabel, tip: view.TipLength, sub: view.LengthFormula(d.q.Convention),
			window: s.MeanAcceptanceLength, windowText: compute.FormatLength(s.MeanAcceptanceLength),
			now: ns.MeanAcceptanceLength, nowText: nowRatio(ns.MeanAcceptanceLength, compute.FormatLength(ns.MeanAcceptanceLength)),
			spark: rate(func(b compute.Stats) compute.Value { return b.MeanAcceptanceLength })},
		{name: "headline-speedup", label: "Estimated speedup", sub: fmt.Sprintf("mean length / (1 + c × k), c = %s", strconv.FormatFloat(cost, 'g', -1, 64)),
			tip:    "Estimated speedup for sequential drafting = mean acceptance length / (1 + c × k) (Leviathan et al., ICML 2023); c is the draft cost ratio of the insights panel below.",
			window: spW.Speedup, windowText: view.Times(spW.Speedup),
			now: spN.Speedup, nowText: nowRatio(spN.Speedup, view.Times(spN.Speedup))},
		{name: "k", label: "k (speculative tokens)", tip: view.TipK, sub: "draft positions",
			window: k, windowText: kText, now: nk, nowText: nowRatio(nk, strconv.Itoa(ns.K))},
		{name: "drafts-per-second", label: "Drafts", tip: view.TipDrafts, sub: perData + "; " + compute.FormatCount(s.Drafts, "drafts"),
			window: s.DraftsPerSecond, windowText: compute.FormatRate(s.DraftsPerSecond, "drafts/s"),
			now: ns.DraftsPerSecond, nowText: nowRate(ns.DraftsPerSecond, "drafts/s"),
			spark: rate(func(b compute.Stats) compute.Value { return b.DraftsPerSecond })},
		{name: "accepted-throughput", label: "Accepted throughput", tip: view.TipAccepted, sub: perData + "; " + compute.FormatCount(s.AcceptedTokens, "tokens"),
			window: s.AcceptedThroughput, windowText: compute.FormatRate(s.AcceptedThroughput, "tokens/s"),
			now: ns.AcceptedThroughput, nowText: nowRate(ns.AcceptedThroughput, "tokens/s"),
			spark: rate(func(b compute.Stats) compute.Value { return b.AcceptedThroughput })},
		{name: "drafted-throughput", label: "Drafted throughput", tip: view.TipDrafted, sub: perData + "; " + compute.FormatCount(s.DraftTokens, "tokens"),
			window: s.DraftedThroughput, windowText: compute.FormatRate(s.DraftedThroughput, "tokens/s"),
			now: ns.DraftedThroughput, nowText: nowRate(ns.DraftedThroughput, "tokens/s"),
			spark: rate(func(b compute.Stats) compute.Value { return b.DraftedThroughput })},
	}
	out := make([]app.UI, len(cards))
	for i, c := range cards {
		out[i] = c.render(now, nowLabel, nowTip)
	}
	return app.Div().Class("cards", "cards-now").
		DataSet("covered-seconds", view.Plain(covered)).
		DataSet("now-state", string(now.State)).
		Body(out...)
}

// nowLabel names the "now" value: "now" (the interval is in the title),
// "stale since 14:02:10: ...", or why there is no now value.
func (d *Dashboard) nowLabel(n model.Now, loc *time.Location) string {
	switch n.State {
	case model.NowNone:
		return "now: no complete interval yet"
	case model.NowStale:
		if n.LastData > 0 {
			return "stale since " + time.UnixMilli(n.LastData).In(loc).Format("15:04:05") + ": no samples in the last " + view.DurationText(float64(n.To-n.From)/1000)
		}
		return "stale: no samples in the last " + view.DurationText(float64(n.To-n.From)/1000)
	}
	return "now" // the interval is in the line's title (nowTip)
}

func (c headlineCard) render(n model.Now, nowLabel, nowTip string) app.UI {
	win := app.Div().Class("metric-value").DataSet("metric", c.name)
	if c.window.OK {
		win = win.DataSet("value", view.Plain(c.window.V))
		if num, unit, ok := view.SplitUnit(c.windowText); ok {
			win = win.Body(app.Span().Class("num").Text(num), app.Text(" "), app.Span().Class("unit").Text(unit))
		} else {
			win = win.Text(c.windowText)
		}
	} else {
		win = win.DataSet("undefined", "true").Class("undefined").Text(c.windowText)
	}
	nowEl := app.Span().Class("now-value").DataSet("now", c.name).DataSet("now-state", string(n.State)).
		DataSet("now-from", n.From).DataSet("now-to", n.To)
	text := c.nowText
	if !c.window.OK {
		// Undefined over the window (the schema lacks the family, or no
		// drafts): never a number for now.
		c.now, text = compute.Value{}, ""
	}
	if c.now.OK && text != "" {
		nowEl = nowEl.DataSet("value", view.Plain(c.now.V))
	} else {
		nowEl = nowEl.DataSet("undefined", "true")
		if text == "" {
			text = "—"
		}
	}
	nowEl = nowEl.Text(text)
	state := "now-" + string(n.State)
	return app.Div().Class("card", "card-headline", state).DataSet("card", c.name).Title(c.tip).Body(
		app.Div().Class("card-label").Text(c.label),
		win,
		app.Div().Class("card-sub").Title("window: "+c.sub).Text("window: "+c.sub),
		app.Div().Class("card-now").Title(nowTip).Body(
			app.Span().Class("now-label").Text(nowLabel+": "),
			nowEl,
			sparkline(c.spark, c.ratio),
		),
	)
}

// sparkline draws values as a small inline SVG built element by element
// (no HTML strings): one polyline per run of defined values.
func sparkline(vals []compute.Value, ratio bool) app.UI {
	const w, h = 100.0, 20.0
	svg := "http://www.w3.org/2000/svg"
	top := 1.0
	if !ratio {
		top = 0
		for _, v := range vals {
			if v.OK && !math.IsInf(v.V, 0) && v.V > top {
				top = v.V
			}
		}
	}
	var lines []app.UI
	var pts []string
	flush := func() {
		if len(pts) > 1 {
			lines = append(lines, app.Elem("polyline").XMLNS(svg).Attr("points", strings.Join(pts, " ")).Class("spark-line"))
		} else if len(pts) == 1 {
			x, y, _ := strings.Cut(pts[0], ",")
			lines = append(lines, app.Elem("circle").XMLNS(svg).Attr("cx", x).Attr("cy", y).Attr("r", "1.5").Class("spark-line"))
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
	return app.Elem("svg").XMLNS(svg).Class("spark", "card-spark").
		Attr("viewBox", "0 0 100 20").Attr("preserveAspectRatio", "none").Attr("aria-hidden", "true").
		Body(lines...)
}
