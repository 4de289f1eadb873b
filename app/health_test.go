package app

import (
	"net/url"
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
	d := &Dashboard{q: q}
	at := now.Add(-25 * time.Minute).UnixMilli()
	c := model.Change{At: at, BeforeFrom: now.Add(-time.Hour).UnixMilli(), AfterTo: now.Add(-time.Minute).UnixMilli()}
	href := d.compareHref(c)
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

// TestHealthTone: every state has its own sign and tone, so the state
// never shows by colour alone; alarms are never "ok".
func TestHealthTone(t *testing.T) {
	for s, want := range map[compute.HealthState]string{
		compute.Healthy: "ok ✓", compute.Collapsed: "bad ✕", compute.Degraded: "warn ⚠", compute.PositionCliff: "warn ⚠",
		compute.SuspectedLoop: "warn ⚠", compute.Idle: "none –", compute.NotEnoughData: "none –",
	} {
		tone, sign := healthTone(s)
		if tone+" "+sign != want || (s.Alarm() && tone == "ok") {
			t.Errorf("%s: %s %s, want %s", s, tone, sign, want)
		}
	}
}

// TestChangeSeries: the change points follow the drawn lines by group
// name (the chart's order, by drafts), the selection's when not grouped.
func TestChangeSeries(t *testing.T) {
	a := []compute.ChangePoint{{Bucket: 3}}
	b := []compute.ChangePoint{{Bucket: 7}, {Bucket: 12}}
	r := &Result{}
	r.Groups = []GroupResult{{Name: "a", Changes: a}, {Name: "b", Changes: b}}
	r.Changes = []compute.ChangePoint{{Bucket: 9}}
	got := changeSeries(r, []model.Line{{Name: "b"}, {Name: "a"}}, false)
	if len(got) != 2 || len(got[0]) != 2 || got[0][1].Bucket != 12 || len(got[1]) != 1 || got[1][0].Bucket != 3 {
		t.Errorf("grouped: %v", got)
	}
	got = changeSeries(r, []model.Line{{Name: "acceptance rate"}}, true)
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].Bucket != 9 {
		t.Errorf("single: %v", got)
	}
	if changeTime(time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC).UnixMilli(), compute.Grid{Start: 0, End: 3_600_000}, time.UTC) != "14:05" {
		t.Errorf("change time")
	}
}

// TestHealthURLThresholds: health.<name> parameters set the thresholds of
// the view model's request, survive Values, make a different view
// (SameData), and bad values are named in Warn.
func TestHealthURLThresholds(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 30, 0, 0, time.UTC)
	q := ParseQueryAt(url.Values{"range": {"1h"}, "health.collapse_rate": {"0.1"}, "health.min_drafts": {"zero"}}, now)
	if q.Health.CollapseRate != 0.1 || q.Health.MinDrafts != 0 || !strings.Contains(q.Warn, `health.min_drafts="zero"`) {
		t.Errorf("parsed %+v, warn %q", q.Health, q.Warn)
	}
	if v := q.Values(); v.Get("health.collapse_rate") != "0.1" || v.Has("health.min_drafts") {
		t.Errorf("values %v", v)
	}
	plain := q
	plain.Health = compute.HealthThresholds{}
	if q.SameData(plain) || !q.SameData(q) {
		t.Errorf("SameData ignores the thresholds")
	}
	if r := request(q, 15*time.Second, now, nil); r.Health.Thresholds.CollapseRate != 0.1 {
		t.Errorf("request thresholds %+v", r.Health.Thresholds)
	}
}
