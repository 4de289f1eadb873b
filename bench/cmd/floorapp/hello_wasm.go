//go:build js && wasm && floorhello

package main

// load is nil: no query, no chart; the page is ready at mount.
var load func() error
