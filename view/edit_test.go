package view

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
)

// TestCompareHref: the link of a change opens the compare view with the
// window after the change as the view and the window before as the
// baseline, live refresh off, filters and grouping kept.
func TestCompareHref(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 30, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"range": {"1h"}, "refresh": {"5s"}, "group": {"model_name"}, "model": {"a"}}, now)
	at := now.Add(-25 * time.Minute).UnixMilli()
	c := model.Change{At: at, BeforeFrom: now.Add(-time.Hour).UnixMilli(), AfterTo: now.Add(-time.Minute).UnixMilli()}
	href := q.CompareHref(c)
	if !strings.HasPrefix(href, "/?") {
		t.Fatalf("href %q", href)
	}
	v, err := url.ParseQuery(strings.TrimPrefix(href, "/?"))
	if err != nil {
		t.Fatal(err)
	}
	got := ParseQueryAt(v, now)
	if got.Compare != CompareWindow || got.From != at || got.To != c.AfterTo || got.BaseFrom != c.BeforeFrom || got.BaseTo != at ||
		got.Refresh != "off" || strings.Join(got.GroupBy, ",") != "model_name" || strings.Join(got.Filter["model_name"], ",") != "a" || got.Warn != "" {
		t.Errorf("href %q parses to %+v", href, got)
	}
}

// TestQueryEdits: each control's edit of the view gives the Query the
// page writes into the URL.
func TestQueryEdits(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 30, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"range": {"1h"}, "from": {"2026-12-01T10:00:00Z"}, "to": {"2026-12-01T11:00:00Z"}, "a": {"x"}}, now)
	if r, ok := q.WithSelect("range", "6h"); !ok || r.Range != "6h" || r.Absolute() {
		t.Errorf("range 6h: %+v %v", r, ok)
	}
	if _, ok := q.WithSelect("range", "5y"); ok {
		t.Error("a range not offered was taken")
	}
	if r, _ := q.WithSelect("tz", "utc"); r.TZ != TZUTC {
		t.Errorf("tz: %q", r.TZ)
	}
	if r, _ := q.WithSelect("tz", "bogus"); r.TZ != TZLocal {
		t.Errorf("tz bogus: %q", r.TZ)
	}
	if r, _ := q.WithSelect("convention", ConventionNoBonus); r.Convention != compute.WithoutBonus {
		t.Error("convention nobonus not taken")
	}
	if r, _ := q.WithSelect("compare", "bogus"); r.Compare != CompareOff {
		t.Errorf("compare bogus: %q", r.Compare)
	}
	if r, _ := q.WithSelect("compare-b", EncodeOption(`["m"]`)); r.CompareB != `["m"]` {
		t.Errorf("compare-b: %q", r.CompareB)
	}
	if r, _ := q.WithSelect("refresh", "5s"); r.Refresh != "5s" || r.RefreshDuration() != 5*time.Second {
		t.Errorf("refresh: %q", r.Refresh)
	}

	if g := q.WithGroup([]string{"model_name"}, "engine", true); !slices.Equal(g.GroupBy, []string{"model_name", "engine"}) || g.CompareA != "" {
		t.Errorf("add engine: %#v, compared %q", g.GroupBy, g.CompareA)
	}
	if g := q.WithGroup([]string{"model_name"}, "model_name", false); g.GroupBy == nil || len(g.GroupBy) != 0 {
		t.Errorf("remove the last label: %#v, want explicit no grouping", g.GroupBy)
	}

	from, to := now.Add(-2*time.Hour).UnixMilli(), now.Add(-time.Hour).UnixMilli()
	if w, err := q.WithWindow(false, from, to, now); err != nil || w.From != from || w.To != to {
		t.Errorf("window: %+v %v", w, err)
	}
	if _, err := q.WithWindow(false, to, from, now); err == nil || !strings.HasPrefix(err.Error(), "Time window: the start ") {
		t.Errorf("reversed window: %v", err)
	}
	if _, err := q.WithWindow(true, from, 0, now); err == nil || !strings.HasPrefix(err.Error(), "Baseline window: give both") {
		t.Errorf("half a baseline: %v", err)
	}
	b := q
	b.BaseFrom, b.BaseTo = from, to
	if w, err := b.WithWindow(true, 0, 0, now); err != nil || w.BaseFrom != 0 || w.BaseTo != 0 {
		t.Errorf("empty baseline inputs: %+v %v", w, err)
	}

	if l := q.Live(); l.Absolute() || l.Range != "1h" {
		t.Errorf("live: %+v", l)
	}
	odd := q
	odd.Range = "bogus"
	if l := odd.Live(); l.Range != DefaultQuery().Range {
		t.Errorf("live from an unknown range: %q", l.Range)
	}

	for _, c := range []struct{ from, col, want string }{
		{"", ColRate, "-" + ColRate}, {"-" + ColRate, ColRate, ""}, {ColRate, ColRate, "-" + ColRate},
		{"", ColGroup, ColGroup}, {ColGroup, ColGroup, "-" + ColGroup}, {"-" + ColGroup, ColGroup, ""},
		{"-" + ColRate, ColK, "-" + ColK},
	} {
		s := q
		s.Sort = c.from
		if got := s.SortedBy(c.col).Sort; got != c.want {
			t.Errorf("sort %q, click %s: %q, want %q", c.from, c.col, got, c.want)
		}
	}
}

// TestZoom: a span of buckets on a time chart, or of heatmap columns,
// becomes the absolute window from the first bucket's start to the last
// one's end.
func TestZoom(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000} // 6 buckets
	res := &Result{Model: model.Model{Grid: g}}
	q := DefaultQuery()
	z, ok := q.Zoom(res, ChartAcceptanceRate, nil, 1, 2)
	if !ok || z.From != 1_010_000 || z.To != 1_030_000 {
		t.Errorf("buckets 1..2: %d..%d %v", z.From, z.To, ok)
	}
	if z, ok := q.Zoom(res, ChartDrafts, nil, -3, 99); !ok || z.From != g.Start || z.To != g.End {
		t.Errorf("clamped: %d..%d %v", z.From, z.To, ok)
	}
	// Heatmap columns of 2 buckets each (first buckets 0, 2, 4): column 1
	// is buckets 2..3.
	if z, ok := q.Zoom(res, ChartHeatmap, []int{0, 2, 4}, 1, 1); !ok || z.From != 1_020_000 || z.To != 1_040_000 {
		t.Errorf("heatmap column 1: %d..%d %v", z.From, z.To, ok)
	}
	if _, ok := q.Zoom(nil, ChartDrafts, nil, 0, 1); ok {
		t.Error("zoom without a load")
	}
	if _, ok := q.Zoom(res, ChartDrafts, nil, 4, 2); ok {
		t.Error("an empty span zoomed")
	}
}

// TestSelectHref: the page a select's option leads to keeps the page's
// other parameters and its source, and is what the dashboard writes
// after that choice (PageURL of WithSelect); a choice that edits nothing
// (the "custom" range) leads nowhere.
func TestSelectHref(t *testing.T) {
	cur := &url.URL{Path: "/", RawQuery: "range=6h&group=model_name&source=b&other=x%26y"}
	q := ParseQuery(cur.Query())
	dec := func(s string) string {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return string(b)
	}
	for _, c := range []struct{ field, v string }{{"range", "1h"}, {"tz", TZUTC}, {"convention", ConventionNoBonus}, {"refresh", "30s"}} {
		got := dec(SelectHref(cur, q, c.field, c.v))
		u, err := url.Parse(got)
		if err != nil || u.Path != "/" || u.Host != "" || u.Scheme != "" {
			t.Fatalf("%s=%s: %q is not a path on this site (%v)", c.field, c.v, got, err)
		}
		n, _ := q.WithSelect(c.field, c.v)
		if want := PageURL(cur, n).RequestURI(); got != want {
			t.Errorf("%s=%s: %q, want the dashboard's own edit %q", c.field, c.v, got, want)
		}
		v := u.Query()
		if v.Get("source") != "b" || v.Get("other") != "x&y" || v.Get("group") != "model_name" {
			t.Errorf("%s=%s: %q lost the page's other parameters", c.field, c.v, got)
		}
		if back := ParseQuery(v); back.Values().Encode() != n.Values().Encode() {
			t.Errorf("%s=%s: %q reads back as %v, want %v", c.field, c.v, got, back.Values(), n.Values())
		}
	}
	if got := dec(SelectHref(cur, q, "convention", ConventionNoBonus)); ParseQuery(mustQuery(t, got)).Convention != compute.WithoutBonus {
		t.Errorf("convention: %q", got)
	}
	if got := SelectHref(cur, q, "range", "custom"); got != "" {
		t.Errorf("the custom range leads to %q, want nowhere", got)
	}
	if got := SelectHref(nil, q, "range", "1h"); got != "" {
		t.Errorf("no page: %q", got)
	}
	// A page URL longer than MaxEditHref: no href (the control stays
	// inert), not one copy of it per control.
	long := &url.URL{Path: "/", RawQuery: "range=6h&note=" + strings.Repeat("a", MaxEditHref)}
	if got := SelectHref(long, ParseQuery(long.Query()), "range", "1h"); got != "" {
		t.Errorf("a %d-byte page got an href of %d bytes", len(long.RawQuery), len(got))
	}
}

func mustQuery(t *testing.T, s string) url.Values {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// FilterHref leads to the page without the label's filter (the others
// and the page's other parameters kept) and names the parameter a value
// of the label is written in; adding that parameter per value gives the
// page of Query.SetFilter.
func TestFilterHref(t *testing.T) {
	cur := &url.URL{Path: "/", RawQuery: "range=6h&model=a&model=b&engine=0&f.job=vllm&other=x%26y"}
	q := ParseQuery(cur.Query())
	for _, c := range []struct{ label, param, keep string }{{"model_name", "model", "engine"}, {"engine", "engine", "model"}, {"job", "f.job", "model"}} {
		href, param := FilterHref(cur, q, c.label)
		b, err := base64.RawURLEncoding.DecodeString(href)
		if err != nil {
			t.Fatalf("%s: %q: %v", c.label, href, err)
		}
		u, err := url.Parse(string(b))
		if err != nil || u.Path != "/" {
			t.Fatalf("%s: %q is not this site's page (%v)", c.label, b, err)
		}
		v := u.Query()
		if param != c.param || v.Has(c.param) || !v.Has(c.keep) || v.Get("other") != "x&y" {
			t.Errorf("%s: param %q, page %q; want %q, the page without it, %s and the other parameters kept", c.label, param, b, c.param, c.keep)
		}
		v.Add(param, "z")
		want := q
		want.SetFilter(c.label, []string{"z"})
		if got := ParseQuery(v); got.Values().Encode() != want.Values().Encode() {
			t.Errorf("%s: with %s=z reads back as %v, want %v", c.label, param, got.Values(), want.Values())
		}
	}
}
