//go:build !wasm

package main

import "github.com/alecthomas/kingpin/v2"

// registerServe adds the "serve" command. Stub: replaced by its owner.
func registerServe(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("serve", "TODO")
	cmds[cmd.FullCommand()] = func() error { return nil }
}
