// Command floorapp is the floor of specdash's stack: the smallest honest
// program on the design card's stack (go-app v10, Go's js/wasm,
// client_golang's api/v1, a go-echarts option drawn by ECharts) that does
// what the dashboard's first live moment needs. In the browser it makes one
// query_range through api/v1 (the expression, window and step the host
// passes in go-app's Env: floor.EnvExpr...), builds one line chart option
// with go-echarts, draws it with the page's ECharts (a tooltip on trigger
// axis), then marks its root ready. It leaves the steps' marks that
// BenchmarkInteractive reads (specdash:main, specdash:load:start,
// specdash:load:fetched once the answer is decoded, specdash:load:computed
// once the option's JSON is built, specdash:load:rendered once ECharts drew
// it).
//
// Built with -tags floorhello it is the same go-app program without the
// query, client_golang, go-echarts or ECharts: the root is ready at mount
// (the floor of go-app and Go's wasm alone).
//
// BenchmarkInteractive builds it with specdash's wasm flags and serves it
// with go-app's handler and loader (SPECDASH_BENCH_FLOOR=1 or 2; see
// bench/floor_test.go). Built for the host it only says so.
package main
