// Package web holds specdash's static assets, embedded in the binary:
// dist/ is build output (app.wasm from `make wasm`, echarts.min.js copied
// from node_modules by `make assets`), static/ holds hand-written sources
// (stylesheet, icon). The server serves both under /web/.
package web

import "embed"

// FS holds dist/ and static/. dist/ always contains .keep, so this compiles
// before the first wasm build; a missing dist/app.wasm is reported at run
// time by the server.
//
//go:embed all:dist static
var FS embed.FS
