package chartsvg_test

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/chartopt"
	"specdash/chartsvg"
	"specdash/compute"
	"specdash/model"
)

// hostile are label values an unlucky or hostile source could carry (a
// label value becomes a series name, a time zone or unit a category).
var hostile = []string{
	`</svg><script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`' onmouseover='alert(1)`,
	`javascript:alert(1)`,
	`red;}body{display:none}`,
	`&amp; &lt; &#x3c; & < >`,
	"ctl\x00\x01\x08\x0b\x0c\x1b\x7f\ufffe\uffff end",
	"\u202e\u200b👍 ünïcödé 漢字",
	strings.Repeat("long-", 2000),
	`{value} {c} {b}`,
	`]]><![CDATA[`,
	`<!-- -->`,
}

// drawOK draws opt, never panicking, and checks a non-empty drawing: well
// formed, no markup or number junk from the input, every coordinate finite.
func drawOK(t *testing.T, name, opt string) string {
	t.Helper()
	var out string
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: Draw panicked: %v\noption: %.500s", name, r, opt)
			}
		}()
		out = chartsvg.Draw(opt)
	}()
	if out == "" {
		return ""
	}
	root := parse(t, out)
	for _, bad := range []string{"<script", "<img", "NaN", "Inf", "<!--", "<![CDATA"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: drawing holds %q: %.300s", name, bad, out)
		}
	}
	for _, n := range root.all(func(*node) bool { return true }) {
		if n.Name != "div" && n.Name != "span" && n.Name != "svg" && n.Name != "g" && n.Name != "path" && n.Name != "rect" {
			t.Errorf("%s: unexpected element %q", name, n.Name)
		}
		for k, v := range n.Attr {
			switch k {
			case "x", "y", "width", "height", "stroke-width", "opacity":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
					t.Errorf("%s: %s %s=%q", name, n.Name, k, v)
				}
			case "class", "style", "fill", "stroke", "d", "viewBox", "preserveAspectRatio", "aria-hidden", "data-chart-static", "data-series",
				"shape-rendering", "stroke-linejoin", "stroke-linecap", "vector-effect":
			default:
				t.Errorf("%s: unexpected attribute %s=%q", name, k, v)
			}
			if k == "style" || k == "fill" || k == "stroke" {
				for _, fn := range []string{"url(", "expression(", "var(", "attr(", "image-set(", "image(", "element("} {
					if strings.Contains(strings.ToLower(v), fn) {
						t.Errorf("%s: %s %s=%q", name, n.Name, k, v)
					}
				}
			}
			if strings.Contains(strings.ToLower(v), "javascript:") && k != "data-series" {
				t.Errorf("%s: %s=%q", name, k, v)
			}
		}
	}
	return out
}

func vals(f ...float64) []compute.Value {
	out := make([]compute.Value, len(f))
	for i, v := range f {
		if !math.IsNaN(v) {
			out[i] = compute.Defined(v)
		}
	}
	return out
}

// Hostile names in every builder: the drawing stays well formed and the
// text is there, escaped.
func TestHostileNames(t *testing.T) {
	p := chartopt.PaletteFor(chartopt.ThemeLight)
	for _, h := range hostile {
		g := compute.Grid{Start: 0, End: 3 * 60_000, Step: 60_000}
		opt := chartopt.Lines(g, []model.Line{{Name: h, Values: vals(1, math.NaN(), 3)}, {Name: h + "2", Values: vals(-1, 2, 2)}}, 2, 1, 2, h, nil, nil, time.UTC, p).JSON()
		if out := drawOK(t, "lines "+h[:min(len(h), 20)], opt); out == "" {
			t.Errorf("lines with name %.20q not drawn", h)
		}
		// Hand-written: hostile categories, legend, band label, bar label, formatter.
		b, _ := json.Marshal(h)
		hs := string(b)
		opt = `{"legend":{"show":true},"xAxis":[{"type":"category","data":[` + hs + `,` + hs + `]}],"yAxis":[{"type":"value","axisLabel":{"formatter":` + hs + `}}],"series":[{"type":"bar","name":` + hs + `,"data":[1,2],"label":{"show":true,"formatter":` + hs + `},"markArea":{"label":{"show":true,"formatter":` + hs + `},"data":[[{"xAxis":0},{"xAxis":1}]]}}]}`
		if out := drawOK(t, "hand "+h[:min(len(h), 20)], opt); out == "" {
			t.Errorf("hand-written option with %.20q not drawn", h)
		}
		opt = `{"xAxis":[{"type":"category","data":[` + hs + `]}],"yAxis":[{"type":"category","data":[` + hs + `]}],"visualMap":[{"min":0,"max":100,"text":[` + hs + `,` + hs + `],"inRange":{"color":["#000","#fff"]}}],"series":[{"type":"heatmap","name":` + hs + `,"data":[[0,0,50]]}]}`
		if out := drawOK(t, "heatmap "+h[:min(len(h), 20)], opt); out == "" {
			t.Errorf("heatmap with %.20q not drawn", h)
		}
	}
}

// Odd numbers: the drawing is either "" or sound (drawOK), never a panic.
func TestOddNumbers(t *testing.T) {
	p := chartopt.PaletteFor(chartopt.ThemeDark)
	series := map[string][]float64{
		"negative":  {-5, -1, -3},
		"all equal": {7, 7, 7},
		"one":       {0.5},
		"zeros":     {0, 0},
		"huge":      {1e300, 2e300, -1e300},
		"max":       {math.MaxFloat64, -math.MaxFloat64},
		"near max":  {8e307, -8e307},
		"tiny":      {1e-300, 2e-300},
		"subnormal": {5e-324, 1e-323},
		"big flat":  {1e17, 1e17 + 32},
		"close":     {1, 1 + 1e-12},
		"closer":    {1, 1 + 1e-15},
		"mixed":     {1e-300, 1e300},
	}
	for name, s := range series {
		g := compute.Grid{Start: 0, End: int64(len(s)) * 60_000, Step: 60_000}
		for _, mm := range [][2]any{{nil, nil}, {0, 1}, {1, 0}, {"dataMin", "dataMax"}, {-1e308, 1e308}, {5, 5}} {
			opt := chartopt.Lines(g, []model.Line{{Name: "a", Values: vals(s...)}}, len(s), 1, 20, "u", mm[0], mm[1], time.UTC, p).JSON()
			drawOK(t, name+" lines", opt)
		}
		var raw []string
		for _, v := range s {
			raw = append(raw, strconv.FormatFloat(v, 'g', -1, 64))
		}
		cats := strings.Repeat(`"c",`, len(s))
		cats = cats[:len(cats)-1]
		for _, y := range []string{`{"type":"value"}`, `{"type":"value","scale":true}`, `{"type":"value","min":0,"max":100}`, `{"type":"value","min":100,"max":0}`, `{"type":"value","min":3}`, `{"type":"value","max":-3}`} {
			opt := `{"xAxis":[{"type":"category","data":[` + cats + `]}],"yAxis":[` + y + `],"series":[{"type":"bar","data":[` + strings.Join(raw, ",") + `],"label":{"show":true}},{"type":"line","data":[` + strings.Join(raw, ",") + `]}]}`
			drawOK(t, name+" "+y, opt)
		}
	}
	// Strings and objects where numbers go.
	for _, d := range []string{`["NaN","Infinity","-Infinity","1"]`, `[{"value":"NaN"},{"value":[1,2]},{"value":null},{}]`, `[null,"-",true,{"value":1e999}]`} {
		opt := `{"xAxis":[{"type":"category","data":["a","b","c","d"]}],"yAxis":[{"type":"value","min":"NaN","max":"dataMax"}],"series":[{"type":"line","data":` + d + `}]}`
		drawOK(t, d, opt)
	}
}

// Shapes: gaps, series longer or shorter than the categories, many
// categories, k = 1, the heatmap's odd cells and colours.
func TestOddShapes(t *testing.T) {
	p := chartopt.PaletteFor(chartopt.ThemeLight)
	// k = 1 per-position chart, and k = 0.
	for k := 0; k <= 2; k++ {
		s := compute.Stats{PerPositionAcceptanceRate: vals([]float64{0.9, 0.5}[:k]...)}
		fit := compute.GeometricFit{Conditional: vals([]float64{0.9, 0.55}[:k]...)}
		drawOK(t, "per-position k="+strconv.Itoa(k), chartopt.PerPosition(s, fit, p).JSON())
	}
	// Series length different from the categories.
	for _, d := range []string{`[]`, `[1]`, `[1,2,3,4,5,6,7]`, `["-","-",5]`} {
		opt := `{"xAxis":[{"type":"category","data":["a","b","c"]}],"yAxis":[{"type":"value"}],"series":[{"type":"bar","data":` + d + `},{"type":"line","data":` + d + `}]}`
		drawOK(t, "length "+d, opt)
	}
	// No category, and a category without series data.
	drawOK(t, "0 categories", `{"xAxis":[{"type":"category","data":[]}],"yAxis":[{"type":"value"}],"series":[{"type":"line","data":[1]}]}`)
	// 1000+ categories: every builder, and the size of what it adds to the page.
	n := 1440
	g := compute.Grid{Start: 0, End: int64(n) * 60_000, Step: 60_000}
	buckets := make([]compute.Stats, n)
	var a, b []float64
	for i := range buckets {
		r := 0.5 + 0.4*math.Sin(float64(i)/50)
		if i%97 == 0 {
			r = math.NaN()
		}
		a = append(a, r)
		b = append(b, 1-r)
		if !math.IsNaN(r) {
			buckets[i] = compute.Stats{K: 3, PerPositionAcceptanceRate: vals(r, r*r, r*r*r), AcceptanceRate: compute.Defined(r),
				DraftedThroughput: compute.Defined(3000 * r), AcceptedThroughput: compute.Defined(3000 * r * r)}
		}
	}
	for name, opt := range map[string]string{
		"lines":      chartopt.Lines(g, []model.Line{{Name: "a", Values: vals(a...)}, {Name: "b", Values: vals(b...)}}, n-2, 100, 1, "%", 0, 100, time.UTC, p).JSON(),
		"throughput": chartopt.Throughput(g, buckets, n-2, time.UTC, p).JSON(),
		"heatmap":    chartopt.Heatmap(g, buckets, 3, n-2, time.UTC, p).JSON(),
	} {
		out := drawOK(t, name, opt)
		t.Logf("%s over %d categories: option %d bytes, drawing %d bytes", name, n, len(opt), len(out))
		if len(out) > 400_000 {
			t.Errorf("%s: drawing of %d bytes", name, len(out))
		}
	}
	// Heatmap oddities: cells outside the axes, fractional and negative
	// indices, values outside min..max, colours empty or not hex.
	cells := `[[0,0,50],[-1,0,1],[0,-1,1],[5,0,1],[0,5,1],[0.5,0.5,-1e300],[1,1,1e300],[1,0,"x"],"-",[1,2],[1e300,1e300,1],[-1e300,0,1]]`
	for _, vm := range []string{
		`{"min":0,"max":100,"inRange":{"color":[]}}`,
		`{"min":0,"max":100,"inRange":{"color":["#000"]}}`,
		`{"min":0,"max":100,"inRange":{"color":["red","#fff"]}}`,
		`{"min":100,"max":0,"inRange":{"color":["#000","#fff"]}}`,
		`{"min":5,"max":5,"inRange":{"color":["#000","#fff"]}}`,
		`{"min":-1e308,"max":1e308,"inRange":{"color":["#000","#fff"]}}`,
		`{"inRange":{"color":["#0000","#fff"]}}`,
		`{"min":"dataMin","inRange":{"color":["#abc","#ABCDEF","#123456"]},"text":["a"]}`,
	} {
		opt := `{"xAxis":[{"type":"category","data":["a","b"]}],"yAxis":[{"type":"category","data":["p1","p2"]}],"visualMap":[` + vm + `],"series":[{"type":"heatmap","data":` + cells + `,"itemStyle":{"opacity":-3}},{"type":"heatmap","data":[],"itemStyle":{"opacity":1e300}}]}`
		drawOK(t, "heatmap "+vm, opt)
	}
	// Colours that are not colours.
	for _, c := range []string{"url(x)", "expression(alert(1))", "image-set(x 1x)", "var(--x)", "red)", "attr(x)", "rgb(1,2,3", "#fff;x", "currentColor"} {
		opt := `{"color":["` + c + `"],"legend":{},"textStyle":{"color":"` + c + `"},"xAxis":[{"type":"category","data":["a"]}],"yAxis":[{"type":"value","axisLabel":{"color":"` + c + `"},"splitLine":{"lineStyle":{"color":"` + c + `"}}}],"series":[{"type":"bar","data":[1],"label":{"show":true,"color":"` + c + `"},"markArea":{"itemStyle":{"color":"` + c + `"},"label":{"show":true,"formatter":"i","color":"` + c + `"},"data":[[{"xAxis":0},{"xAxis":0}]]}},{"type":"line","data":[1],"lineStyle":{"color":"` + c + `"}}]}`
		out := drawOK(t, "colour "+c, opt)
		if strings.Contains(out, c) && c != "currentColor" {
			t.Errorf("colour %q written: %.300s", c, out)
		}
	}
	// The insights chart.
	drawOK(t, "insights empty", chartopt.InsightsFit(model.Estimate(compute.Stats{}.Counts(), 0.1), p).JSON())
	for _, c := range []compute.Counts{
		{Drafts: 100, DraftTokens: 300, AcceptedTokens: 150, AcceptedPerPosition: []float64{80, 50, 20}},
		{Drafts: 100, DraftTokens: 100, AcceptedTokens: 100, AcceptedPerPosition: []float64{100}},
		{Drafts: 1, DraftTokens: 3, AcceptedTokens: 0, AcceptedPerPosition: []float64{0, 0, 0}},
		{Drafts: 1e300, DraftTokens: 3e300, AcceptedTokens: 1e300, AcceptedPerPosition: []float64{1e300, 0, 5}},
	} {
		var conv compute.Convention
		opt := chartopt.InsightsFit(model.Estimate(compute.Derive(c, 60, conv).Counts(), 0.1), p).JSON()
		if out := drawOK(t, "insights", opt); out == "" {
			t.Logf("insights chart of %+v not drawn (%.200s)", c, opt)
		}
	}
}

// Ticks, for any finite input: returns, increasing strictly, and nil or at
// least two finite ticks that hold the fixed ends.
func TestTicksProperty(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pick := func() float64 {
		switch r.Intn(6) {
		case 0:
			return (r.Float64() - 0.5) * math.Pow(10, float64(r.Intn(617)-308))
		case 1:
			return float64(r.Intn(200) - 100)
		case 2:
			return []float64{0, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e17, 1e300, 1e-300}[r.Intn(7)]
		case 3:
			return r.NormFloat64() * 1e-12
		default:
			return r.Float64() * 100
		}
	}
	for i := 0; i < 200_000; i++ {
		lo, hi := pick(), pick()
		if r.Intn(3) == 0 {
			hi = lo + pick()*math.Pow(10, -float64(r.Intn(17)))
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		fmin, fmax := pick(), pick()
		okMin, okMax, scale := r.Intn(3) == 0, r.Intn(3) == 0, r.Intn(2) == 0
		// A call that never returns fails the run at go test's -timeout,
		// with its stack (no timed assertion here).
		ticks := chartsvg.Ticks(lo, hi, fmin, okMin, fmax, okMax, scale)
		if ticks == nil {
			continue
		}
		if len(ticks) < 2 || len(ticks) > 20 {
			t.Fatalf("Ticks(%v, %v, %v, %v, %v, %v, %v) = %d ticks %v", lo, hi, fmin, okMin, fmax, okMax, scale, len(ticks), ticks)
		}
		for j, v := range ticks {
			if math.IsNaN(v) || math.IsInf(v, 0) || j > 0 && !(v > ticks[j-1]) {
				t.Fatalf("Ticks(%v, %v, %v, %v, %v, %v, %v) = %v", lo, hi, fmin, okMin, fmax, okMax, scale, ticks)
			}
		}
		if d := ticks[len(ticks)-1] - ticks[0]; math.IsInf(d, 0) {
			t.Fatalf("Ticks(%v, %v, %v, %v, %v, %v, %v) = %v: span overflows", lo, hi, fmin, okMin, fmax, okMax, scale, ticks)
		}
	}
}

func FuzzDraw(f *testing.F) {
	p := chartopt.PaletteFor(chartopt.ThemeLight)
	g := compute.Grid{Start: 0, End: 3 * 60_000, Step: 60_000}
	buckets := []compute.Stats{{K: 2, PerPositionAcceptanceRate: vals(0.8, 0.5)}, {}, {K: 2, PerPositionAcceptanceRate: vals(0.7, 0.3)}}
	f.Add(chartopt.PerPosition(compute.Stats{PerPositionAcceptanceRate: vals(0.8, 0.5, math.NaN())}, compute.GeometricFit{Conditional: vals(0.8, 0.6, math.NaN())}, p).JSON())
	f.Add(chartopt.Lines(g, []model.Line{{Name: "a<", Values: vals(1, math.NaN(), 3)}}, 2, 1, 2, "u", nil, nil, time.UTC, p).JSON())
	f.Add(chartopt.Heatmap(g, buckets, 2, 2, time.UTC, p).JSON())
	f.Add(`{"xAxis":[{"type":"category","data":["a",1]}],"yAxis":[{"type":"value","min":1,"max":0}],"series":[{"type":"bar","data":[1e300,{"value":-1}],"label":{"show":true}}]}`)
	f.Fuzz(func(t *testing.T, opt string) {
		drawOK(t, "fuzz", opt)
	})
}

// Labels as ECharts writes numbers (JavaScript's String after rounding):
// no "-0", exponent forms from 1e21 and below 1e-6, not hundreds of digits.
func TestLabelInputs(t *testing.T) {
	for _, c := range []struct {
		data, y string
		want    []string
		not     []string
	}{
		{`[-0.3,0.7]`, `{"type":"value","scale":true}`, []string{">0<", ">-0.2<"}, []string{">-0<"}},
		{`[-0.31,0.1]`, `{"type":"value","scale":true}`, []string{">0<"}, []string{">-0<"}},
		{`[1e300]`, `{"type":"value"}`, []string{">1e+300<", ">2e+299<"}, []string{"00000000"}},
		{`[3e21]`, `{"type":"value"}`, []string{">1e+21<", ">0<", ">2.5e+21<", ">500,000,000,000,000,000,000<"}, nil},
		{`[1e-7]`, `{"type":"value"}`, []string{">0.0000001<", ">0.00000002<", ">1e+25<"}, nil},
		{`[0, 1.5e-7]`, `{"type":"bar","label":{"show":true}}`, []string{">1.5e-7<"}, nil},
		{`[1234567]`, `{"type":"value"}`, []string{">1,400,000<"}, nil},
	} {
		y, typ := c.y, "line"
		if strings.Contains(y, "label") {
			y, typ = `{"type":"value"}`, "bar\",\"label\":{\"show\":true},\"x\":\""
		}
		opt := `{"xAxis":[{"type":"category","data":[1e25,2]}],"yAxis":[` + y + `],"series":[{"type":"` + typ + `","data":` + c.data + `}]}`
		out := drawOK(t, c.data, opt)
		if out == "" {
			t.Errorf("%s: not drawn", c.data)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no label %s in %.2000s", c.data, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out, w) {
				t.Errorf("%s: holds %s: %.2000s", c.data, w, out)
			}
		}
	}
}

// The dashboard's heatmap (HeatmapColumns: at most model.HeatmapMaxColumns
// columns) over a day of minutes at k = 1, 5 and 10: its size in the page.
func TestHeatmapColumnsSize(t *testing.T) {
	for _, k := range []int{1, 5, 10} {
		n := 1440
		r := &model.Model{Grid: compute.Grid{Start: 0, End: int64(n) * 60_000, Step: 60_000}, Complete: n - 1}
		r.Stats.K = k
		r.Buckets = make([]compute.Stats, n)
		r.Total.Buckets = make([]compute.Counts, n)
		for i := range n {
			c := compute.Counts{Drafts: 100, DraftTokens: float64(100 * k), AcceptedPerPosition: make([]float64, k)}
			for j := range k {
				c.AcceptedPerPosition[j] = math.Floor(100 * math.Pow(0.8, float64(j+1)) * (1 + 0.2*math.Sin(float64(i)/30)))
				c.AcceptedTokens += c.AcceptedPerPosition[j]
			}
			if i%50 == 7 {
				c = compute.Counts{AcceptedPerPosition: make([]float64, k)}
			}
			r.Total.Buckets[i] = c
		}
		opt := chartopt.HeatmapColumns(r.Heatmap(), r.Grid, len(r.Buckets), time.UTC, chartopt.PaletteFor(chartopt.ThemeLight)).JSON()
		out := drawOK(t, "heatmap columns", opt)
		if out == "" {
			t.Fatalf("k=%d: not drawn (%.300s)", k, opt)
		}
		t.Logf("heatmap k=%d over %d buckets: option %d bytes, drawing %d bytes (%d cells)", k, n, len(opt), len(out), strings.Count(out, "<rect"))
	}
}

// A visualMap without min/max: ECharts' defaults 0..200 (checked in Node:
// 100 and 50 over #000..#fff are rgb(128,128,128) and rgb(64,64,64)).
func TestHeatmapDefaultRange(t *testing.T) {
	out := drawOK(t, "default range", `{"xAxis":[{"type":"category","data":["a","b"]}],"yAxis":[{"type":"category","data":["p"]}],"visualMap":[{"inRange":{"color":["#000000","#ffffff"]}}],"series":[{"type":"heatmap","data":[[0,0,100],[1,0,50]]}]}`)
	for _, want := range []string{`fill="rgba(128,128,128,1)"`, `fill="rgba(64,64,64,1)"`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in %s", want, out)
		}
	}
}
