package app

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
	"specdash/report"
)

// counter builds one counter series with a value at every grid point t =
// start, start+step, ..., end: the value at t is rate * (t - origin) / 1000
// (whole units, floored), so increases are known.
func counter(f compute.Family, labels map[string]string, pos int, start, end, step int64, perSecond float64) compute.Series {
	s := compute.Series{Family: f, Labels: labels, Position: pos}
	for t := start; t <= end; t += step {
		s.Points = append(s.Points, compute.Point{T: t, V: math.Floor(perSecond * float64(t) / 1000)})
	}
	return s
}

// fleet is two models x two engines with k = 2; model "a" accepts 3 of 4
// draft tokens per 2 drafts, model "b" 1 of 4; engine 1 runs twice as many
// drafts as engine 0.
func fleet(start, end, step int64) []compute.Series {
	var out []compute.Series
	for _, m := range []struct {
		name      string
		acc, pos0 float64
	}{{"a", 3, 2}, {"b", 1, 1}} {
		for e, mult := range []float64{1, 2} {
			l := map[string]string{"model_name": m.name, "engine": string(rune('0' + e)), "job": "vllm"}
			out = append(out,
				counter(compute.Drafts, l, -1, start, end, step, 2*mult),
				counter(compute.DraftTokens, l, -1, start, end, step, 4*mult),
				counter(compute.AcceptedTokens, l, -1, start, end, step, m.acc*mult),
				counter(compute.AcceptedPerPosition, l, 0, start, end, step, m.pos0*mult),
				counter(compute.AcceptedPerPosition, l, 1, start, end, step, (m.acc-m.pos0)*mult),
			)
		}
	}
	return out
}

func TestGrouping(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_060_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{"model_name"}
	var res Result
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End+60_000), time.Second)

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
	res.compute(fleet(g.Start, g.End, g.Step), q, g, time.UnixMilli(g.End), time.Second)
	if len(res.Groups) != 2 || res.Groups[1].Name != "1 · (none)" || res.Groups[1].Stats.Drafts != 2*4*60 {
		t.Errorf("by engine: %d groups, %q, drafts %v", len(res.Groups), res.Groups[1].Name, res.Groups[1].Stats.Drafts)
	}
	// Conditional rate of the total: pos 2 given pos 1 = (120+0)... check
	// against FitGeometric directly.
	if !reflect.DeepEqual(res.Fit, compute.FitGeometric(res.Total.Total)) {
		t.Errorf("fit is not FitGeometric of the total")
	}
}

func TestSortGroups(t *testing.T) {
	mk := func(name string, rate compute.Value, k int) GroupResult {
		return GroupResult{Name: name, Stats: compute.Stats{AcceptanceRate: rate, K: k}}
	}
	groups := []GroupResult{mk("b", compute.Defined(0.5), 3), mk("a", compute.Value{}, 4), mk("c", compute.Defined(0.7), 2)}
	names := func(gs []GroupResult) string {
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

func TestExportCSVAndJSON(t *testing.T) {
	g := compute.Grid{Start: 1_000_000, End: 1_030_000, Step: 10_000}
	q := DefaultQuery()
	q.GroupBy = []string{"model_name"}
	res := &Result{Query: q}
	series := fleet(g.Start, g.End, g.Step)
	// A third model without drafts: undefined ratios.
	idle := map[string]string{"model_name": `idle, "quoted"`}
	series = append(series, counter(compute.Drafts, idle, -1, g.Start, g.End, g.Step, 0),
		counter(compute.DraftTokens, idle, -1, g.Start, g.End, g.Step, 0),
		counter(compute.AcceptedTokens, idle, -1, g.Start, g.End, g.Step, 0))
	res.compute(series, q, g, time.UnixMilli(g.End), time.Second)

	tbl := report.BreakdownTable(&res.Model, res.Groups)
	text := tbl.CSV()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v\n%s", err, text)
	}
	wantHead := "model_name,acceptance_rate,mean_acceptance_length_tokens,k,drafts_per_second,accepted_tokens_per_second,drafted_tokens_per_second,drafts,draft_tokens,accepted_tokens"
	if strings.Join(recs[0], ",") != wantHead {
		t.Errorf("header %q", strings.Join(recs[0], ","))
	}
	want := [][]string{
		{"a", "0.75", "2.5", "2", "6", "9", "12", "180", "360", "270"},
		{"b", "0.25", "1.5", "2", "6", "3", "12", "180", "360", "90"},
		{`idle, "quoted"`, "", "", "0", "0", "0", "0", "0", "0", "0"},
	}
	if !reflect.DeepEqual(recs[1:], want) {
		t.Errorf("rows\n%v\nwant\n%v", recs[1:], want)
	}

	var js struct {
		Name    string           `json:"name"`
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(tbl.JSON()), &js); err != nil {
		t.Fatal(err)
	}
	if js.Name != "breakdown" || len(js.Rows) != 3 || js.Rows[0]["acceptance_rate"] != 0.75 || js.Rows[2]["acceptance_rate"] != nil ||
		js.Rows[2]["model_name"] != `idle, "quoted"` {
		t.Errorf("JSON %+v", js)
	}
	if _, ok := js.Rows[2]["acceptance_rate"]; !ok {
		t.Errorf("undefined number left out of the JSON instead of null")
	}

	// Time series: one row per bucket with its end time and completeness.
	lt := report.LinesTable("acceptance-rate", &res.Model, []model.Line{{Name: "a", Values: []compute.Value{compute.Defined(0.5), {}, compute.Defined(1)}}}, "ratio")
	recs, _ = csv.NewReader(strings.NewReader(lt.CSV())).ReadAll()
	if strings.Join(recs[0], ",") != "bucket_end,bucket_end_unix_ms,complete,a (ratio)" || len(recs) != 4 {
		t.Fatalf("lines CSV %v", recs)
	}
	if strings.Join(recs[1], ",") != "1970-01-01T00:16:50Z,1010000,true,0.5" || recs[2][3] != "" {
		t.Errorf("lines rows %v", recs[1:])
	}
	// Per position: rate and conditional rate.
	pt := report.PerPositionTable(&res.Model)
	recs, _ = csv.NewReader(strings.NewReader(pt.CSV())).ReadAll()
	// pos 1: (2+4+1+2)*30 = 270 of 360 drafts = 0.75; pos 2: 90 of 270 reached.
	if len(recs) != 3 || strings.Join(recs[1], ",") != "1,270,360,0.75,0.75,360" || strings.Join(recs[2], ",") != "2,90,360,0.25,0.3333333333333333,270" {
		t.Errorf("per-position CSV %v", recs)
	}
	ht := report.HeatmapTable(&res.Model)
	if len(ht.Rows) != 3 || len(ht.Columns) != 6 {
		t.Errorf("heatmap table %d rows %v", len(ht.Rows), ht.Columns)
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
		for _, s := range fleet(g.Start-g.Step, last, 1000) {
			series = append(series, s)
		}
		var r Result
		r.compute(series, q, g, now, scrape)
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

func TestCompare(t *testing.T) {
	// Newcombe (1998), example: 56/70 vs 48/80: difference of B - A with A =
	// 48/80 is 0.2, 95 % interval 0.0524..0.3339.
	a := compute.Counts{Drafts: 80, DraftTokens: 80, AcceptedTokens: 48, AcceptedPerPosition: []float64{48}}
	b := compute.Counts{Drafts: 70, DraftTokens: 70, AcceptedTokens: 56, AcceptedPerPosition: []float64{56}}
	res := &Result{Query: Query{GroupBy: []string{"model_name"}}, Model: model.Model{Groups: []GroupResult{
		{Key: `["a"]`, Name: "a", Counts: compute.Group{Total: a}, Stats: compute.Derive(a, 60, compute.WithBonus)},
		{Key: `["b"]`, Name: "b", Counts: compute.Group{Total: b}, Stats: compute.Derive(b, 60, compute.WithBonus)},
	}}}
	q := Query{Compare: CompareGroups, CompareA: `["a"]`, CompareB: `["b"]`}
	c := Compare(res, q)
	if c.Reason != "" || math.Abs(c.Rate.Difference.V-0.2) > 1e-12 || math.Abs(c.Rate.Lower.V-0.0524) > 5e-5 || math.Abs(c.Rate.Upper.V-0.3339) > 5e-5 || !c.Rate.Significant {
		t.Errorf("comparison %+v", c.Rate)
	}
	if len(c.Positions) != 1 || !c.Positions[0].Significant {
		t.Errorf("positions %+v", c.Positions)
	}
	tbl := report.CompareTable(c)
	recs, _ := csv.NewReader(strings.NewReader(tbl.CSV())).ReadAll()
	if len(recs) != 4 || recs[1][0] != "acceptance_rate" || recs[1][7] != "true" || recs[2][0] != "mean_acceptance_length_tokens" || !strings.HasPrefix(recs[2][3], "0.19999999") {
		t.Errorf("compare CSV %v", recs)
	}
	// Swapped: B lower.
	q.CompareA, q.CompareB = q.CompareB, q.CompareA
	if c := Compare(res, q); c.Rate.Difference.V >= 0 || !c.Rate.Significant {
		t.Errorf("swapped %+v", c.Rate)
	}
	// A drafts k=4, B k=5: pos 5 is not drafted by A, so it has no rate
	// for A and no test (it read "0.0 % 14.0 % ... yes: B higher").
	a4 := compute.Counts{Drafts: 100, DraftTokens: 400, AcceptedTokens: 140, AcceptedPerPosition: []float64{60, 40, 25, 15}}
	b5 := compute.Counts{Drafts: 100, DraftTokens: 500, AcceptedTokens: 158, AcceptedPerPosition: []float64{61, 40, 25, 18, 14}}
	mixed := &Result{Query: Query{GroupBy: []string{"model_name"}}, Model: model.Model{Groups: []GroupResult{
		{Key: `["a"]`, Name: "a", Counts: compute.Group{Total: a4}, Stats: compute.Derive(a4, 60, compute.WithBonus)},
		{Key: `["b"]`, Name: "b", Counts: compute.Group{Total: b5}, Stats: compute.Derive(b5, 60, compute.WithBonus)},
	}}}
	mc := Compare(mixed, Query{Compare: CompareGroups, CompareA: `["a"]`, CompareB: `["b"]`})
	if mc.AK != 4 || mc.BK != 5 || len(mc.Positions) != 5 {
		t.Fatalf("mixed k: AK %d BK %d, %d positions", mc.AK, mc.BK, len(mc.Positions))
	}
	if p := mc.Positions[3]; p.Reason != "" || !p.A.Estimate.OK || p.A.Estimate.V != 0.15 || p.B.Estimate.V != 0.18 || !p.Difference.OK || !p.PValue.OK {
		t.Errorf("mixed k: pos 4, drafted by both, %+v", p)
	}
	p5 := mc.Positions[4]
	if p5.Reason != NotDrafted || p5.A.Estimate.OK || !p5.B.Estimate.OK || p5.B.Estimate.V != 0.14 || p5.Difference.OK || p5.Lower.OK || p5.Upper.OK || p5.PValue.OK || p5.Significant {
		t.Errorf("mixed k: pos 5, not drafted by A, %+v", p5)
	}
	recs, _ = csv.NewReader(strings.NewReader(report.CompareTable(mc).CSV())).ReadAll()
	if len(recs) != 8 || recs[6][0] != "pos_4_acceptance_rate" || recs[6][7] == "" ||
		recs[7][0] != "pos_5_acceptance_rate" || recs[7][1] != "" || recs[7][2] != "0.14" || recs[7][3] != "" || recs[7][6] != "" || recs[7][7] != "" {
		t.Errorf("mixed k compare CSV %q", recs)
	}
	html := renderHTML(t, (&Dashboard{}).renderCompareTable(mc))
	// The whole row from its <tr: go-app writes attributes in map order, so
	// data-significant may come before data-compare.
	row := func(key string) string {
		i := strings.Index(html, `data-compare="`+key+`"`)
		r := html[strings.LastIndex(html[:i], "<tr"):]
		return r[:strings.Index(r, "</tr>")]
	}
	pos5 := row("pos-5")
	if !strings.Contains(pos5, `data-significant="na"`) || strings.Count(pos5, NotDrafted) != 2 || !strings.Contains(pos5, "14.0 %") || strings.Contains(pos5, "0.0 %") || strings.Contains(pos5, "higher") {
		t.Errorf("mixed k: pos 5 row %s", pos5)
	}
	pos4 := row("pos-4")
	if strings.Contains(pos4, NotDrafted) || !strings.Contains(pos4, "15.0 %") || !strings.Contains(pos4, "18.0 %") {
		t.Errorf("mixed k: pos 4 row %s", pos4)
	}
	// Swapped: B does not draft pos 5.
	sc := Compare(mixed, Query{Compare: CompareGroups, CompareA: `["b"]`, CompareB: `["a"]`})
	if p := sc.Positions[4]; p.Reason != NotDrafted || !p.A.Estimate.OK || p.B.Estimate.OK || p.Significant {
		t.Errorf("mixed k swapped: pos 5 %+v", p)
	}

	// Not enough groups, or no baseline: a reason, never a panic.
	if c := Compare(&Result{}, Query{Compare: CompareGroups}); c.Reason == "" {
		t.Errorf("no groups but no reason")
	}
	if c := Compare(&Result{}, Query{Compare: CompareWindow}); c.Reason == "" {
		t.Errorf("no baseline but no reason")
	}
	if c := Compare(nil, q); c.Reason == "" || len(report.CompareTable(c).Rows) != 0 {
		t.Errorf("nil result")
	}
	// Baseline grid: the window just before, same step.
	g := compute.Grid{Start: 600_000, End: 900_000, Step: 1000}
	if bg := (Query{}).BaselineGrid(g); bg != (compute.Grid{Start: 300_000, End: 600_000, Step: 1000}) {
		t.Errorf("baseline grid %+v", bg)
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

// The insights chart takes the theme's colours: in the dark theme no light
// grid lines or light axis labels.
func TestInsightsChartTheme(t *testing.T) {
	d := ComputeInsightsData(seedStats(), 0.1)
	for _, theme := range []string{ThemeLight, ThemeDark} {
		p := PaletteFor(theme)
		js := InsightsChart(d, p)
		if js == "" {
			t.Fatalf("%s: no option", theme)
		}
		var m struct {
			YAxis []struct {
				SplitLine struct {
					LineStyle struct{ Color string } `json:"lineStyle"`
				} `json:"splitLine"`
				AxisLabel struct{ Color string } `json:"axisLabel"`
			} `json:"yAxis"`
			TextStyle struct{ Color string } `json:"textStyle"`
			Series    []struct {
				ItemStyle struct{ Color string } `json:"itemStyle"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		if len(m.YAxis) != 1 || m.YAxis[0].SplitLine.LineStyle.Color != p.Grid || m.YAxis[0].AxisLabel.Color != p.Muted {
			t.Errorf("%s: y axis %+v, want grid %s, labels %s", theme, m.YAxis, p.Grid, p.Muted)
		}
		if m.TextStyle.Color != p.Text {
			t.Errorf("%s: text colour %q, want %s", theme, m.TextStyle.Color, p.Text)
		}
		if len(m.Series) < 2 || m.Series[0].ItemStyle.Color != p.Bar {
			t.Errorf("%s: series %+v, want bars in %s", theme, m.Series, p.Bar)
		}
	}
	if InsightsChartOption(d) != InsightsChart(d, PaletteFor(ThemeLight)) {
		t.Error("InsightsChartOption is not the light theme's InsightsChart")
	}
}

// The compare table's p column reads as the report's p-values do.
func TestPCell(t *testing.T) {
	for v, want := range map[compute.Value]string{
		compute.Defined(0):         "< 0.001",
		compute.Defined(4.87e-297): "< 0.001",
		compute.Defined(0.0234):    "0.023",
		compute.Defined(1):         "1.000",
		{}:                         compute.Undefined,
	} {
		if got := pCell(v); got != want {
			t.Errorf("pCell(%v) = %q, want %q", v, got, want)
		}
	}
}
