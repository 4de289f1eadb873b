package app

import (
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"specdash/compute"
	"specdash/model"
	"specdash/report"
	"specdash/view"
)

func TestCompare(t *testing.T) {
	// Newcombe (1998), example: 56/70 vs 48/80: difference of B - A with A =
	// 48/80 is 0.2, 95 % interval 0.0524..0.3339.
	a := compute.Counts{Drafts: 80, DraftTokens: 80, AcceptedTokens: 48, AcceptedPerPosition: []float64{48}}
	b := compute.Counts{Drafts: 70, DraftTokens: 70, AcceptedTokens: 56, AcceptedPerPosition: []float64{56}}
	res := &view.Result{Query: view.Query{GroupBy: []string{"model_name"}}, Model: model.Model{Groups: []model.Group{
		{Key: `["a"]`, Name: "a", Counts: compute.Group{Total: a}, Stats: compute.Derive(a, 60, compute.WithBonus)},
		{Key: `["b"]`, Name: "b", Counts: compute.Group{Total: b}, Stats: compute.Derive(b, 60, compute.WithBonus)},
	}}}
	q := view.Query{Compare: view.CompareGroups, CompareA: `["a"]`, CompareB: `["b"]`}
	c := view.Compare(res, q)
	if c.Reason != "" || math.Abs(c.Rate.Difference.V-0.2) > 1e-12 || math.Abs(c.Rate.Lower.V-0.0524) > 5e-5 || math.Abs(c.Rate.Upper.V-0.3339) > 5e-5 || !c.Rate.Significant {
		t.Errorf("comparison %+v", c.Rate)
	}
	if len(c.Positions) != 1 || !c.Positions[0].Significant {
		t.Errorf("positions %+v", c.Positions)
	}
	tbl := report.CompareTable(c)
	recs, _ := csv.NewReader(strings.NewReader(tbl.CSV())).ReadAll()
	if len(recs) != 4 || recs[1][0] != "acceptance_rate" || recs[1][7] != "true" || recs[2][0] != "mean_acceptance_length_tokens" || !strings.HasPrefix(recs[2][3], "0.19999999") {
		t.Errorf("compare CSV %v", recs)
	}
	// Swapped: B lower.
	q.CompareA, q.CompareB = q.CompareB, q.CompareA
	if c := view.Compare(res, q); c.Rate.Difference.V >= 0 || !c.Rate.Significant {
		t.Errorf("swapped %+v", c.Rate)
	}
	// A drafts k=4, B k=5: pos 5 is not drafted by A, so it has no rate
	// for A and no test (it read "0.0 % 14.0 % ... yes: B higher").
	a4 := compute.Counts{Drafts: 100, DraftTokens: 400, AcceptedTokens: 140, AcceptedPerPosition: []float64{60, 40, 25, 15}}
	b5 := compute.Counts{Drafts: 100, DraftTokens: 500, AcceptedTokens: 158, AcceptedPerPosition: []float64{61, 40, 25, 18, 14}}
	mixed := &view.Result{Query: view.Query{GroupBy: []string{"model_name"}}, Model: model.Model{Groups: []model.Group{
		{Key: `["a"]`, Name: "a", Counts: compute.Group{Total: a4}, Stats: compute.Derive(a4, 60, compute.WithBonus)},
		{Key: `["b"]`, Name: "b", Counts: compute.Group{Total: b5}, Stats: compute.Derive(b5, 60, compute.WithBonus)},
	}}}
	mc := view.Compare(mixed, view.Query{Compare: view.CompareGroups, CompareA: `["a"]`, CompareB: `["b"]`})
	if mc.AK != 4 || mc.BK != 5 || len(mc.Positions) != 5 {
		t.Fatalf("mixed k: AK %d BK %d, %d positions", mc.AK, mc.BK, len(mc.Positions))
	}
	if p := mc.Positions[3]; p.Reason != "" || !p.A.Estimate.OK || p.A.Estimate.V != 0.15 || p.B.Estimate.V != 0.18 || !p.Difference.OK || !p.PValue.OK {
		t.Errorf("mixed k: pos 4, drafted by both, %+v", p)
	}
	p5 := mc.Positions[4]
	if p5.Reason != model.NotDrafted || p5.A.Estimate.OK || !p5.B.Estimate.OK || p5.B.Estimate.V != 0.14 || p5.Difference.OK || p5.Lower.OK || p5.Upper.OK || p5.PValue.OK || p5.Significant {
		t.Errorf("mixed k: pos 5, not drafted by A, %+v", p5)
	}
	recs, _ = csv.NewReader(strings.NewReader(report.CompareTable(mc).CSV())).ReadAll()
	if len(recs) != 8 || recs[6][0] != "pos_4_acceptance_rate" || recs[6][7] == "" ||
		recs[7][0] != "pos_5_acceptance_rate" || recs[7][1] != "" || recs[7][2] != "0.14" || recs[7][3] != "" || recs[7][6] != "" || recs[7][7] != "" {
		t.Errorf("mixed k compare CSV %q", recs)
	}
	html := renderHTML(t, (&Dashboard{}).renderCompareTable(mc))
	// The whole row from its <tr: go-app writes attributes in map order, so
	// data-significant may come before data-compare.
	row := func(key string) string {
		i := strings.Index(html, `data-compare="`+key+`"`)
		r := html[strings.LastIndex(html[:i], "<tr"):]
		return r[:strings.Index(r, "</tr>")]
	}
	pos5 := row("pos-5")
	if !strings.Contains(pos5, `data-significant="na"`) || strings.Count(pos5, model.NotDrafted) != 2 || !strings.Contains(pos5, "14.0 %") || strings.Contains(pos5, "0.0 %") || strings.Contains(pos5, "higher") {
		t.Errorf("mixed k: pos 5 row %s", pos5)
	}
	pos4 := row("pos-4")
	if strings.Contains(pos4, model.NotDrafted) || !strings.Contains(pos4, "15.0 %") || !strings.Contains(pos4, "18.0 %") {
		t.Errorf("mixed k: pos 4 row %s", pos4)
	}
	// Swapped: B does not draft pos 5.
	sc := view.Compare(mixed, view.Query{Compare: view.CompareGroups, CompareA: `["b"]`, CompareB: `["a"]`})
	if p := sc.Positions[4]; p.Reason != model.NotDrafted || !p.A.Estimate.OK || p.B.Estimate.OK || p.Significant {
		t.Errorf("mixed k swapped: pos 5 %+v", p)
	}

	// Not enough groups, or no baseline: a reason, never a panic.
	if c := view.Compare(&view.Result{}, view.Query{Compare: view.CompareGroups}); c.Reason == "" {
		t.Errorf("no groups but no reason")
	}
	if c := view.Compare(&view.Result{}, view.Query{Compare: view.CompareWindow}); c.Reason == "" {
		t.Errorf("no baseline but no reason")
	}
	if c := view.Compare(nil, q); c.Reason == "" || len(report.CompareTable(c).Rows) != 0 {
		t.Errorf("nil result")
	}
	// Baseline grid: the window just before, same step.
	g := compute.Grid{Start: 600_000, End: 900_000, Step: 1000}
	if bg := (view.Query{}).BaselineGrid(g); bg != (compute.Grid{Start: 300_000, End: 600_000, Step: 1000}) {
		t.Errorf("baseline grid %+v", bg)
	}
}
