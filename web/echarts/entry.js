// specdash's ECharts build: only the chart types, components and renderer
// that the options of app/ (options.go, insights.go; go-echarts' JSON) and
// web/static/preview.js use, from the npm package pinned by
// package-lock.json. `make assets` bundles it with esbuild (pinned there too)
// into web/dist/echarts.min.js, served as /web/echarts.min.js; it sets
// window.echarts like the full build (dist/echarts.min.js) did.
//
// What uses what (keep in step with app/):
//   line, bar          time charts, per-position and insights charts
//   heatmap            per-position heatmap (+ continuous visualMap)
//   grid, tooltip      every chart (tooltip trigger "axis" needs the
//                      axis pointer, which TooltipComponent installs)
//   legend (scroll)    every chart's legend, type "scroll"
//   title              go-echarts always writes title: {}
//   toolbox + brush    zoomable charts (brush lineX, toolbox brush feature,
//                      takeGlobalCursor in app/chart.go)
//   markArea           the incomplete buckets' band; data gaps and the
//                      bucket after each (chartopt/marks.go)
//   markLine           counter restarts (chartopt/marks.go) and changes of
//                      the acceptance rate (chartopt.MarkChanges)
//   canvas renderer    echarts.init(..., {renderer: "canvas"}); PNG export
//                      uses getDataURL (app/export.go)
// e2e/echarts_bundle_test.go draws every chart with this build and with the
// full one and requires identical pixels, and fails on ECharts' "used but
// not imported" warnings of a development build of this entry.
import * as echarts from "echarts/core";
import { BarChart, HeatmapChart, LineChart } from "echarts/charts";
import {
  BrushComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  ToolboxComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
} from "echarts/components";
import { CanvasRenderer } from "echarts/renderers";

echarts.use([
  LineChart,
  BarChart,
  HeatmapChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  TitleComponent,
  ToolboxComponent,
  BrushComponent,
  MarkAreaComponent,
  MarkLineComponent,
  VisualMapContinuousComponent,
  CanvasRenderer,
]);

window.echarts = echarts;
