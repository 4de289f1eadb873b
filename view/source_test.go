package view

import (
	"net/url"
	"testing"
)

// TestUnknownSource: a ?source= that names no configured source is flagged
// (the page shows the default one), a configured one is not, and nothing is
// flagged without a source list.
func TestUnknownSource(t *testing.T) {
	list := []SourceInfo{{Name: "prod", Default: true}, {Name: "lab"}}
	for _, c := range []struct {
		list []SourceInfo
		name string
		want bool
	}{
		{list, "nope", true},
		{list, "lab", false},
		{list, "", false},
		{nil, "nope", false},
	} {
		if got := UnknownSource(c.list, c.name); got != c.want {
			t.Errorf("unknownSource(%v, %q) = %v, want %v", c.list, c.name, got, c.want)
		}
	}
	u, _ := url.Parse("/?source=nope")
	if s, ok := PickSource(list, u); !ok || s.Name != "prod" {
		t.Errorf("pickSource(?source=nope) = %v, %v; want the default, prod", s, ok)
	}
}
