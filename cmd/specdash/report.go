//go:build !wasm

package main

import "github.com/alecthomas/kingpin/v2"

// registerReport adds the "report" command. Stub: replaced by its owner.
func registerReport(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("report", "TODO")
	cmds[cmd.FullCommand()] = func() error { return nil }
}
