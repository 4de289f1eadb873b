package testwait

import (
	"sync/atomic"
	"testing"
)

func TestUntil(t *testing.T) {
	var n atomic.Int64
	if !Until(0, func() bool { return n.Add(1) == 5 }) {
		t.Fatal("Until gave up on a condition that holds at the fifth check")
	}
	if got := n.Load(); got != 5 {
		t.Errorf("cond checked %d times, want 5 (it stops at the first true)", got)
	}
	if Until(3*Poll, func() bool { return false }) {
		t.Error("Until returned true for a condition that never holds")
	}
}
