package view

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"specdash/compute"
	"specdash/model"
)

// textLayout is the From/To inputs' format (ParseLocalInput also reads
// datetime-local's "T" form).
const textLayout = "2006-01-02 15:04:05"

// DurationText is a measured span on the cards ("per s of data, 1m 20s",
// "the last complete 1m"): compute.SpanText, the form of the notes, the
// coverage note and `specdash report`, so that one screen names one span
// one way; "0s" for none.
func DurationText(sec float64) string {
	if !(sec > 0) || math.IsInf(sec, 0) {
		return compute.SpanText(0)
	}
	return compute.SpanText(int64(math.Round(sec * 1000)))
}

// coverageText is the dashboard's coverage note: the rates on the cards
// and in the breakdown table are per second of data
// (model.Model.CoveredStatsOf), as in `specdash report`.
func coverageText(res *Result) string {
	g := res.Grid
	covered := int64(math.Round(res.CoveredSeconds() * 1000))
	return "Data covers the last " + compute.SpanText(covered) + " of this " + compute.SpanText(g.End-g.Start) +
		" window; the rates (drafts/s, tokens/s) on the cards and in the breakdown table are per second of data (" +
		compute.SpanText(covered) + ")."
}

func windowText(start, end int64, loc *time.Location) string {
	return time.UnixMilli(start).In(loc).Format("01-02 15:04:05") + " – " + time.UnixMilli(end).In(loc).Format("01-02 15:04:05")
}

// SignedPoints formats a difference of ratios in percentage points
// ("+1.5 pp", "0.0 pp").
func SignedPoints(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return Signed(v.V*100, 1) + " pp"
}

// Signed prints a difference with decimals decimals and an explicit sign,
// except for a value that rounds to zero (and -0): "0.00", never "-0.00"
// or "+0.00".
func Signed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-+0.") == "" {
		return strings.TrimPrefix(s, "-")
	}
	if v > 0 {
		return "+" + s
	}
	return s
}

// Verdict is a comparison's verdict in words and its class ("yes", "no",
// "na": not tested).
func Verdict(c compute.Comparison) (string, string) {
	switch {
	case c.Reason != "":
		return c.Reason, "na"
	case !c.Significant:
		return "no: within chance", "no"
	case c.Difference.V > 0:
		return "yes: B higher", "yes"
	default:
		return "yes: B lower", "yes"
	}
}

// DirectionClass colours a significant difference by what it means: a
// higher acceptance rate in B is better (green), a lower one worse (red);
// "" when not significant.
func DirectionClass(c compute.Comparison) string {
	switch {
	case c.Reason != "" || !c.Significant || !c.Difference.OK:
		return ""
	case c.Difference.V > 0:
		return "compare-better"
	case c.Difference.V < 0:
		return "compare-worse"
	}
	return ""
}

// PCell is a p-value as the report and the change notes print it
// (model.PText): three decimals, "< 0.001" below that (not "0" or
// "4.87e-297"); compute.Undefined without one.
func PCell(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return strings.TrimPrefix(strings.TrimPrefix(model.PText(v.V), "p = "), "p ")
}

// inputLayout is the value format of <input type=datetime-local step=1>.
const inputLayout = "2006-01-02T15:04:05"

// ParseLocalInput reads a datetime-local value in loc; 0 when empty or
// invalid.
func ParseLocalInput(v string, loc *time.Location) int64 {
	v = strings.TrimSpace(v)
	for _, layout := range []string{inputLayout, "2006-01-02T15:04", textLayout, "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

// FormatLocalInput is a From/To input's value for Unix ms ms in loc (in
// TextLayout); "" for no time.
func FormatLocalInput(ms int64, loc *time.Location) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).In(loc).Format(textLayout)
}

// HealthTone is the tile's look for a state: "bad" (collapsed), "warn"
// (degraded, cliff, loop), "ok" (healthy), "none" (idle, not enough
// data); and its sign, so that the state never shows by colour alone.
func HealthTone(s compute.HealthState) (tone, sign string) {
	switch s {
	case compute.Healthy:
		return "ok", "✓"
	case compute.Collapsed:
		return "bad", "✕"
	case compute.Degraded, compute.PositionCliff, compute.SuspectedLoop:
		return "warn", "⚠"
	}
	return "none", "–"
}

// ChangeTime shows a change's time in loc: "14:05", with the date when the
// window spans more than a day.
func ChangeTime(ms int64, g compute.Grid, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	if g.End-g.Start > 24*3600*1000 {
		return t.Format("Jan 2 15:04")
	}
	return t.Format("15:04")
}

// TipHealth is the breakdown's health column's header tip.
const TipHealth = "Health verdict of the group over the window (collapsed, degraded, position cliff, suspected loop, healthy, idle, not enough data; docs/ALERTING.md). The tile at the top has the numbers."

// Times formats a speedup ratio: "2.43×"; undefined prints compute.Undefined.
func Times(v compute.Value) string {
	if !v.OK {
		return compute.Undefined
	}
	return strconv.FormatFloat(v.V, 'f', 2, 64) + "×"
}

// ReasonText is why an insight is undefined; compute.Undefined without a
// reason.
func ReasonText(r string) string {
	if r == "" {
		return compute.Undefined
	}
	return r
}

// SourceName prints a group's labels for people: "container vllm-0,
// engine 0", or "(no container or engine in the prefix)".
func SourceName(labels map[string]string) string {
	var parts []string
	for _, n := range []string{"container", "model_name", "engine", "prefix", "format", "k"} {
		if v := labels[n]; v != "" {
			parts = append(parts, strings.ReplaceAll(n, "_", " ")+" "+v)
		}
	}
	if len(parts) == 0 {
		return "(no container or engine in the line prefix)"
	}
	return strings.Join(parts, ", ")
}

// LengthFormula is the mean acceptance length's formula in convention c.
func LengthFormula(c compute.Convention) string {
	if c == compute.WithoutBonus {
		return "accepted / drafts (without bonus token)"
	}
	return "1 + accepted / drafts"
}

// RefreshOr is the refresh select's value: "off" when none.
func RefreshOr(r string) string {
	if r == "" {
		return "off"
	}
	return r
}

// CoverageNote is the view model's coverage note (model.Model.CoverageNote)
// for the dashboard (cards and charts), "" when the data covers (almost)
// the whole window or there is none.
func CoverageNote(res *Result) string {
	if res.Model.CoverageNote() == "" {
		return ""
	}
	return coverageText(res) // the cards' rates are per second of data
}

// Plain is the data-value form of a number: a plain decimal that parses
// back to the same float64.
func Plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// SplitUnit splits "2.80 tokens/draft" into the number and its unit, so the
// unit can be set smaller than the number.
func SplitUnit(text string) (num, unit string, ok bool) {
	num, unit, ok = strings.Cut(text, " ")
	if !ok || num == "" || strings.Trim(num, "0123456789.-+e") != "" {
		return "", "", false
	}
	return num, unit, true
}

// Tooltips of the numbers: what each is, with its formula.
const (
	TipRate     = "Acceptance rate = accepted tokens / draft tokens over the window (ratio of sums over all selected series). Counters: vllm:spec_decode_num_accepted_tokens_total, vllm:spec_decode_num_draft_tokens_total."
	TipLength   = "Mean acceptance length = 1 + accepted tokens / drafts: tokens produced per verification step, the bonus token included (vLLM PR 17908). Without the bonus token: accepted / drafts."
	TipK        = "k = num_speculative_tokens: the number of draft positions seen in vllm:spec_decode_num_accepted_tokens_per_pos_total."
	TipDrafts   = "Drafts per second = increase of vllm:spec_decode_num_drafts_total / window seconds. One draft is one request in one verification step that carried draft tokens."
	TipAccepted = "Accepted throughput = accepted tokens / window seconds (tokens/s)."
	TipDrafted  = "Drafted throughput = draft tokens / window seconds (tokens/s)."
)

// ZoneName is the name of the time zone loc at Unix ms ms ("UTC", "UTC-4"
// in a New York summer, "UTC-5" in its winter).
func ZoneName(loc *time.Location, ms int64) string {
	if loc == time.UTC {
		return "UTC"
	}
	name, _ := time.UnixMilli(ms).In(loc).Zone()
	return name
}

// LifetimeText prints a lifetime ratio as a percentage, "n/a (one series
// needed)" when undefined (no series, or several servers' ratios).
func LifetimeText(v compute.Value) string {
	if !v.OK {
		return compute.UndefinedShort + " (one series needed)"
	}
	return compute.FormatPercent(v, 1)
}

// TipPerData ends the rate columns' tips: which seconds they are per.
const TipPerData = " Per second of data: from the first bucket with a sample to the window's end, as the cards (the same seconds for every row)."

// StepText is a grid's step as a duration ("1m0s"); "step" without one.
func StepText(g compute.Grid) string {
	if g.Step <= 0 {
		return "step"
	}
	return (time.Duration(g.Step) * time.Millisecond).String()
}

// HeatmapNote is the heatmap's subtitle: the width of its columns (a run
// of buckets on long windows: model.HeatmapFactor).
func HeatmapNote(g compute.Grid) string {
	if g.Step <= 0 {
		return "Colour: accepted at position / drafts, per column; blank: no drafts. Select a span to zoom."
	}
	col := g
	if f := model.HeatmapFactor(g.Buckets()); f > 1 {
		col.Step *= int64(f)
		return "Colour: accepted at position / drafts, per " + StepText(col) + " column (" + strconv.Itoa(f) + " buckets of " + StepText(g) + "); blank: no drafts. Select a span to zoom."
	}
	return "Colour: accepted at position / drafts, per " + StepText(g) + " bucket; blank: no drafts. Select a span to zoom."
}

// BucketNote is a time chart's subtitle: its formula per bucket of g,
// with how gaps and incomplete buckets show.
func BucketNote(g compute.Grid, formula string) string {
	if g.Step <= 0 {
		return formula + ", per step."
	}
	return fmt.Sprintf("%s, per %s bucket; gaps: no drafts; shaded: incomplete (still being scraped). Select a span to zoom.", formula, StepText(g))
}

// LiveText is what the page's live region says: loading, the headline
// (title) of the load error err, or
// that the numbers are loaded.
func LiveText(loading bool, res *Result, err error, title string) string {
	switch {
	case loading && res == nil:
		return "Loading the numbers…"
	case err != nil && res != nil:
		return "Refresh failed; the numbers shown are stale. " + title
	case err != nil:
		return title
	case res != nil:
		// Constant while refreshes succeed: announced once, and again
		// after a failure, not at every auto-refresh.
		return "Numbers loaded."
	}
	return ""
}

// PerDataText is " (25m 30s)": the seconds the rates are per, when the
// data covers less than the window; "" otherwise.
func (res *Result) PerDataText() string {
	if res == nil {
		return ""
	}
	g := res.Grid
	covered := int64(res.CoveredSeconds() * 1000)
	if covered <= 0 || covered >= g.End-g.Start {
		return ""
	}
	return " (" + compute.SpanText(covered) + " of the " + compute.SpanText(g.End-g.Start) + " window)"
}

// FooterWindow is the footer's line about the window of res shown for q:
// its times, length, step and counter series; "" before a load.
func FooterWindow(res *Result, q Query) string {
	if res == nil {
		return ""
	}
	g, loc := res.Grid, q.Location()
	return fmt.Sprintf("Window %s – %s %s (%s, step %s), %d counter series",
		time.UnixMilli(g.Start).In(loc).Format("2006-01-02 15:04:05"), time.UnixMilli(g.End).In(loc).Format("15:04:05"), ZoneName(loc, g.End),
		time.Duration(g.End-g.Start)*time.Millisecond, time.Duration(g.Step)*time.Millisecond, res.Series)
}

// Status is the load status the controls show: "loading", "failed" with
// the load error's headline (title), "updated" with the time res was
// loaded (in loc), or "idle" before anything.
func Status(loading bool, err error, title string, res *Result, loc *time.Location) (status, text string) {
	switch {
	case loading:
		return "loading", "Loading…"
	case err != nil:
		return "failed", title
	case res != nil:
		return "updated", "Updated " + res.At.In(loc).Format("15:04:05")
	}
	return "idle", ""
}

// OtherNotes are the notes of res shown as messages besides its coverage
// note (CoverageNote, shown with the charts' reading): the model's notes
// and the counter checks' violations.
func (res *Result) OtherNotes() []string {
	var out []string
	cov := res.Model.CoverageNote()
	for _, n := range res.Notes {
		if n != cov {
			out = append(out, n)
		}
	}
	for _, v := range res.Stats.Violations {
		out = append(out, "Counter check: "+v)
	}
	return out
}

// SpeedupSub is the line under the insights panel's speedup estimate of d:
// its inputs, or why it is undefined ("" when the reason is just
// compute.Undefined).
func SpeedupSub(d model.Estimates) string {
	s := d.Speedup
	if s.Speedup.OK {
		kText := strconv.FormatFloat(s.K, 'f', -1, 64)
		if s.KFromDraftTokens {
			kText = strconv.FormatFloat(s.K, 'f', 2, 64) + " (draft tokens / drafts)"
		}
		return fmt.Sprintf("%s tokens per target pass / (1 + %s × %s draft tokens)",
			strconv.FormatFloat(s.TokensPerTargetPass.V, 'f', 2, 64), strconv.FormatFloat(d.Cost, 'g', -1, 64), kText)
	}
	if s.Reason != compute.Undefined {
		return s.Reason
	}
	return ""
}

// BestKNote qualifies the best k of b: it does not pay off, it lies beyond
// the observed k, or at the search limit ("" when none applies).
func BestKNote(b compute.BestK) string {
	note := ""
	switch {
	case b.BestK == 0:
		note = " (speculation does not pay off at this c)"
	case b.BestExtrapolated:
		note = " (extrapolated beyond the observed k with the fit)"
	}
	if b.AtSearchLimit {
		note += " (at the search limit)"
	}
	return note
}

// ITLSub is the line under the latency panel's p50: the histogram read and
// its number of steps, "not read" when the read failed, or what the card
// shows when there is no histogram (its value line says that: "– no
// inter-token latency histogram").
func ITLSub(l *model.Latency) string {
	switch {
	case l.Err != nil:
		return "not read"
	case l.ITLMetric == "":
		return "median, per engine step"
	}
	return l.ITLMetric + " (" + l.ITLKind() + " histogram), " + compute.FormatCount(l.ITL.Observations, "") + " steps in the window"
}

// ShareSub is the line under the share of output from accepted drafts of
// m: the counts it divides, or its formula when undefined.
func ShareSub(m *model.Model) string {
	l := m.Latency
	if !l.OutputShare.OK {
		return "accepted tokens / output tokens"
	}
	return compute.FormatCount(m.Total.Total.AcceptedTokens, "") + " accepted of " + compute.FormatCount(l.GenerationTokens, "") + " output tokens (" + l.GenerationMetric + ")"
}

// LoadBinTexts are a load bin's acceptance rate, mean ITL and estimated
// speedup as the load table prints them (model.Dash and why when
// undefined).
func LoadBinTexts(b compute.LoadBin) (rate, itl, speedup string) {
	rate, itl, speedup = model.Dash+" no draft tokens", model.Dash+" no ITL observations", model.Dash+" "+b.Speedup.Reason
	if b.AcceptanceRate.OK {
		rate = compute.FormatPercent(b.AcceptanceRate, 1)
	}
	if b.MeanITL.OK {
		itl = model.FormatMs(b.MeanITL)
	}
	if b.Speedup.Speedup.OK {
		speedup = Times(b.Speedup.Speedup)
	}
	return rate, itl, speedup
}

// EmptyText is what a chart without data says in the page's state
// (data-state: "loading", "error", "ready", "preview").
func EmptyText(state string) string {
	switch state {
	case "loading":
		return "Loading…"
	case "error":
		return "no data: see the message above"
	}
	return "no drafts in window"
}

// KText is k as the cards and the table print it: "unknown" for none.
func KText(k int) string {
	if k <= 0 {
		return "unknown"
	}
	return strconv.Itoa(k)
}

// PageState is the dashboard root's data-state: "preview" (numbers
// pre-rendered by the server, before the browser's own first load),
// "ready" (numbers shown), "error" (a load failed, nothing shown) or
// "loading".
func PageState(loaded, preview bool, err error) string {
	switch {
	case loaded && preview:
		return "preview"
	case loaded:
		return "ready"
	case err != nil:
		return "error"
	}
	return "loading"
}

// ThemeLabel is the theme button's text in theme: the theme it switches
// to.
func ThemeLabel(theme string) string {
	if theme == ThemeDark {
		return "Light theme"
	}
	return "Dark theme"
}

// AveragedLengthUnit is the unit of a gauge schema's (SGLang's) averaged
// mean acceptance length in convention c.
func AveragedLengthUnit(c compute.Convention) string {
	if c == compute.WithoutBonus {
		return "tokens/draft, without bonus token (SGLang's value − 1)"
	}
	return "tokens/draft, bonus token included"
}

// ErrorText is the message of a failed load (err at errAt): the error, and
// when older numbers (res) stay shown, that they are stale and from when
// (times in loc, the page's time zone).
func ErrorText(err error, errAt time.Time, res *Result, loc *time.Location) string {
	if res == nil {
		return err.Error()
	}
	return "Refresh failed at " + errAt.In(loc).Format("15:04:05") + "; showing the numbers from " + res.At.In(loc).Format("15:04:05") + " (stale). " + err.Error()
}

// RetryText is added to the message of a load that found no data while
// the page retries every scrape interval (tries so far of MaxEmptyRetries).
func RetryText(scrape time.Duration, tries int) string {
	return fmt.Sprintf(" — no data yet: retrying every %s (%d of %d)", scrape, tries, MaxEmptyRetries(scrape))
}

// RateIntervalSub is the line under the acceptance rate's Wilson interval
// r: the estimate and its number of draft tokens.
func RateIntervalSub(r compute.Interval) string {
	return fmt.Sprintf("around %s of %s draft tokens (tokens of one draft are not independent: read the per-position intervals too)",
		compute.FormatPercent(r.Estimate, 1), compute.FormatCount(r.Trials, ""))
}

// Fitted is the geometric fit's rate at position i (undefined past its
// curve).
func Fitted(f compute.GeometricFit, i int) compute.Value {
	if i < len(f.Curve) {
		return f.Curve[i]
	}
	return compute.Value{}
}
