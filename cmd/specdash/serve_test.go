//go:build !wasm

package main

import (
	"strings"
	"testing"
)

// TestDefaultListen: the listen address without --web.listen-address or a
// config file honours SPECDASH_PORT (as `make run` does), else :8080; a
// value that is not a port is refused, naming it.
func TestDefaultListen(t *testing.T) {
	for _, c := range []struct {
		env, want string
		bad       bool
	}{
		{"", ":8080", false},
		{"9000", ":9000", false},
		{"0", ":0", false},
		{"65536", "", true},
		{"80a", "", true},
		{":9000", "", true},
	} {
		got, err := defaultListen(func(k string) string {
			if k == "SPECDASH_PORT" {
				return c.env
			}
			return ""
		})
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("SPECDASH_PORT=%q: %q, %v; want %q (error %v)", c.env, got, err, c.want, c.bad)
		}
		if c.bad && err != nil && !strings.Contains(err.Error(), `SPECDASH_PORT="`+c.env+`"`) {
			t.Errorf("SPECDASH_PORT=%q: error %q does not name the value", c.env, err)
		}
	}
}
