//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/bench/cmd/floorapp/floor"
)

func main() {
	js.Global().Get("performance").Call("mark", "specdash:main")
	// load is nil with -tags floorhello (hello_wasm.go).
	app.Route("/", func() app.Composer { return &floor.Page{Load: load} })
	app.RunWhenOnBrowser()
}
