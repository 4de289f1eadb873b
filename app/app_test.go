package app

import (
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
	"specdash/view"
)

type echartsOption struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis  []map[string]any `json:"yAxis"`
	Series []struct {
		Type string `json:"type"`
		Data []struct {
			Value any `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

// The headline numbers and their hooks, rendered by go-app's test engine
// (no browser: OnMount does not run).
func TestRenderHeadline(t *testing.T) {
	d := &Dashboard{}
	e := app.NewTestEngine()
	if err := e.Load(d); err != nil {
		t.Fatal(err)
	}
	s := fixtures.WorkedExampleStats()
	d.res = &view.Result{Model: model.Model{Stats: s, Grid: compute.Grid{Start: 0, End: 10_000, Step: 10_000}}, At: time.Unix(0, 0)}
	ui := d.renderHeadline(s)
	cases := []struct {
		path      []int
		name, val string
	}{
		{[]int{0, 1}, "acceptance-rate", "0.6"},
		{[]int{1, 1}, "mean-acceptance-length", "2.8"},
		{[]int{2, 1}, "k", "3"},
		{[]int{3, 1}, "drafts-per-second", "0.5"},
		{[]int{4, 1}, "accepted-throughput", "0.9"},
		{[]int{5, 1}, "drafted-throughput", "1.5"},
	}
	for _, c := range cases {
		want := app.Div().Class("metric-value").DataSet("metric", c.name).DataSet("value", c.val)
		if err := app.Match(want, ui, c.path...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	// No drafts: no data-value, "no drafts in window", never NaN.
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 60, compute.WithBonus)
	ui = d.renderHeadline(none)
	want := app.Div().Class("metric-value", "undefined").DataSet("metric", "acceptance-rate").DataSet("undefined", "true").Text(compute.Undefined)
	if err := app.Match(want, ui, 0, 1); err != nil {
		t.Errorf("undefined acceptance rate: %v", err)
	}
}
