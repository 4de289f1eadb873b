package compute

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// engineSeries builds the series of one engine of one model on grid
// {0, 30000, 15000}: values at 0, 15 s and 30 s. inc holds, per bucket, the
// increases of drafts, draft tokens, accepted and each position.
func engineSeries(model, engine string, k int, base float64, inc [2][]float64) []Series {
	labels := map[string]string{"model_name": model, "engine": engine}
	counter := func(f Family, pos int, idx int) Series {
		v0 := base
		v1 := v0 + inc[0][idx]
		v2 := v1 + inc[1][idx]
		return Series{Family: f, Labels: labels, Position: pos, Points: []Point{{0, v0}, {15000, v1}, {30000, v2}}}
	}
	out := []Series{counter(Drafts, -1, 0), counter(DraftTokens, -1, 1), counter(AcceptedTokens, -1, 2)}
	for p := range k {
		out = append(out, counter(AcceptedPerPosition, p, 3+p))
	}
	return out
}

var aggGrid = Grid{Start: 0, End: 30000, Step: 15000}

// fleet: model "a" with k=3 on engines 0 and 1, model "b" with k=2 on
// engines 0 and 1. Per bucket: drafts, draft tokens, accepted, pos...
func fleet() []Series {
	var s []Series
	s = append(s, engineSeries("a", "0", 3, 100, [2][]float64{{5, 15, 9, 5, 3, 1}, {2, 6, 3, 2, 1, 0}})...)
	s = append(s, engineSeries("a", "1", 3, 7, [2][]float64{{10, 30, 12, 8, 3, 1}, {0, 0, 0, 0, 0, 0}})...)
	s = append(s, engineSeries("b", "0", 2, 0, [2][]float64{{4, 8, 6, 4, 2}, {1, 2, 1, 1, 0}})...)
	s = append(s, engineSeries("b", "1", 2, 50, [2][]float64{{6, 12, 9, 5, 4}, {3, 6, 6, 3, 3}})...)
	return s
}

func TestAggregateByModel(t *testing.T) {
	groups := Aggregate(fleet(), []string{"model_name"}, aggGrid)
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	a, b := groups[0], groups[1]
	if !reflect.DeepEqual(a.Labels, map[string]string{"model_name": "a"}) || !reflect.DeepEqual(b.Labels, map[string]string{"model_name": "b"}) {
		t.Fatalf("labels %v %v", a.Labels, b.Labels)
	}
	wantA := Counts{Drafts: 17, DraftTokens: 51, AcceptedTokens: 24, AcceptedPerPosition: []float64{15, 7, 2}}
	if !reflect.DeepEqual(a.Total, wantA) {
		t.Errorf("a total %+v, want %+v", a.Total, wantA)
	}
	wantB := Counts{Drafts: 14, DraftTokens: 28, AcceptedTokens: 22, AcceptedPerPosition: []float64{13, 9}}
	if !reflect.DeepEqual(b.Total, wantB) {
		t.Errorf("b total %+v, want %+v", b.Total, wantB)
	}
	wantA0 := Counts{Drafts: 15, DraftTokens: 45, AcceptedTokens: 21, AcceptedPerPosition: []float64{13, 6, 2}}
	if !reflect.DeepEqual(a.Buckets[0], wantA0) {
		t.Errorf("a bucket 0 %+v, want %+v", a.Buckets[0], wantA0)
	}
	if a.Series != 2 || b.Series != 2 {
		t.Errorf("series %d %d, want 2 2", a.Series, b.Series)
	}
	// Ratio of sums: model a's rate is 24/51, not the mean of 12/21 and 12/30.
	sa := a.TotalStats(aggGrid, WithBonus)
	if !near(sa.AcceptanceRate.V, 24.0/51) || sa.K != 3 || !near(sa.MeanAcceptanceLength.V, 1+24.0/17) || !near(sa.AcceptedThroughput.V, 24.0/30) {
		t.Errorf("a stats %+v", sa)
	}
	if sb := b.TotalStats(aggGrid, WithBonus); sb.K != 2 || !near(sb.PerPositionAcceptanceRate[1].V, 9.0/14) {
		t.Errorf("b stats %+v", sb)
	}
	bs := a.BucketStats(aggGrid, WithoutBonus)
	if len(bs) != 2 || !near(bs[0].MeanAcceptanceLength.V, 21.0/15) || !near(bs[1].DraftsPerSecond.V, 2.0/15) || bs[1].WindowSeconds != 15 {
		t.Errorf("bucket stats %+v", bs)
	}
	for _, g := range groups {
		if v := Check(g.Total); v != nil {
			t.Errorf("%v: violations %q", g.Labels, v)
		}
	}
}

func TestAggregateByEngineAndNone(t *testing.T) {
	groups := Aggregate(fleet(), []string{"engine"}, aggGrid)
	if len(groups) != 2 || groups[0].Labels["engine"] != "0" || groups[1].Labels["engine"] != "1" {
		t.Fatalf("groups %+v", groups)
	}
	// Engine 0 mixes k=3 (model a, 7 drafts) and k=2 (model b, 5 drafts):
	// k = 3, and pos 3's denominator is model a's drafts only.
	want0 := Counts{Drafts: 12, DraftTokens: 31, AcceptedTokens: 19, AcceptedPerPosition: []float64{12, 6, 1}, DraftsAtPosition: []float64{12, 12, 7}}
	if !reflect.DeepEqual(groups[0].Total, want0) {
		t.Errorf("engine 0 total %+v, want %+v", groups[0].Total, want0)
	}
	if st := groups[0].TotalStats(aggGrid, WithBonus); !near(st.PerPositionAcceptanceRate[2].V, 1.0/7) || !near(st.PerPositionAcceptanceRate[1].V, 6.0/12) ||
		!near(st.MeanAcceptanceLength.V, 1+19.0/12) || !reflect.DeepEqual(st.DraftsAtPosition, []float64{12, 12, 7}) {
		t.Errorf("engine 0 stats: per-position %v (want pos 3 = 1/7, not 1/12), mean length %v, drafts at position %v",
			st.PerPositionAcceptanceRate, st.MeanAcceptanceLength, st.DraftsAtPosition)
	}
	if v := Check(groups[0].Total); v != nil {
		t.Errorf("engine 0: violations %q", v)
	}
	all := Aggregate(fleet(), nil, aggGrid)
	if len(all) != 1 || len(all[0].Labels) != 0 || all[0].Labels == nil || all[0].Series != 4 {
		t.Fatalf("no grouping: %+v", all)
	}
	want := Counts{Drafts: 31, DraftTokens: 79, AcceptedTokens: 46, AcceptedPerPosition: []float64{28, 16, 2}, DraftsAtPosition: []float64{31, 31, 17}}
	if !reflect.DeepEqual(all[0].Total, want) {
		t.Errorf("total %+v, want %+v", all[0].Total, want)
	}
	// Sum of the per-model groups is the same total row.
	sum := Sum(Aggregate(fleet(), []string{"model_name"}, aggGrid))
	if sum.Labels != nil || sum.Series != 4 || !reflect.DeepEqual(sum.Total, want) || !reflect.DeepEqual(sum.Buckets, all[0].Buckets) {
		t.Errorf("Sum = %+v, want total %+v buckets %+v", sum, want, all[0].Buckets)
	}
	// Group by two labels, one missing everywhere ("").
	two := Aggregate(fleet(), []string{"model_name", "zone"}, aggGrid)
	if len(two) != 2 || two[0].Labels["zone"] != "" || len(two[0].Labels) != 2 {
		t.Errorf("two labels: %+v", two)
	}
	if got := Aggregate(nil, []string{"engine"}, aggGrid); len(got) != 0 {
		t.Errorf("no series: %+v", got)
	}
	if s := Sum(nil); len(s.Buckets) != 0 || s.Total.Drafts != 0 {
		t.Errorf("Sum(nil) = %+v", s)
	}
}

func TestAggregateSortAndSkip(t *testing.T) {
	var s []Series
	for _, m := range []string{"z", "a b/c\"", "m"} {
		s = append(s, Series{Family: Drafts, Labels: map[string]string{"model_name": m}, Position: -1, Points: pts(0, 0, 15000, 1)})
	}
	s = append(s,
		Series{Family: AcceptedPerPosition, Labels: map[string]string{"model_name": "m"}, Position: -1, Points: pts(0, 0, 15000, 1)},
		Series{Family: AcceptedPerPosition, Labels: map[string]string{"model_name": "m"}, Position: 1 << 30, Points: pts(0, 0, 15000, 1)},
		Series{Family: Family(9), Labels: map[string]string{"model_name": "m"}, Position: -1},
		Series{Family: AcceptedPerPosition, Labels: map[string]string{"model_name": "m"}, Position: 1, Points: pts(0, 0, 15000, 1)},
	)
	g := Aggregate(s, []string{"model_name"}, aggGrid)
	var names []string
	for _, x := range g {
		names = append(names, x.Labels["model_name"])
	}
	if fmt.Sprint(names) != fmt.Sprint([]string{"a b/c\"", "m", "z"}) {
		t.Errorf("order %q", names)
	}
	m := g[1]
	if len(m.Skipped) != 3 || !strings.Contains(m.Skipped[1], "position 1073741824") || !strings.Contains(m.Skipped[2], "unknown counter family 9") {
		t.Errorf("skipped %q", m.Skipped)
	}
	// Position 1 present, position 0 absent: k = 2 with zero at pos 1 -> Check flags it.
	if !reflect.DeepEqual(m.Total.AcceptedPerPosition, []float64{0, 1}) || len(Check(m.Total)) == 0 {
		t.Errorf("m total %+v, check %q", m.Total, Check(m.Total))
	}
	if m.Series != 1 {
		t.Errorf("series %d, want 1", m.Series)
	}
}

func TestAggregateZeroDraftsGroup(t *testing.T) {
	s := fleet()
	idle := map[string]string{"model_name": "idle", "engine": "0"}
	for _, f := range []Family{Drafts, DraftTokens, AcceptedTokens} {
		s = append(s, Series{Family: f, Labels: idle, Position: -1, Points: pts(0, 40, 15000, 40, 30000, 40)})
	}
	s = append(s, Series{Family: AcceptedPerPosition, Labels: idle, Position: 0, Points: pts(0, 40, 15000, 40, 30000, 40)})
	groups := Aggregate(s, []string{"model_name"}, aggGrid)
	if len(groups) != 3 || groups[2].Labels["model_name"] != "idle" {
		t.Fatalf("groups %+v", groups)
	}
	st := groups[2].TotalStats(aggGrid, WithBonus)
	if st.AcceptanceRate.OK || st.MeanAcceptanceLength.OK || st.PerPositionAcceptanceRate[0].OK {
		t.Errorf("idle group has defined ratios: %+v", st)
	}
	b, err := json.Marshal(append(groups[2].BucketStats(aggGrid, WithBonus), st))
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	if !strings.Contains(js, `"acceptance_rate":null`) || !strings.Contains(js, `"mean_acceptance_length":null`) || !strings.Contains(js, `"per_position_acceptance_rate":[null]`) {
		t.Errorf("JSON %s", js)
	}
	if strings.Contains(js, "NaN") || strings.Contains(js, "Inf") {
		t.Errorf("JSON with NaN/Inf: %s", js)
	}
	if got := FormatPercent(st.AcceptanceRate, 1); got != "no drafts in window" {
		t.Errorf("FormatPercent = %q", got)
	}
}

func TestCountsAdd(t *testing.T) {
	a := Counts{Drafts: 1, DraftTokens: 2, AcceptedTokens: 1, AcceptedPerPosition: []float64{1}}
	b := Counts{Drafts: 2, DraftTokens: 6, AcceptedTokens: 3, AcceptedPerPosition: []float64{2, 1, 0}}
	got := a.Add(b)
	// Positions 2 and 3 are drafted by b only: their denominator is b's 2
	// drafts.
	want := Counts{Drafts: 3, DraftTokens: 8, AcceptedTokens: 4, AcceptedPerPosition: []float64{3, 1, 0}, DraftsAtPosition: []float64{3, 2, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
	if got2 := b.Add(a); !reflect.DeepEqual(got2, want) {
		t.Errorf("b.Add(a) = %+v, want %+v", got2, want)
	}
	if a.AcceptedPerPosition[0] != 1 || b.AcceptedPerPosition[0] != 2 || a.DraftsAtPosition != nil || b.DraftsAtPosition != nil {
		t.Errorf("inputs modified: %+v %+v", a, b)
	}
	// Adding a k=3 count with 4 drafts makes the denominators equal again:
	// nil (every position's is Drafts).
	c := Counts{Drafts: 4, DraftTokens: 12, AcceptedTokens: 4, AcceptedPerPosition: []float64{2, 1, 1}}
	if sum := got.Add(c).Add(Counts{Drafts: 1, DraftTokens: 2, AcceptedTokens: 1, AcceptedPerPosition: []float64{1, 0}}); !reflect.DeepEqual(sum.DraftsAtPosition, []float64{8, 7, 6}) {
		t.Errorf("three k: drafts at position %v, want [8 7 6]", sum.DraftsAtPosition)
	}
	one := Counts{Drafts: 2, DraftTokens: 2, AcceptedTokens: 1, AcceptedPerPosition: []float64{1}, DraftsAtPosition: []float64{2}}
	if sum := one.Add(Counts{Drafts: 3, DraftTokens: 3, AcceptedTokens: 2, AcceptedPerPosition: []float64{2}}); sum.DraftsAtPosition != nil {
		t.Errorf("one k: drafts at position %v, want nil", sum.DraftsAtPosition)
	}
}

// TestAggregateCreated: an engine that starts (created at 5 s) inside the
// grid {0, 30 s, 15 s} and is first seen at 15 s counts from 0; without a
// start time its first values are only the base.
func TestAggregateCreated(t *testing.T) {
	labels := map[string]string{"model_name": "a", "engine": "2"}
	mk := func(created int64) []Series {
		c := func(f Family, pos int, v1, v2 float64) Series {
			return Series{Family: f, Position: pos, Labels: labels, Created: created, Points: []Point{{15000, v1}, {30000, v2}}}
		}
		// At 15 s: 3 drafts, 9 draft tokens, 4 accepted, [3, 1, 0];
		// at 30 s: 5, 15, 7, [5, 2, 0].
		return []Series{c(Drafts, -1, 3, 5), c(DraftTokens, -1, 9, 15), c(AcceptedTokens, -1, 4, 7),
			c(AcceptedPerPosition, 0, 3, 5), c(AcceptedPerPosition, 1, 1, 2), c(AcceptedPerPosition, 2, 0, 0)}
	}
	g := Aggregate(mk(5000), nil, aggGrid)
	// Bucket 0 (0, 15 s]: 0 -> the values at 15 s. Bucket 1: the differences.
	want := []Counts{
		{Drafts: 3, DraftTokens: 9, AcceptedTokens: 4, AcceptedPerPosition: []float64{3, 1, 0}},
		{Drafts: 2, DraftTokens: 6, AcceptedTokens: 3, AcceptedPerPosition: []float64{2, 1, 0}},
	}
	wantTotal := Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 7, AcceptedPerPosition: []float64{5, 2, 0}}
	if len(g) != 1 || !reflect.DeepEqual(g[0].Buckets, want) || !reflect.DeepEqual(g[0].Total, wantTotal) {
		t.Errorf("created inside: %+v, want buckets %+v total %+v", g, want, wantTotal)
	}
	// Unknown start, or a start before the grid: only the second bucket.
	for _, created := range []int64{0, -1000} {
		g = Aggregate(mk(created), nil, aggGrid)
		wantTotal = Counts{Drafts: 2, DraftTokens: 6, AcceptedTokens: 3, AcceptedPerPosition: []float64{2, 1, 0}}
		if len(g) != 1 || !reflect.DeepEqual(g[0].Total, wantTotal) {
			t.Errorf("created %d: total %+v, want %+v", created, g[0].Total, wantTotal)
		}
	}
}
