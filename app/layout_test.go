package app

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/view"
)

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
	res.FromSeries(fixtures.Fleet(1_300_000, g.End, 10_000), q, g, time.UnixMilli(g.End+60_000), 10*time.Second)
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
		`data-card="headline-speedup"`, `per s of data, 5m;`,
	} {
		if !strings.Contains(html, s) {
			t.Errorf("cards lack %s:\n%s", s, html)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(html, "Inf") {
		t.Errorf("NaN/Inf on screen: %s", html)
	}
}
