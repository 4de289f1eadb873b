package app

import (
	"encoding/base64"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Chart draws one ECharts option (JSON from go-echarts) with the page's
// window.echarts (served from /web/echarts.min.js): echarts.init on a
// sized div in OnMount, setOption(option, true) whenever Option changes,
// resize on window resize, dispose on dismount. A JS exception panics in
// Go and would kill the whole app, so every call into JS is recovered and
// shown as a message in the chart's place.
type Chart struct {
	app.Compo

	// Name is the data-chart attribute (ChartPerPosition, ...).
	Name string
	// Option is the ECharts option as JSON; "" draws nothing.
	Option string
	// Height of the chart in CSS pixels.
	Height int
	// Empty is shown over the chart when Option is "".
	Empty string
	// Zoom makes a span selected on the x axis (ECharts brush, lineX)
	// post the ZoomAction with the selected bucket indices.
	Zoom bool

	inst    app.Value
	drawn   string
	err     string
	onBrush app.Func

	stamp previewStamp // server only: set by OnPreRender (prerender.go)
}

// ZoomAction is the go-app action a Chart with Zoom posts when a span is
// selected; its value is a Zoom.
const ZoomAction = "specdash/zoom"

// Zoom is a span selected on a time chart: bucket indices, inclusive.
type Zoom struct {
	Chart    string
	From, To int
}

// Render is the sized div ECharts draws into (its children belong to
// ECharts, so go-app renders none inside it). On the server, a chart with
// an option also carries it for /web/preview.js, which draws it before the
// wasm runs: data-option is base64 (standard, padded) of the option JSON,
// because go-app writes pre-rendered attribute values with strconv.Quote,
// not HTML escaping, and the option holds label values; data-preview-at
// and data-preview-url say when and for which page it was rendered.
func (c *Chart) Render() app.UI {
	h := c.Height
	if h <= 0 {
		h = 260
	}
	div := app.Div().Class("chart").DataSet("chart", c.Name).Style("height", fmt.Sprintf("%dpx", h))
	if !app.IsClient && c.Option != "" && c.stamp.at > 0 {
		div = div.DataSet("option", base64.StdEncoding.EncodeToString([]byte(c.Option))).
			DataSet("preview-at", c.stamp.at).
			DataSet("preview-url", c.stamp.url)
	}
	return app.Div().Class("chart-box").Body(
		div,
		app.If(c.err != "", func() app.UI {
			return app.Div().Class("chart-overlay", "chart-error").Text(c.err)
		}).ElseIf(c.Option == "" && c.Empty != "", func() app.UI {
			return app.Div().Class("chart-overlay").Text(c.Empty)
		}),
	)
}

// OnPreRender (server only) stamps the chart with the page and the time of
// the pre-render.
func (c *Chart) OnPreRender(ctx app.Context) {
	c.stamp = stampFor(ctx.Page().URL())
}

// OnMount creates the ECharts instance and draws the current option.
func (c *Chart) OnMount(ctx app.Context) {
	c.draw(ctx)
}

// OnUpdate redraws when the parent changed Option.
func (c *Chart) OnUpdate(ctx app.Context) {
	c.draw(ctx)
}

// OnResize lets ECharts fit the div's new size.
func (c *Chart) OnResize(ctx app.Context) {
	c.js(func() {
		if c.inst != nil && c.inst.Truthy() {
			c.inst.Call("resize")
		}
	})
}

// OnDismount disposes of the ECharts instance.
func (c *Chart) OnDismount() {
	c.js(func() {
		if c.inst != nil && c.inst.Truthy() {
			c.inst.Call("dispose")
		}
	})
	if c.onBrush != nil {
		c.onBrush.Release()
		c.onBrush = nil
	}
	c.inst = nil
	c.drawn = ""
}

func (c *Chart) draw(ctx app.Context) {
	if !app.IsClient {
		return
	}
	prevErr := c.err
	c.err = ""
	c.js(func() {
		if c.inst == nil || !c.inst.Truthy() {
			echarts := app.Window().Get("echarts")
			if !echarts.Truthy() {
				c.err = "chart library not loaded (/web/echarts.min.js): run make assets"
				return
			}
			div := ctx.JSSrc().Call("querySelector", ".chart")
			c.inst = echarts.Call("init", div, nil, map[string]any{"renderer": "canvas"})
			c.drawn = ""
			c.listen(ctx)
		}
		if c.Option == c.drawn {
			return
		}
		if c.Option == "" {
			c.inst.Call("clear")
		} else {
			opt := app.Window().Get("JSON").Call("parse", c.Option)
			c.inst.Call("setOption", opt, true)
			if c.Zoom && opt.Get("brush").Truthy() {
				// Selecting is the default tool of time charts.
				c.inst.Call("dispatchAction", map[string]any{
					"type": "takeGlobalCursor", "key": "brush",
					"brushOption": map[string]any{"brushType": "lineX", "brushMode": "single"},
				})
			}
		}
		c.drawn = c.Option
	})
	if c.err != prevErr {
		ctx.Update()
	}
}

// listen turns a finished brush selection into a ZoomAction.
func (c *Chart) listen(ctx app.Context) {
	if c.onBrush != nil {
		c.onBrush.Release()
	}
	c.onBrush = app.FuncOf(func(this app.Value, args []app.Value) any {
		if !c.Zoom || len(args) == 0 {
			return nil
		}
		from, to, ok := brushRange(args[0])
		if !ok {
			return nil
		}
		ctx.NewActionWithValue(ZoomAction, Zoom{Chart: c.Name, From: from, To: to})
		return nil
	})
	c.inst.Call("on", "brushEnd", c.onBrush)
}

// brushRange reads the category index span of a brushEnd event
// ({areas: [{coordRange: [from, to]}]}); false when there is none.
func brushRange(ev app.Value) (from, to int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	areas := ev.Get("areas")
	if !areas.Truthy() || areas.Length() == 0 {
		return 0, 0, false
	}
	r := areas.Index(0).Get("coordRange")
	if !r.Truthy() || r.Length() < 2 {
		return 0, 0, false
	}
	from, to = r.Index(0).Int(), r.Index(1).Int()
	if from > to {
		from, to = to, from
	}
	return from, to, true
}

// js runs f, turning a panic (a JS exception) into the chart's error.
func (c *Chart) js(f func()) {
	defer func() {
		if r := recover(); r != nil {
			c.err = fmt.Sprintf("chart error: %v", r)
		}
	}()
	f()
}
