//go:build wasm

// The browser side of specdash: the go-app front end. Built with
// GOOS=js GOARCH=wasm into web/dist/app.wasm.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	specapp "specdash/app"
)

func main() {
	specapp.Register()
	app.RunWhenOnBrowser()
}
