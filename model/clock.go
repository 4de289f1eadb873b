package model

import (
	"time"

	"specdash/compute"
)

// ClockSkewNote is the difference between this machine's clock and the
// server's beyond which the notes name it: then the window's end, taken
// from the local clock for the first load, is off by that much (the next
// loads use the server's time: metricsclient.Client.Now).
const ClockSkewNote = 30 * time.Second

// clockBounder is a Source that bounds how far the server's clock is ahead
// of this machine's (metricsclient.Client.ClockBounds).
type clockBounder interface {
	ClockBounds() (lo, hi time.Duration, ok bool)
}

// noteClockSkew adds a note when the source's clock and this machine's
// differ by more than ClockSkewNote, by both bounds (one slow answer's wide
// bounds are no skew), worded by their middle.
func (m *Model) noteClockSkew(src Source) {
	c, ok := src.(clockBounder)
	if !ok {
		return
	}
	lo, hi, known := c.ClockBounds()
	if !known || (lo < ClockSkewNote && hi > -ClockSkewNote) {
		return
	}
	if n := ClockSkewText(lo + (hi-lo)/2); n != "" {
		m.Notes = append(m.Notes, n)
	}
}

// ClockSkewText words a clock offset (the server's clock minus this
// machine's) for the notes.
func ClockSkewText(o time.Duration) string {
	dir := "behind"
	if o < 0 {
		dir, o = "ahead of", -o
	}
	return "this computer's clock is " + compute.SpanText(o.Milliseconds()) + " " + dir + " the server's (its Date header): windows end at the server's time; absolute times you enter are read in this computer's clock"
}
