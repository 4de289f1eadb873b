package view

import (
	"specdash/compute"
	"specdash/model"
	"testing"
	"time"
)

// TestChangeSeries: the change points follow the drawn lines by group
// name (the chart's order, by drafts), the selection's when not grouped.
func TestChangeSeries(t *testing.T) {
	a := []compute.ChangePoint{{Bucket: 3}}
	b := []compute.ChangePoint{{Bucket: 7}, {Bucket: 12}}
	r := &Result{}
	r.Groups = []model.Group{{Name: "a", Changes: a}, {Name: "b", Changes: b}}
	r.Changes = []compute.ChangePoint{{Bucket: 9}}
	got := ChangeSeries(r, []model.Line{{Name: "b"}, {Name: "a"}}, false)
	if len(got) != 2 || len(got[0]) != 2 || got[0][1].Bucket != 12 || len(got[1]) != 1 || got[1][0].Bucket != 3 {
		t.Errorf("grouped: %v", got)
	}
	got = ChangeSeries(r, []model.Line{{Name: "acceptance rate"}}, true)
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].Bucket != 9 {
		t.Errorf("single: %v", got)
	}
	if ChangeTime(time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC).UnixMilli(), compute.Grid{Start: 0, End: 3_600_000}, time.UTC) != "14:05" {
		t.Errorf("change time")
	}
}
