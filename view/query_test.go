package view

import (
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

func TestQueryURL(t *testing.T) {
	v, _ := url.ParseQuery("range=1h&refresh=10s&model=" + url.QueryEscape(`Llama "8B" x`) + "&engine=1&convention=nobonus")
	q := ParseQuery(v)
	want := DefaultQuery()
	want.Range, want.Refresh, want.Convention = "1h", "10s", compute.WithoutBonus
	want.Filter = map[string][]string{"model_name": {`Llama "8B" x`}, "engine": {"1"}}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("ParseQuery = %+v, want %+v", q, want)
	}
	if back := ParseQuery(q.Values()); !reflect.DeepEqual(back, q) {
		t.Errorf("round trip %+v -> %q -> %+v", q, q.Values().Encode(), back)
	}
	if q.RangeDuration() != time.Hour || q.RefreshDuration() != 10*time.Second {
		t.Errorf("durations %v %v", q.RangeDuration(), q.RefreshDuration())
	}
	// The CLI's spelling of the convention works in the URL too.
	if c := ParseQuery(url.Values{"convention": {"no-bonus"}}); c.Convention != compute.WithoutBonus || c.Warn != "" {
		t.Errorf("convention=no-bonus: %v, warn %q", c.Convention, c.Warn)
	}

	// Invalid values fall back to the defaults; "all" is no filter.
	v, _ = url.ParseQuery("range=8d&refresh=1s&model=all&engine=all&convention=bogus&theme=pink&tz=mars&sort=x&compare=y&group=bad-label,__name__,position&f.bad-name=1&from=yesterday&to=1")
	q = ParseQuery(v)
	// ... and Warn names each one (shown on the page) instead of dropping it silently.
	for _, want := range []string{`range="8d"`, `refresh="1s"`, `convention="bogus"`, `theme="pink"`, `tz="mars"`, `sort="x"`, `compare="y"`, `group="bad-label"`, `f.bad-name="1"`, `from="yesterday"`} {
		if !strings.Contains(q.Warn, want) {
			t.Errorf("Warn %q does not name %s", q.Warn, want)
		}
	}
	if strings.Contains(q.Warn, "engine") || strings.Contains(q.Warn, "model") {
		t.Errorf("Warn %q names the valid \"all\" filters", q.Warn)
	}
	q.Warn = ""
	if !reflect.DeepEqual(q, DefaultQuery()) {
		t.Errorf("ParseQuery(invalid) = %+v, want the default %+v", q, DefaultQuery())
	}
	if d := (Query{Range: "24h"}).RangeDuration(); d != 24*time.Hour {
		t.Errorf("24h = %v", d)
	}
	if d := (Query{Range: "7d"}).RangeDuration(); d != 7*24*time.Hour {
		t.Errorf("7d = %v", d)
	}
	if (Query{Refresh: "off"}).RefreshDuration() != 0 {
		t.Errorf("refresh off is not 0")
	}
	if !(Query{Range: "5m", Refresh: "off"}).SameData(Query{Range: "5m", Refresh: "5s", Theme: ThemeDark, TZ: TZUTC, Sort: "-k"}) {
		t.Errorf("refresh period or look changes the data selection")
	}
	a, b := DefaultQuery(), DefaultQuery()
	b.SetFilter("job", []string{"x"})
	if a.SameData(b) {
		t.Errorf("a filter does not change the data selection")
	}
}

// Every parameter set: parsing gives exactly the view, and Values gives it
// back (the shared link reproduces the view).
func TestQueryURLEveryParameter(t *testing.T) {
	raw := url.Values{
		"source":     {"prod eu"},
		"from":       {"2025-03-01T10:00:00Z"},
		"to":         {"2025-03-01T11:30:00Z"},
		"range":      {"6h"},
		"refresh":    {"30s"},
		"model":      {"b-model", `a "model" <x>`},
		"engine":     {"0"},
		"f.instance": {"10.0.0.1:8000", "10.0.0.2:8000"},
		"f.job":      {""},
		"group":      {"model_name,instance"},
		"convention": {"nobonus"},
		"theme":      {"dark"},
		"tz":         {"utc"},
		"sort":       {"-drafts-per-second"},
		"compare":    {"window"},
		"base_from":  {"2025-03-01T08:00:00Z"},
		"base_to":    {"2025-03-01T09:30:00Z"},
	}
	q := ParseQuery(raw)
	want := Query{
		Source: "prod eu", Range: "6h",
		From: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC).UnixMilli(), To: time.Date(2025, 3, 1, 11, 30, 0, 0, time.UTC).UnixMilli(),
		Refresh: "30s",
		Filter: map[string][]string{"model_name": {`a "model" <x>`, "b-model"}, "engine": {"0"},
			"instance": {"10.0.0.1:8000", "10.0.0.2:8000"}, "job": {""}},
		GroupBy: []string{"model_name", "instance"}, Convention: compute.WithoutBonus,
		Theme: ThemeDark, TZ: TZUTC, Sort: "-drafts-per-second", Compare: CompareWindow,
		BaseFrom: time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC).UnixMilli(), BaseTo: time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC).UnixMilli(),
	}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("ParseQuery =\n%+v\nwant\n%+v", q, want)
	}
	out := q.Values()
	if back := ParseQuery(out); !reflect.DeepEqual(back, q) {
		t.Errorf("round trip changed the view: %q -> %+v", out.Encode(), back)
	}
	// An absolute window wins over the range, and the URL says so.
	if out.Get("range") != "6h" || out.Get("from") != "2025-03-01T10:00:00Z" || out.Get("to") != "2025-03-01T11:30:00Z" {
		t.Errorf("window params %q", out.Encode())
	}
	if q.RangeDuration() != 90*time.Minute {
		t.Errorf("absolute window length %v, want 1h30m", q.RangeDuration())
	}
	// The grid of an absolute window ends at To and is aligned to its step.
	g := q.Grid(15*time.Second, time.Now())
	if g.End != q.To || g.Start != q.From || (g.End-g.Start)%g.Step != 0 || g.End%g.Step != 0 {
		t.Errorf("grid %+v for window %d..%d", g, q.From, q.To)
	}
	// Unix ms are accepted too.
	v2 := url.Values{"from": {strconv.FormatInt(q.From, 10)}, "to": {strconv.FormatInt(q.To, 10)}}
	if p := ParseQuery(v2); p.From != q.From || p.To != q.To {
		t.Errorf("Unix ms window: %d..%d", p.From, p.To)
	}
	// Groups compare mode keeps its keys.
	g2 := ParseQuery(url.Values{"compare": {"groups"}, "a": {`["x"]`}, "b": {`["y"]`}, "group": {"model_name"}})
	if g2.Compare != CompareGroups || g2.CompareA != `["x"]` || g2.CompareB != `["y"]` {
		t.Errorf("compare groups: %+v", g2)
	}
	if back := ParseQuery(g2.Values()); !reflect.DeepEqual(back, g2) {
		t.Errorf("compare groups round trip: %+v", back)
	}
}

// Rewriting the URL keeps parameters other panels own (the insights panel's
// cost) and drops stale own ones.
func TestMergeValues(t *testing.T) {
	cur := url.Values{"cost": {"0.1"}, "model": {"old"}, "f.job": {"x"}, "range": {"5m"}}
	q := DefaultQuery()
	q.SetFilter("engine", []string{"1"})
	got := MergeValues(cur, q.Values())
	want := url.Values{"cost": {"0.1"}, "engine": {"1"}, "range": {"15m"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeValues = %v, want %v", got, want)
	}
}

// "Copy link" copies the view's canonical URL: the parameters the page
// read (normalised), the other panels' ones, and none it ignored.
func TestCanonicalURL(t *testing.T) {
	cur, err := url.Parse("http://host:8080/?range=bogus&model=a&utm_source=x&cost=0.2&theme=dark&group=model_name&f.job=vllm&junk=1#frag")
	if err != nil {
		t.Fatal(err)
	}
	q := ParseQuery(cur.Query())
	got, err := url.Parse(CanonicalURL(cur, q))
	if err != nil {
		t.Fatal(err)
	}
	v := got.Query()
	for _, k := range []string{"utm_source", "junk"} {
		if v.Has(k) {
			t.Errorf("canonical link %s keeps the ignored parameter %s", got, k)
		}
	}
	if v.Get("range") != DefaultQuery().Range || v.Get("model") != "a" || v.Get("cost") != "0.2" || v.Get("theme") != "dark" ||
		v.Get("group") != "model_name" || v.Get("f.job") != "vllm" {
		t.Errorf("canonical link %s: want range=%s (the refused value replaced), model, cost, theme, group and the job filter kept", got, DefaultQuery().Range)
	}
	if got.Host != "host:8080" || got.Path != "/" || got.Fragment != "" {
		t.Errorf("canonical link %s: want the same page without fragment", got)
	}
	if CanonicalURL(nil, q) != "" {
		t.Errorf("nil URL: want an empty link")
	}
}

// TestFilterURLCanonical: the filter part of a URL reads back to the same
// canonical URL whatever the order and repetition of its values, "all"
// means no filter, and model=/engine=/f.<label>= keep their form (shared
// URLs keep working).
func TestFilterURLCanonical(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a := ParseQueryAt(url.Values{"model": {"B", "A", "B"}, "engine": {"3"}, "f.instance": {"h:1"}, "range": {"6h"}}, now)
	b := ParseQueryAt(url.Values{"f.instance": {"h:1"}, "engine": {"3"}, "model": {"A", "B"}, "range": {"6h"}}, now)
	if ea, eb := a.Values().Encode(), b.Values().Encode(); ea != eb {
		t.Errorf("same filters, two URLs:\n%s\n%s", ea, eb)
	}
	want := "engine=3&f.instance=h%3A1&model=A&model=B&range=6h"
	if got := a.Values().Encode(); got != want {
		t.Errorf("canonical URL %q, want %q", got, want)
	}
	if got := ParseQueryAt(a.Values(), now); !got.SameData(a) || !slices.Equal(got.Filter["model_name"], []string{"A", "B"}) {
		t.Errorf("round trip: %+v, want %+v", got.Filter, a.Filter)
	}
	if q := ParseQueryAt(url.Values{"model": {"all", "A"}}, now); len(q.Filter) != 0 {
		t.Errorf("model=all&model=A filters %v, want no filter", q.Filter)
	}
	// Removing the last value removes the parameter.
	q := a
	q.SetFilter("engine", nil)
	if v := q.Values(); v.Has("engine") || !slices.Equal(v["model"], []string{"A", "B"}) {
		t.Errorf("after clearing engine: %s", v.Encode())
	}
}

// TestHealthURLThresholds: health.<name> parameters set the thresholds of
// the view model's request, survive Values, make a different view
// (SameData), and bad values are named in Warn.
func TestHealthURLThresholds(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 30, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"range": {"1h"}, "health.collapse_rate": {"0.1"}, "health.min_drafts": {"zero"}}, now)
	if q.Health.CollapseRate != 0.1 || q.Health.MinDrafts != 0 || !strings.Contains(q.Warn, `health.min_drafts="zero"`) {
		t.Errorf("parsed %+v, warn %q", q.Health, q.Warn)
	}
	if v := q.Values(); v.Get("health.collapse_rate") != "0.1" || v.Has("health.min_drafts") {
		t.Errorf("values %v", v)
	}
	plain := q
	plain.Health = compute.HealthThresholds{}
	if q.SameData(plain) || !q.SameData(q) {
		t.Errorf("SameData ignores the thresholds")
	}
	if r := Request(q, 15*time.Second, now, nil); r.Health.Thresholds.CollapseRate != 0.1 {
		t.Errorf("request thresholds %+v", r.Health.Thresholds)
	}
}

func TestOptionEncoding(t *testing.T) {
	for _, v := range []string{"all", `"><img src=x onerror=alert(1)>`, "qwen/Qwen2.5-7B", "ü ß", ""} {
		enc := EncodeOption(v)
		if strings.ContainsAny(enc, `"<>&' `) {
			t.Errorf("encodeOption(%q) = %q holds HTML-special characters", v, enc)
		}
		if got := DecodeOption(enc); got != v {
			t.Errorf("decodeOption(encodeOption(%q)) = %q", v, got)
		}
	}
	if DecodeOption(All) != "" || DecodeOption("v:!!") != "" {
		t.Errorf(`"all" and garbage must decode to no filter`)
	}
}

// TestLayoutParams: the layout parameters (cost, split, kiosk) read from
// the URL, invalid ones ignored; the insights panel's ?cost= reading.
func TestLayoutParams(t *testing.T) {
	l := ParseLayout(url.Values{"cost": {"0.2"}, "split": {EncodeOption(`["a"]`)}, "kiosk": {"30s"}})
	if !l.CostSet || l.Cost != 0.2 || l.CostOr() != 0.2 || l.Split != `["a"]` || !l.Kiosk || l.Period != 30*time.Second {
		t.Errorf("layout %+v", l)
	}
	l = ParseLayout(url.Values{"cost": {"-1"}, "split": {"all"}, "kiosk": {"1ms"}})
	if l.CostSet || l.CostOr() != compute.DefaultDraftCostRatio || l.Split != SplitAll || !l.Kiosk || l.Period != KioskPeriod {
		t.Errorf("invalid layout %+v", l)
	}
	if l := ParseLayout(url.Values{"split": {"garbage"}}); l.Split != "" || l.Kiosk {
		t.Errorf("garbage split %+v", l)
	}
	if c, set, problem := CostOf("0.3", 0.05, false); c != 0.3 || !set || problem != "" {
		t.Errorf("cost 0.3: %v %v %q", c, set, problem)
	}
	if c, set, problem := CostOf("x", 0.1, true); c != 0.1 || !set || !strings.HasSuffix(problem, "; using 0.1") || !strings.HasPrefix(problem, `draft cost ratio "x"`) {
		t.Errorf("bad cost: %v %v %q", c, set, problem)
	}
}

// TestShownWindowAndGrouping: what the inputs and group-by boxes show
// before and after a load.
func TestShownWindowAndGrouping(t *testing.T) {
	q := DefaultQuery()
	res := &Result{Model: model.Model{Grid: compute.Grid{Start: 1000, End: 5000, Step: 1000}}}
	if from, to := q.InputWindow(nil); from != 0 || to != 0 {
		t.Errorf("no load: %d..%d", from, to)
	}
	if from, to := q.InputWindow(res); from != 1000 || to != 5000 {
		t.Errorf("live: %d..%d", from, to)
	}
	abs := q
	abs.From, abs.To = 2000, 3000
	if from, to := abs.InputWindow(res); from != 2000 || to != 3000 {
		t.Errorf("absolute: %d..%d", from, to)
	}
	if q.TZName() != "local" || (Query{TZ: TZUTC}).TZName() != "UTC" {
		t.Error("zone names")
	}
	if g := ShownGrouping(nil, Query{GroupBy: []string{"engine"}}); !slices.Equal(g, []string{"engine"}) {
		t.Errorf("before a load: %v", g)
	}
	res.Request.GroupBy = []string{"model_name"}
	res.Groups = []model.Group{{Name: "a"}, {Name: "b"}}
	if g := ShownGrouping(res, q); !slices.Equal(g, []string{"model_name"}) {
		t.Errorf("two models: %v", g)
	}
	res.Groups = res.Groups[:1]
	if g := ShownGrouping(res, q); g != nil {
		t.Errorf("one model by default: %v", g)
	}
}

// TestParseRange: a relative range in the URL may be any positive Go or
// Prometheus duration up to the longest range offered, as Grafana takes
// ?from=now-10m; the select then offers it too.
func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  time.Duration
		ok    bool
		valid bool
	}{
		{"10m", 10 * time.Minute, true, true},
		{"90s", 90 * time.Second, true, true},
		{"1h30m", 90 * time.Minute, true, true},
		{"2d", 48 * time.Hour, true, true},
		{"1d12h", 36 * time.Hour, true, true},
		{"1w", 7 * 24 * time.Hour, true, true},
		{"8d", 8 * 24 * time.Hour, true, false},
		{"0m", 0, false, false},
		{"-5m", 0, false, false},
		{"10x", 0, false, false},
		{"", 0, false, false},
	} {
		d, ok := ParseRange(c.in)
		if ok != c.ok || (ok && d != c.want) || ValidRange(c.in) != c.valid {
			t.Errorf("ParseRange(%q) = %v, %v (valid %v), want %v, %v (valid %v)", c.in, d, ok, ValidRange(c.in), c.want, c.ok, c.valid)
		}
	}
	now := time.Date(2026, 12, 1, 14, 30, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"range": {"10m"}}, now)
	if q.Range != "10m" || q.Warn != "" || q.RangeDuration() != 10*time.Minute || q.Values().Get("range") != "10m" {
		t.Errorf("range=10m: %q, warn %q, %v", q.Range, q.Warn, q.RangeDuration())
	}
	if g := q.Grid(15*time.Second, now); g.End-g.Start != 10*time.Minute.Milliseconds() {
		t.Errorf("range=10m grid spans %d ms", g.End-g.Start)
	}
	if r, ok := q.WithSelect("range", "45m"); !ok || r.Range != "45m" {
		t.Errorf("select 45m: %q %v", r.Range, ok)
	}
	if q := ParseQueryAt(url.Values{"range": {"30d"}}, now); q.Range != DefaultQuery().Range || !strings.Contains(q.Warn, `range="30d"`) {
		t.Errorf("range=30d: %q, warn %q", q.Range, q.Warn)
	}
}

// TestQueryOneWindowEnd: a URL with only from reads from it to now, one
// with only to the range before it (Grafana's reading); a nonsense end
// alone is still named and ignored.
func TestQueryOneWindowEnd(t *testing.T) {
	now := time.Date(2026, 12, 1, 19, 16, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"from": {"2026-12-01T18:40:00Z"}}, now)
	if q.Warn != "" || q.From != time.Date(2026, 12, 1, 18, 40, 0, 0, time.UTC).UnixMilli() || q.To != now.UnixMilli() {
		t.Errorf("from alone: from %d to %d warn %q; want 18:40 to now", q.From, q.To, q.Warn)
	}
	q = ParseQueryAt(url.Values{"to": {"2026-12-01T18:00:00Z"}, "range": {"1h"}}, now)
	if q.Warn != "" || q.From != time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC).UnixMilli() || q.To != time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("to alone: from %d to %d warn %q; want 17:00 to 18:00", q.From, q.To, q.Warn)
	}
	q = ParseQueryAt(url.Values{"from": {"yesterday"}}, now)
	if q.Absolute() || !strings.Contains(q.Warn, `from="yesterday"`) {
		t.Errorf("nonsense from: absolute %v, warn %q; want it named and ignored", q.Absolute(), q.Warn)
	}
}
