package chartsvg_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/chartopt"
	"specdash/chartsvg"
	"specdash/compute"
	"specdash/model"
)

// node is a parsed element of a drawing (the drawing is well-formed XML:
// every attribute quoted, every element closed, only XML's entities).
type node struct {
	Name  string
	Attr  map[string]string
	Text  string
	Kids  []*node
	Outer *node
}

func parse(t *testing.T, s string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	root := &node{Name: "#root"}
	cur := root
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("drawing is not well-formed: %v\n%s", err, s)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			n := &node{Name: v.Name.Local, Attr: map[string]string{}, Outer: cur}
			for _, a := range v.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			cur.Kids = append(cur.Kids, n)
			cur = n
		case xml.EndElement:
			cur = cur.Outer
		case xml.CharData:
			cur.Text += string(v)
		}
	}
	return root
}

// all returns the elements under n (depth first) for which ok holds.
func (n *node) all(ok func(*node) bool) []*node {
	var out []*node
	for _, k := range n.Kids {
		if ok(k) {
			out = append(out, k)
		}
		out = append(out, k.all(ok)...)
	}
	return out
}

func (n *node) text() string {
	s := n.Text
	for _, k := range n.Kids {
		s += k.text()
	}
	return s
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return f
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		name                string
		lo, hi, fmin, fmax  float64
		okMin, okMax, scale bool
		want                []float64
	}{
		// The per-position chart: fixed 0..100 %.
		{"fixed", 80.4, 17.1, 0, 100, true, true, false, []float64{0, 20, 40, 60, 80, 100}},
		// A fitted (scale) ratio axis: span 0.41 / 5 = 0.082 -> nice 0.1;
		// 0.3 / 0.1 = 2.9999999999999996 floors to 2, in ECharts too.
		{"scale", 0.3, 0.71, 0, 0, false, false, true, []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}},
		// Not scale: zero included; 17 / 5 = 3.4 -> nice 3, max rounded out to 18.
		{"zero", 3.2, 17, 0, 0, false, false, false, []float64{0, 3, 6, 9, 12, 15, 18}},
		// Throughput: min fixed at 0, max fitted: 2450 / 5 = 490 -> nice 500.
		{"min fixed", 120, 2450, 0, 0, true, false, false, []float64{0, 500, 1000, 1500, 2000, 2500}},
		// One value: widened by half of it each way (0.25..0.75), then rounded out.
		{"flat", 0.5, 0.5, 0, 0, false, false, true, []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}},
		// All zero, fitted: 0..1.
		{"zeros", 0, 0, 0, 0, false, false, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		// A fixed max off the interval's multiples stays the end.
		{"odd max", 0, 10, 0, 7, true, true, false, []float64{0, 1, 2, 3, 4, 5, 6, 7}},
		// 1.7 / 5 = 0.34 -> nice 0.3 (3 * 0.1 = 0.30000000000000004 in
		// floating point; ECharts rounds it to 0.3): multiples without noise.
		{"interval 0.3", 0.2, 1.7, 0, 0, false, false, false, []float64{0, 0.3, 0.6, 0.9, 1.2, 1.5, 1.8}},
	} {
		got := chartsvg.Ticks(c.lo, c.hi, c.fmin, c.okMin, c.fmax, c.okMax, c.scale)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ticks %v, want %v", c.name, got, c.want)
		}
	}
}

// The per-position chart as the dashboard builds it: one bar per position
// whose height is its rate on the 0..100 % axis, the bar labels and the
// conditional line through the fitted points; gaps stay gaps.
func TestDrawPerPosition(t *testing.T) {
	s := compute.Stats{PerPositionAcceptanceRate: []compute.Value{compute.Defined(0.804), compute.Defined(0.572), compute.Defined(0.335), {}}}
	fit := compute.GeometricFit{Conditional: []compute.Value{compute.Defined(0.804), compute.Defined(0.711), compute.Defined(0.586), {}}}
	opt := chartopt.PerPosition(s, fit, chartopt.PaletteFor(chartopt.ThemeLight)).JSON()
	out := chartsvg.Draw(opt)
	if out == "" {
		t.Fatal("per-position option not drawn")
	}
	root := parse(t, out)
	if len(root.Kids) != 1 || root.Kids[0].Attr["data-chart-static"] != "" || !strings.Contains(root.Kids[0].Attr["class"], "chart-static") {
		t.Fatalf("drawing is not one div.chart-static[data-chart-static]: %s", out[:min(len(out), 200)])
	}
	rects := root.all(func(n *node) bool { return n.Name == "rect" && n.Outer.Attr["data-series"] != "" })
	// pos 4 is undefined: no bar (not a zero bar).
	want := []float64{80.4, 57.2, 33.5}
	if len(rects) != len(want) {
		t.Fatalf("%d bars, want %d", len(rects), len(want))
	}
	band := 1000.0 / 4
	for i, r := range rects {
		// Height in the 0..1000 box = rate in % * 10; the bar stands on 0 (y 1000).
		h, y, x, w := num(t, r.Attr["height"]), num(t, r.Attr["y"]), num(t, r.Attr["x"]), num(t, r.Attr["width"])
		if math.Abs(h-want[i]*10) > 0.06 || math.Abs(y+h-1000) > 0.06 {
			t.Errorf("bar %d: y %v height %v, want height %v on the axis", i+1, y, h, want[i]*10)
		}
		// Centred in its band, 70 % of it wide (barCategoryGap 30 %).
		if math.Abs(x+w/2-(float64(i)+0.5)*band) > 0.1 || math.Abs(w-0.7*band) > 0.1 {
			t.Errorf("bar %d: x %v width %v, want centre %v width %v", i+1, x, w, (float64(i)+0.5)*band, 0.7*band)
		}
	}
	if g := rects[0].Outer; g.Attr["fill"] != chartopt.PaletteFor(chartopt.ThemeLight).Bar {
		t.Errorf("bar colour %q, want the palette's %q", g.Attr["fill"], chartopt.PaletteFor(chartopt.ThemeLight).Bar)
	}
	text := root.text()
	for _, s := range []string{"80.4 %", "57.2 %", "33.5 %", "pos 1", "pos 4", "0 %", "100 %", "per-position acceptance rate (of all drafts)", "conditional rate (given previous accepted)"} {
		if !strings.Contains(text, s) {
			t.Errorf("drawing lacks the text %q", s)
		}
	}
	// The conditional line: one segment through pos 1..3 (pos 4 is a gap).
	paths := root.all(func(n *node) bool {
		return n.Name == "path" && n.Outer.Attr["data-series"] == "conditional rate (given previous accepted)" && n.Attr["stroke-linecap"] == ""
	})
	if len(paths) != 1 {
		t.Fatalf("%d conditional line paths, want 1", len(paths))
	}
	if got, want := paths[0].Attr["d"], "M125 196L375 289L625 414"; got != want {
		t.Errorf("conditional line %q, want %q", got, want)
	}
}

// A time chart: one path per line, a new segment after a gap, points at
// the band centres on the fitted axis; the incomplete band is shaded and
// labelled; names are escaped text.
func TestDrawLines(t *testing.T) {
	g := compute.Grid{Start: 0, End: 4 * 60_000, Step: 60_000}
	hostile := `</span><script>alert(1)</script>`
	vals := []compute.Value{compute.Defined(0.5), {}, compute.Defined(0.7), compute.Defined(0.6)}
	opt := chartopt.Lines(g, []model.Line{{Name: hostile, Values: vals}, {Name: "b", Values: []compute.Value{compute.Defined(0.4), compute.Defined(0.4), compute.Defined(0.4), compute.Defined(0.4)}}}, 3, 1, 3, "ratio", nil, nil, time.UTC, chartopt.PaletteFor(chartopt.ThemeDark)).JSON()
	out := chartsvg.Draw(opt)
	if out == "" {
		t.Fatal("lines option not drawn")
	}
	if strings.Contains(out, "<script") {
		t.Fatalf("series name injected markup: %s", out)
	}
	root := parse(t, out)
	line := func(name string) string {
		ps := root.all(func(n *node) bool {
			return n.Name == "path" && n.Outer.Attr["data-series"] == name && n.Attr["stroke-linecap"] == ""
		})
		if len(ps) != 1 {
			t.Fatalf("series %q: %d line paths, want 1", name, len(ps))
		}
		return ps[0].Attr["d"]
	}
	// Axis fitted (scale): 0.4..0.7 -> interval nice(0.06) = 0.05, 0.4..0.7.
	// y = 1000 * (1 - (v - 0.4) / 0.3); x = (j + 0.5) / 4 * 1000.
	if got, want := line(hostile), "M125 666.7M625 0L875 333.3"; got != want {
		t.Errorf("line with a gap: %q, want %q", got, want)
	}
	if got, want := line("b"), "M125 1000L375 1000L625 1000L875 1000"; got != want {
		t.Errorf("flat line: %q, want %q", got, want)
	}
	text := root.text()
	for _, s := range []string{hostile, "0.4", "0.55", "0.7", "ratio", "00:01", "00:04", "incomplete"} {
		if !strings.Contains(text, s) {
			t.Errorf("drawing lacks the text %q", s)
		}
	}
	// Incomplete from bucket 2 (complete 3, from complete-1) to the last: x 625..875.
	band := root.all(func(n *node) bool { return n.Name == "rect" && n.Attr["height"] == "1000" })
	if len(band) != 1 || band[0].Attr["x"] != "625" || band[0].Attr["width"] != "250" {
		t.Errorf("incomplete band %+v, want x 625 width 250", band)
	}
	// Symbols (n <= 60): one dot per defined point.
	dots := root.all(func(n *node) bool { return n.Name == "path" && n.Attr["stroke-linecap"] == "round" })
	if len(dots) != 2 || strings.Count(dots[0].Attr["d"], "h0") != 3 {
		t.Errorf("dots %d paths, want 2 with 3 and 4 points", len(dots))
	}
}

// Options it does not draw give "": a heatmap without cells, a time axis,
// two y axes, no defined value, broken JSON.
func TestDrawNotDrawn(t *testing.T) {
	g := compute.Grid{Start: 0, End: 2 * 60_000, Step: 60_000}
	gaps := chartopt.Lines(g, []model.Line{{Name: "a", Values: []compute.Value{{}, {}}}}, 2, 1, 3, "ratio", nil, nil, time.UTC, chartopt.PaletteFor(chartopt.ThemeLight)).JSON()
	for name, opt := range map[string]string{
		"heatmap, no cell": chartopt.Heatmap(g, []compute.Stats{{PerPositionAcceptanceRate: []compute.Value{{}}}, {PerPositionAcceptanceRate: []compute.Value{{}}}}, 1, 2, time.UTC, chartopt.PaletteFor(chartopt.ThemeLight)).JSON(),
		"all gaps":         gaps,
		"time axis":        `{"xAxis":[{"type":"time"}],"yAxis":[{"type":"value"}],"series":[{"type":"line","data":[[0,1]]}]}`,
		"two y":            `{"xAxis":[{"type":"category","data":["a"]}],"yAxis":[{"type":"value"},{"type":"value"}],"series":[{"type":"line","data":[1]}]}`,
		"pie":              `{"xAxis":[{"type":"category","data":["a"]}],"yAxis":[{"type":"value"}],"series":[{"type":"pie","data":[1]}]}`,
		"broken":           `{"xAxis":[`,
		"empty":            ``,
	} {
		if out := chartsvg.Draw(opt); out != "" {
			t.Errorf("%s: drawn (%d bytes), want \"\"", name, len(out))
		}
	}
}

// Colours are written only when they look like colours: an option cannot
// smuggle other CSS or markup through them.
func TestDrawColours(t *testing.T) {
	opt := `{"color":["red;background:url(//x)"],"legend":{"show":true},"xAxis":[{"type":"category","data":["a","b"]}],"yAxis":[{"type":"value","axisLabel":{"color":"\"><img src=x>"}}],"series":[{"type":"line","name":"s","data":[1,2],"lineStyle":{"color":"rgba(1,2,3,0.5)"}}]}`
	out := chartsvg.Draw(opt)
	if out == "" {
		t.Fatal("not drawn")
	}
	for _, bad := range []string{"url(", "<img", "background:red"} {
		if strings.Contains(out, bad) {
			t.Errorf("drawing holds %q: %s", bad, out)
		}
	}
	if !strings.Contains(out, `stroke="rgba(1,2,3,0.5)"`) {
		t.Errorf("the line's own colour is not used")
	}
	parse(t, out)
}

// Example: the drawing of a one-line chart (what the pre-rendered page
// holds inside the chart's div).
func ExampleDraw() {
	out := chartsvg.Draw(`{"xAxis":[{"type":"category","data":["10:00","10:01"]}],"yAxis":[{"type":"value","min":0,"max":1,"axisLabel":{"formatter":"{value} ratio"}}],"series":[{"type":"line","name":"rate","data":[{"value":0.5},{"value":"-"}]}]}`)
	fmt.Println(strings.Contains(out, `d="M250 500"`), strings.Contains(out, ">1 ratio<"))
	// Output: true true
}

// The y axis' ticks and labels equal those ECharts itself computes for the
// same data and axis settings (ECharts 5.6 from node_modules, server-side
// rendering in Node: no browser needed).
func TestTicksMatchECharts(t *testing.T) {
	nodeBin, lib := echartsInNode(t)
	type axisCase struct {
		Data   []float64      `json:"data"`
		Axis   map[string]any `json:"axis"`
		Ticks  []float64      `json:"ticks"`
		Labels []string       `json:"labels"`
	}
	cases := []axisCase{
		{Data: []float64{80.4, 17.1}, Axis: map[string]any{"min": 0, "max": 100, "axisLabel": map[string]any{"formatter": "{value} %"}}},
		{Data: []float64{0.3, 0.71}, Axis: map[string]any{"scale": true}},
		{Data: []float64{3.2, 17}, Axis: map[string]any{}},
		{Data: []float64{120, 2450}, Axis: map[string]any{"min": 0, "axisLabel": map[string]any{"formatter": "{value} tokens/s"}}},
		{Data: []float64{1234, 56789}, Axis: map[string]any{}},
		{Data: []float64{0.5, 0.5}, Axis: map[string]any{"scale": true}},
		{Data: []float64{0, 0}, Axis: map[string]any{}},
		{Data: []float64{0, 10}, Axis: map[string]any{"min": 0, "max": 7}},
		{Data: []float64{2.31, 2.94, 2.6}, Axis: map[string]any{"scale": true, "axisLabel": map[string]any{"formatter": "{value} tokens"}}},
		{Data: []float64{0.000123, 0.00041}, Axis: map[string]any{"scale": true}},
		{Data: []float64{-3, 12}, Axis: map[string]any{}},
		// Extremes: exponential labels from 1e21 on, plain ones below 1e-6,
		// an interval of 13 decimals.
		{Data: []float64{1e300}, Axis: map[string]any{}},
		{Data: []float64{3e21}, Axis: map[string]any{}},
		{Data: []float64{1e-7}, Axis: map[string]any{}},
		{Data: []float64{1, 1 + 1e-12}, Axis: map[string]any{"scale": true}},
		{Data: []float64{-0.3, 0.7}, Axis: map[string]any{"scale": true}},
		// Intervals of 3 times a negative power of ten (0.3, 0.03).
		{Data: []float64{0.2, 1.7}, Axis: map[string]any{"axisLabel": map[string]any{"formatter": "{value} tokens"}}},
		{Data: []float64{1.02, 1.15}, Axis: map[string]any{"scale": true}},
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	script := `const echarts = require(` + strconv.Quote(lib) + `);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
for (const c of cases) {
  const ch = echarts.init(null, null, {renderer: 'svg', ssr: true, width: 600, height: 300});
  ch.setOption({animation: false, xAxis: {type: 'category', data: c.data.map((_, i) => 'c' + i)},
    yAxis: Object.assign({type: 'value'}, c.axis), series: [{type: 'line', data: c.data}]});
  const ax = ch.getModel().getComponent('yAxis').axis;
  c.ticks = ax.scale.getTicks().map(x => x.value);
  c.labels = ax.getViewLabels().map(l => l.formattedLabel);
  ch.dispose();
}
process.stdout.write(JSON.stringify(cases));`
	cmd := exec.CommandContext(t.Context(), nodeBin, "-e", script)
	cmd.WaitDelay = time.Second
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []axisCase
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(cases) {
		t.Fatalf("node's answer %q: %v", out, err)
	}
	for _, c := range got {
		lo, hi := c.Data[0], c.Data[0]
		for _, v := range c.Data {
			lo, hi = min(lo, v), max(hi, v)
		}
		fmin, okMin := c.Axis["min"].(float64)
		fmax, okMax := c.Axis["max"].(float64)
		scale, _ := c.Axis["scale"].(bool)
		ticks := chartsvg.Ticks(lo, hi, fmin, okMin, fmax, okMax, scale)
		if !reflect.DeepEqual(ticks, c.Ticks) {
			t.Errorf("data %v axis %v: ticks %v, ECharts %v", c.Data, c.Axis, ticks, c.Ticks)
			continue
		}
		// The labels, as drawn.
		data := make([]string, len(c.Data))
		for i, v := range c.Data {
			data[i] = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ax, _ := json.Marshal(c.Axis)
		var y map[string]any
		json.Unmarshal(ax, &y)
		y["type"] = "value"
		ay, _ := json.Marshal(y)
		opt := `{"xAxis":[{"type":"category","data":["` + strings.Repeat(`c","`, len(c.Data)-1) + `c"]}],"yAxis":[` + string(ay) + `],"series":[{"type":"line","name":"s","data":[` + strings.Join(data, ",") + `]}]}`
		root := parse(t, chartsvg.Draw(opt))
		var labels []string
		for _, n := range root.all(func(n *node) bool { return n.Name == "span" && strings.Contains(n.Attr["style"], "right:100%") }) {
			labels = append(labels, n.text())
		}
		if !reflect.DeepEqual(labels, c.Labels) {
			t.Errorf("data %v axis %v: labels %q, ECharts %q", c.Data, c.Axis, labels, c.Labels)
		}
	}
}

// heatmapBuckets: three buckets of k = 2; bucket 1 has no pos 2 value.
func heatmapOption(theme string) string {
	g := compute.Grid{Start: 0, End: 3 * 60_000, Step: 60_000}
	b := []compute.Stats{
		{PerPositionAcceptanceRate: []compute.Value{compute.Defined(0.8), compute.Defined(0.5)}},
		{PerPositionAcceptanceRate: []compute.Value{compute.Defined(0.7), {}}},
		{PerPositionAcceptanceRate: []compute.Value{compute.Defined(0.9), compute.Defined(0.4)}},
	}
	// Buckets from 2 on are incomplete: drawn at reduced opacity.
	return chartopt.Heatmap(g, b, 2, 2, time.UTC, chartopt.PaletteFor(theme)).JSON()
}

// The heatmap: one cell per defined value, pos 1 in the bottom row, each
// coloured along the palette's four stops over 0..100 % (80 % is 0.4 of
// the way from the third stop #3b82f6 to the fourth #1e3a8a:
// rgb(47,101,203)); the incomplete bucket at opacity 0.45; the visualMap's
// texts at the bottom.
func TestDrawHeatmap(t *testing.T) {
	out := chartsvg.Draw(heatmapOption(chartopt.ThemeLight))
	if out == "" {
		t.Fatal("heatmap not drawn")
	}
	root := parse(t, out)
	rects := root.all(func(n *node) bool { return n.Name == "rect" })
	type cell struct{ x, y, w, h, fill string }
	var got []cell
	for _, r := range rects {
		got = append(got, cell{r.Attr["x"], r.Attr["y"], r.Attr["width"], r.Attr["height"], r.Attr["fill"]})
	}
	want := []cell{
		{"0", "500", "333.3", "500", "rgba(47,101,203,1)"},     // bucket 0, pos 1: 80 %
		{"0", "0", "333.3", "500", "rgba(125,175,250,1)"},      // bucket 0, pos 2: 50 %
		{"333.3", "500", "333.3", "500", "rgba(56,123,235,1)"}, // bucket 1, pos 1: 70 %
		{"666.7", "500", "333.3", "500", "rgba(39,80,170,1)"},  // bucket 2, pos 1: 90 %
		{"666.7", "0", "333.3", "500", "rgba(165,201,252,1)"},  // bucket 2, pos 2: 40 %
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells\n%v\nwant\n%v", got, want)
	}
	groups := root.all(func(n *node) bool { return n.Name == "g" && n.Attr["data-series"] != "" })
	if len(groups) != 2 || groups[0].Attr["opacity"] != "" || groups[1].Attr["opacity"] != "0.45" {
		t.Errorf("series groups %d, opacities %q %q; want the incomplete one at 0.45", len(groups), groups[0].Attr["opacity"], groups[len(groups)-1].Attr["opacity"])
	}
	text := root.text()
	for _, s := range []string{"pos 1", "pos 2", "00:01", "00:03", "0 %", "100 %"} {
		if !strings.Contains(text, s) {
			t.Errorf("heatmap drawing lacks the text %q", s)
		}
	}
}

// The heatmap's cell colours are those ECharts itself gives the same
// option (ECharts 5.6 server-side rendering in Node), in both themes.
func TestHeatmapMatchesECharts(t *testing.T) {
	nodeBin, lib := echartsInNode(t)
	for _, theme := range []string{chartopt.ThemeLight, chartopt.ThemeDark} {
		opt := heatmapOption(theme)
		script := `const echarts = require(` + strconv.Quote(lib) + `);
const opt = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const c = echarts.init(null, null, {renderer: 'svg', ssr: true, width: 600, height: 300});
c.setOption(opt);
const cells = (c.renderToSVGString().match(/<path [^>]*ecmeta_series_index[^>]*>/g) || []).map(p => {
  const f = /fill="rgb\((\d+),(\d+),(\d+)\)"/.exec(p);
  const o = /fill-opacity="([\d.]+)"/.exec(p);
  return f ? 'rgba(' + f[1] + ',' + f[2] + ',' + f[3] + ',1)' + (o ? ' ' + o[1] : '') : p;
});
c.dispose();
process.stdout.write(JSON.stringify(cells));`
		cmd := exec.CommandContext(t.Context(), nodeBin, "-e", script)
		cmd.Stdin = strings.NewReader(opt)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		var want []string
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatalf("node's answer %q: %v", out, err)
		}
		root := parse(t, chartsvg.Draw(opt))
		var got []string
		for _, g := range root.all(func(n *node) bool { return n.Name == "g" && n.Attr["data-series"] != "" }) {
			for _, r := range g.all(func(n *node) bool { return n.Name == "rect" }) {
				c := r.Attr["fill"]
				if o := g.Attr["opacity"]; o != "" {
					c += " " + o
				}
				got = append(got, c)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s theme: cells %v, ECharts %v", theme, got, want)
		}
	}
}

// echartsInNode returns node and the path of npm's full ECharts build. The
// parity tests skip only under -short; otherwise a missing node or ECharts
// fails them (make deps installs both), so CI never passes them unrun.
func echartsInNode(t *testing.T) (nodeBin, lib string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs ECharts in Node (make test runs it)")
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not installed (make deps installs it with the npm packages)")
	}
	lib, err = filepath.Abs("../node_modules/echarts/dist/echarts.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("ECharts not installed (npm ci): %v", err)
	}
	return nodeBin, lib
}

// TestAxisLabelsRounded: a mean acceptance length axis whose interval is
// 0.3 reads "1.8", as ECharts writes it, not the floating point sum
// "1.8000000000000003".
func TestAxisLabelsRounded(t *testing.T) {
	g := compute.Grid{Start: 0, End: 3 * 60_000, Step: 60_000}
	vals := []compute.Value{compute.Defined(0.2), compute.Defined(1.7), compute.Defined(1.1)}
	opt := chartopt.Lines(g, []model.Line{{Name: "m", Values: vals}}, 3, 1, 2, "tokens", 0, nil, time.UTC, chartopt.PaletteFor(chartopt.ThemeLight)).JSON()
	out := chartsvg.Draw(opt)
	if out == "" {
		t.Fatal("lines option not drawn")
	}
	var labels []string
	// The unit is the axis name (chartopt.alignTime), the labels are numbers.
	for _, n := range parse(t, out).all(func(n *node) bool {
		return n.Name == "span" && strings.Contains(n.Attr["style"], "right:100%")
	}) {
		labels = append(labels, n.Text)
	}
	if !strings.Contains(out, ">tokens</span>") {
		t.Errorf("drawing lacks the unit as the y axis name")
	}
	want := []string{"0", "0.3", "0.6", "0.9", "1.2", "1.5", "1.8"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("y axis labels %q, want %q", labels, want)
	}
}

// TestDrawLowerBounds: with drafts shorter than k the per-position chart's
// outlined lower-bound bars lie over the bars of their positions (same x
// and width: barGap -100 %), unfilled, and the bars keep their full width.
func TestDrawLowerBounds(t *testing.T) {
	c := compute.Counts{Drafts: 100, DraftTokens: 250, AcceptedTokens: 120, AcceptedPerPosition: []float64{70, 40, 10}}
	s := compute.Derive(c, 10, compute.WithBonus)
	root := parse(t, chartsvg.DrawOption(chartopt.PerPosition(s, compute.FitGeometric(c), chartopt.PaletteFor(chartopt.ThemeLight))))
	bars := root.all(func(n *node) bool {
		return n.Name == "rect" && n.Outer.Attr["data-series"] == "per-position acceptance rate (of all drafts)"
	})
	over := root.all(func(n *node) bool {
		return n.Name == "rect" && n.Outer.Attr["data-series"] == "lower bound (drafts shorter than k)"
	})
	if len(bars) != 3 || len(over) != 2 {
		t.Fatalf("%d bars, %d outlined, want 3 and 2", len(bars), len(over))
	}
	band := 1000.0 / 3
	for i, r := range bars {
		if w := num(t, r.Attr["width"]); math.Abs(w-0.7*band) > 0.1 {
			t.Errorf("bar %d width %v, want %v", i+1, w, 0.7*band)
		}
	}
	for j, r := range over {
		b := bars[j+1]
		if r.Attr["x"] != b.Attr["x"] || r.Attr["width"] != b.Attr["width"] || r.Attr["height"] != b.Attr["height"] {
			t.Errorf("outline %d at x %s w %s h %s, bar at %s %s %s", j, r.Attr["x"], r.Attr["width"], r.Attr["height"], b.Attr["x"], b.Attr["width"], b.Attr["height"])
		}
	}
	if g := over[0].Outer; g.Attr["fill"] != "none" || g.Attr["stroke"] == "" {
		t.Errorf("outline group fill %q stroke %q", g.Attr["fill"], g.Attr["stroke"])
	}
	if !strings.Contains(root.text(), "pos 2"+chartopt.LowerBoundMark) {
		t.Errorf("no lower-bound label in %q", root.text())
	}
}
