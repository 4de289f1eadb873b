package view

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below on hosts without a zoneinfo database

	"specdash/compute"
)

// TestZoneFromOffsets: a zone built from a real zone's offsets, asked as
// the browser is (every ZoneProbeStep, then bisected), gives that zone's
// offset at every hour from 2000 to 2032 and on both sides of every
// change, named as Go's js/wasm names the browser's zone. The zones have
// daylight saving time in the north and in the south, half-hour offsets
// and a half-hour daylight saving time (Lord Howe), a month-long
// suspension every year (Casablanca, Ramadan), a day skipped (Apia,
// 2011-12-30), a standard offset changed twice (Moscow, 2011 and 2014)
// and none at all (Kolkata).
func TestZoneFromOffsets(t *testing.T) {
	from := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Sydney", "America/Santiago",
		"Australia/Lord_Howe", "Africa/Casablanca", "Pacific/Apia", "Europe/Moscow", "Asia/Kolkata", "UTC"} {
		t.Run(name, func(t *testing.T) {
			real, err := time.LoadLocation(name)
			if err != nil {
				t.Fatal(err)
			}
			calls, asked := 0, 0
			offsets := func(secs []int64) []int {
				calls++
				asked += len(secs)
				return offsetsIn(real)(secs)
			}
			loc, err := ZoneFromOffsets("Local", offsets, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if loc.String() != "Local" {
				t.Errorf("name %q, want Local", loc)
			}
			check := func(sec int64) {
				t.Helper()
				_, want := time.Unix(sec, 0).In(real).Zone()
				name, got := time.Unix(sec, 0).In(loc).Zone()
				if got != want || name != offsetName(want) {
					t.Fatalf("%s: offset %d (%s), want %d (%s)", time.Unix(sec, 0).UTC(), got, name, want, offsetName(want))
				}
			}
			for sec := from; sec < to; sec += 3600 {
				check(sec)
			}
			changes := 0
			for at := time.Unix(from, 0).In(real); at.Unix() < to; {
				_, end := at.ZoneBounds()
				if end.IsZero() || end.Unix() >= to {
					break
				}
				check(end.Unix() - 1)
				check(end.Unix())
				changes++
				at = end
			}
			// One call for the probes, one per step of the bisection (of
			// 14 days to the second: 21).
			if calls > 22 {
				t.Errorf("%d calls to offsets, want at most 22", calls)
			}
			t.Logf("%d changes (with or without a change of offset); %d calls, %d times", changes, calls, asked)
		})
	}
}

// TestZoneFromOffsetsEdges: before from the zone keeps from's offset,
// after to the last one; a zone without changes is one fixed offset.
func TestZoneFromOffsetsEdges(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	jan := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC).Unix()
	jul := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC).Unix()
	loc, err := ZoneFromOffsets("Local", offsetsIn(ny), jan, jul)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Time
		want int
	}{
		{time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), -5 * 3600},   // before from: January's
		{time.Date(2026, 3, 8, 6, 59, 59, 0, time.UTC), -5 * 3600}, // the second before 2 a.m. EST
		{time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), -4 * 3600},
		{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), -4 * 3600}, // after to: July's
	} {
		if _, got := c.at.In(loc).Zone(); got != c.want {
			t.Errorf("%s: offset %d, want %d", c.at, got, c.want)
		}
	}
	if got := time.Unix(jul, 0).In(loc).Format("2006-01-02 15:04 MST"); got != "2026-07-15 08:00 UTC-4" {
		t.Errorf("July noon UTC in New York: %q", got)
	}
	fixed, err := ZoneFromOffsets("Local", offsetsIn(time.FixedZone("", 5*3600+1800)), jan, jul)
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Unix(jan, 0).In(fixed).Format("15:04 MST"); got != "17:30 UTC+5:30" {
		t.Errorf("a fixed zone: %q", got)
	}
}

// offsetsIn answers ZoneFromOffsets' questions from loc.
func offsetsIn(loc *time.Location) func([]int64) []int {
	return func(secs []int64) []int {
		out := make([]int, len(secs))
		for i, s := range secs {
			_, out[i] = time.Unix(s, 0).In(loc).Zone()
		}
		return out
	}
}

// TestBrowserNamed: the server's copy of a zone for the pre-render has the
// zone's offsets at every hour from MinTime to five years ahead, named as
// the browser's live page names them, and the footer names the zone of
// the window's end (not of today): "UTC-4" for a New York July window,
// "UTC-5" for a January one, whatever the date.
func TestBrowserNamed(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	loc := BrowserNamed(ny, now)
	if loc.String() != "America/New_York" {
		t.Errorf("name %q", loc)
	}
	for at := MinTime; at.Before(now.AddDate(5, 0, 0)); at = at.Add(time.Hour) {
		_, want := at.In(ny).Zone()
		name, got := at.In(loc).Zone()
		if got != want || name != offsetName(want) {
			t.Fatalf("%s: %s %d, want %s %d", at, name, got, offsetName(want), want)
		}
	}
	for _, c := range []struct {
		start time.Time
		want  string
	}{
		{time.Date(2020, 7, 1, 12, 0, 0, 0, time.UTC), "Window 2020-07-01 08:00:00 – 14:00:00 UTC-4"},
		{time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC), "Window 2026-01-15 07:00:00 – 13:00:00 UTC-5"},
	} {
		var res Result
		res.Grid = compute.Grid{Start: c.start.UnixMilli(), End: c.start.Add(6 * time.Hour).UnixMilli(), Step: 60000}
		q := DefaultQuery().InZone(loc)
		if got := FooterWindow(&res, q); !strings.HasPrefix(got, c.want) {
			t.Errorf("footer %q, want %q...", got, c.want)
		}
	}
}
