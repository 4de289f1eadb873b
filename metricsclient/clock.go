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

// serverClock bounds the offset of the server's clock from the local one
// from the Date header of the server's answers (RFC 9110: the time the
// answer was generated, to the second). Each answer says the offset is in
// [Date − received, Date + 1 s − sent]; the bounds of every answer since the
// clocks last moved are intersected, as NTP does with its samples. Before,
// the last answer's middle was the estimate: with a dozen queries in flight
// on a busy server, the last answer was stamped long after its request's
// middle, and the window ended seconds in the server's future.
type serverClock struct {
	now    func() time.Time
	mu     sync.Mutex
	lo, hi time.Duration // the server's clock is lo to hi ahead of the local one
	known  bool
	seeded bool // lo and hi are SeedClockOffset's: the first answer replaces them
}

// observe narrows the bounds by an answer stamped date, asked for at sent
// and received at got (local times). Bounds that do not meet the ones known
// mean that a clock moved (a laptop's resume, an NTP step): the answer's
// own replace them.
func (s *serverClock) observe(sent, got, date time.Time) {
	lo, hi := date.Sub(got), date.Add(time.Second).Sub(sent)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.known || s.seeded || lo > s.hi || hi < s.lo {
		s.lo, s.hi, s.known, s.seeded = lo, hi, true, false
		return
	}
	s.lo, s.hi = max(s.lo, lo), min(s.hi, hi)
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
		t.c.observe(sent, t.c.now(), d)
	}
	return resp, nil
}

// ClockBounds is how far the server's clock is ahead of this machine's
// (negative: behind), as bounds that every answer's Date header since the
// clocks last moved agrees with: the offset is in [lo, hi]. ok is false
// before the first answer with a Date header. Through specdash's proxy the
// server is specdash's own (the browser's clock against the server's).
func (c *Client) ClockBounds() (lo, hi time.Duration, ok bool) {
	if c.clock == nil {
		return 0, 0, false
	}
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	return c.clock.lo, c.clock.hi, c.clock.known
}

// ClockOffset is the offset Now applies when the clocks are ClockSkewed:
// the lower of ClockBounds, so that a window never ends in the server's
// future (an empty, "incomplete" newest bucket), at the cost of ending up
// to a round trip and a second early. ok is false before the first answer
// with a Date header.
func (c *Client) ClockOffset() (offset time.Duration, ok bool) {
	lo, _, ok := c.ClockBounds()
	return lo, ok
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
		c.clock.lo, c.clock.hi, c.clock.known, c.clock.seeded = o, o, true, true
	}
}

// ClockSkewed reports whether the server's clock is known to be
// ClockSkewTolerance or more off this machine's, by both bounds (a slow
// answer's wide bounds alone do not move the clock): Now then moves the
// local clock by ClockOffset.
func (c *Client) ClockSkewed() bool {
	lo, hi, ok := c.ClockBounds()
	return ok && (lo >= ClockSkewTolerance || hi <= -ClockSkewTolerance)
}

// Now is the server's time as far as it is known: the local clock moved by
// ClockOffset when the clocks are ClockSkewed (a browser whose clock is off
// would otherwise end every window in the past or the future: newest data
// missing, or empty "incomplete" buckets).
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
