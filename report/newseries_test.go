package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

func countsOf(s compute.Stats) compute.Counts {
	return compute.Counts{Drafts: s.Drafts, DraftTokens: s.DraftTokens, AcceptedTokens: s.AcceptedTokens, AcceptedPerPosition: s.AcceptedPerPosition}
}

// TestNewSeriesEveryStep backfills fixtures.NewSeriesOpenMetrics into a real
// Prometheus: a series that starts inside the window (with _created) and one
// that lives 10 minutes (less than one 30-minute step) count exactly the
// same hand-computed totals at steps 15 s, 5 min and 30 min; a series
// without _created is named in a warning.
func TestNewSeriesEveryStep(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.NewSeriesOpenMetrics())})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Unix(fixtures.NSEnd, 0).UTC()
	rng := time.Duration(fixtures.NSEnd-fixtures.NSStart) * time.Second
	onlyM := []metricsclient.Filter{{Name: "model_name", Values: []string{fixtures.NSModel}}}
	for _, st := range fixtures.NSSteps {
		step := time.Duration(st) * time.Second
		name := fmt.Sprintf("step=%s", step)
		res, err := Build(t.Context(), c, Options{Range: rng, End: end, Step: step, Filters: onlyM, GroupBy: []string{"engine"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.StepSeconds != float64(st) || res.WindowSeconds != 7200 {
			t.Errorf("%s: step %v s, window %v s", name, res.StepSeconds, res.WindowSeconds)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %q", name, res.Warnings)
		}
		if got := countsOf(res.Total); !reflect.DeepEqual(got, fixtures.NSExpected) {
			t.Errorf("%s: total %+v, want %+v", name, got, fixtures.NSExpected)
		}
		if len(res.Groups) != len(fixtures.NSEngines) {
			t.Errorf("%s: %d groups, want %d", name, len(res.Groups), len(fixtures.NSEngines))
		}
		for _, g := range res.Groups {
			want := fixtures.NSEngines[g.Labels["engine"]]
			if got := countsOf(g.Stats); !reflect.DeepEqual(got, want) {
				t.Errorf("%s engine %s: %+v, want %+v", name, g.Labels["engine"], got, want)
			}
		}
		// 3797 / 5720 accepted per draft token; 1 + 3797/1880 per draft.
		if r := res.Total.AcceptanceRate; !r.OK || r.V != 3797.0/5720 {
			t.Errorf("%s: acceptance rate %+v", name, r)
		}

		// The series without _created: named in a warning at every step.
		res, err = Build(t.Context(), c, Options{Range: rng, End: end, Step: step,
			Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{fixtures.NSLegacy}}}})
		if err != nil {
			t.Fatalf("%s legacy: %v", name, err)
		}
		// And the coverage note: the legacy series is the only one selected
		// and starts inside the window.
		if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], `series {engine="0", model_name="legacy"} started inside the window`) ||
			!strings.Contains(res.Warnings[0], "no _created gauge") || !strings.HasPrefix(res.Warnings[1], "Data covers the last ") {
			t.Errorf("%s legacy: warnings %q", name, res.Warnings)
		}
	}
}
