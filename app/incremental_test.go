//go:build !js

package app

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/metricsclient"
)

// comparable returns res without what may differ between a full and an
// incremental load of the same window (when it finished, how it read,
// what the next load continues from).
func comparableResult(res Result) Result {
	res.At, res.Window, res.Incremental = time.Time{}, nil, false
	return res
}

// TestLoadSinceEqualsLoad: the dashboard's load of a live window that
// slides forward, continued from the previous load (LoadSince, as the
// Refresh button and the auto-refresh do), gives the same Result as a full
// Load of the same window, over the known-answer fixture in a real
// Prometheus (promtool backfill): a counter reset (org/model-b engine 1
// between S+900 s and S+915 s) inside the re-read part, groups by model
// and engine, the total's known answer where the window is the fixture's
// sub-range. An absolute window and a changed range read everything.
func TestLoadSinceEqualsLoad(t *testing.T) {
	fx := fixtures.KnownAnswer()
	const scrape = 15 * time.Second
	c := knownAnswerClient(t, fx, scrape)
	ctx := context.Background()
	S := fixtures.StartUnix
	q := DefaultQuery()
	q.Range = "15m"
	q.GroupBy = []string{"model_name", "engine"}
	var prev *metricsclient.Window
	incremental := 0
	for i, sec := range []int64{S + 907, S + 927, S + 931, S + 1000, S + 1100, S + 1350 + 7, S + 1372, S + 1500} {
		now := time.Unix(sec, 0)
		what := fmt.Sprintf("load %d at S+%d s", i, sec-S)
		full := Load(ctx, c, q, scrape, now)
		inc := LoadSince(ctx, c, q, scrape, now, prev)
		if full.Err != nil || inc.Err != nil {
			t.Fatalf("%s: errors %v, %v", what, full.Err, inc.Err)
		}
		if full.Incremental || full.Window == nil || inc.Window == nil {
			t.Fatalf("%s: full load incremental=%v window=%v; incremental window %v", what, full.Incremental, full.Window, inc.Window)
		}
		if inc.Incremental != (i > 0) {
			t.Fatalf("%s: incremental = %v", what, inc.Incremental)
		}
		if inc.Incremental {
			incremental++
		}
		if a, b := comparableResult(full), comparableResult(inc); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: incremental load differs from the full one:\nfull %+v\nincr %+v", what, a, b)
		}
		if len(full.Groups) != 4 || len(full.Labels["engine"]) != 2 {
			t.Fatalf("%s: %d groups, labels %v: want the fixture's 4 series sets", what, len(full.Groups), full.Labels)
		}
		if sec == S+1350+7 {
			// The grid is the fixture's sub-range (S+450, S+1350] with the
			// reset: its hand-computed total.
			sub := fx.Sub
			if g := inc.Grid; g.Start != sub.Start*1000 || g.End != sub.End*1000 {
				t.Fatalf("%s: grid %+v, want the sub-range", what, g)
			}
			want := sub.Total.Counts
			if got := inc.Total.Total; got.Drafts != want.Drafts || got.DraftTokens != want.DraftTokens || got.AcceptedTokens != want.AcceptedTokens {
				t.Fatalf("%s: total %+v, want the fixture's %+v", what, got, want)
			}
		}
		prev = inc.Window
	}
	if incremental != 7 {
		t.Fatalf("%d incremental loads, want 7", incremental)
	}

	// Not a slide: an absolute window, a longer range.
	abs := q
	abs.From, abs.To = (S+450)*1000, (S+1350)*1000
	if res := LoadSince(ctx, c, abs, scrape, time.Unix(S+1500, 0), prev); res.Err != nil || res.Incremental {
		t.Fatalf("absolute window: err %v, incremental %v", res.Err, res.Incremental)
	}
	longer := q
	longer.Range = "30m"
	if res := LoadSince(ctx, c, longer, scrape, time.Unix(S+1510, 0), prev); res.Err != nil || res.Incremental {
		t.Fatalf("longer range: err %v, incremental %v", res.Err, res.Incremental)
	}
}
