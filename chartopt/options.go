// Package chartopt builds the ECharts options of specdash's charts from
// typed slices of the view model (specdash/model): per-position bars with
// lines, time charts of per-bucket values, the per-position heatmap. An
// option is a typed Option of go-echarts' components (opts), with the few
// fields go-echarts lacks added by small typed extensions (Tooltip, Brush,
// Toolbox, MarkArea); it is marshalled once, never patched as a map.
//
// It builds for the host and for js/wasm (the dashboard draws the options
// with ECharts; the server draws the same options as static SVG, chartsvg).
package chartopt

import (
	"bytes"
	"encoding/json"
	"html"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Themes: the look of the charts (the dashboard's ?theme=).
const (
	ThemeLight = "light"
	ThemeDark  = "dark"
)

// Palette holds a theme's colours (CSS colour strings).
type Palette struct {
	Name                                      string
	Text, Muted, Grid, Panel, TooltipBg, Line string
	Bar, Conditional, Incomplete, Brush       string
	Series                                    []string
	Heat                                      []string
}

// PaletteFor returns the palette of a theme (ThemeLight or ThemeDark).
func PaletteFor(theme string) Palette {
	if theme == ThemeDark {
		return Palette{
			Name: ThemeDark, Text: "#e5e7eb", Muted: "#9ca3af", Grid: "#1f2a3d", Panel: "#111827",
			TooltipBg: "#1f2937", Line: "#374151",
			Bar: "#60a5fa", Conditional: "#fbbf24", Incomplete: "rgba(148,163,184,0.16)", Brush: "rgba(96,165,250,0.25)",
			Series: darkSeries,
			Heat:   []string{"#0f172a", "#1e3a8a", "#3b82f6", "#bfdbfe"},
		}
	}
	return Palette{
		Name: ThemeLight, Text: "#111827", Muted: "#6b7280", Grid: "#e5e7eb", Panel: "#ffffff",
		TooltipBg: "#ffffff", Line: "#d1d5db",
		Bar: "#2563eb", Conditional: "#d97706", Incomplete: "rgba(107,114,128,0.10)", Brush: "rgba(37,99,235,0.15)",
		Series: lightSeries,
		Heat:   []string{"#f8fafc", "#bfdbfe", "#3b82f6", "#1e3a8a"},
	}
}

// Option is one chart's ECharts option.
type Option struct {
	Animation       bool             `json:"animation"`
	BackgroundColor string           `json:"backgroundColor"`
	Brush           *Brush           `json:"brush,omitempty"`
	Color           []string         `json:"color"`
	Grid            []opts.Grid      `json:"grid"`
	Legend          opts.Legend      `json:"legend"`
	Series          []Series         `json:"series"`
	TextStyle       opts.TextStyle   `json:"textStyle"`
	Toolbox         *Toolbox         `json:"toolbox,omitempty"`
	Tooltip         Tooltip          `json:"tooltip"`
	VisualMap       []opts.VisualMap `json:"visualMap,omitempty"`
	XAxis           []opts.XAxis     `json:"xAxis"`
	YAxis           []opts.YAxis     `json:"yAxis"`
}

// JSON is the option as ECharts reads it; "" for a nil option or one that
// cannot be encoded.
func (o *Option) JSON() string {
	if o == nil {
		return ""
	}
	b, err := json.Marshal(o)
	if err != nil {
		return ""
	}
	return string(b)
}

// Series is go-echarts' series with a mark area that can be silent.
type Series struct {
	charts.SingleSeries
	MarkArea *MarkArea `json:"markArea,omitempty"`
	MarkLine *MarkLine `json:"markLine,omitempty"`
}

// MarkArea is go-echarts' mark area with ECharts' silent (no hover).
type MarkArea struct {
	opts.MarkAreas
	Silent bool `json:"silent,omitempty"`
}

// Tooltip is go-echarts' tooltip with ECharts' confine and textStyle.
type Tooltip struct {
	opts.Tooltip
	Confine   bool            `json:"confine,omitempty"`
	TextStyle *opts.TextStyle `json:"textStyle,omitempty"`
}

// Brush is go-echarts' brush with ECharts' brush type, mode, throttle
// and style.
type Brush struct {
	opts.Brush
	BrushMode    string          `json:"brushMode,omitempty"`
	BrushStyle   *opts.ItemStyle `json:"brushStyle,omitempty"`
	BrushType    string          `json:"brushType,omitempty"`
	ThrottleType string          `json:"throttleType,omitempty"`
}

// Toolbox is go-echarts' toolbox with ECharts' item size, icon style and
// the brush feature's titles.
type Toolbox struct {
	opts.Toolbox
	Feature   *ToolboxFeature `json:"feature,omitempty"`
	IconStyle *opts.ItemStyle `json:"iconStyle,omitempty"`
	ItemSize  int             `json:"itemSize,omitempty"`
}

// MarshalJSON writes the brush with its keys sorted (sortedJSON).
func (b Brush) MarshalJSON() ([]byte, error) {
	type plain Brush
	return sortedJSON(plain(b))
}

// MarshalJSON writes the toolbox with its keys sorted (sortedJSON).
func (t Toolbox) MarshalJSON() ([]byte, error) {
	type plain Toolbox
	return sortedJSON(plain(t))
}

// sortedJSON writes v with the keys of every object sorted, as a
// re-encoded option has them. The brush and the toolbox are top-level
// values that the dashboard's chart update (app.ChartUpdateJS) compares as
// JSON text to tell a data change from a structure change, so equal values
// must be equal text however the option was encoded; the series, axes and
// the rest are replaced, not compared.
func sortedJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	return json.Marshal(tree)
}

// ToolboxFeature holds the toolbox's brush feature.
type ToolboxFeature struct {
	Brush *ToolboxBrush `json:"brush,omitempty"`
}

// ToolboxBrush is go-echarts' brush feature with its icons' titles.
type ToolboxBrush struct {
	opts.ToolBoxFeatureBrush
	Title map[string]string `json:"title,omitempty"`
}

// gap is ECharts' marker for a missing data point (drawn as a gap).
const gap = "-"

// PositionLabel is the 1-based label of a 0-based draft position: "pos 1".
func PositionLabel(i int) string { return "pos " + strconv.Itoa(i+1) }

// tplText makes s safe as literal text inside an ECharts tooltip template:
// HTML-escaped (tooltips render HTML) and with braces escaped (ECharts
// substitutes {a}, {b0}, ... in the template).
func tplText(s string) string {
	s = html.EscapeString(s)
	s = strings.ReplaceAll(s, "{", "&#123;")
	return strings.ReplaceAll(s, "}", "&#125;")
}

func axisLabel(p Palette, formatter string) *opts.AxisLabel {
	l := &opts.AxisLabel{Color: p.Muted}
	if formatter != "" {
		l.Formatter = types.FuncStr(formatter)
	}
	return l
}

func splitLine(p Palette) *opts.SplitLine {
	return &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: p.Grid}}
}

// base is the frame every chart shares: theme colours, no animation, a
// grid with room for the legend when there is one, an axis tooltip with
// the template tooltip.
func base(tooltip string, legend bool, p Palette) Option {
	top := "28"
	if legend {
		top = "40"
	}
	return Option{
		BackgroundColor: "transparent",
		Color:           p.Series,
		TextStyle:       opts.TextStyle{Color: p.Text},
		Grid:            []opts.Grid{{Left: "8", Right: "40", Top: top, Bottom: "8", ContainLabel: opts.Bool(true)}},
		Tooltip: Tooltip{
			Tooltip:   opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: types.FuncStr(tooltip), BackgroundColor: p.TooltipBg, BorderColor: p.Line},
			Confine:   true,
			TextStyle: &opts.TextStyle{Color: p.Text, FontSize: 12},
		},
		Legend: opts.Legend{Show: opts.Bool(legend), Type: "scroll", Top: "0", Left: "8", Right: "60",
			TextStyle: &opts.TextStyle{Color: p.Muted}},
	}
}

// zoomable adds the brush (select a span on the x axis to zoom: the page
// turns the selection into an absolute from/to) to a time chart.
func (o *Option) zoomable(p Palette) {
	o.Brush = &Brush{
		Brush:        opts.Brush{XAxisIndex: 0, OutOfBrush: &opts.BrushOutOfBrush{ColorAlpha: 0.4}},
		BrushType:    "lineX",
		BrushMode:    "single",
		ThrottleType: "debounce",
		BrushStyle:   &opts.ItemStyle{Color: p.Brush, BorderColor: p.Bar, BorderWidth: 1},
	}
	o.Toolbox = &Toolbox{
		Toolbox:   opts.Toolbox{Show: opts.Bool(true), Right: "4", Top: "0"},
		ItemSize:  14,
		IconStyle: &opts.ItemStyle{BorderColor: p.Muted},
		Feature: &ToolboxFeature{Brush: &ToolboxBrush{
			ToolBoxFeatureBrush: opts.ToolBoxFeatureBrush{Type: []string{"lineX", "clear"}},
			Title:               map[string]string{"lineX": "Select a span to zoom", "clear": "Clear selection"},
		}},
	}
}

// markIncomplete shades the buckets from complete on (the newest, still
// changing ones) on series 0 and labels the band "incomplete".
func (o *Option) markIncomplete(n, complete int, p Palette) {
	if complete >= n || n == 0 || len(o.Series) == 0 {
		return
	}
	from := max(complete-1, 0)
	o.Series[0].MarkArea = &MarkArea{
		Silent: true,
		MarkAreas: opts.MarkAreas{
			Data: []any{[]opts.MarkAreaData{{XAxis: from}, {XAxis: n - 1}}},
			MarkAreaStyle: opts.MarkAreaStyle{
				ItemStyle: &opts.ItemStyle{Color: p.Incomplete},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideTop", Color: p.Muted, FontSize: 10, Formatter: "incomplete"},
			},
		},
	}
}
