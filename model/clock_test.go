package model

import (
	"testing"
	"time"
)

type offsetSource struct {
	Source
	lo, hi time.Duration
}

func (s offsetSource) ClockBounds() (lo, hi time.Duration, ok bool) { return s.lo, s.hi, true }

func TestNoteClockSkew(t *testing.T) {
	for _, tc := range []struct {
		lo, hi time.Duration
		want   string
	}{
		{10 * time.Second, 11 * time.Second, ""},
		{-29 * time.Second, -28 * time.Second, ""},
		// One slow answer: the bounds span the tolerance, no note.
		{-40 * time.Second, time.Second, ""},
		{5*time.Minute - time.Second, 5*time.Minute + time.Second, "this computer's clock is 5m behind the server's (its Date header): windows end at the server's time; absolute times you enter are read in this computer's clock"},
		{-2*time.Hour - 2*time.Second, -2 * time.Hour, "this computer's clock is 2h ahead of the server's (its Date header): windows end at the server's time; absolute times you enter are read in this computer's clock"},
	} {
		m := &Model{}
		m.noteClockSkew(offsetSource{lo: tc.lo, hi: tc.hi})
		got := ""
		if len(m.Notes) > 0 {
			got = m.Notes[0]
		}
		if got != tc.want {
			t.Errorf("offset in [%v, %v]: note %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
