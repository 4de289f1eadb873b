//go:build !wasm

package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain runs main itself when the test binary is started by
// runSpecdash, so the tests see the real exit status and output.
func TestMain(m *testing.M) {
	if os.Getenv("SPECDASH_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"specdash"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runSpecdash runs `specdash args...` in a child process and returns its
// exit status and combined output.
func runSpecdash(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SPECDASH_TEST_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	default:
		t.Fatalf("specdash %v: %v", args, err)
		return 0, ""
	}
}

// TestCommandLineUsageErrors: a command line that names no command, an
// unknown command or an unknown flag exits 2 (a usage error, as Go's flag
// package does); the first two print the commands there are, the third
// names the flag, and so does a bad flag value. Asking for help exits 0.
func TestCommandLineUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		status   int
		contains []string
	}{
		{nil, 2, []string{"usage: specdash <command>", "serve [<flags>]", "report [<flags>]", "simulate [<flags>]", "rules [<flags>]"}},
		{[]string{"bogus"}, 2, []string{`expected command but got "bogus"`, "usage: specdash <command>", "report [<flags>]"}},
		{[]string{"report", "--no-such-flag"}, 2, []string{"unknown long flag '--no-such-flag'"}},
		// A bad value names its flag (kingpin's error is the value's own).
		{[]string{"serve", "--scrape.interval=abc"}, 2, []string{`--scrape.interval="abc": time: invalid duration "abc"`}},
		{[]string{"simulate", "--engines=x"}, 2, []string{`--engines="x": `}},
		// Values kingpin accepts but the command cannot use are usage
		// errors too.
		{[]string{"report", "--range=xyz", "--prometheus.url=http://127.0.0.1:1"}, 2, []string{`--range="xyz": not a valid duration string`, "try --help"}},
		{[]string{"report", "--filter=model_name"}, 2, []string{"--filter: "}},
		{[]string{"simulate", "--engines=0"}, 2, []string{"--engines 0: want at least 1"}},
		{[]string{"serve", "--scrape.interval=0s"}, 2, []string{"--scrape.interval must be positive"}},
		// A report that runs and fails is not.
		{[]string{"report", "--prometheus.url=http://127.0.0.1:1", "--timeout=5s"}, 1, []string{"127.0.0.1:1"}},
		{[]string{"--help"}, 0, []string{"usage: specdash <command>", "report [<flags>]"}},
		{[]string{"help", "report"}, 0, []string{"usage: specdash report [<flags>]"}},
	} {
		status, out := runSpecdash(t, tc.args...)
		if status != tc.status {
			t.Errorf("specdash %v: exit status %d, want %d; output:\n%s", tc.args, status, tc.status, out)
		}
		for _, want := range tc.contains {
			if !strings.Contains(out, want) {
				t.Errorf("specdash %v: output lacks %q:\n%s", tc.args, want, out)
			}
		}
	}
}
