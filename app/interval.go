package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// every calls f every period from a browser timer (window.setInterval)
// until stop is called; f runs on the JS event loop and must not block
// (hand work to ctx.Async / ctx.Dispatch). Browser only; on the server
// it does nothing.
//
// Why not a time.Ticker in a goroutine: with go-app v10.1.11 under Go
// 1.26 js/wasm, a goroutine parked on a long Go timer (a 30 s refresh
// ticker) kept go-app's frame timer from waking up: a load whose result
// was dispatched from a fetch goroutine was not drawn until that long
// timer fired (the page stayed "Loading…" for one refresh period,
// e2e TestFirstLoadNotDelayedByRefresh). Browser timers leave no Go timer
// pending while the page is idle.
func every(period time.Duration, f func()) (stop func()) {
	if !app.IsClient || period <= 0 {
		return func() {}
	}
	var id app.Value
	cb := app.FuncOf(func(this app.Value, args []app.Value) any {
		defer func() { recover() }() // never let a tick kill the app
		f()
		return nil
	})
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		id = app.Window().Call("setInterval", cb, period.Milliseconds())
		return true
	}()
	if !ok {
		cb.Release()
		return func() {}
	}
	stopped := false
	return func() {
		if stopped {
			return
		}
		stopped = true
		func() {
			defer func() { recover() }()
			app.Window().Call("clearInterval", id)
		}()
		cb.Release()
	}
}
