package metricsclient

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
)

func mstream(name string, pts ...float64) *model.SampleStream {
	ss := &model.SampleStream{Metric: model.Metric{model.MetricNameLabel: model.LabelValue(name), "engine": "0"}}
	for i := 0; i+1 < len(pts); i += 2 {
		ss.Values = append(ss.Values, model.SamplePair{Timestamp: model.Time(pts[i]), Value: model.SampleValue(pts[i+1])})
	}
	return ss
}

func cloneMatrix(m model.Matrix) model.Matrix {
	out := make(model.Matrix, len(m))
	for i, ss := range m {
		out[i] = &model.SampleStream{Metric: ss.Metric.Clone(), Values: append([]model.SamplePair(nil), ss.Values...)}
	}
	return out
}

// TestMergeMatrix: prev over points 0..5 s, fresh over 4..7 s, the merged
// answer for a grid starting at 2 s: prev's points 2 and 3 s, then fresh's
// (the re-read 4 and 5 s replace prev's, even with other values, and a
// point fresh lacks is gone); a series that vanished keeps its old points
// in the new grid, one whose points all lie before the new start is
// dropped, one that appeared comes in (after prev's series, in order);
// inputs untouched, and the result's points are its own.
func TestMergeMatrix(t *testing.T) {
	prev := model.Matrix{
		mstream("c_total", 0, 1, 1000, 2, 2000, 3, 3000, 4, 4000, 5, 5000, 6),
		mstream("b_total", 0, 10, 1000, 11, 2000, 12), // vanished after 2 s
		mstream("a_total", 0, 7, 1000, 8),             // vanished before the new start
		mstream("e_total", 3000, 1, 4000, 2, 5000, 3), // re-read without its 5 s point
	}
	fresh := model.Matrix{
		mstream("c_total", 4000, 40, 5000, 1, 6000, 2, 7000, 3), // reset re-read at 5 s
		mstream("d_total", 6000, 100, 7000, 101),                // appeared
		mstream("e_total", 4000, 2),
	}
	prevCopy, freshCopy := cloneMatrix(prev), cloneMatrix(fresh)
	got := MergeMatrix(prev, fresh, 2000, 4000)
	want := model.Matrix{
		mstream("c_total", 2000, 3, 3000, 4, 4000, 40, 5000, 1, 6000, 2, 7000, 3),
		mstream("b_total", 2000, 12),
		mstream("e_total", 3000, 1, 4000, 2),
		mstream("d_total", 6000, 100, 7000, 101),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged:\n%v\nwant:\n%v", got, want)
	}
	if !reflect.DeepEqual(prev, prevCopy) || !reflect.DeepEqual(fresh, freshCopy) {
		t.Fatalf("inputs modified")
	}
	for _, ss := range got {
		for i := range ss.Values {
			ss.Values[i].Value = -1
		}
		ss.Values = append(ss.Values, model.SamplePair{Timestamp: 9000, Value: 1})
	}
	if !reflect.DeepEqual(prev, prevCopy) || !reflect.DeepEqual(fresh, freshCopy) {
		t.Fatalf("the merged answer shares memory with its inputs")
	}
	if m := MergeMatrix(nil, nil, 0, 1); len(m) != 0 {
		t.Fatalf("empty inputs: %v", m)
	}
	// Native histogram samples merge as float samples do.
	h := func(ts int64, count float64) model.SampleHistogramPair {
		return model.SampleHistogramPair{Timestamp: model.Time(ts), Histogram: &model.SampleHistogram{Count: model.FloatString(count)}}
	}
	hs := func(name string, ps ...model.SampleHistogramPair) *model.SampleStream {
		return &model.SampleStream{Metric: model.Metric{model.MetricNameLabel: model.LabelValue(name)}, Histograms: ps}
	}
	got = MergeMatrix(model.Matrix{hs("itl", h(1000, 1), h(2000, 2), h(3000, 3), h(4000, 4)), hs("gone", h(1000, 9))},
		model.Matrix{hs("itl", h(4000, 40), h(5000, 50))}, 2000, 4000)
	want = model.Matrix{hs("itl", h(2000, 2), h(3000, 3), h(4000, 40), h(5000, 50))}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged histograms:\n%v\nwant:\n%v", got, want)
	}
}

// TestWindowContinuesAt: which grids a window continues, and from where
// the source is re-read (one step before the last final point).
func TestWindowContinuesAt(t *testing.T) {
	c, err := New(Config{Address: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New(Config{Address: "http://127.0.0.1:10"})
	filters := []Filter{{Name: "model_name", Values: []string{"m"}}}
	key, _ := specLikeSelector(filters)
	// Grid 1000..2000 s at 15 s, final at 1980 s (the bucket ending at 2000
	// s was incomplete).
	w := &Window{address: c.address, filterKey: key, grid: compute.Grid{Start: 1_000_000, End: 2_000_000, Step: 10_000}, final: 1_980_000, cacheable: true}
	slid := compute.Grid{Start: 1_030_000, End: 2_030_000, Step: 10_000}
	for _, tc := range []struct {
		name    string
		w       *Window
		c       *Client
		g       compute.Grid
		filters []Filter
		from    int64
		ok      bool
	}{
		{"slid by three steps", w, c, slid, filters, 1_970_000, true},
		{"same grid", w, c, w.grid, filters, 1_970_000, true},
		{"shorter range, same step", w, c, compute.Grid{Start: 1_900_000, End: 2_000_000, Step: 10_000}, filters, 1_970_000, true},
		{"nil window", nil, c, slid, filters, 0, false},
		{"other source", w, other, slid, filters, 0, false},
		{"other filters", w, c, slid, nil, 0, false},
		{"other step", w, c, compute.Grid{Start: 1_020_000, End: 2_040_000, Step: 20_000}, filters, 0, false},
		{"other alignment", w, c, compute.Grid{Start: 1_035_000, End: 2_035_000, Step: 10_000}, filters, 0, false},
		{"starts earlier (longer range)", w, c, compute.Grid{Start: 990_000, End: 2_000_000, Step: 10_000}, filters, 0, false},
		{"ends earlier", w, c, compute.Grid{Start: 1_000_000, End: 1_990_000, Step: 10_000}, filters, 0, false},
		{"jumped past the final points", w, c, compute.Grid{Start: 1_970_000, End: 2_970_000, Step: 10_000}, filters, 0, false},
		{"answer had warnings", &Window{address: c.address, filterKey: key, grid: w.grid, final: w.final}, c, slid, filters, 0, false},
		{"no final point", &Window{address: c.address, filterKey: key, grid: w.grid, final: math.MinInt64, cacheable: true}, c, slid, filters, 0, false},
	} {
		from, ok := tc.w.ContinuesAt(tc.c, tc.g, tc.filters)
		if ok != tc.ok || from != tc.from {
			t.Errorf("%s: ContinuesAt = %d, %v; want %d, %v", tc.name, from, ok, tc.from, tc.ok)
		}
	}
}

// slide is one load of a sliding window in TestFetchIncrementalEqualsFull.
type slide struct {
	now     int64 // Unix s
	filters []Filter
	// incremental: whether the fetch at now may continue the previous one.
	incremental bool
}

// runSlides fetches each window of slides twice against srv, fully and
// incrementally (continuing the previous incremental fetch, settled
// IncompleteLag = scrape + 5 s before its now), and requires identical
// answers (series with their points and start times, Extra series,
// warnings, detection, labels) and the expected kind of fetch. It returns
// how many fetches were incremental.
func runSlides(t *testing.T, srv *promtest.Server, rng time.Duration, slides []slide) int {
	t.Helper()
	const scrape = 15 * time.Second
	c, err := New(Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	step := ChooseStep(rng, scrape)
	var prev *Window
	n := 0
	for i, sl := range slides {
		now := time.Unix(sl.now, 0)
		g := AlignGrid(now, rng, step)
		settled := now.Add(-scrape - 5*time.Second)
		what := fmt.Sprintf("load %d (%s range, now %s, grid %d..%d)", i, rng, now.UTC().Format(time.TimeOnly), g.Start/1000, g.End/1000)
		full, _, fullErr := c.Fetch(ctx, FetchRequest{Grid: g, Filters: sl.filters, Settled: settled, Labels: true, Now: now})
		inc, w, incErr := c.Fetch(ctx, FetchRequest{Grid: g, Filters: sl.filters, Prev: prev, Settled: settled, Labels: true, LabelsMaxAge: time.Nanosecond, Now: now})
		if (fullErr == nil) != (incErr == nil) || (fullErr != nil && fullErr.Error() != incErr.Error()) {
			t.Fatalf("%s: full error %v, incremental error %v", what, fullErr, incErr)
		}
		if fullErr != nil {
			t.Logf("%s: both fail: %v", what, fullErr)
			prev = nil
			continue
		}
		if full.Incremental {
			t.Fatalf("%s: a fetch without a previous window says it was incremental", what)
		}
		if inc.Incremental != sl.incremental {
			t.Fatalf("%s: incremental = %v, want %v", what, inc.Incremental, sl.incremental)
		}
		if inc.Incremental {
			n++
		}
		inc.Incremental = false
		if !reflect.DeepEqual(full, inc) {
			t.Fatalf("%s: incremental fetch differs from the full one:\nfull: %+v\nincremental: %+v", what, full, inc)
		}
		if len(full.Series) == 0 {
			t.Fatalf("%s: no series: the comparison proves nothing", what)
		}
		// The window holds exactly the new grid's points.
		pts := 0
		for _, ss := range w.counters {
			for _, p := range ss.Values {
				if int64(p.Timestamp) < g.Start || int64(p.Timestamp) > g.End {
					t.Fatalf("%s: the window keeps a point at %d outside the grid", what, p.Timestamp)
				}
				pts++
			}
		}
		if pts != w.Points() {
			t.Fatalf("%s: Points() = %d, counted %d", what, w.Points(), pts)
		}
		prev = w
	}
	return n
}

// TestFetchIncrementalEqualsFull: against a real Prometheus holding the
// promtool-backfilled known-answer fixture (a counter reset of org/model-b
// engine 1 between S+900 s and S+915 s) and the new-series fixture (series
// that appear at S+3015 s, S+4215 s and S+6015 s, one that disappears after
// S+4800 s, one without _created), a live window sliding forward is
// fetched incrementally and fully at each refresh, and both answers must
// be identical; jumps, filter changes and other steps do a full fetch.
func TestFetchIncrementalEqualsFull(t *testing.T) {
	t.Run("reset", func(t *testing.T) {
		srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.KnownAnswer().OpenMetrics)})
		S := fixtures.StartUnix
		b := []Filter{{Name: "model_name", Values: []string{fixtures.ModelB}}}
		slides := []slide{
			{S + 907, nil, false},
			// Settled at S+887: re-read from S+870 on; the reset at S+915
			// is in the re-read part.
			{S + 927, nil, true},
			{S + 931, nil, true}, // same grid
			{S + 1000, nil, true},
			{S + 1100, nil, true},
			{S + 1400, b, false}, // filter changed (and jumped)
			{S + 1422, b, true},
			{S + 1500, b, true},
			{S + 2400, b, false}, // jumped past the final points
			{S + 2430, b, true},
			{S + 2500, b, true}, // the data ends at S+1800
			{S + 2650, b, true}, // only the last 50 s of data, and 5 min of lookback after it
			{S + 2800, b, true}, // no data in the window: both fail alike
		}
		if n := runSlides(t, srv, 15*time.Minute, slides); n != 9 {
			t.Fatalf("%d incremental fetches, want 9", n)
		}
	})
	t.Run("new series", func(t *testing.T) {
		srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.NewSeriesOpenMetrics())})
		S := fixtures.NSStart
		for _, rng := range []time.Duration{time.Hour, 3 * time.Hour} {
			var slides []slide
			for now := S + 2900; now < S+7600; now += 97 {
				slides = append(slides, slide{now, nil, len(slides) > 0})
			}
			if n := runSlides(t, srv, rng, slides); n != len(slides)-1 {
				t.Fatalf("%s: %d incremental fetches, want %d", rng, n, len(slides)-1)
			}
		}
	})
}

// namesTransport counts the requests for the metric names (Detect's).
type namesTransport struct{ names atomic.Int32 }

func (n *namesTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/label/__name__/values") {
		n.names.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestRefreshLabels: a window's label lists and schema detection read
// again off the refresh's path (RefreshLabels) are those a full fetch
// reads, in a copy of the window stamped with the time given; an
// incremental fetch that may reuse them returns them without reading
// them itself (no Detect request), one past their age reads the
// detection again, and the old window is unchanged. A refreshed detection
// of another schema than the window's counters makes the next fetch a
// full one.
func TestRefreshLabels(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.KnownAnswer().OpenMetrics)})
	const scrape = 15 * time.Second
	tr := &namesTransport{}
	c, err := New(Config{Address: srv.URL, ScrapeInterval: scrape, RoundTripper: tr})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Unix(fixtures.StartUnix+900, 0)
	g := AlignGrid(now, 15*time.Minute, ChooseStep(15*time.Minute, scrape))
	full, w, err := c.Fetch(ctx, FetchRequest{Grid: g, Labels: true, Now: now, Settled: now.Add(-20 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if !w.LabelsAt().Equal(now) || len(full.Labels["model_name"]) != 2 {
		t.Fatalf("full fetch: labels at %v, %v", w.LabelsAt(), full.Labels)
	}
	later := now.Add(2 * time.Minute)
	before := tr.names.Load()
	nw, labels, err := c.RefreshLabels(ctx, w, later)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(labels, full.Labels) || !nw.LabelsAt().Equal(later) || !w.LabelsAt().Equal(now) {
		t.Fatalf("refreshed labels %v at %v (old window at %v), want %v", labels, nw.LabelsAt(), w.LabelsAt(), full.Labels)
	}
	if n := tr.names.Load() - before; n != 1 || !nw.detAt.Equal(later) || !w.detAt.Equal(now) || !reflect.DeepEqual(nw.det, full.Detection) {
		t.Fatalf("refresh: %d Detect requests, detection at %v (old window at %v): %+v, want one read at %v: %+v", n, nw.detAt, w.detAt, nw.det, later, full.Detection)
	}
	// The next incremental fetch reuses them (a minute's age allowed).
	now2 := later.Add(30 * time.Second)
	g2 := AlignGrid(now2, 15*time.Minute, ChooseStep(15*time.Minute, scrape))
	before = tr.names.Load()
	inc, w2, err := c.Fetch(ctx, FetchRequest{Grid: g2, Prev: nw, Labels: true, LabelsMaxAge: time.Minute, Now: now2, Settled: now2.Add(-20 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if !inc.Incremental || !reflect.DeepEqual(inc.Labels, full.Labels) || !w2.LabelsAt().Equal(later) {
		t.Errorf("incremental fetch: incremental %v, labels %v read at %v; want the refreshed ones of %v", inc.Incremental, inc.Labels, w2.LabelsAt(), later)
	}
	if n := tr.names.Load() - before; n != 0 || !reflect.DeepEqual(inc.Detection, full.Detection) || !w2.detAt.Equal(later) {
		t.Errorf("incremental fetch: %d Detect requests, detection %+v read at %v; want the refreshed one of %v", n, inc.Detection, w2.detAt, later)
	}
	// Past their age, the fetch detects again.
	now3 := later.Add(61 * time.Second)
	before = tr.names.Load()
	inc, w3, err := c.Fetch(ctx, FetchRequest{Grid: AlignGrid(now3, 15*time.Minute, ChooseStep(15*time.Minute, scrape)), Prev: w2, LabelsMaxAge: time.Minute, Now: now3, Settled: now3.Add(-20 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.names.Load() - before; n != 1 || !inc.Incremental || !w3.detAt.Equal(now3) || !reflect.DeepEqual(inc.Detection, full.Detection) {
		t.Errorf("fetch past the detection's age: %d Detect requests, incremental %v, detection at %v", n, inc.Incremental, w3.detAt)
	}
	// A window whose counters are of another schema than the refreshed
	// detection finds is not continued.
	odd := *w3
	odd.det.Schema = LlamaCpp
	ow, _, err := c.RefreshLabels(ctx, &odd, now3)
	if err != nil {
		t.Fatal(err)
	}
	now4 := now3.Add(15 * time.Second)
	if _, ok := ow.ContinuesAt(c, AlignGrid(now4, 15*time.Minute, ChooseStep(15*time.Minute, scrape)), nil); ok {
		t.Errorf("a window whose refreshed detection found another schema is continued")
	}
}

// TestSchemaReadsIncrementalEqualFull: against a real Prometheus holding
// vLLM V1's counters with its latency, output and load families (a counter
// reset of one engine's inter-token latency histogram at t_21, an older
// histogram name next to the newer one), a live window sliding forward
// reads its sample counts and optional families continuing the previous
// load's Window (Window.WithReads), and both equal a full read at every
// slide; reads of other roles or of another grid are not continued.
func TestSchemaReadsIncrementalEqualFull(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaVLLMV1().Body+fixtures.Latency()+"# EOF\n")})
	const scrape = 15 * time.Second
	c, err := New(Config{Address: srv.URL, ScrapeInterval: scrape})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	S := fixtures.SchemaStartUnix
	const rng = 5 * time.Minute
	var prev, prevSum *Window
	incremental := 0
	// The data ends at S+600: the last slides see its end leave the window.
	for i, now := range []int64{S + 330, S + 353, S + 353, S + 400, S + 461, S + 540, S + 611, S + 690, S + 760} {
		at := time.Unix(now, 0)
		g := AlignGrid(at, rng, scrape)
		what := fmt.Sprintf("load %d (now S+%d s)", i, now-S)
		_, w, err := c.Fetch(ctx, FetchRequest{Grid: g, Prev: prev, Settled: at.Add(-scrape - 5*time.Second), Now: at})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fullSC, err := c.SchemaSampleCounts(ctx, VLLMV1, g, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		incSC, err := c.SchemaSampleCounts(ctx, VLLMV1, g, nil, prev)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fullOF, err := c.FetchOptionalSince(ctx, nil, VLLMV1, g, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		incOF, err := c.FetchOptionalSince(ctx, prev, VLLMV1, g, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if fullSC.Incremental || fullOF.Incremental {
			t.Fatalf("%s: a read without a previous window says it was incremental", what)
		}
		if want := i > 0; incSC.Incremental != want || incOF.Incremental != want {
			t.Fatalf("%s: incremental sample counts %v, optional families %v; want %v", what, incSC.Incremental, incOF.Incremental, want)
		}
		if incSC.Incremental {
			incremental++
		}
		if !reflect.DeepEqual(fullSC.Counts, incSC.Counts) || !reflect.DeepEqual(fullSC.Warnings, incSC.Warnings) {
			t.Fatalf("%s: sample counts\nfull        %v\nincremental %v", what, fullSC.Counts, incSC.Counts)
		}
		if !reflect.DeepEqual(fullOF.Families, incOF.Families) || !reflect.DeepEqual(fullOF.Warnings, incOF.Warnings) {
			t.Fatalf("%s: optional families differ:\nfull        %+v\nincremental %+v", what, fullOF, incOF)
		}
		// The summed read (FetchOptionalSummed) continues its own sums.
		fullSum, err := c.FetchOptionalSummed(ctx, nil, VLLMV1, g, nil, summedRoles...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		incSum, err := c.FetchOptionalSummed(ctx, prevSum, VLLMV1, g, nil, summedRoles...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if want := i > 0; !fullSum.Summed || !incSum.Summed || fullSum.Incremental || incSum.Incremental != want {
			t.Fatalf("%s: summed %v/%v, incremental %v/%v (want %v)", what, fullSum.Summed, incSum.Summed, fullSum.Incremental, incSum.Incremental, want)
		}
		if !reflect.DeepEqual(fullSum.Families, incSum.Families) || !reflect.DeepEqual(fullSum.Warnings, incSum.Warnings) {
			t.Fatalf("%s: summed families differ:\nfull        %+v\nincremental %+v", what, fullSum, incSum)
		}
		// The comparison must compare something: while the data is in the
		// window, the counters store a sample every 15 s, and the
		// histograms, counter and gauge are read.
		if now < S+600 {
			sameOptional(t, what+", summed and raw", g, fullSum, fullOF)
			sum := 0.0
			for _, v := range fullSC.Counts {
				sum += v
			}
			itl := fullOF.Families[InterTokenLatency]
			if sum == 0 || len(itl.Histograms) != 2 || len(fullOF.Families[GenerationTokens].Series) != 1 || len(fullOF.Families[RequestsRunning].Series) != 1 {
				t.Fatalf("%s: %v samples, %d histograms, families %v: the comparison proves nothing", what, sum, len(itl.Histograms), fullOF.Families)
			}
		}
		prev = w.WithReads(incSC, incOF)
		prevSum = w.WithReads(incSC, incSum)
	}
	if incremental != 8 {
		t.Fatalf("%d incremental reads, want 8", incremental)
	}
	// Another set of roles, or reads of another grid, are not continued.
	at := time.Unix(S+790, 0)
	g := AlignGrid(at, rng, scrape)
	if of, err := c.FetchOptionalSince(ctx, prev, VLLMV1, g, nil, InterTokenLatency); err != nil || of.Incremental {
		t.Errorf("other roles: incremental %v, %v", of != nil && of.Incremental, err)
	}
	other := compute.Grid{Start: prev.grid.Start - scrape.Milliseconds(), End: prev.grid.End, Step: prev.grid.Step}
	sc, err := c.SchemaSampleCounts(ctx, VLLMV1, other, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kept := prev.WithReads(sc, nil); kept.samples != nil || kept.optional != nil {
		t.Errorf("a window kept reads of another grid")
	}
	if kept := prev.WithReads(nil, nil); prev.samples == nil || prev.optional == nil || kept.samples != nil {
		t.Errorf("WithReads modified its window")
	}
}

// TestWindowRestarted: which counter restarts a window's points cannot
// count (Window.Restarted), at a step of one scrape interval and longer.
func TestWindowRestarted(t *testing.T) {
	const scrape = 15 * time.Second
	created := func(pts ...float64) *model.SampleStream {
		return mstream("c_created", pts...)
	}
	win := func(step int64, ss ...*model.SampleStream) *Window {
		return &Window{grid: compute.Grid{Start: 0, End: 60_000, Step: step}, counters: ss}
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		w    *Window
		want bool
	}{
		{"nil window", nil, false},
		{"steady counter", win(15_000, mstream("c_total", 0, 1, 15000, 2, 30000, 3)), false},
		{"drop at one scrape per step", win(15_000, mstream("c_total", 0, 5, 15000, 1, 30000, 3)), false},
		{"drop at a longer step", win(30_000, mstream("c_total", 0, 5, 30000, 1, 60000, 3)), true},
		{"NaN skipped at a longer step", win(30_000, mstream("c_total", 0, 5, 30000, nan, 60000, 6)), false},
		{"_created changed with a visible drop", win(15_000, mstream("c_total", 0, 5, 15000, 1, 30000, 3), created(0, 100, 15000, 200, 30000, 200)), false},
		{"_created changed without a drop", win(15_000, mstream("c_total", 0, 5, 15000, 7, 30000, 8), created(0, 100, 15000, 200, 30000, 200)), true},
		{"_created changed, counter point missing", win(15_000, mstream("c_total", 0, 5, 30000, 3), created(0, 100, 15000, 200, 30000, 200)), true},
		{"_created changed, counter point NaN", win(15_000, mstream("c_total", 0, 5, 15000, nan, 30000, 3), created(0, 100, 15000, 200, 30000, 200)), true},
		{"_created changed at a longer step", win(30_000, mstream("c_total", 0, 5, 30000, 1), created(0, 100, 30000, 200)), true},
		{"_created steady", win(15_000, mstream("c_total", 0, 5, 15000, 7), created(0, 100, 15000, 100)), false},
		{"_created of another series changed", win(15_000, mstream("c_total", 0, 5, 15000, 1), mstream("d_created", 0, 100, 15000, 200)), true},
	} {
		if got := tc.w.Restarted(scrape); got != tc.want {
			t.Errorf("%s: Restarted = %v, want %v", tc.name, got, tc.want)
		}
	}
}
