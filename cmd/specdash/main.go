//go:build !wasm

// Command specdash is the speculative-decoding dashboard: `serve` runs the
// web server, `report` prints the numbers for a window, `simulate` serves
// vLLM-style /metrics for demos and tests.
package main

import (
	"os"

	"github.com/alecthomas/kingpin/v2"
)

func main() {
	a := kingpin.New("specdash", "A dashboard for speculative decoding: acceptance rate, mean acceptance length, per-position acceptance, throughput.")
	a.HelpFlag.Short('h')
	cmds := map[string]func() error{}
	registerServe(a, cmds)
	registerReport(a, cmds)
	registerSimulate(a, cmds)
	name := kingpin.MustParse(a.Parse(os.Args[1:]))
	if err := cmds[name](); err != nil {
		a.Fatalf("%v", err)
	}
}
