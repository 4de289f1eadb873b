// Package testwait lets tests wait for a condition instead of a fixed
// time: a sleep long enough on a busy machine is a waste on an idle one,
// and one short enough for an idle machine breaks on a busy one.
package testwait

import (
	"testing"
	"time"
)

// Timeout is a generous deadline for conditions that hold within a second
// or two on an idle machine (the suite runs on shared 2-core machines).
const Timeout = 2 * time.Minute

// Poll is the interval between two checks of a condition.
const Poll = 20 * time.Millisecond

// For checks cond every Poll until it returns true; if it has not after
// timeout (Timeout when zero), the test fails with what it waited for.
// Call it from the test's goroutine.
func For(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	ForEvery(t, what, timeout, Poll, cond)
}

// ForEvery is For with another interval between checks, for conditions
// whose check costs (e.g. one that acts again each time, like pasting a
// whole log into a page).
func ForEvery(t testing.TB, what string, timeout, every time.Duration, cond func() bool) {
	t.Helper()
	if !until(timeout, every, cond) {
		if timeout <= 0 {
			timeout = Timeout
		}
		t.Fatalf("waited %s for %s", timeout, what)
	}
}

// Until checks cond every Poll until it returns true (true) or timeout
// (Timeout when zero) passed (false), for callers that fail differently or
// wait in another goroutine.
func Until(timeout time.Duration, cond func() bool) bool {
	return until(timeout, Poll, cond)
}

func until(timeout, every time.Duration, cond func() bool) bool {
	if timeout <= 0 {
		timeout = Timeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}
