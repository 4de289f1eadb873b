// Package panics turns a panic in one request or loop into a logged,
// counted error instead of the end of the process (a server panic would
// end every viewer's dashboard).
//
// Use it as the deferred call itself (recover works only there):
//
//	defer panics.Catch("scrape", log, func(v any) { err = fmt.Errorf("scrape failed: %v", v) })
package panics

import (
	"log/slog"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Total counts recovered panics by where they happened ("http" for a
// request handler, "proxy" for an upstream fetch, or the caller's name).
// It is process-wide; server.New registers it in the server's registry
// (specdash_panics_total on /metrics).
var Total = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "specdash_panics_total",
	Help: "Panics recovered (logged with their stack, answered as an error) instead of ending the process, by where they happened.",
}, []string{"where"})

// Catch recovers a panic of the goroutine it is deferred in: it logs the
// value with the stack (log nil: slog.Default()), counts it in Total under
// where, and calls handle with the value (handle may be nil). Without a
// panic it does nothing. It must be deferred directly: defer
// panics.Catch(...).
func Catch(where string, log *slog.Logger, handle func(v any)) {
	v := recover()
	if v == nil {
		return
	}
	Record(where, log, v)
	if handle != nil {
		handle(v)
	}
}

// Record logs and counts a panic value already recovered by the caller.
func Record(where string, log *slog.Logger, v any) {
	if log == nil {
		log = slog.Default()
	}
	Total.WithLabelValues(where).Inc()
	log.Error("recovered from a panic", "where", where, "panic", v, "stack", string(debug.Stack()))
}

// Register adds Total to reg; registering it again is not an error.
func Register(reg prometheus.Registerer) error {
	if err := reg.Register(Total); err != nil {
		if _, ok := err.(prometheus.AlreadyRegisteredError); !ok {
			return err
		}
	}
	return nil
}
