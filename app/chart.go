package app

import (
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

	inst  app.Value
	drawn string
	err   string
}

// Render is the sized div ECharts draws into (its children belong to
// ECharts, so go-app renders none inside it).
func (c *Chart) Render() app.UI {
	h := c.Height
	if h <= 0 {
		h = 260
	}
	return app.Div().Class("chart-box").Body(
		app.Div().Class("chart").DataSet("chart", c.Name).Style("height", fmt.Sprintf("%dpx", h)),
		app.If(c.err != "", func() app.UI {
			return app.Div().Class("chart-overlay", "chart-error").Text(c.err)
		}).ElseIf(c.Option == "" && c.Empty != "", func() app.UI {
			return app.Div().Class("chart-overlay").Text(c.Empty)
		}),
	)
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
		}
		if c.Option == c.drawn {
			return
		}
		if c.Option == "" {
			c.inst.Call("clear")
		} else {
			opt := app.Window().Get("JSON").Call("parse", c.Option)
			c.inst.Call("setOption", opt, true)
		}
		c.drawn = c.Option
	})
	if c.err != prevErr {
		ctx.Update()
	}
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
