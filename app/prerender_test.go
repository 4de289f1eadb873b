package app

import (
	"math"
	"testing"
	"time"
)

// TestPageClockOffset: the server's clock offset from the page's server
// time and its arrival in the browser (Unix ms); implausible times give
// none, so a tampered page cannot move the client's clock by more than a
// page's preview allows.
func TestPageClockOffset(t *testing.T) {
	const t0 = 1796353920000.0 // 2026-12-04
	for _, c := range []struct {
		server, received float64
		want             time.Duration
		ok               bool
	}{
		{t0, t0 + 120, -120 * time.Millisecond, true},                               // in sync, 120 ms to arrive
		{t0 + 40000, t0 + 150, 40000*time.Millisecond - 150*time.Millisecond, true}, // server 40 s ahead
		{t0 - 30000, t0, -30 * time.Second, true},                                   // browser 30 s ahead
		{t0, t0 + 60000, 0, false},                                                  // a minute apart: no preview shows
		{t0 + 23*3600000, t0, 0, false},                                             // a tampered page
		{math.NaN(), t0, 0, false},
		{t0, math.Inf(1), 0, false},
		{-5, t0, 0, false},
		{t0, 1e300, 0, false},
		{0, 0, 0, false},
	} {
		got, ok := pageClockOffset(c.server, c.received)
		if got != c.want || ok != c.ok {
			t.Errorf("pageClockOffset(%v, %v) = %v, %v; want %v, %v", c.server, c.received, got, ok, c.want, c.ok)
		}
	}
}
