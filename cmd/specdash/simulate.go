//go:build !wasm

package main

import "github.com/alecthomas/kingpin/v2"

// registerSimulate adds the "simulate" command. Stub: replaced by its owner.
func registerSimulate(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("simulate", "TODO")
	cmds[cmd.FullCommand()] = func() error { return nil }
}
