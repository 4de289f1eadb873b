//go:build wasm

// The browser side of specdash: the go-app front end. Built with
// GOOS=js GOARCH=wasm into web/dist/app.wasm.
package main

func main() {}
