//go:build wasm

// The browser side of specdash: the go-app front end. Built with
// GOOS=js GOARCH=wasm into web/dist/app.wasm.
package main

import (
	"runtime/debug"
	"syscall/js"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	specapp "specdash/app"
)

// GC settings of the page (docs/PERFORMANCE.md, "Refresh"): the live heap
// is small (5–20 MB: the window's points, the options) while every refresh
// allocates a few MB, so at the default GOGC=100 a collection (20–30 ms in
// wasm, one thread) ran in nearly every live refresh. At 400 one runs every
// few refreshes, for a heap of a few tens of MB; the memory limit keeps a
// very long window from growing the heap past it.
const (
	gcPercent   = 400
	memoryLimit = 512 << 20 // bytes
)

func main() {
	mark("specdash:main")
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
	specapp.Register()
	app.RunWhenOnBrowser()
}

// mark sets a performance mark in the page: "specdash:main" is when the Go
// program's main starts, after the runtime and every package's init
// (bench/ BenchmarkInteractive reads it; docs/PERFORMANCE.md).
func mark(name string) {
	defer func() { recover() }() // JS: never let it stop the app
	if p := js.Global().Get("performance"); p.Truthy() {
		p.Call("mark", name)
	}
}
