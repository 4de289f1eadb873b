package metricsclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestClockOffset: a server whose clock is 10 minutes ahead (a fault a
// real Prometheus on this machine cannot show) moves Client.Now by that
// much; a server within the tolerance leaves the local clock.
func TestClockOffset(t *testing.T) {
	for _, tc := range []struct {
		skew    time.Duration
		applied bool
	}{
		{10 * time.Minute, true},
		{-3 * time.Hour, true},
		{0, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Date", time.Now().Add(tc.skew).UTC().Format(http.TimeFormat))
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"success","data":["vllm:spec_decode_num_drafts_total"]}`))
		}))
		c, err := New(Config{Address: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.ClockOffset(); ok {
			t.Fatal("offset known before any answer")
		}
		if _, _, _, err := c.api.LabelValues(context.Background(), "__name__", nil, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		// The server's clock is tc.skew ahead exactly (the same machine's,
		// moved): every answer's bounds hold it, however slow the answer.
		lo, hi, ok := c.ClockBounds()
		if !ok || lo > tc.skew || hi < tc.skew || hi-lo > time.Minute {
			t.Errorf("skew %v: ClockBounds = [%v, %v], %v", tc.skew, lo, hi, ok)
		}
		if o, _ := c.ClockOffset(); o != lo {
			t.Errorf("skew %v: ClockOffset = %v, want the lower bound %v", tc.skew, o, lo)
		}
		if c.ClockSkewed() != tc.applied {
			t.Errorf("skew %v: ClockSkewed = %v", tc.skew, !tc.applied)
		}
		move := time.Duration(0)
		if tc.applied {
			move = lo
		}
		before := time.Now()
		now := c.WithSchema(VLLMV1).Now()
		after := time.Now()
		if now.Before(before.Add(move)) || now.After(after.Add(move)) {
			t.Errorf("skew %v: Now is %v from the local clock, want %v", tc.skew, now.Sub(before), move)
		}
	}
}

// TestClockBoundsConcurrent: answers to queries sent together and stamped
// one after another by a busy server (the last one 12 s after its request)
// narrow the bounds to the true offset; before, the last answer's middle
// made Now 6.5 s ahead of the server, and the window ended in its future. A
// clock that moves (bounds that do not meet) starts the bounds again.
func TestClockBoundsConcurrent(t *testing.T) {
	local := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
	const skew = -5 * time.Minute // the browser 5 minutes ahead
	s := &serverClock{now: time.Now}
	for i := range 12 {
		// Sent at local, answered at local+i+1 s, stamped on arrival (no
		// travel back) to the second by the server's clock.
		got := local.Add(time.Duration(i+1) * time.Second)
		s.observe(local, got, got.Add(skew).Truncate(time.Second))
	}
	c := &Client{clock: s}
	lo, hi, _ := c.ClockBounds()
	// The first answer, the fastest, bounds it most from above.
	if lo != skew || hi != skew+2*time.Second {
		t.Errorf("bounds [%v, %v], want [%v, %v]", lo, hi, skew, skew+2*time.Second)
	}
	if o, _ := c.ClockOffset(); o > skew {
		t.Errorf("offset %v is ahead of the server's %v: a window ending in its future", o, skew)
	}
	// The server's clock steps 2 hours on: the next answer's bounds win.
	sent := local.Add(time.Minute)
	s.observe(sent, sent, sent.Add(skew+2*time.Hour))
	if lo, hi, _ := c.ClockBounds(); lo != skew+2*time.Hour || hi != skew+2*time.Hour+time.Second {
		t.Errorf("after the server's clock moved: bounds [%v, %v]", lo, hi)
	}
}

// TestSeedClockOffset: a seeded offset (the page's time against its
// arrival, for a first load replayed from the page) moves Now until an
// answer's Date header tells the real one, which then wins; a seed never
// replaces a known offset.
func TestSeedClockOffset(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":["vllm:spec_decode_num_drafts_total"]}`))
	}))
	defer srv.Close()
	c, err := New(Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	c.SeedClockOffset(10 * time.Minute)
	if got := c.Now().Sub(time.Now()); got < 9*time.Minute || got > 11*time.Minute {
		t.Errorf("seeded 10 min: Now is %v from the local clock", got)
	}
	if _, _, _, err := c.api.LabelValues(context.Background(), "__name__", nil, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if lo, hi, ok := c.ClockBounds(); !ok || lo > 0 || hi < 0 {
		t.Errorf("after an answer: offset in [%v, %v], %v: want the answer's (0 in them)", lo, hi, ok)
	}
	c.SeedClockOffset(time.Hour)
	if c.ClockSkewed() {
		lo, hi, _ := c.ClockBounds()
		t.Errorf("a seed after an answer: offset in [%v, %v], skewed", lo, hi)
	}
}
