//go:build !wasm

// Command specdash is the speculative-decoding dashboard: `serve` runs the
// web server, `report` prints the numbers for a window, `simulate` serves
// vLLM-style /metrics for demos and tests, `rules` writes Prometheus
// recording and alerting rules.
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
	registerRules(a, cmds)
	name := kingpin.MustParse(a.Parse(joinStdinValues(os.Args[1:])))
	if err := cmds[name](); err != nil {
		a.Fatalf("%v", err)
	}
}

// joinStdinValues rewrites "--from-log -" as "--from-log=-": kingpin
// drops a lone "-" argument, so the conventional stdin spelling would
// otherwise lose its value.
func joinStdinValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if args[i] == "--from-log" && i+1 < len(args) && args[i+1] == "-" {
			out = append(out, "--from-log=-")
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
