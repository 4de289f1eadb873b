// Package floor is the page of the floor benchmark's go-app program
// (bench/cmd/floorapp): a root with the marks that specdash's conditions in
// bench/interactive_test.go look for (body > [data-dashboard] with
// data-state, a [data-chart] to hover), so that the floor is measured by
// exactly the conditions specdash is. The program (js/wasm) mounts it, and
// the benchmark's host side has go-app pre-render it, as go-app does for
// every page: both use this one component.
package floor

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Path is the route the benchmark's process gives the page: go-app's routes
// are global, and that process's "/" is specdash's dashboard (server.New), so
// the floor's host handler serves its "/" as Path. In the browser the
// program routes "/" (the only page it has).
const Path = "/floor"

// The page's query, from the host (app.Handler.Env, read with app.Getenv):
// the PromQL expression, the window ending now and the step, as Go
// durations.
const (
	EnvExpr   = "FLOOR_EXPR"
	EnvWindow = "FLOOR_WINDOW"
	EnvStep   = "FLOOR_STEP"
)

// Page is the floor's root: loading until Load returned, then ready (or
// error, with Load's message). Load runs once the page is mounted, off
// go-app's UI goroutine (a query waits on the network); nil is the hello
// variant: ready at mount.
type Page struct {
	app.Compo
	Load func() error

	state, err string
}

func (p *Page) Render() app.UI {
	state := p.state
	if state == "" {
		state = "loading"
	}
	// Non-empty data values: go-app leaves out attributes whose value is
	// "".
	return app.Div().DataSet("dashboard", "floor").DataSet("state", state).Body(
		// ECharts draws into this element (its size must be set before
		// echarts.init).
		app.Div().DataSet("chart", "acceptance-rate").Style("width", "100%").Style("height", "360px"),
		app.If(p.err != "", func() app.UI { return app.P().Text(p.err) }),
	)
}

func (p *Page) OnMount(ctx app.Context) {
	if p.Load == nil {
		p.state = "ready"
		return
	}
	ctx.Async(func() {
		err := p.Load()
		ctx.Dispatch(func(app.Context) {
			if err != nil {
				p.state, p.err = "error", err.Error()
				return
			}
			p.state = "ready"
		})
	})
}
