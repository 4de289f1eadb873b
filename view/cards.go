package view

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"specdash/compute"
	"specdash/model"
)

// sparkBuckets is how many complete buckets a card's sparkline draws.
const sparkBuckets = 60

// Card is one card of the headline row: the window's value (ratio of sums;
// rates per second of data) and the value over the last complete interval
// ("now") with a sparkline of the last complete buckets.
type Card struct {
	Name, Label, Tip, Sub string
	Window                compute.Value
	WindowText            string
	Now                   compute.Value
	NowText               string
	Spark                 []compute.Value
	// Ratio: the sparkline's scale is 0..1 (else 0..max).
	Ratio bool
}

// Headline is the dashboard's headline row: every card gives the window's
// value and now's, the speedup estimate included.
type Headline struct {
	Cards []Card
	// Now is the last complete interval (model.Model.Now); NowLabel names
	// its value, NowTip says which interval it is.
	Now              model.Now
	NowLabel, NowTip string
	// Covered is the seconds of data the window's rates are per.
	Covered float64
}

// HeadlineOf is the headline row of m (a load with buckets: not a gauge
// schema or log input) shown for q, with the speedup at draft cost ratio
// cost.
func HeadlineOf(m *model.Model, q Query, cost float64) Headline {
	s := m.CoveredStats()
	now := m.Now()
	ns := now.Stats
	covered := m.CoveredSeconds()
	loc := q.Location()
	nowLabel := labelNow(now, loc)
	nowTip := ""
	if now.State != model.NowNone {
		nowTip = "Now: the last complete " + DurationText(float64(now.To-now.From)/1000) + ", " +
			time.UnixMilli(now.From).In(loc).Format("15:04:05") + " – " + time.UnixMilli(now.To).In(loc).Format("15:04:05")
	}
	perData := "per s of data, " + DurationText(covered)
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
	nk := compute.Value{V: float64(ns.K), OK: ns.K > 0 && now.Counts.Drafts > 0}
	spW, spN := model.Estimate(m.Total.Total, cost).Speedup, model.Estimate(now.Counts, cost).Speedup
	lengthLabel := "Mean acceptance length"
	if q.Convention == compute.WithoutBonus {
		lengthLabel += " (without bonus token)"
	}
	cards := []Card{
		{Name: "acceptance-rate", Label: "Acceptance rate", Tip: TipRate, Sub: "accepted / draft tokens",
			Window: s.AcceptanceRate, WindowText: compute.FormatPercent(s.AcceptanceRate, 1),
			Now: ns.AcceptanceRate, NowText: nowRatio(ns.AcceptanceRate, compute.FormatPercent(ns.AcceptanceRate, 1)),
			Spark: rate(func(b compute.Stats) compute.Value { return b.AcceptanceRate }), Ratio: true},
		{Name: "mean-acceptance-length", Label: lengthLabel, Tip: TipLength, Sub: LengthFormula(q.Convention),
			Window: s.MeanAcceptanceLength, WindowText: compute.FormatLength(s.MeanAcceptanceLength),
			Now: ns.MeanAcceptanceLength, NowText: nowRatio(ns.MeanAcceptanceLength, compute.FormatLength(ns.MeanAcceptanceLength)),
			Spark: rate(func(b compute.Stats) compute.Value { return b.MeanAcceptanceLength })},
		{Name: "headline-speedup", Label: "Estimated speedup", Sub: fmt.Sprintf("mean length / (1 + c × k), c = %s", strconv.FormatFloat(cost, 'g', -1, 64)),
			Tip:    "Estimated speedup for sequential drafting = mean acceptance length / (1 + c × k) (Leviathan et al., ICML 2023); c is the draft cost ratio of the insights panel below.",
			Window: spW.Speedup, WindowText: Times(spW.Speedup),
			Now: spN.Speedup, NowText: nowRatio(spN.Speedup, Times(spN.Speedup))},
		{Name: "k", Label: "k (speculative tokens)", Tip: TipK, Sub: KSub(m.Ks),
			Window: k, WindowText: KText(s.K), Now: nk, NowText: nowRatio(nk, strconv.Itoa(ns.K))},
		{Name: "drafts-per-second", Label: "Drafts", Tip: TipDrafts, Sub: perData + "; " + compute.FormatCount(s.Drafts, "drafts"),
			Window: s.DraftsPerSecond, WindowText: compute.FormatRate(s.DraftsPerSecond, "drafts/s"),
			Now: ns.DraftsPerSecond, NowText: nowRate(ns.DraftsPerSecond, "drafts/s"),
			Spark: rate(func(b compute.Stats) compute.Value { return b.DraftsPerSecond })},
		{Name: "accepted-throughput", Label: "Accepted throughput", Tip: TipAccepted, Sub: perData + "; " + compute.FormatCount(s.AcceptedTokens, "tokens"),
			Window: s.AcceptedThroughput, WindowText: compute.FormatRate(s.AcceptedThroughput, "tokens/s"),
			Now: ns.AcceptedThroughput, NowText: nowRate(ns.AcceptedThroughput, "tokens/s"),
			Spark: rate(func(b compute.Stats) compute.Value { return b.AcceptedThroughput })},
		{Name: "drafted-throughput", Label: "Drafted throughput", Tip: TipDrafted, Sub: perData + "; " + compute.FormatCount(s.DraftTokens, "tokens"),
			Window: s.DraftedThroughput, WindowText: compute.FormatRate(s.DraftedThroughput, "tokens/s"),
			Now: ns.DraftedThroughput, NowText: nowRate(ns.DraftedThroughput, "tokens/s"),
			Spark: rate(func(b compute.Stats) compute.Value { return b.DraftedThroughput })},
	}
	return Headline{Cards: cards, Now: now, NowLabel: nowLabel, NowTip: nowTip, Covered: covered}
}

// labelNow names the "now" value: "now" (the interval is in the title),
// "stale since 14:02:10: ...", or why there is no now value.
func labelNow(n model.Now, loc *time.Location) string {
	switch n.State {
	case model.NowNone:
		return "now: no complete interval yet"
	case model.NowStale:
		if n.LastData > 0 {
			return "stale since " + time.UnixMilli(n.LastData).In(loc).Format("15:04:05") + ": no samples in the last " + DurationText(float64(n.To-n.From)/1000)
		}
		return "stale: no samples in the last " + DurationText(float64(n.To-n.From)/1000)
	}
	return "now" // the interval is in the line's title (nowTip)
}

// WindowCards is the headline row without a "now" (HeadlineOf): a gauge
// schema's, log input's, or before the first load (res nil: "—"), for
// stats s of res shown for q.
func WindowCards(res *Result, q Query, s compute.Stats) []Card {
	if res == nil {
		s = compute.Stats{}
	}
	ready := res != nil
	var ks []int
	if ready {
		ks = res.Ks
	}
	show := func(text string) string {
		if !ready {
			return "—"
		}
		return text
	}
	k := compute.Value{V: float64(s.K), OK: ready && s.K > 0}
	lengthLabel := "Mean acceptance length"
	if q.Convention == compute.WithoutBonus {
		lengthLabel += " (without bonus token)"
	}
	// A gauge schema (SGLang) has no counters: its cards say so and point
	// to the averaged gauges instead of "no drafts in window".
	gauges := ready && res.Schema != nil && res.Schema.Averaged != nil
	value := func(v compute.Value, text string) string {
		if gauges && !v.OK {
			return "not available: " + res.SchemaName() + " exports gauges, see the averaged numbers"
		}
		return show(text)
	}
	count := func(n float64, what string) string {
		if gauges {
			return "no counters"
		}
		return show(compute.FormatCount(n, what))
	}
	return []Card{
		{Name: "acceptance-rate", Label: "Acceptance rate", Tip: TipRate, Sub: "accepted / draft tokens",
			Window: s.AcceptanceRate, WindowText: value(s.AcceptanceRate, compute.FormatPercent(s.AcceptanceRate, 1))},
		{Name: "mean-acceptance-length", Label: lengthLabel, Tip: TipLength, Sub: LengthFormula(q.Convention),
			Window: s.MeanAcceptanceLength, WindowText: value(s.MeanAcceptanceLength, compute.FormatLength(s.MeanAcceptanceLength))},
		{Name: "k", Label: "k (speculative tokens)", Tip: TipK, Sub: KSub(ks),
			Window: k, WindowText: show(KText(s.K))},
		{Name: "drafts-per-second", Label: "Drafts", Tip: TipDrafts, Sub: count(s.Drafts, "drafts in window"),
			Window: s.DraftsPerSecond, WindowText: value(s.DraftsPerSecond, compute.FormatRate(s.DraftsPerSecond, "drafts/s"))},
		{Name: "accepted-throughput", Label: "Accepted throughput", Tip: TipAccepted, Sub: count(s.AcceptedTokens, "tokens accepted"),
			Window: s.AcceptedThroughput, WindowText: value(s.AcceptedThroughput, compute.FormatRate(s.AcceptedThroughput, "tokens/s"))},
		{Name: "drafted-throughput", Label: "Drafted throughput", Tip: TipDrafted, Sub: count(s.DraftTokens, "tokens drafted"),
			Window: s.DraftedThroughput, WindowText: value(s.DraftedThroughput, compute.FormatRate(s.DraftedThroughput, "tokens/s"))},
	}
}

// KSub is the k card's sub-line: "draft positions", or for a selection
// that mixes k the k it holds ("mixed: k = 4, 6; the largest shown"): the
// card shows the largest k, which the per-position panels and the speedup
// estimate use.
func KSub(ks []int) string {
	if len(ks) < 2 {
		return "draft positions"
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = strconv.Itoa(k)
	}
	return "mixed: k = " + strings.Join(parts, ", ") + "; the largest shown"
}
