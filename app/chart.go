package app

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/view"
)

// Chart draws one ECharts option (JSON from go-echarts) with the page's
// window.echarts (served from /web/echarts.min.js): echarts.init on a
// sized div in OnMount, specdashCharts.update (web/static/charts.js) whenever Option changes (a full
// setOption(option, true), or a replacing merge when only the data
// changed), resize on window resize, dispose on dismount. A JS exception
// panics in Go and would kill the whole app, so every call into JS is
// recovered and shown as a message in the chart's place.
//
// Lazy drawing (as Grafana does with panels out of view): when Option
// changes on a chart whose div is more than LazyMargin CSS pixels outside
// the viewport, the chart is pending: it keeps its previous drawing (none
// on the page's first load), its div carries data-chart-pending, and the
// new option is drawn when the div comes within LazyMargin of the
// viewport (IntersectionObserver), in the browser's idle time (at most
// LazyIdleTimeout later), or by DrawPendingCharts (exports). A draw always
// takes the Option current at that moment, never an older one. The first
// load draws only the charts in view before the dashboard is ready (the
// live page's drawings were ~0.2 s of a cold load's main thread,
// docs/PERFORMANCE.md, "Live dashboard for a new user");
// a cleared chart (Option "") and a div without layout (hidden, not
// attached) are drawn at once.
//
// Adoption: a chart's first drawing takes, instead of a new ECharts
// instance, the chart web/static/preview.js drew of it for the
// pre-rendered page (charts.js adopt, preview.js take): its element moves
// into the div (data-chart-adopted) with its instance, kept as it is when
// the preview drew the very same option JSON, updated to Option otherwise
// (a window that moved on, the browser's time zone): the live page does
// not draw it anew (docs/PERFORMANCE.md, "Seventeenth session").
type Chart struct {
	app.Compo

	// Name is the data-chart attribute (ChartPerPosition, ...).
	Name string
	// Option is the ECharts option as JSON; "" draws nothing.
	Option string
	// Spec is the typed option Option is the JSON of, for the server's
	// static drawing (SetPreRenderChart); nil: none.
	Spec *chartopt.Option
	// Height of the chart in CSS pixels.
	Height int
	// Empty is shown over the chart when Option is "".
	Empty string
	// Zoom makes a span selected on the x axis (ECharts brush, lineX)
	// post the ZoomAction with the selected bucket indices.
	Zoom bool
	// Summary is the chart's text alternative (view.ChartSummaries): the numbers it
	// draws, read by screen readers instead of the canvas.
	Summary string
	// ZoomHref (server only, with Zoom) is the page a zoom on the
	// pre-rendered chart leads to, its from and to set by
	// web/static/preview.js to the selected buckets' span (Dashboard.zoomHref);
	// ZoomFirst are the heatmap's columns' first buckets (view.View.HeatFirst).
	ZoomHref  string
	ZoomFirst []int

	inst    app.Value
	drawn   string
	state   app.Value // what specdashCharts.update returned for drawn; nil after init or clear
	err     string
	onBrush app.Func

	stamp    view.PreviewStamp // server only: set by OnPreRender
	libWaits int               // draws put off because ECharts had not run yet

	// Lazy redraw (client only, see the type's comment).
	div      app.Value // the [data-chart] div ECharts draws into
	pending  bool      // Option is not drawn yet because the div is out of view
	observer app.Value // IntersectionObserver on div; nil when the browser has none
	onSeen   app.Func  // observer callback
	onIdle   app.Func  // idle callback
	idle     app.Value // handle of the scheduled idle callback; nil when none
}

// LazyMargin is how far (CSS pixels) outside the viewport a chart still
// counts as in view, and LazyIdleTimeout bounds the wait of a pending
// chart for idle time (requestIdleCallback's timeout).
const (
	LazyMargin      = 200
	LazyIdleTimeout = time.Second
)

// An echarts.min.js that has not run yet (web/static/preview.js runs it,
// after the first frame on a pre-rendered page) is waited for up to
// libWaitMax × libWait.
const (
	libWait    = 100 * time.Millisecond
	libWaitMax = 100
)

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
// and data-preview-url say when and for which page it was rendered. With
// a SetPreRenderChart hook, the div also holds the hook's static drawing
// of the option (shown with the first paint; preview.js replaces it with
// the ECharts chart).
func (c *Chart) Render() app.UI {
	h := c.Height
	if h <= 0 {
		h = 260
	}
	div := app.Div().Class("chart").DataSet("chart", c.Name).Style("height", fmt.Sprintf("%dpx", h))
	if !app.IsClient && c.Option != "" && c.stamp.At > 0 {
		div = div.DataSet("option", base64.StdEncoding.EncodeToString([]byte(c.Option))).
			DataSet("preview-at", c.stamp.At).
			DataSet("preview-url", c.stamp.URL)
		if c.Zoom && c.ZoomHref != "" {
			div = div.DataSet("zoom-href", c.ZoomHref)
			if len(c.ZoomFirst) > 0 {
				first := make([]string, len(c.ZoomFirst))
				for i, b := range c.ZoomFirst {
					first[i] = strconv.Itoa(b)
				}
				div = div.DataSet("zoom-first", strings.Join(first, ","))
			}
		}
		if draw := preRenderChart.Load(); draw != nil && c.Spec != nil {
			if static := (*draw)(c.Spec); static != "" {
				div = div.Body(app.Raw(static))
			}
		}
	}
	if c.Summary != "" {
		div = div.Attr("role", "img").Aria("labelledby", "summary-"+c.Name)
	}
	return app.Div().Class("chart-box").Body(
		div,
		app.If(c.Summary != "", func() app.UI {
			return app.P().ID("summary-"+c.Name).Class("sr-only").DataSet("chart-summary", c.Name).Text(c.Summary)
		}),
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
	c.stamp = view.StampFor(ctx.Page().URL())
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

// OnDismount disposes of the ECharts instance and stops watching the
// chart's visibility.
func (c *Chart) OnDismount() {
	c.unwatch()
	c.js(func() {
		if c.inst != nil && c.inst.Truthy() {
			if l := chartsLib(); l.Truthy() {
				l.Call("unlink", c.inst)
			}
			c.inst.Call("dispose")
		}
	})
	if c.onBrush != nil {
		c.onBrush.Release()
		c.onBrush = nil
	}
	c.inst = nil
	c.div = nil
	c.drawn = ""
	c.state = nil
	c.setPending(false)
}

// draw draws Option unless the chart is out of view (then it is pending,
// see the type's comment).
func (c *Chart) draw(ctx app.Context) {
	c.drawNow(ctx, false)
}

// drawNow draws Option; with force, even out of view.
func (c *Chart) drawNow(ctx app.Context, force bool) {
	if !app.IsClient {
		return
	}
	prevErr := c.err
	c.err = ""
	pending := false
	c.js(func() {
		if c.inst == nil || !c.inst.Truthy() {
			if c.Option == "" {
				c.drawn = ""
				return // nothing to draw: no instance yet
			}
			echarts := app.Window().Get("echarts")
			if !echarts.Truthy() || !chartsLib().Truthy() {
				// preview.js runs echarts.min.js (server/server.go), and
				// charts.js defines specdashCharts: wait for them, then
				// say which is missing.
				if c.libWaits < libWaitMax {
					c.libWaits++
					ctx.After(libWait, func(ctx app.Context) {
						if c.Mounted() {
							c.draw(ctx)
						}
					})
					return
				}
				c.err = "chart library not loaded (/web/echarts.min.js): run make assets"
				if echarts.Truthy() {
					c.err = "chart helpers not loaded (/web/charts.js)"
				}
				return
			}
			if c.div == nil || !c.div.Truthy() {
				c.div = ctx.JSSrc().Call("querySelector", ".chart")
			}
			if !force && !c.inView() {
				// A first drawing out of view: no ECharts instance until
				// the chart is drawn (an instance without an option has no
				// model for the shared crosshair, charts.js link).
				if c.observer == nil {
					c.watch(ctx)
				}
				pending = true
				return
			}
			c.unwatch()
			if a := chartsLib().Call("adopt", c.div, c.Name, c.Option, c.Zoom); a.Truthy() {
				// The preview's chart, with Option drawn (charts.js adopt).
				c.inst, c.state, c.drawn = a.Get("inst"), a.Get("state"), c.Option
			} else {
				c.inst = echarts.Call("init", c.div, nil, map[string]any{"renderer": "canvas"})
				c.drawn = ""
				c.state = nil
			}
			c.listen(ctx)
			c.watch(ctx)
			if c.Zoom {
				chartsLib().Call("link", c.inst, TimeGroup)
			}
		}
		if c.Option == c.drawn {
			return
		}
		if !force && c.Option != "" && !c.inView() {
			pending = true
			return
		}
		if c.Option == "" {
			c.inst.Call("clear")
			c.state = nil
		} else {
			// nil while drawing: after an exception, the next draw is a full one.
			prev := c.state
			c.state = nil
			c.state = chartsLib().Call("update", c.inst, c.Option, c.Zoom, prev)
		}
		c.drawn = c.Option
	})
	c.setPending(pending)
	if pending {
		c.scheduleIdle(ctx)
	}
	if c.err != prevErr {
		ctx.Update()
	}
}

// inView reports whether the chart's div is within LazyMargin of the
// viewport; a div without a box (display none, not attached) counts as in
// view, and so does any JS failure (then the chart is drawn as before).
func (c *Chart) inView() (in bool) {
	defer func() {
		if recover() != nil {
			in = true
		}
	}()
	if c.div == nil || !c.div.Truthy() {
		return true
	}
	r := c.div.Call("getBoundingClientRect")
	top, bottom := r.Get("top").Float(), r.Get("bottom").Float()
	left, right := r.Get("left").Float(), r.Get("right").Float()
	if bottom-top <= 0 && right-left <= 0 {
		return true
	}
	w := app.Window()
	vh, vw := w.Get("innerHeight").Float(), w.Get("innerWidth").Float()
	const m = LazyMargin
	return bottom > -m && top < vh+m && right > -m && left < vw+m
}

// watch observes the div: when it comes within LazyMargin of the
// viewport, a pending chart is drawn.
func (c *Chart) watch(ctx app.Context) {
	io := app.Window().Get("IntersectionObserver")
	if !io.Truthy() {
		return // pending charts are then drawn in idle time
	}
	c.onSeen = app.FuncOf(func(this app.Value, args []app.Value) any {
		if !intersecting(args) {
			return nil
		}
		ctx.Dispatch(func(ctx app.Context) {
			if c.Mounted() && c.pending {
				c.drawNow(ctx, true)
			}
		})
		return nil
	})
	c.observer = io.New(c.onSeen, map[string]any{"rootMargin": fmt.Sprintf("%dpx", LazyMargin)})
	c.observer.Call("observe", c.div)
}

// intersecting reads an IntersectionObserver callback's entries: whether
// the latest one intersects.
func intersecting(args []app.Value) (in bool) {
	defer func() {
		if recover() != nil {
			in = false
		}
	}()
	if len(args) == 0 || !args[0].Truthy() || args[0].Length() == 0 {
		return false
	}
	return args[0].Index(args[0].Length() - 1).Get("isIntersecting").Bool()
}

// scheduleIdle draws the pending chart in the browser's idle time, at
// most LazyIdleTimeout from now (one idle callback per chart at a time).
func (c *Chart) scheduleIdle(ctx app.Context) {
	if c.idle != nil {
		return
	}
	c.js(func() {
		if c.onIdle == nil {
			c.onIdle = app.FuncOf(func(this app.Value, args []app.Value) any {
				ctx.Dispatch(func(ctx app.Context) {
					c.idle = nil
					if c.Mounted() && c.pending {
						c.drawNow(ctx, true)
					}
				})
				return nil
			})
		}
		c.idle = chartsLib().Call("idle", c.onIdle, LazyIdleTimeout.Milliseconds())
	})
}

// unwatch stops the observer and the idle callback and releases their
// functions.
func (c *Chart) unwatch() {
	c.js(func() {
		if c.observer != nil && c.observer.Truthy() {
			c.observer.Call("disconnect")
		}
		if c.idle != nil {
			chartsLib().Call("cancel", c.idle)
		}
	})
	c.observer, c.idle = nil, nil
	if c.onSeen != nil {
		c.onSeen.Release()
		c.onSeen = nil
	}
	if c.onIdle != nil {
		c.onIdle.Release()
		c.onIdle = nil
	}
}

// setPending records whether the chart is pending: in the page's set of
// pending charts and as data-chart-pending on its div. When the set gets
// empty, the whenChartsDrawn callbacks run.
func (c *Chart) setPending(p bool) {
	if p == c.pending {
		return
	}
	c.pending = p
	c.js(func() {
		if c.div == nil || !c.div.Truthy() {
			return
		}
		if p {
			c.div.Call("setAttribute", "data-chart-pending", "true")
		} else {
			c.div.Call("removeAttribute", "data-chart-pending")
		}
	})
	if p {
		pendingCharts[c] = struct{}{}
		return
	}
	delete(pendingCharts, c)
	if len(pendingCharts) == 0 {
		fs := chartsDrawn
		chartsDrawn = nil
		for _, f := range fs {
			f()
		}
	}
}

// pendingCharts is the page's set of pending charts, chartsDrawn what
// runs once it is empty (client only, go-app's UI goroutine).
var (
	pendingCharts = map[*Chart]struct{}{}
	chartsDrawn   []func()
)

// DrawPendingCharts draws every pending chart now, wherever it is: what
// reads a chart's pixels or option (PNG export) calls it first. Call it
// on go-app's UI goroutine (event handlers, Dispatch).
func DrawPendingCharts(ctx app.Context) {
	cs := make([]*Chart, 0, len(pendingCharts))
	for c := range pendingCharts {
		cs = append(cs, c)
	}
	for _, c := range cs {
		if c.Mounted() {
			c.drawNow(ctx, true)
		} else {
			c.setPending(false)
		}
	}
}

// whenChartsDrawn runs f once no chart is pending: now when none is.
func whenChartsDrawn(f func()) {
	if len(pendingCharts) == 0 {
		f()
		return
	}
	chartsDrawn = append(chartsDrawn, f)
}

// chartsLib is window.specdashCharts, defined by web/static/charts.js
// (update, idle, cancel, link, unlink; a static script, so that the page's
// CSP needs no 'unsafe-eval'); undefined until that script ran.
func chartsLib() app.Value { return app.Window().Get("specdashCharts") }

// TimeGroup is the group of the time charts (Zoom): they share a
// crosshair and tooltip (charts.js link).
const TimeGroup = "specdash-time"

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
