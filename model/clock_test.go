package model

import (
	"testing"
	"time"
)

type offsetSource struct {
	Source
	o time.Duration
}

func (s offsetSource) ClockOffset() (time.Duration, bool) { return s.o, true }

func TestNoteClockSkew(t *testing.T) {
	for _, tc := range []struct {
		o    time.Duration
		want string
	}{
		{10 * time.Second, ""},
		{-29 * time.Second, ""},
		{5 * time.Minute, "this computer's clock is 5m behind the server's (its Date header): windows end at the server's time; absolute times you enter are read in this computer's clock"},
		{-2 * time.Hour, "this computer's clock is 2h ahead of the server's (its Date header): windows end at the server's time; absolute times you enter are read in this computer's clock"},
	} {
		m := &Model{}
		m.noteClockSkew(offsetSource{o: tc.o})
		got := ""
		if len(m.Notes) > 0 {
			got = m.Notes[0]
		}
		if got != tc.want {
			t.Errorf("offset %v: note %q, want %q", tc.o, got, tc.want)
		}
	}
}
