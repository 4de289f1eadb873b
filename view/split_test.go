package view

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
)

// TestDefaultGrouping: without group= the view groups per model; group=none
// is an explicit "no grouping" that round-trips and differs in data.
func TestDefaultGrouping(t *testing.T) {
	q := ParseQuery(url.Values{})
	if q.GroupBy != nil || !slices.Equal(q.Grouping(), []string{"model_name"}) || q.Values().Has("group") {
		t.Fatalf("default: %#v grouping %v values %q", q.GroupBy, q.Grouping(), q.Values().Encode())
	}
	none := ParseQuery(url.Values{"group": {"none"}})
	if none.GroupBy == nil || len(none.Grouping()) != 0 || none.Values().Get("group") != GroupNone {
		t.Fatalf("group=none: %#v values %q", none.GroupBy, none.Values().Encode())
	}
	if back := ParseQuery(none.Values()); back.GroupBy == nil || len(back.GroupBy) != 0 {
		t.Errorf("group=none round trip: %#v", back.GroupBy)
	}
	if q.SameData(none) {
		t.Error("default (per model) and group=none select the same data")
	}
	if e := ParseQuery(url.Values{"group": {"engine"}}); !slices.Equal(e.Grouping(), []string{"engine"}) {
		t.Errorf("explicit group: %v", e.Grouping())
	}
	// Two models by default: grouped per model; the split charts show the
	// busiest model unless "all" is chosen, and say so.
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	var res Result
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)
	if res.Ungrouped() || len(res.Groups) != 2 {
		t.Fatalf("default grouping of two models: %d groups, ungrouped %v", len(res.Groups), res.Ungrouped())
	}
	var split string
	if res.SplitGroup(split) != nil || res.BlendCaption(split) != " All 2 models blended." {
		t.Errorf("default: blended, caption %q", res.BlendCaption(split))
	}
	split = res.Groups[0].Key
	sg := res.SplitGroup(split)
	if sg == nil || sg.Name != "a" {
		t.Fatalf("split group %+v", sg)
	}
	if sub := res.SplitModel(split); sub.Stats.Drafts != sg.Stats.Drafts || sub.Stats.Drafts == res.Stats.Drafts {
		t.Errorf("split model drafts %v, group %v, total %v", sub.Stats.Drafts, sg.Stats.Drafts, res.Stats.Drafts)
	}
	if c := res.BlendCaption(split); !strings.Contains(c, "Group: "+sg.Name) {
		t.Errorf("caption %q", c)
	}
	split = SplitAll
	if res.SplitGroup(split) != nil || res.BlendCaption(split) != " All 2 models blended." {
		t.Errorf("all: caption %q", res.BlendCaption(split))
	}
	split = res.NextSplit(split)
	if split != res.Groups[0].Key && split != res.Groups[1].Key {
		t.Errorf("rotate from the blend: %q", split)
	}
	first := split
	split = res.NextSplit(split)
	if split == first {
		t.Errorf("rotate stayed on %q", first)
	}
	// What the split charts say and export they show.
	split = res.Groups[1].Key
	if c := res.SplitCaption(split); c != "showing b (1 of 2 models)" {
		t.Errorf("caption of group b: %q", c)
	}
	if s := res.SplitShows(ChartPerPosition, split); s != "b (1 of 2 models)" {
		t.Errorf("per-position shows %q", s)
	}
	if s := res.SplitShows(ChartAcceptanceRate, split); s != "" {
		t.Errorf("a per-group chart shows %q, want nothing", s)
	}
	if s := res.SplitShows(ChartHeatmap, SplitAll); s != "all 2 models blended (ratio of sums)" {
		t.Errorf("heatmap of the blend shows %q", s)
	}
	if c := res.SplitCaption(""); c != "all 2 models blended (ratio of sums): choose one to see its own k, fit and speedup" {
		t.Errorf("blend caption %q", c)
	}
	var nores *Result
	if nores.Splits() || nores.SplitModel("") != nil || nores.NextSplit("x") != "x" || nores.GroupNoun() != "groups" {
		t.Error("no result: nothing to split")
	}
}
