package view

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// TestLoadFilterMatchingNothing: a model filter that matches no series
// fails the load with the filtered diagnosis, and the result still carries
// the label lists of the series that exist, so the filter menus offer the
// real values instead of only the one that matches nothing.
func TestLoadFilterMatchingNothing(t *testing.T) {
	fx := fixtures.KnownAnswer()
	const scrape = 15 * time.Second
	c := knownAnswerClient(t, fx, scrape)
	now := time.Unix(fixtures.StartUnix+1350, 0)
	q := DefaultQuery()
	q.Range = "15m"
	q.Filter = map[string][]string{"model_name": {"no-such-model"}}
	res := Load(context.Background(), c, q, scrape, now)
	var miss *metricsclient.MissingMetricsError
	if !errors.As(res.Err, &miss) || miss.Cause != metricsclient.CauseFiltered {
		t.Fatalf("err %v, want a MissingMetricsError with cause %q", res.Err, metricsclient.CauseFiltered)
	}
	if want := []string{fixtures.ModelA, fixtures.ModelB}; !slices.Equal(res.Models, want) {
		t.Errorf("models %q, want %q", res.Models, want)
	}
	if want := []string{"0", "1"}; !slices.Equal(res.Engines, want) {
		t.Errorf("engines %q, want %q", res.Engines, want)
	}
	if res.Labels["model_name"] == nil {
		t.Errorf("labels %v lack model_name", res.Labels)
	}

	// Another error (nothing at all in the window) leaves them unset.
	res = Load(context.Background(), c, q, scrape, now.Add(48*time.Hour))
	if res.Err == nil || res.Models != nil || res.Labels != nil {
		t.Errorf("empty window: err %v, models %q, labels %v; want an error and no label lists", res.Err, res.Models, res.Labels)
	}
}

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

	// The dashboard's first load defers the Window (DeferWindow): the
	// same numbers, shaped, no Window; with a previous Window it still
	// continues it.
	now := time.Unix(S+1500, 0)
	first := LoadWith(ctx, c, q, scrape, now, nil, LoadOptions{DeferWindow: true})
	full := Load(ctx, c, q, scrape, now)
	if first.Err != nil || first.Window != nil || !first.Shaped {
		t.Fatalf("deferred window: err %v, window %v, shaped %v; want a shaped read without a Window", first.Err, first.Window, first.Shaped)
	}
	if a, b := comparableResult(full), comparableResult(first); !reflect.DeepEqual(a.Total, b.Total) || !reflect.DeepEqual(a.Buckets, b.Buckets) {
		t.Fatalf("deferred window differs from the raw load:\nraw    %+v\nshaped %+v", a, b)
	}
	if cont := LoadWith(ctx, c, q, scrape, now, prev, LoadOptions{DeferWindow: true}); cont.Err != nil || !cont.Incremental || cont.Window == nil {
		t.Fatalf("DeferWindow with a previous Window: err %v, incremental %v, window %v; want the incremental read", cont.Err, cont.Incremental, cont.Window)
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

// TestLoadNotesMixedK: the known-answer fixture's models draft k=3 and k=4;
// a Load of both (grouped or not) notes that the total's per-position rates
// from pos 4 on are diluted, naming the k of each model; a Load filtered to
// one model does not.
func TestLoadNotesMixedK(t *testing.T) {
	fx := fixtures.KnownAnswer()
	const scrape = 15 * time.Second
	c := knownAnswerClient(t, fx, scrape)
	const want = `the selected series mix k = 3 and 4 (model_name: "Llama 3 \"chat\" 8B" k=3, "org/model-b" k=4): summed per-position rates from pos 4 on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; group by model_name or filter to one k`
	now := time.Unix(fixtures.StartUnix+1350, 0)
	for _, groupBy := range [][]string{nil, {"model_name"}} {
		q := DefaultQuery()
		q.Range = "15m"
		q.GroupBy = groupBy
		res := Load(context.Background(), c, q, scrape, now)
		if res.Err != nil {
			t.Fatalf("group by %v: %v", groupBy, res.Err)
		}
		if len(res.Total.Total.AcceptedPerPosition) != 4 {
			t.Fatalf("group by %v: total k %d, want 4 (both models loaded)", groupBy, len(res.Total.Total.AcceptedPerPosition))
		}
		if !slices.Contains(res.Notes, want) {
			t.Errorf("group by %v: notes %q lack\n%s", groupBy, res.Notes, want)
		}
	}
	q := DefaultQuery()
	q.Range = "15m"
	q.Filter = map[string][]string{"model_name": {fixtures.ModelB}}
	res := Load(context.Background(), c, q, scrape, now)
	if res.Err != nil || len(res.Total.Total.AcceptedPerPosition) != 4 || res.Total.Total.Drafts == 0 {
		t.Fatalf("filtered: err %v, total %+v", res.Err, res.Total.Total)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "mix k") {
			t.Errorf("filtered to one model, yet note %q", n)
		}
	}
}

// knownAnswerClient starts a real Prometheus over the known-answer fixture
// (promtool backfill) and returns a client for it with the given scrape
// interval.
func knownAnswerClient(t *testing.T, fx fixtures.Fixture, scrape time.Duration) *metricsclient.Client {
	t.Helper()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGrouping(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{"model_name"}
	var res Result
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)

	if len(res.Groups) != 2 || res.Groups[0].Name != "a" || res.Groups[1].Name != "b" {
		t.Fatalf("groups %+v, want a and b", res.Groups)
	}
	// Model a over 60 s: drafts (2+4)*60 = 360, draft tokens 720, accepted
	// (3+6)*60 = 540: rate 0.75, length 1 + 540/360 = 2.5, 6 drafts/s.
	a := res.Groups[0].Stats
	if a.Drafts != 360 || a.DraftTokens != 720 || a.AcceptedTokens != 540 || a.K != 2 {
		t.Fatalf("model a counts %+v", a)
	}
	if a.AcceptanceRate.V != 0.75 || a.MeanAcceptanceLength.V != 2.5 || a.DraftsPerSecond.V != 6 || a.AcceptedThroughput.V != 9 {
		t.Errorf("model a stats rate %v length %v drafts/s %v accepted/s %v", a.AcceptanceRate, a.MeanAcceptanceLength, a.DraftsPerSecond, a.AcceptedThroughput)
	}
	// The total is a ratio of sums: (540 + 180) / 1440 = 0.5; per position
	// 1: (360 + 180) / 720 drafts = 0.75.
	if res.Stats.AcceptanceRate.V != 0.5 || res.Stats.PerPositionAcceptanceRate[0].V != 0.75 {
		t.Errorf("total rate %v pos1 %v", res.Stats.AcceptanceRate, res.Stats.PerPositionAcceptanceRate[0])
	}
	if res.Groups[0].Key != `["a"]` || compute.GroupKey(map[string]string{}, nil) != "[]" {
		t.Errorf("keys %q", res.Groups[0].Key)
	}
	// Grouping by two labels, one of them absent on every series.
	q.GroupBy = []string{"engine", "instance"}
	res = Result{}
	res.FromSeries(fixtures.Fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	if len(res.Groups) != 2 || res.Groups[1].Name != "1 · (none)" || res.Groups[1].Stats.Drafts != 2*4*60 {
		t.Errorf("by engine: %d groups, %q, drafts %v", len(res.Groups), res.Groups[1].Name, res.Groups[1].Stats.Drafts)
	}
	// Conditional rate of the total: pos 2 given pos 1 = (120+0)... check
	// against FitGeometric directly.
	if !reflect.DeepEqual(res.Fit, compute.FitGeometric(res.Total.Total)) {
		t.Errorf("fit is not FitGeometric of the total")
	}
}

// Two refreshes a few seconds apart: the grid keeps its step and boundaries,
// and every bucket complete at the first refresh has the same end time and
// the same numbers at the second, although the counters kept growing (and a
// sample the first refresh could not see yet arrived).
func TestTwoRefreshesKeepBuckets(t *testing.T) {
	scrape := time.Second
	q := DefaultQuery()
	q.Range = "5m"
	t0 := time.UnixMilli(1_700_000_003_456)
	load := func(now time.Time) Result {
		g := q.Grid(scrape, now)
		// Samples exist up to one scrape before now (the newest is not
		// stored yet).
		last := (now.UnixMilli() - scrape.Milliseconds()) / 1000 * 1000
		var series []compute.Series
		for _, s := range fixtures.Fleet(g.Start-g.Step, last, 1000) {
			series = append(series, s)
		}
		var r Result
		r.FromSeries(series, q, g, now, scrape)
		return r
	}
	r1 := load(t0)
	r2 := load(t0.Add(7300 * time.Millisecond))
	if r1.Grid.Step != r2.Grid.Step || r1.Grid.End%r1.Grid.Step != 0 || r2.Grid.End%r2.Grid.Step != 0 {
		t.Fatalf("grids %+v %+v not aligned to one step", r1.Grid, r2.Grid)
	}
	if r2.Grid.End <= r1.Grid.End {
		t.Fatalf("the window did not move: %+v %+v", r1.Grid, r2.Grid)
	}
	if r1.Complete >= r1.Grid.Buckets() {
		t.Fatalf("no bucket marked incomplete at the first refresh (complete %d of %d)", r1.Complete, r1.Grid.Buckets())
	}
	shift := int((r2.Grid.Start - r1.Grid.Start) / r1.Grid.Step)
	compared := 0
	for j := 0; j < r1.Complete; j++ {
		k := j - shift
		if k < 0 {
			continue
		}
		if r1.Grid.BucketEnd(j) != r2.Grid.BucketEnd(k) {
			t.Fatalf("bucket %d ends at %d, then at %d", j, r1.Grid.BucketEnd(j), r2.Grid.BucketEnd(k))
		}
		if !reflect.DeepEqual(r1.Buckets[j], r2.Buckets[k]) {
			t.Errorf("complete bucket ending %d changed: %+v -> %+v", r1.Grid.BucketEnd(j), r1.Buckets[j], r2.Buckets[k])
		}
		compared++
	}
	if compared < 250 {
		t.Errorf("only %d buckets compared", compared)
	}
	// The incomplete newest bucket did change (it got its last sample).
	j := r1.Grid.Buckets() - 1
	if reflect.DeepEqual(r1.Buckets[j], r2.Buckets[j-shift]) {
		t.Errorf("newest bucket did not change although its last sample arrived late; the test proves little")
	}
}

// TestRequestLocation: the model's notes print times in the zone the page
// shows (the tz control), so a gap note reads like the time axis.
func TestRequestLocation(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	q := DefaultQuery()
	if got := Request(q, 15*time.Second, now, nil).Location; got != time.Local {
		t.Errorf("tz=local: Request.Location = %v, want Local", got)
	}
	q.TZ = TZUTC
	if got := Request(q, 15*time.Second, now, nil).Location; got != time.UTC {
		t.Errorf("tz=utc: Request.Location = %v, want UTC", got)
	}
}
