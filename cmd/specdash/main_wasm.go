//go:build wasm

// The browser side of specdash: the go-app front end. Built with
// GOOS=js GOARCH=wasm into web/dist/app.wasm.
package main

import (
	"encoding/binary"
	"math"
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	specapp "specdash/app"
	"specdash/view"
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
	browserLocal()
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

// browserLocal makes time.Local the browser's zone with its daylight
// saving changes: Go's js/wasm sets it to the browser's offset of today
// for every date, so a window on the other side of a change showed its
// "local" times an hour off, and off the pre-rendered page's
// (view.ZoneFromOffsets). The offsets are JavaScript's (the zone ECharts'
// time axes use too), from view.MinTime (the earliest time a URL may
// name) to five years after now, asked in batches of web/static/boot.js's
// specdashZoneOffsets (10-50 ms in all); without it, or on any failure,
// time.Local stays Go's. The server's pre-render names the zones alike
// (view.BrowserNamed).
func browserLocal() {
	defer func() { recover() }() // JS: keep Go's zone on any failure
	ask := js.Global().Get("specdashZoneOffsets")
	if ask.Type() != js.TypeFunction {
		return
	}
	offsets := func(secs []int64) []int {
		buf := make([]byte, 8*len(secs))
		for i, s := range secs {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(float64(s)))
		}
		arr := js.Global().Get("Float64Array").New(len(secs))
		bytes := js.Global().Get("Uint8Array").New(arr.Get("buffer"))
		js.CopyBytesToJS(bytes, buf)
		ask.Invoke(arr)
		js.CopyBytesToGo(buf, bytes)
		out := make([]int, len(secs))
		for i := range out {
			out[i] = int(math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:])))
		}
		return out
	}
	from, to := view.MinTime.Unix(), time.Now().AddDate(5, 0, 0).Unix()
	if loc, err := view.ZoneFromOffsets("Local", offsets, from, to); err == nil {
		time.Local = loc
	}
}
