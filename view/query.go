package view

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	prommodel "github.com/prometheus/common/model"

	"specdash/chartopt"
	"specdash/compute"
	"specdash/metricsclient"
	"specdash/model"
)

// PanelParams are URL parameters that panels other than Query read (the
// insights panel's draft cost): a canonical link keeps them, and drops
// every other parameter Query did not read.
var PanelParams = []string{CostParam}

// CanonicalURL is the link to the view q: cur's address with only the
// parameters q was read from (Query.Values, the source included) and
// those other panels read (PanelParams); parameters the page ignored
// (unknown, or refused: see Query.Warn) are dropped.
func CanonicalURL(cur *url.URL, q Query) string {
	if cur == nil {
		return ""
	}
	v := q.Values()
	for k, vs := range cur.Query() {
		if slices.Contains(PanelParams, k) {
			v[k] = slices.Clone(vs)
		}
	}
	u := *cur
	u.RawQuery = v.Encode()
	u.Fragment = ""
	return u.String()
}

// CostParam is the URL parameter holding the draft cost ratio of the
// insights panel (?cost=0.05).
const CostParam = "cost"

// ParseCost parses a draft cost ratio as typed by a user or found in the
// URL: a finite number >= 0 (ratio of draft step time to target step
// time). It returns an error message for anything else.
func ParseCost(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !model.ValidCost(v) {
		return 0, fmt.Errorf("draft cost ratio %q: want a number >= 0, e.g. %g (draft step time / target step time)", s, compute.DefaultDraftCostRatio)
	}
	return v, nil
}

// GroupNone is the URL value of "no grouping" (group=none): without a
// group= parameter the dashboard groups per model (Query.Grouping).
const GroupNone = "none"

// Layout URL parameters (not part of Query: they change no data).
const (
	// KioskParam (?kiosk, ?kiosk=20s) is the wall-screen mode: no
	// controls, the page scaled to the screen, and the split charts
	// rotating through the groups every KioskPeriod (or the given period).
	KioskParam = "kiosk"
	// SplitParam (?split=<encodeOption(group key)> or ?split=all) picks
	// the group the per-position, heatmap, token and insights charts show.
	SplitParam = "split"
	// SplitAll is SplitParam's value for the blend of all groups.
	SplitAll = "all"
)

// KioskPeriod is how long the kiosk shows one group.
const KioskPeriod = 15 * time.Second

// Grouping is the effective group-by of q: its GroupBy, or per model
// (model_name) when the URL has no group= parameter. With a single model
// that is one group, shown as the ungrouped view (Result.Ungrouped).
func (q Query) Grouping() []string {
	if q.GroupBy == nil {
		return []string{"model_name"}
	}
	return q.GroupBy
}

// All is the selector value for "no filter".
const All = "all"

// Ranges are the selectable relative window lengths, shortest first ("d"
// is 24 hours).
var Ranges = []string{"5m", "15m", "30m", "1h", "3h", "6h", "12h", "24h", "2d", "7d"}

// Refreshes are the selectable auto-refresh periods; "off" disables it.
var Refreshes = []string{"off", "5s", "10s", "30s", "1m", "5m"}

// Conventions are the URL values of the mean-acceptance-length conventions.
const (
	ConventionBonus   = "bonus"
	ConventionNoBonus = "nobonus"
)

// Themes, time zones and compare modes (URL values).
const (
	ThemeLight = chartopt.ThemeLight
	ThemeDark  = chartopt.ThemeDark

	TZLocal = "local"
	TZUTC   = "utc"

	CompareOff    = ""
	CompareWindow = "window"
	CompareGroups = "groups"
)

// Column keys of the breakdown table (data-cell, the sort parameter).
const (
	ColGroup     = "group"
	ColRate      = "acceptance-rate"
	ColLength    = "mean-acceptance-length"
	ColK         = "k"
	ColDrafts    = "drafts-per-second"
	ColAccepted  = "accepted-throughput"
	filterPrefix = "f."
)

var sortColumns = []string{ColGroup, ColRate, ColLength, ColK, ColDrafts, ColAccepted}

// Query is the dashboard's whole view; it lives in the page URL so that a
// URL reproduces a view:
//
//	source=<name>          data source (kept as given; the server has one upstream)
//	range=15m              relative window (Ranges, or any other up to MaxSpan), or
//	from=<RFC 3339>&to=..  absolute window (Unix ms also accepted)
//	refresh=5s             live mode period (Refreshes)
//	model=..&engine=..     filters on model_name and engine (repeatable: any of)
//	f.<label>=..           filter on any other label (repeatable)
//	group=model_name,engine  group-by labels (none: no grouping; absent: per model, Grouping)
//	convention=nobonus     mean acceptance length without the bonus token
//	theme=dark, tz=utc     look
//	sort=-acceptance-rate  breakdown table order ("-": descending)
//	compare=window&base_from=..&base_to=..  before/after (default: the preceding window)
//	compare=groups&a=<key>&b=<key>           two groups (GroupKey)
type Query struct {
	// Source is an opaque data-source name, round-tripped.
	Source string
	// Range is the relative window length (ValidRange: one of Ranges, or
	// another duration up to MaxSpan; default "15m");
	// ignored when From and To are set.
	Range string
	// From and To are an absolute window in Unix ms (both > 0 and From <
	// To), or 0.
	From, To int64
	// Refresh is the auto-refresh period, one of Refreshes (default "off").
	Refresh string
	// Filter maps a label name to the values to keep (any of them); a label
	// without entry is not filtered.
	Filter map[string][]string
	// GroupBy are the labels the breakdown and the per-group charts use;
	// nil (no group= in the URL) is the default, Grouping: per model.
	GroupBy []string
	// Convention of the mean acceptance length (default WithBonus).
	Convention compute.Convention
	// Theme is ThemeLight or ThemeDark; TZ is TZLocal or TZUTC.
	Theme, TZ string
	// Sort is the breakdown table's sort column ("-" prefix: descending).
	Sort string
	// Compare is CompareOff, CompareWindow or CompareGroups.
	Compare string
	// BaseFrom and BaseTo (Unix ms) are the baseline window of
	// CompareWindow; 0 means the window just before the current one.
	BaseFrom, BaseTo int64
	// CompareA and CompareB are the group keys of CompareGroups.
	CompareA, CompareB string
	// Health are the health thresholds of the URL's health.<name>
	// parameters (model.ParseHealthThresholds; zero fields: defaults).
	Health compute.HealthThresholds
	// Warn says why a window given in the URL was refused (not part of
	// the view: never written back, ignored by SameData).
	Warn string
	// zone is the browser's time zone for TZLocal in the server's
	// pre-render (InZone; never in a URL); nil: time.Local, which in the
	// browser is the browser's own zone.
	zone *time.Location
}

// Limits of an absolute window (URL from/to, base_from/base_to, the time
// inputs): it starts at or after MinTime, ends at most MaxAhead after now
// and spans at most the longest of Ranges.
var (
	MinTime  = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxAhead = 24 * time.Hour
)

// MaxSpan is the longest window offered (the last of Ranges, 7 days).
func MaxSpan() time.Duration {
	d, _ := ParseRange(Ranges[len(Ranges)-1])
	return d
}

// CheckWindow reports why the absolute window from..to (Unix ms) is not
// usable at now: a start not before the end, a start before MinTime, an
// end more than MaxAhead after now, or a span longer than MaxSpan. nil
// when it is usable.
func CheckWindow(from, to int64, now time.Time) error {
	show := func(ms int64) string {
		t := time.UnixMilli(ms).UTC()
		if t.Year() < 1 || t.Year() > 9999 {
			return strconv.FormatInt(ms, 10) + " ms"
		}
		return t.Format(time.RFC3339)
	}
	switch {
	case from <= 0 || to <= 0:
		return errors.New("give both a start and an end")
	case to <= from:
		return fmt.Errorf("the start %s is not before the end %s", show(from), show(to))
	case from < MinTime.UnixMilli():
		return fmt.Errorf("the start %s is before %s", show(from), MinTime.Format("2006-01-02"))
	case to > now.Add(MaxAhead).UnixMilli():
		return fmt.Errorf("the end %s is more than %s in the future", show(to), "1 day")
	case time.Duration(to-from)*time.Millisecond > MaxSpan():
		span := time.Duration(to-from) * time.Millisecond
		return fmt.Errorf("the window spans %s days, more than the longest range offered (%s)",
			strconv.FormatFloat(span.Hours()/24, 'f', 1, 64), Ranges[len(Ranges)-1])
	}
	return nil
}

// DefaultQuery is the view of a URL without parameters.
func DefaultQuery() Query {
	return Query{Range: "15m", Refresh: "off", Theme: ThemeLight, TZ: TZLocal}
}

// ParseRange parses a relative range: a Go duration ("90s", "1h30m") or
// a Prometheus one ("10m", "2d", "1w", "1d12h"); false when it is neither
// or not positive.
func ParseRange(s string) (time.Duration, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, d > 0
	}
	d, err := prommodel.ParseDuration(s)
	return time.Duration(d), err == nil && d > 0
}

// ValidRange reports whether r is a relative range a view may have: one
// of Ranges, or any other positive duration (ParseRange) up to MaxSpan, as
// Grafana takes ?from=now-10m.
func ValidRange(r string) bool {
	d, ok := ParseRange(r)
	return ok && d <= MaxSpan()
}

// parseTime reads an RFC 3339 time or Unix milliseconds; 0 when neither.
func parseTime(s string) int64 {
	if s == "" {
		return 0
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixMilli()
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 0 {
		return ms
	}
	return 0
}

// formatTime is the URL form of a Unix ms time: RFC 3339 in UTC.
func formatTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}

// filterParam is the URL parameter of a filter label.
func filterParam(label string) string {
	switch label {
	case "model_name":
		return "model"
	case "engine":
		return "engine"
	}
	return filterPrefix + label
}

// ParseQuery reads a Query from URL parameters; unknown or invalid values
// fall back to the defaults (invalid label names are dropped).
func ParseQuery(v url.Values) Query { return ParseQueryAt(v, time.Now()) }

// ParseQueryAt is ParseQuery with absolute windows checked against now
// (CheckWindow): a refused window falls back to the relative range and
// Warn says why.
func ParseQueryAt(v url.Values, now time.Time) Query {
	q := DefaultQuery()
	q.Source = v.Get("source")
	// ignored lists the parameters whose values are not understood: they
	// are named in Warn instead of being dropped silently.
	var ignored []string
	ignore := func(key, val string) { ignored = append(ignored, key+"="+strconv.Quote(val)) }
	if r := v.Get("range"); ValidRange(r) {
		q.Range = r
	} else if r != "" {
		ignore("range", r)
	}
	for _, key := range []string{"from", "to", "base_from", "base_to"} {
		if s := v.Get(key); s != "" && parseTime(s) == 0 {
			ignore(key, s)
		}
	}
	from, to := parseTime(v.Get("from")), parseTime(v.Get("to"))
	// One end alone, as Grafana reads it: from it to now, or the range
	// before it.
	if from > 0 && v.Get("to") == "" {
		to = now.UnixMilli()
	} else if to > 0 && v.Get("from") == "" {
		if d, ok := ParseRange(q.Range); ok {
			from = to - d.Milliseconds()
		}
	}
	if from > 0 && to > 0 {
		if err := CheckWindow(from, to, now); err != nil {
			q.Warn = "Time window in the URL ignored (" + err.Error() + "): showing the last " + q.Range + "."
		} else {
			q.From, q.To = from, to
		}
	}
	if r := v.Get("refresh"); slices.Contains(Refreshes, r) {
		q.Refresh = r
	} else if r != "" {
		ignore("refresh", r)
	}
	for key, vals := range v {
		label := ""
		switch {
		case key == "model":
			label = "model_name"
		case key == "engine":
			label = "engine"
		case strings.HasPrefix(key, filterPrefix):
			label = strings.TrimPrefix(key, filterPrefix)
		default:
			continue
		}
		if metricsclient.ValidateLabelName(label) != nil {
			ignore(key, strings.Join(vals, ","))
			continue
		}
		if slices.Contains(vals, All) {
			continue
		}
		q.SetFilter(label, vals)
	}
	if g := strings.TrimSpace(v.Get("group")); v.Has("group") && (g == "" || g == GroupNone) {
		q.GroupBy = []string{} // explicit: no grouping (nil is the default, GroupingOf)
	}
	for _, l := range strings.Split(v.Get("group"), ",") {
		if strings.TrimSpace(l) == GroupNone {
			continue
		}
		l = strings.TrimSpace(l)
		if l != "" && metricsclient.ValidateLabelName(l) != nil {
			ignore("group", l)
		} else if l != "" && !slices.Contains(q.GroupBy, l) {
			q.GroupBy = append(q.GroupBy, l)
		}
	}
	switch c := v.Get("convention"); c {
	case ConventionNoBonus, "no-bonus": // the page's and the CLI's spelling
		q.Convention = compute.WithoutBonus
	case "", ConventionBonus:
	default:
		ignore("convention", c)
	}
	switch t := v.Get("theme"); t {
	case ThemeDark:
		q.Theme = ThemeDark
	case "", ThemeLight:
	default:
		ignore("theme", t)
	}
	switch tz := v.Get("tz"); tz {
	case TZUTC:
		q.TZ = TZUTC
	case "", TZLocal:
	default:
		ignore("tz", tz)
	}
	if s := v.Get("sort"); slices.Contains(sortColumns, strings.TrimPrefix(s, "-")) {
		q.Sort = s
	} else if s != "" {
		ignore("sort", s)
	}
	switch c := v.Get("compare"); c {
	case CompareOff:
	case CompareWindow, CompareGroups:
	default:
		ignore("compare", c)
	}
	switch v.Get("compare") {
	case CompareWindow:
		q.Compare = CompareWindow
		if from, to := parseTime(v.Get("base_from")), parseTime(v.Get("base_to")); from > 0 && to > 0 {
			if err := CheckWindow(from, to, now); err != nil {
				q.Warn = strings.TrimSpace(q.Warn + " Baseline window in the URL ignored (" + err.Error() + "): comparing with the window just before.")
			} else {
				q.BaseFrom, q.BaseTo = from, to
			}
		}
	case CompareGroups:
		q.Compare = CompareGroups
		q.CompareA, q.CompareB = v.Get("a"), v.Get("b")
	}
	var hw []string
	q.Health, hw = model.ParseHealthThresholds(v)
	ignored = append(ignored, hw...)
	if len(ignored) > 0 {
		q.Warn = strings.TrimSpace(q.Warn + " URL parameters not understood, ignored: " + strings.Join(ignored, ", ") + ".")
	}
	return q
}

// SetFilter sets the values of one label filter (deduplicated, sorted);
// no values removes it.
func (q *Query) SetFilter(label string, vals []string) {
	m := make(map[string][]string, len(q.Filter)+1)
	for k, v := range q.Filter {
		m[k] = v
	}
	clean := slices.Clone(vals)
	slices.Sort(clean)
	clean = slices.Compact(clean)
	if len(clean) == 0 {
		delete(m, label)
	} else {
		m[label] = clean
	}
	if len(m) == 0 {
		m = nil
	}
	q.Filter = m
}

// Values encodes q as URL parameters (the range always, so a shared URL
// keeps its window even if defaults change, and with from/to as the range
// to go back to in live mode; other defaults are left out).
func (q Query) Values() url.Values {
	v := url.Values{}
	if q.Source != "" {
		v.Set("source", q.Source)
	}
	v.Set("range", q.Range) // with from/to: the range "Live" returns to
	if q.Absolute() {
		v.Set("from", formatTime(q.From))
		v.Set("to", formatTime(q.To))
	}
	if q.Refresh != "off" && q.Refresh != "" {
		v.Set("refresh", q.Refresh)
	}
	for _, l := range q.FilterLabels() {
		for _, val := range q.Filter[l] {
			v.Add(filterParam(l), val)
		}
	}
	if len(q.GroupBy) > 0 {
		v.Set("group", strings.Join(q.GroupBy, ","))
	} else if q.GroupBy != nil {
		v.Set("group", GroupNone)
	}
	if q.Convention == compute.WithoutBonus {
		v.Set("convention", ConventionNoBonus)
	}
	if q.Theme == ThemeDark {
		v.Set("theme", ThemeDark)
	}
	if q.TZ == TZUTC {
		v.Set("tz", TZUTC)
	}
	if q.Sort != "" {
		v.Set("sort", q.Sort)
	}
	model.HealthValues(q.Health, v)
	switch q.Compare {
	case CompareWindow:
		v.Set("compare", CompareWindow)
		if q.BaseFrom > 0 && q.BaseTo > q.BaseFrom {
			v.Set("base_from", formatTime(q.BaseFrom))
			v.Set("base_to", formatTime(q.BaseTo))
		}
	case CompareGroups:
		v.Set("compare", CompareGroups)
		if q.CompareA != "" {
			v.Set("a", q.CompareA)
		}
		if q.CompareB != "" {
			v.Set("b", q.CompareB)
		}
	}
	return v
}

// ownParams are the URL parameters Query reads and writes (besides the
// "f." filter prefix).
var ownParams = []string{"source", "range", "from", "to", "refresh", "model", "engine", "group", "convention",
	"theme", "tz", "sort", "compare", "base_from", "base_to", "a", "b"}

// MergeValues is the URL of a new view: q's own parameters (from Values)
// replace those of cur; parameters other panels keep in the URL (such as
// the insights panel's cost) are kept.
func MergeValues(cur, own url.Values) url.Values {
	out := url.Values{}
	for k, vs := range cur {
		if slices.Contains(ownParams, k) || strings.HasPrefix(k, filterPrefix) {
			continue
		}
		out[k] = slices.Clone(vs)
	}
	for k, vs := range own {
		out[k] = slices.Clone(vs)
	}
	return out
}

// FilterLabels are the filtered label names, sorted.
func (q Query) FilterLabels() []string {
	out := make([]string, 0, len(q.Filter))
	for l := range q.Filter {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Filters returns the metricsclient filters that q selects (sorted by
// label name).
func (q Query) Filters() []metricsclient.Filter {
	var f []metricsclient.Filter
	for _, l := range q.FilterLabels() {
		f = append(f, metricsclient.Filter{Name: l, Values: slices.Clone(q.Filter[l])})
	}
	return f
}

// Absolute reports whether q has an absolute window (From, To).
func (q Query) Absolute() bool { return q.From > 0 && q.To > q.From }

// RangeDuration is the window length of q: To - From for an absolute
// window, else the relative range (15 minutes when invalid).
func (q Query) RangeDuration() time.Duration {
	if q.Absolute() {
		return time.Duration(q.To-q.From) * time.Millisecond
	}
	d, ok := ParseRange(q.Range)
	if !ok {
		return 15 * time.Minute
	}
	return d
}

// RefreshDuration is the auto-refresh period of q, 0 when off.
func (q Query) RefreshDuration() time.Duration {
	d, err := time.ParseDuration(q.Refresh)
	if err != nil {
		return 0
	}
	return d
}

// Grid is the step-aligned grid q covers when loaded at now: step =
// metricsclient.ChooseStep(window, scrape) and AlignGrid at the window's
// end (now for a relative range, To for an absolute one). The end is
// rounded down to the step, so a refresh never moves bucket boundaries.
func (q Query) Grid(scrape time.Duration, now time.Time) compute.Grid {
	rng := q.RangeDuration()
	step := metricsclient.ChooseStep(rng, scrape)
	end := now
	if q.Absolute() {
		end = time.UnixMilli(q.To)
	}
	return metricsclient.AlignGrid(end, rng, step)
}

// BaselineGrid is the "before" window of CompareWindow for the current
// grid g: BaseFrom..BaseTo aligned to g's step, or the window of the same
// length that ends where g starts.
func (q Query) BaselineGrid(g compute.Grid) compute.Grid {
	if q.BaseFrom > 0 && q.BaseTo > q.BaseFrom {
		return metricsclient.AlignGrid(time.UnixMilli(q.BaseTo), time.Duration(q.BaseTo-q.BaseFrom)*time.Millisecond, time.Duration(g.Step)*time.Millisecond)
	}
	return compute.Grid{Start: 2*g.Start - g.End, End: g.Start, Step: g.Step}
}

// Location is the time zone q shows times in.
func (q Query) Location() *time.Location {
	if q.TZ == TZUTC {
		return time.UTC
	}
	if q.zone != nil {
		return q.zone
	}
	return time.Local
}

// InZone is q showing "local" times in loc: the server's pre-render of a
// page for a browser whose zone the server knows (ZoneFragment), which
// time.Local (the server's) is not.
func (q Query) InZone(loc *time.Location) Query {
	q.zone = loc
	return q
}

// ZoneCookie is the cookie in which web/static/boot.js gives the server
// the browser's IANA time zone, and ZoneFragment the prefix under which
// the server hands it to the pre-render as the page URL's fragment (a
// browser never sends one): the pre-rendered page then shows "local"
// times in the browser's zone (app/prerender.go).
const (
	ZoneCookie   = "specdash_tz"
	ZoneFragment = "specdash-tz="
)

// ServerZoneCookie is the cookie the server sets on a dashboard page it
// pre-renders in its own zone because the request named no zone it knows
// (a first visit): the server zone's UTC offset now, in seconds east of
// UTC. When the browser's differs, web/static/boot.js asks for the page
// once more, with its ZoneCookie, from the page's head, so that a first
// visit from another zone gets the preview too (before, preview.js skipped
// it: its times were the server's).
const ServerZoneCookie = "specdash_tz_server"

// BrowserZone returns the location named by a ZoneCookie value: an IANA
// name of at most 64 characters (letters, digits, "/", "_", "+", "-")
// that time.LoadLocation knows; ok false for anything else ("Local" and
// "" included).
func BrowserZone(name string) (loc *time.Location, ok bool) {
	if name == "" || len(name) > 64 || name == "Local" {
		return nil, false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/_+-", c)) {
			return nil, false
		}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// SameData reports whether q and o select the same data (they may differ in
// refresh period, theme, time zone, sort order and compared groups), so
// that numbers loaded for o may stay shown for q.
func (q Query) SameData(o Query) bool {
	return q.Source == o.Source && q.Range == o.Range && q.From == o.From && q.To == o.To &&
		sameFilter(q.Filter, o.Filter) && slices.Equal(q.GroupBy, o.GroupBy) && (q.GroupBy == nil) == (o.GroupBy == nil) && q.Convention == o.Convention &&
		(q.Compare == CompareWindow) == (o.Compare == CompareWindow) && q.BaseFrom == o.BaseFrom && q.BaseTo == o.BaseTo &&
		q.Health == o.Health
}

func sameFilter(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// valuePrefix starts an encoded label value (the "all" option is plain).
const valuePrefix = "v:"

// encodeOption is the <option value> of a label value: base64url, so that
// no label value (a model name may hold quotes and angle brackets) ever
// lands raw in an HTML attribute. go-app v10.1.11 writes attributes of the
// pre-rendered page with strconv.Quote, which is not HTML escaping, so a
// raw value from the URL would be an injection. It also keeps a model
// called "all" apart from the "all" option.
func EncodeOption(v string) string {
	return valuePrefix + base64.RawURLEncoding.EncodeToString([]byte(v))
}

// decodeOption inverts encodeOption; "all" (or anything undecodable) is
// "" (no filter).
func DecodeOption(v string) string {
	s, _ := DecodeOptionOK(v)
	return s
}

// DecodeOptionOK is DecodeOption with false for a value that is not an
// encoded label value.
func DecodeOptionOK(v string) (string, bool) {
	enc, ok := strings.CutPrefix(v, valuePrefix)
	if !ok {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// Layout is the view state beyond Query that the URL holds: its layout
// parameters, which change no data (MergeValues keeps them).
type Layout struct {
	// Cost is the draft cost ratio of the speedup card (CostParam; the
	// insights panel's), when CostSet.
	Cost    float64
	CostSet bool
	// Split is the group the split charts show (SplitParam): a group
	// key, SplitAll, or "" (the default: the blend).
	Split string
	// Kiosk is the wall-screen mode (KioskParam), rotating the split
	// charts through the groups every Period.
	Kiosk  bool
	Period time.Duration
}

// ParseLayout reads the layout parameters of v; invalid ones are ignored.
func ParseLayout(v url.Values) Layout {
	var l Layout
	if c, err := ParseCost(v.Get(CostParam)); err == nil && v.Get(CostParam) != "" {
		l.Cost, l.CostSet = c, true
	}
	if s := v.Get(SplitParam); s == SplitAll {
		l.Split = SplitAll
	} else if key, ok := DecodeOptionOK(s); ok {
		l.Split = key
	}
	l.Kiosk = v.Has(KioskParam)
	l.Period = KioskPeriod
	if p, err := time.ParseDuration(v.Get(KioskParam)); err == nil && p >= time.Second {
		l.Period = p
	}
	return l
}

// CostOr is the speedup card's draft cost ratio: Cost, or
// compute.DefaultDraftCostRatio when the URL gives none.
func (l Layout) CostOr() float64 {
	if l.CostSet {
		return l.Cost
	}
	return compute.DefaultDraftCostRatio
}

// InputWindow is the window the From/To inputs show: q's absolute window,
// else the loaded grid of res, else none (0, 0).
func (q Query) InputWindow(res *Result) (from, to int64) {
	switch {
	case q.Absolute():
		return q.From, q.To
	case res != nil:
		return res.Grid.Start, res.Grid.End
	}
	return 0, 0
}

// TZName names q's time zone for the inputs' labels: "local" or "UTC".
func (q Query) TZName() string {
	if q.TZ == TZUTC {
		return "UTC"
	}
	return "local"
}

// ShownGrouping is the group-by the page shows (checkboxes, table): the
// one res was loaded with, else q's; nil when the default per-model
// grouping found one model (Result.Ungrouped) or q has none.
func ShownGrouping(res *Result, q Query) []string {
	if res != nil {
		if res.Ungrouped() {
			return nil
		}
		return res.Request.GroupBy
	}
	return q.GroupBy
}

// CostOf reads a draft cost ratio the URL gives (raw, not empty): the
// cost and that it is set, or, when raw is no cost, the current one (cur,
// set) kept and why, naming it.
func CostOf(raw string, cur float64, set bool) (cost float64, isSet bool, problem string) {
	v, err := ParseCost(raw)
	if err != nil {
		return cur, set, err.Error() + "; using " + strconv.FormatFloat(cur, 'g', -1, 64)
	}
	return v, true, ""
}
