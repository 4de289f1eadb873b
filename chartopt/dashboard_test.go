package chartopt

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/model"
)

// The dashboard's charts (view.Charts builds them with these options).

type echartsOption struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis  []map[string]any `json:"yAxis"`
	Series []struct {
		Type string `json:"type"`
		Data []struct {
			Value any `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

func TestPerPositionOption(t *testing.T) {
	var o echartsOption
	if err := json.Unmarshal([]byte(PerPosition(fixtures.WorkedExampleStats(), compute.FitGeometric(fixtures.WorkedExampleStats().Counts()), PaletteFor(ThemeLight)).JSON()), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.XAxis) != 1 || strings.Join(o.XAxis[0].Data, ",") != "pos 1,pos 2,pos 3" {
		t.Fatalf("x axis %+v, want pos 1..pos 3", o.XAxis)
	}
	if len(o.YAxis) != 1 || len(o.Series) != 2 || o.Series[0].Type != "bar" || o.Series[1].Type != "line" {
		t.Fatalf("want one y axis, a bar series and a line series: %+v", o)
	}
	// Conditional rate: per_pos[i] / per_pos[i-1]: 5/5, 3/5, 1/3.
	var cond []float64
	for _, d := range o.Series[1].Data {
		cond = append(cond, d.Value.(float64))
	}
	if len(cond) != 3 || cond[0] != 100 || cond[1] != 60 || cond[2] != 33.3 {
		t.Errorf("conditional %v, want [100 60 33.3]", cond)
	}
	var got []float64
	for _, d := range o.Series[0].Data {
		got = append(got, d.Value.(float64))
	}
	// per-position [1.0, 0.6, 0.2] in percent
	if len(got) != 3 || got[0] != 100 || got[1] != 60 || got[2] != 20 {
		t.Errorf("bars %v, want [100 60 20]", got)
	}
	if PerPosition(compute.Stats{}, compute.FitGeometric(compute.Stats{}.Counts()), PaletteFor(ThemeLight)).JSON() != "" {
		t.Errorf("k = 0 must give no chart")
	}
}

func TestTimeOptionsHaveGaps(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	buckets := []compute.Stats{fixtures.WorkedExampleStats(), none, fixtures.WorkedExampleStats()}
	rate, length := make([]compute.Value, 3), make([]compute.Value, 3)
	for j, b := range buckets {
		rate[j], length[j] = b.AcceptanceRate, b.MeanAcceptanceLength
	}
	p := PaletteFor(ThemeLight)
	for name, js := range map[string]string{
		"rate":   Lines(g, []model.Line{{Name: "acceptance rate", Values: rate}}, 3, 100, 1, "%", 0, 100, time.UTC, p).JSON(),
		"length": Lines(g, []model.Line{{Name: "mean acceptance length", Values: length}}, 3, 1, 3, "tokens", nil, nil, time.UTC, p).JSON(),
	} {
		if strings.Contains(js, "NaN") || strings.Contains(js, "Inf") {
			t.Errorf("%s option holds NaN/Inf: %s", name, js)
		}
		var o echartsOption
		if err := json.Unmarshal([]byte(js), &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := o.Series[0].Data
		if len(d) != 3 || d[1].Value != "-" {
			t.Errorf("%s: bucket without drafts is %v, want the gap marker \"-\"", name, d[1].Value)
		}
		if got := strings.Join(o.XAxis[0].Data, ","); got != "00:00:10,00:00:20,00:00:30" {
			t.Errorf("%s: x labels %q, want the bucket ends in UTC", name, got)
		}
	}
	var o echartsOption
	json.Unmarshal([]byte(Lines(g, []model.Line{{Name: "r", Values: rate}}, 3, 100, 1, "%", 0, 100, time.UTC, p).JSON()), &o)
	if o.Series[0].Data[0].Value != 60.0 {
		t.Errorf("acceptance rate bucket 0 = %v %%, want 60", o.Series[0].Data[0].Value)
	}
	json.Unmarshal([]byte(Lines(g, []model.Line{{Name: "l", Values: length}}, 3, 1, 3, "tokens", nil, nil, time.UTC, p).JSON()), &o)
	if o.Series[0].Data[0].Value != 1.8+1 {
		t.Errorf("mean acceptance length bucket 0 = %v, want 2.8 (bonus token included)", o.Series[0].Data[0].Value)
	}
}

// Label values reach ECharts tooltips only HTML-escaped (and with template
// braces escaped); the legend gets the raw text (drawn on the canvas).
func TestTooltipEscapesLabels(t *testing.T) {
	g := compute.Grid{Start: 0, End: 20_000, Step: 10_000}
	evil := `<img src=x onerror=alert(1)>{c0}&`
	js := Lines(g, []model.Line{{Name: evil, Values: []compute.Value{compute.Defined(0.5), compute.Defined(0.6)}}, {Name: "b", Values: []compute.Value{{}, {}}}}, 1, 100, 1, "%", 0, 100, time.UTC, PaletteFor(ThemeDark)).JSON()
	var o struct {
		Tooltip struct {
			Formatter string `json:"formatter"`
		} `json:"tooltip"`
		Series []struct {
			Name     string         `json:"name"`
			MarkArea map[string]any `json:"markArea"`
		} `json:"series"`
		Brush map[string]any `json:"brush"`
	}
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	f := o.Tooltip.Formatter
	if strings.Contains(f, "<img") || strings.Contains(f, "{c0}&") || !strings.Contains(f, "&lt;img src=x onerror=alert(1)&gt;&#123;c0&#125;&amp;: {c0} %") {
		t.Errorf("tooltip formatter %q does not escape the label", f)
	}
	if o.Series[0].Name != evil {
		t.Errorf("series name %q, want the raw label (canvas text)", o.Series[0].Name)
	}
	// Bucket 1 is incomplete: a mark area covers it; the chart can be brushed.
	if o.Series[0].MarkArea == nil || o.Brush == nil {
		t.Errorf("incomplete mark area %v, brush %v", o.Series[0].MarkArea, o.Brush)
	}
	if js := Lines(g, []model.Line{{Name: "x", Values: []compute.Value{{}, {}}}}, 2, 1, 1, "", nil, nil, time.UTC, PaletteFor(ThemeLight)).JSON(); strings.Contains(js, "markArea") {
		t.Errorf("all buckets complete but a mark area is drawn")
	}
}

// heatmapJSON is the part of a heatmap option the tests read: x labels
// and, per series, its [x, y, percent] cells and item style.
type heatmapJSON struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	Series []struct {
		Data      [][]float64    `json:"data"`
		ItemStyle map[string]any `json:"itemStyle"`
	} `json:"series"`
}

func decodeHeatmap(t *testing.T, js string) heatmapJSON {
	t.Helper()
	var o heatmapJSON
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestHeatmapOption(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	js := Heatmap(g, []compute.Stats{fixtures.WorkedExampleStats(), none, fixtures.WorkedExampleStats()}, 3, 2, time.UTC, PaletteFor(ThemeLight)).JSON()
	o := decodeHeatmap(t, js)
	if len(o.XAxis) == 0 || len(o.XAxis[0].Data) != 3 {
		t.Fatalf("x axis %+v, want 3 bucket labels", o.XAxis)
	}
	// 2 buckets with drafts x 3 positions; the empty bucket has no cells;
	// the incomplete bucket's cells are series 1, at half opacity.
	if len(o.Series) != 2 || o.Series[0].ItemStyle != nil || o.Series[1].ItemStyle["opacity"] != 0.45 {
		t.Fatalf("series %+v, want the complete cells and the incomplete ones (opacity 0.45)", o.Series)
	}
	d := append(o.Series[0].Data, o.Series[1].Data...)
	if len(d) != 6 || len(o.Series[1].Data) != 3 {
		t.Fatalf("%d cells (%d incomplete), want 6 (3)", len(d), len(o.Series[1].Data))
	}
	wantVals := [][]float64{{0, 0, 100}, {0, 1, 60}, {0, 2, 20}, {2, 0, 100}, {2, 1, 60}, {2, 2, 20}}
	for i, c := range d {
		if !reflect.DeepEqual(c, wantVals[i]) {
			t.Errorf("cell %d = %v, want %v", i, c, wantVals[i])
		}
	}
}

// Labels on the per-position bars, the heatmap cells and the insights
// chart round as the chips do (compute.FormatPercent): 959/2800 = 34.25 %
// is "34.2 %" everywhere (math.Round gave 34.3 on the bars).
func TestPercentLabelsMatchChips(t *testing.T) {
	s := compute.Derive(compute.Counts{Drafts: 2800, DraftTokens: 2800, AcceptedTokens: 959, AcceptedPerPosition: []float64{959}}, 10, compute.WithBonus)
	chip := compute.FormatPercent(s.PerPositionAcceptanceRate[0], 1)
	if chip != "34.2 %" {
		t.Fatalf("chip %q, want 34.2 %%", chip)
	}
	want := strings.TrimSuffix(chip, " %")
	var o echartsOption
	if err := json.Unmarshal([]byte(PerPosition(s, compute.FitGeometric(s.Counts()), PaletteFor(ThemeLight)).JSON()), &o); err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatFloat(o.Series[0].Data[0].Value.(float64), 'f', -1, 64); got != want {
		t.Errorf("bar label %s %%, chip %s", got, chip)
	}
	var h struct {
		Series []struct {
			Data [][]float64 `json:"data"`
		} `json:"series"`
	}
	g := compute.Grid{Start: 0, End: 10_000, Step: 10_000}
	if err := json.Unmarshal([]byte(Heatmap(g, []compute.Stats{s}, 1, 1, time.UTC, PaletteFor(ThemeLight)).JSON()), &h); err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatFloat(h.Series[0].Data[0][2], 'f', -1, 64); got != want {
		t.Errorf("heatmap label %s %%, chip %s", got, chip)
	}
}

// Legends and axis labels of every chart stay readable in both themes:
// contrast ratio (WCAG) at least 4.5 against the panel colour. The
// insights chart's legend was nearly invisible in the dark theme before it
// took the theme's palette.
func TestChartTextContrast(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	s := fixtures.WorkedExampleStats()
	vals := []compute.Value{s.AcceptanceRate, s.AcceptanceRate, s.AcceptanceRate}
	for _, theme := range []string{ThemeLight, ThemeDark} {
		p := PaletteFor(theme)
		for name, js := range map[string]string{
			"insights":     InsightsFit(model.Estimate(s.Counts(), 0.1), p).JSON(),
			"per-position": PerPosition(s, compute.FitGeometric(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}), p).JSON(),
			"lines":        Lines(g, []model.Line{{Name: "a", Values: vals}, {Name: "b", Values: vals}}, 3, 100, 1, "%", 0, 100, time.UTC, p).JSON(),
		} {
			var m struct {
				Legend struct {
					Show      bool                   `json:"show"`
					TextStyle struct{ Color string } `json:"textStyle"`
				} `json:"legend"`
				TextStyle struct{ Color string } `json:"textStyle"`
			}
			if err := json.Unmarshal([]byte(js), &m); err != nil {
				t.Fatalf("%s %s: %v", theme, name, err)
			}
			if !m.Legend.Show {
				t.Errorf("%s %s: no legend", theme, name)
			}
			for what, c := range map[string]string{"legend": m.Legend.TextStyle.Color, "text": m.TextStyle.Color} {
				if r := contrast(c, p.Panel); r < 4.5 {
					t.Errorf("%s %s: %s colour %q on panel %s: contrast %.2f, want >= 4.5", theme, name, what, c, p.Panel, r)
				}
			}
		}
	}
}

// contrast is the WCAG 2 contrast ratio of two #rrggbb colours (1 when one
// does not parse: fails the check).
func contrast(a, b string) float64 {
	lum := func(c string) (float64, bool) {
		if len(c) != 7 || c[0] != '#' {
			return 0, false
		}
		var l float64
		for i, w := range []float64{0.2126, 0.7152, 0.0722} {
			v, err := strconv.ParseUint(c[1+2*i:3+2*i], 16, 8)
			if err != nil {
				return 0, false
			}
			x := float64(v) / 255
			if x <= 0.03928 {
				x /= 12.92
			} else {
				x = math.Pow((x+0.055)/1.055, 2.4)
			}
			l += w * x
		}
		return l, true
	}
	la, ok1 := lum(a)
	lb, ok2 := lum(b)
	if !ok1 || !ok2 {
		return 1
	}
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestHeatmapColumns: 6 h at 1 min (360 buckets) draw 90 columns of four
// buckets (the window starts on a 4 min boundary); a column's rate is the
// ratio of its buckets' sums; the columns holding incomplete buckets are
// the second (half-opaque) series; a span of columns selected on the
// heatmap is the span of their buckets.
func TestHeatmapColumns(t *testing.T) {
	const n = 360
	g := compute.Grid{Start: 1_800_000_000_000 - 1_800_000_000_000%240_000, Step: 60_000}
	g.End = g.Start + n*g.Step
	r := &model.Model{Grid: g, Complete: n - 2}
	r.Total.Buckets = make([]compute.Counts, n)
	for j := range r.Total.Buckets {
		d := float64(10 + j%4*10) // 10, 20, 30, 40 drafts: the mean of ratios differs from the ratio of sums
		r.Total.Buckets[j] = compute.Counts{Drafts: d, DraftTokens: 2 * d, AcceptedTokens: float64(j % 4 * 10), AcceptedPerPosition: []float64{float64(j % 4 * 10), 0}}
	}
	r.Buckets = r.Total.BucketStats(g, compute.WithBonus)
	r.Stats = compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 1, compute.WithBonus)

	first, option := heatmapColumns(r, time.UTC, PaletteFor(ThemeLight))
	if len(first) != 90 || first[1] != 4 || first[89] != 356 {
		t.Fatalf("%d columns, first %v...", len(first), first[:3])
	}
	o := decodeHeatmap(t, option)
	if len(o.XAxis) != 1 || len(o.XAxis[0].Data) != 90 || o.XAxis[0].Data[89] != time.UnixMilli(g.End).UTC().Format("15:04") {
		t.Fatalf("x labels %d, last %v", len(o.XAxis[0].Data), o.XAxis[0].Data[len(o.XAxis[0].Data)-1:])
	}
	if len(o.Series) != 2 || len(o.Series[1].Data) != 2 || o.Series[1].Data[0][0] != 89 {
		t.Fatalf("series %d; incomplete cells %v, want column 89's two", len(o.Series), o.Series[len(o.Series)-1].Data)
	}
	// Column 0 pos 1: (0 + 10 + 20 + 30) / (10 + 20 + 30 + 40) = 60 %, not
	// the mean of 0 %, 50 %, 66.7 %, 75 %.
	if c := o.Series[0].Data[0]; c[0] != 0 || c[1] != 0 || c[2] != 60 {
		t.Errorf("column 0, pos 1 cell %v, want [0 0 60]", c)
	}
	for _, c := range []struct{ from, to, b, e int }{{0, 0, 0, 3}, {1, 2, 4, 11}, {89, 89, 356, 359}, {88, 200, 352, 359}} {
		if b, e := model.ColumnBuckets(first, n, c.from, c.to); b != c.b || e != c.e {
			t.Errorf("columns %d..%d: buckets %d..%d, want %d..%d", c.from, c.to, b, e, c.b, c.e)
		}
	}
	if b, e := model.ColumnBuckets(first, n, 90, 91); e >= b {
		t.Errorf("columns past the end: buckets %d..%d, want none", b, e)
	}

	// Not aligned: partial first and last columns, still at most
	// model.HeatmapMaxColumns, for any window of up to a day at any offset.
	for n2 := model.HeatmapMaxColumns + 1; n2 <= 1440; n2 += 37 {
		for off := int64(0); off < 8; off++ {
			g2 := compute.Grid{Start: g.Start + off*g.Step, Step: g.Step}
			g2.End = g2.Start + int64(n2)*g.Step
			if first, _ := compute.Columns(make([]compute.Counts, n2), g2, model.HeatmapFactor(n2)); len(first) > model.HeatmapMaxColumns {
				t.Errorf("%d buckets, offset %d steps: %d columns", n2, off, len(first))
			}
		}
	}

	// A short window draws every bucket.
	r2 := *r
	r2.Grid.End = g.Start + 100*g.Step
	r2.Total.Buckets, r2.Buckets = r.Total.Buckets[:100], r.Buckets[:100]
	if first, _ := heatmapColumns(&r2, time.UTC, PaletteFor(ThemeLight)); len(first) != 100 {
		t.Errorf("100 buckets: %d columns, want 100", len(first))
	}
}

// The insights chart takes the theme's colours: in the dark theme no light
// grid lines or light axis labels.
func TestInsightsChartTheme(t *testing.T) {
	d := model.Estimate(fixtures.WorkedExampleStats().Counts(), 0.1)
	for _, theme := range []string{ThemeLight, ThemeDark} {
		p := PaletteFor(theme)
		js := InsightsFit(d, p).JSON()
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
}

// heatmapColumns is the dashboard's heatmap of m (view.Charts): the
// columns of model.Model.Heatmap; first[c] is the first bucket of column c.
func heatmapColumns(m *model.Model, loc *time.Location, p Palette) (first []int, option string) {
	h := m.Heatmap()
	return h.First, HeatmapColumns(h, m.Grid, len(m.Buckets), loc, p).JSON()
}
