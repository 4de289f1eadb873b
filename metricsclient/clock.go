package metricsclient

import (
	"net/http"
	"sync"
	"time"
)

// ClockSkewTolerance is the difference between this machine's clock and the
// server's below which Client.Now keeps the local clock: the HTTP Date
// header has a resolution of one second.
const ClockSkewTolerance = 2 * time.Second

// serverClock estimates the offset of the server's clock from the local one
// from the Date header of the server's answers (RFC 9110: the time the answer
// was generated, to the second).
type serverClock struct {
	now    func() time.Time
	mu     sync.Mutex
	offset time.Duration
	known  bool
}

// clockTransport records the Date header of every answer into c.
type clockTransport struct {
	rt http.RoundTripper
	c  *serverClock
}

func (t clockTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	sent := t.c.now()
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if d, perr := http.ParseTime(resp.Header.Get("Date")); perr == nil {
		got := t.c.now()
		// The header is truncated to the second: the server's time was in
		// [d, d+1s), taken between sending and receiving.
		mid := sent.Add(got.Sub(sent) / 2)
		t.c.mu.Lock()
		t.c.offset, t.c.known = d.Add(500*time.Millisecond).Sub(mid), true
		t.c.mu.Unlock()
	}
	return resp, nil
}

// ClockOffset is how far the server's clock is ahead of this machine's
// (negative: behind), from the Date header of its last answer; ok is false
// before the first answer with a Date header. Through specdash's proxy the
// server is specdash's own (the browser's clock against the server's).
func (c *Client) ClockOffset() (offset time.Duration, ok bool) {
	if c.clock == nil {
		return 0, false
	}
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	return c.clock.offset, c.clock.known
}

// SeedClockOffset sets the offset ClockOffset reports until an answer's
// Date header tells it: for a client whose first answers came from
// elsewhere (the browser's first load replays the page's answers, which
// have no Date of their own: WithAnswers), from the page's server time
// against its arrival here. An offset already known is kept.
func (c *Client) SeedClockOffset(o time.Duration) {
	if c.clock == nil {
		return
	}
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	if !c.clock.known {
		c.clock.offset, c.clock.known = o, true
	}
}

// ClockSkewed reports whether the server's clock is known to be
// ClockSkewTolerance or more off this machine's: Now then moves the local
// clock by ClockOffset.
func (c *Client) ClockSkewed() bool {
	o, ok := c.ClockOffset()
	return ok && (o >= ClockSkewTolerance || o <= -ClockSkewTolerance)
}

// Now is the server's time as far as it is known: the local clock moved by
// ClockOffset when that is at least ClockSkewTolerance either way (a browser
// whose clock is off would otherwise end every window in the past or the
// future: newest data missing, or empty "incomplete" buckets).
func (c *Client) Now() time.Time {
	if c.clock == nil {
		return time.Now()
	}
	now := c.clock.now()
	if c.ClockSkewed() {
		o, _ := c.ClockOffset()
		return now.Add(o)
	}
	return now
}
