//go:build !wasm

package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"specdash/simulate"
)

// TestDefaultAcceptance: without --acceptance, `simulate --k N` runs for
// any N: the default 0.8, 0.7, 0.6, 0.5 is cut to k, or continued with the
// ratio of its last two (0.5 / 0.6): k = 5 adds 0.5 × 5/6 = 0.41667.
func TestDefaultAcceptance(t *testing.T) {
	if got := defaultAcceptance(4); !slices.Equal(got, []float64{0.8, 0.7, 0.6, 0.5}) {
		t.Errorf("k = 4: %v, want the default as it is", got)
	}
	if got := defaultAcceptance(2); !slices.Equal(got, []float64{0.8, 0.7}) {
		t.Errorf("k = 2: %v, want its first two", got)
	}
	got := defaultAcceptance(6)
	want := []float64{0.8, 0.7, 0.6, 0.5, 0.5 * 5 / 6, 0.5 * 25 / 36}
	if len(got) != len(want) {
		t.Fatalf("k = 6: %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("k = 6: position %d %v, want %v", i+1, got[i], want[i])
		}
	}
	for _, k := range []int{1, 3, 5, 8, 32} {
		if _, err := simulate.New(simulate.Config{Models: []string{"m"}, K: k, Acceptance: defaultAcceptance(k), DraftsPerSecond: 1}); err != nil {
			t.Errorf("simulate --k %d with the default acceptance: %v", k, err)
		}
	}
}

// Flags the simulator cannot honour are refused with a reason, before it
// serves anything.
func TestSimulateRefusesFlags(t *testing.T) {
	for args, want := range map[string]string{
		"--engines=0":               "--engines 0: want at least 1",
		"--latency --format=sglang": "--latency serves vLLM's histogram: it needs --format vllm (got sglang)",
		"--native-histograms --latency --format=trtllm": "--native-histograms needs --latency and --format vllm",
	} {
		a := kingpin.New("specdash", "")
		cmds := map[string]func() error{}
		registerSimulate(a, cmds)
		if _, err := a.Parse(append([]string{"simulate"}, strings.Fields(args)...)); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if err := cmds["simulate"](); err == nil || err.Error() != want {
			t.Errorf("simulate %s: %v, want %q", args, err, want)
		}
	}
}
