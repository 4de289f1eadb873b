//go:build js && wasm && !floorhello

package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"syscall/js"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/bench/cmd/floorapp/floor"
)

// load queries the window through the page's origin (the host proxies
// /api/v1/ to Prometheus), builds the line chart's option with go-echarts
// and draws it with ECharts in the page's [data-chart].
func load() error {
	mark := func(name string) { js.Global().Get("performance").Call("mark", "specdash:"+name) }
	window, err := time.ParseDuration(app.Getenv(floor.EnvWindow))
	if err != nil {
		return fmt.Errorf("window: %v", err)
	}
	step, err := time.ParseDuration(app.Getenv(floor.EnvStep))
	if err != nil {
		return fmt.Errorf("step: %v", err)
	}
	mark("load:start")
	// http.DefaultTransport: client_golang's default RoundTripper sets
	// DialContext, which makes Go's js/wasm net/http dial sockets instead
	// of using fetch (it fails in a browser).
	c, err := api.NewClient(api.Config{
		Address:      js.Global().Get("location").Get("origin").String(),
		RoundTripper: http.DefaultTransport,
	})
	if err != nil {
		return err
	}
	end := time.Now()
	v, _, _, err := v1.NewAPI(c).QueryRange(context.Background(), app.Getenv(floor.EnvExpr),
		v1.Range{Start: end.Add(-window), End: end, Step: step})
	if err != nil {
		return err
	}
	mark("load:fetched")
	m, ok := v.(model.Matrix)
	if !ok || len(m) == 0 {
		return fmt.Errorf("no series in the answer (%s)", v.Type())
	}
	data := make([]opts.LineData, 0, len(m[0].Values))
	for _, s := range m[0].Values {
		if f := float64(s.Value); !math.IsNaN(f) && !math.IsInf(f, 0) { // JSON has neither
			data = append(data, opts.LineData{Value: []any{int64(s.Timestamp), f}})
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithAnimation(false), // as specdash's charts (chartopt)
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "time"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}),
	)
	line.AddSeries("acceptance rate", data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	line.Validate()
	option := string(line.JSONNotEscaped())
	mark("load:computed") // the option's JSON built (go-echarts)

	echarts := js.Global().Get("echarts")
	if !echarts.Truthy() {
		return errors.New("ECharts not loaded (/web/echarts.min.js)")
	}
	el := js.Global().Get("document").Call("querySelector", "[data-chart]")
	if !el.Truthy() {
		return errors.New("no [data-chart] element")
	}
	echarts.Call("init", el).Call("setOption", js.Global().Get("JSON").Call("parse", option))
	mark("load:rendered") // drawn by ECharts
	return nil
}
