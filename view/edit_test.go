package view

import (
	"net/url"
	"specdash/model"
	"strings"
	"testing"
	"time"
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
