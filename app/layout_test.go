package app

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/view"
)

// TestDefaultGrouping: without group= the view groups per model; group=none
// is an explicit "no grouping" that round-trips and differs in data.
func TestDefaultGrouping(t *testing.T) {
	q := view.ParseQuery(url.Values{})
	if q.GroupBy != nil || !slices.Equal(q.Grouping(), []string{"model_name"}) || q.Values().Has("group") {
		t.Fatalf("default: %#v grouping %v values %q", q.GroupBy, q.Grouping(), q.Values().Encode())
	}
	none := view.ParseQuery(url.Values{"group": {"none"}})
	if none.GroupBy == nil || len(none.Grouping()) != 0 || none.Values().Get("group") != view.GroupNone {
		t.Fatalf("group=none: %#v values %q", none.GroupBy, none.Values().Encode())
	}
	if back := view.ParseQuery(none.Values()); back.GroupBy == nil || len(back.GroupBy) != 0 {
		t.Errorf("group=none round trip: %#v", back.GroupBy)
	}
	if q.SameData(none) {
		t.Error("default (per model) and group=none select the same data")
	}
	if e := view.ParseQuery(url.Values{"group": {"engine"}}); !slices.Equal(e.Grouping(), []string{"engine"}) {
		t.Errorf("explicit group: %v", e.Grouping())
	}
	// Two models by default: grouped per model; the split charts show the
	// busiest model unless "all" is chosen, and say so.
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	var res view.Result
	res.FromSeries(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)
	if res.Ungrouped() || len(res.Groups) != 2 {
		t.Fatalf("default grouping of two models: %d groups, ungrouped %v", len(res.Groups), res.Ungrouped())
	}
	d := &Dashboard{q: q, res: &res}
	if d.res.SplitGroup(d.lay.Split) != nil || d.res.BlendCaption(d.lay.Split) != " All 2 models blended." {
		t.Errorf("default: blended, caption %q", d.res.BlendCaption(d.lay.Split))
	}
	d.lay.Split = res.Groups[0].Key
	sg := d.res.SplitGroup(d.lay.Split)
	if sg == nil || sg.Name != "a" {
		t.Fatalf("split group %+v", sg)
	}
	if sub := d.res.SplitModel(d.lay.Split); sub.Stats.Drafts != sg.Stats.Drafts || sub.Stats.Drafts == res.Stats.Drafts {
		t.Errorf("split model drafts %v, group %v, total %v", sub.Stats.Drafts, sg.Stats.Drafts, res.Stats.Drafts)
	}
	if c := d.res.BlendCaption(d.lay.Split); !strings.Contains(c, "Group: "+sg.Name) {
		t.Errorf("caption %q", c)
	}
	d.lay.Split = view.SplitAll
	if d.res.SplitGroup(d.lay.Split) != nil || d.res.BlendCaption(d.lay.Split) != " All 2 models blended." {
		t.Errorf("all: caption %q", d.res.BlendCaption(d.lay.Split))
	}
	d.lay.Split = d.res.NextSplit(d.lay.Split)
	if d.lay.Split != res.Groups[0].Key && d.lay.Split != res.Groups[1].Key {
		t.Errorf("rotate from the blend: %q", d.lay.Split)
	}
	first := d.lay.Split
	d.lay.Split = d.res.NextSplit(d.lay.Split)
	if d.lay.Split == first {
		t.Errorf("rotate stayed on %q", first)
	}
}

// TestRenderCards: each card carries the window's value (rates per second
// of data) and now's value with its state.
func TestRenderCards(t *testing.T) {
	e := app.NewTestEngine()
	d := &Dashboard{}
	if err := e.Load(d); err != nil {
		t.Fatal(err)
	}
	g := compute.Grid{Start: 1_000_000, End: 1_600_000, Step: 30_000}
	q := view.ParseQuery(url.Values{"group": {"none"}})
	var res view.Result
	// Data from 1_300_000 (the first points, the base of the counts):
	// covered 300 s.
	res.FromSeries(fleet(1_300_000, g.End, 10_000), q, g, time.UnixMilli(g.End+60_000), 10*time.Second)
	d.q, d.res = q, &res
	ui := d.renderCards()
	cov := res.CoveredSeconds()
	if cov != 300 {
		t.Fatalf("covered %v s", cov)
	}
	want := res.Stats.Drafts / cov
	wantNow := res.Now().Stats.DraftsPerSecond.V
	if wantNow < 10 || res.Now().State != "live" {
		t.Fatalf("now %+v", res.Now())
	}
	html := renderHTML(t, ui)
	// The drafts card's value (go-app writes attributes in any order).
	if m := regexp.MustCompile(`<[^>]*data-metric="drafts-per-second"[^>]*>`).FindString(html); !strings.Contains(m, `data-value="`+view.Plain(want)+`"`) {
		t.Errorf("drafts card %q, want data-value %s", m, view.Plain(want))
	}
	for _, s := range []string{
		`data-now="drafts-per-second"`, `data-now-state="live"`,
		`data-value="` + view.Plain(wantNow) + `"`,
		`data-card="headline-speedup"`, `per s of data, 5 min;`,
	} {
		if !strings.Contains(html, s) {
			t.Errorf("cards lack %s:\n%s", s, html)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(html, "Inf") {
		t.Errorf("NaN/Inf on screen: %s", html)
	}
}
