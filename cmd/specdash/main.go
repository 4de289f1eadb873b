//go:build !wasm

// Command specdash is the speculative-decoding dashboard: `serve` runs the
// web server, `report` prints the numbers for a window, `simulate` serves
// vLLM-style /metrics for demos and tests, `rules` writes Prometheus
// recording and alerting rules.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

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
	args := joinStdinValues(os.Args[1:])
	if len(args) == 0 {
		// kingpin prints the usage and exits 0 when no command is given;
		// a missing command is a usage error like a bad flag.
		a.Usage(nil)
		os.Exit(exitUsage)
	}
	name, err := a.Parse(args)
	if err != nil {
		a.Errorf("%v, try --help", namedValueError(a, args, err))
		if ctx, _ := a.ParseContext(args); ctx == nil || ctx.SelectedCommand == nil {
			// An unknown command: list the commands there are.
			a.Usage(nil)
		}
		os.Exit(exitUsage)
	}
	if err := cmds[name](); err != nil {
		var bad usageError
		if errors.As(err, &bad) {
			a.Errorf("%v, try --help", err)
			os.Exit(exitUsage)
		}
		a.Fatalf("%v", err)
	}
}

// usageError is a command line that parses but whose flag values cannot be
// used together or at all (a report's --range=xyz, a simulator's
// --engines=0): it exits with exitUsage, as a value kingpin refuses does.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// badFlags marks err (nil stays nil) as a usage error.
func badFlags(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitUsage is the exit status of a command line that cannot be parsed (no
// command, an unknown command or flag, a bad flag value), as Go's flag
// package uses; a command that runs and fails exits 1.
const exitUsage = 2

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

// namedValueError names the flag whose value kingpin could not set: kingpin
// returns the value's own error ("time: invalid duration \"abc\""), which
// does not say which flag it was. The flags of the parsed command line are
// set again one by one (the program exits right after) and the first whose
// value fails the same way is named; err as it is when none does.
func namedValueError(a *kingpin.Application, args []string, err error) error {
	ctx, perr := a.ParseContext(args)
	if perr != nil || ctx == nil {
		return err
	}
	for _, el := range ctx.Elements {
		f, ok := el.Clause.(*kingpin.FlagClause)
		if !ok || el.Value == nil {
			continue
		}
		m := f.Model()
		if serr := m.Value.Set(*el.Value); serr != nil && serr.Error() == err.Error() {
			if strings.HasPrefix(err.Error(), "--"+m.Name) {
				return err // the value's error names its flag already
			}
			return fmt.Errorf("--%s=%q: %w", m.Name, *el.Value, err)
		}
	}
	return err
}
