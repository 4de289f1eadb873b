package view

import (
	"strings"
	"testing"

	"specdash/compute"
	"specdash/model"
)

func TestSortGroups(t *testing.T) {
	mk := func(name string, rate compute.Value, k int) model.Group {
		return model.Group{Name: name, Stats: compute.Stats{AcceptanceRate: rate, K: k}}
	}
	groups := []model.Group{mk("b", compute.Defined(0.5), 3), mk("a", compute.Value{}, 4), mk("c", compute.Defined(0.7), 2)}
	names := func(gs []model.Group) string {
		var s []string
		for _, g := range gs {
			s = append(s, g.Name)
		}
		return strings.Join(s, ",")
	}
	for key, want := range map[string]string{
		"":                  "b,a,c",
		ColGroup:            "a,b,c",
		"-" + ColGroup:      "c,b,a",
		ColRate:             "b,c,a", // undefined last
		"-" + ColRate:       "c,b,a",
		"-" + ColK:          "a,b,c",
		"-" + ColAccepted:   "b,a,c", // all undefined: stable
		"bogus-col-ignored": "b,a,c",
	} {
		if got := names(SortGroups(groups, key)); got != want {
			t.Errorf("sort %q: %s, want %s", key, got, want)
		}
	}
	if names(groups) != "b,a,c" {
		t.Errorf("SortGroups changed its input")
	}
}

func TestSparkline(t *testing.T) {
	vals := []compute.Value{compute.Defined(0.5), compute.Defined(0.6), {}, compute.Defined(1.2), compute.Defined(0.1), compute.Defined(0.2)}
	svg := Sparkline(vals, 5)
	if strings.Contains(svg, "NaN") || strings.Count(svg, "<polyline") != 3 || strings.Count(svg, "spark-incomplete") != 1 {
		t.Errorf("sparkline %s", svg)
	}
	if s := Sparkline(nil, 0); !strings.HasPrefix(s, "<svg") || strings.Contains(s, "polyline") {
		t.Errorf("empty sparkline %s", s)
	}
}
