package view

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// ZoneProbeStep is how far apart ZoneFromOffsets asks for the offset
// while it looks for changes: two changes closer than this (none in the
// tz database since 2000 but a day skipped or repeated) would be missed.
// Morocco's suspensions of daylight saving time for Ramadan, the shortest
// periods in use, last about a month.
const ZoneProbeStep = 14 * 24 * 3600 // seconds

// ZoneFromOffsets is a time zone that has offsets' UTC offsets from from to
// to (Unix seconds), changing at the very second offsets' do; before from
// it keeps from's offset, after to the last one. offsets answers, for each
// Unix time (seconds) it is given, the zone's offset there (seconds east
// of UTC). Each offset is named as Go names the browser's zone ("UTC-5",
// "UTC+5:30").
//
// In the browser, Go (js/wasm) sets time.Local to one fixed zone, the
// browser's offset of today (GOROOT/src/time/zoneinfo_js.go): a date on
// the other side of a daylight saving change was shown an hour off.
// cmd/specdash builds time.Local from JavaScript's offsets with this
// instead (-Date.prototype.getTimezoneOffset, the zone ECharts' time axes
// use too). The questions come in batches, as a call from Go to
// JavaScript costs far more than the answer: offsets is asked once for
// every ZoneProbeStep, then once per step of a bisection of every step
// with a change to the second of the change (22 calls in all for a zone
// with daylight saving time). A change of name or DST flag without a
// change of offset is not seen (nothing but the offset is shown).
//
// time has no constructor for a zone with changes but a TZif file
// (RFC 8536), so the changes are written as one (version 1: 32-bit times,
// so to is at most 2038) and read by time.LoadLocationFromTZData.
func ZoneFromOffsets(name string, offsets func(secs []int64) []int, from, to int64) (*time.Location, error) {
	if to > 1<<31-1 {
		to = 1<<31 - 1
	}
	if to < from {
		to = from
	}
	var probes []int64
	for t := from; t < to; t += ZoneProbeStep {
		probes = append(probes, t)
	}
	probes = append(probes, to)
	at := offsets(probes)
	if len(at) != len(probes) {
		return nil, fmt.Errorf("view: %d offsets for %d times", len(at), len(probes))
	}
	first := at[0]
	type change struct {
		at     int64
		offset int
	}
	var changes []change
	// Spans (a, b] whose ends' offsets differ: bisected together to the
	// first second whose offset is not a's; a second change between that
	// second and b makes another span.
	type span struct {
		a, b       int64
		offA, offB int
	}
	var spans []span
	for i := 1; i < len(probes); i++ {
		if at[i] != at[i-1] {
			spans = append(spans, span{probes[i-1], probes[i], at[i-1], at[i]})
		}
	}
	for len(spans) > 0 {
		var mids []int64
		for _, s := range spans {
			if s.b-s.a > 1 {
				mids = append(mids, s.a+(s.b-s.a)/2)
			}
		}
		var got []int
		if len(mids) > 0 {
			if got = offsets(mids); len(got) != len(mids) {
				return nil, fmt.Errorf("view: %d offsets for %d times", len(got), len(mids))
			}
		}
		var next []span
		for _, s := range spans {
			if s.b-s.a <= 1 {
				changes = append(changes, change{s.b, s.offB})
				continue
			}
			m, o := s.a+(s.b-s.a)/2, got[0]
			got = got[1:]
			switch {
			case o == s.offA:
				next = append(next, span{m, s.b, o, s.offB})
			case o == s.offB:
				next = append(next, span{s.a, m, s.offA, o})
			default: // a third offset: a change on either side
				next = append(next, span{s.a, m, s.offA, o}, span{m, s.b, o, s.offB})
			}
		}
		spans = next
	}
	// sort.Slice: already in the wasm (a slices.SortFunc of this type
	// added ~15 kB of code).
	sort.Slice(changes, func(i, j int) bool { return changes[i].at < changes[j].at })

	// The local time types: one per offset, the first that of from (the
	// zone before the first change: time takes the first type that is
	// not daylight saving time; none is).
	var types []int
	typeOf := map[int]byte{}
	addType := func(o int) {
		if _, ok := typeOf[o]; !ok {
			typeOf[o] = byte(len(types))
			types = append(types, o)
		}
	}
	addType(first)
	for _, c := range changes {
		addType(c.offset)
	}
	if len(types) > 16 { // not a zone (a real one has had at most 5 offsets since 2000): from's offset
		types, changes = types[:1], nil
	}
	var names []byte
	nameAt := make([]byte, len(types))
	for i, o := range types {
		nameAt[i] = byte(len(names))
		names = append(names, offsetName(o)...)
		names = append(names, 0)
	}

	b := []byte("TZif")
	b = append(b, make([]byte, 16)...) // version 1, then 15 reserved
	for _, n := range []int{0, 0, 0, len(changes), len(types), len(names)} {
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	for _, c := range changes {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(c.at)))
	}
	for _, c := range changes {
		b = append(b, typeOf[c.offset])
	}
	for i, o := range types {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(o)))
		b = append(b, 0, nameAt[i])
	}
	b = append(b, names...)
	return time.LoadLocationFromTZData(name, b)
}

// BrowserNamed is loc as the browser's live page has it: the same offsets
// (from MinTime to five years after now, as cmd/specdash's browserLocal
// builds time.Local), each named as Go's js/wasm names them ("UTC-4",
// not "EDT"; the browser gives no abbreviations). The server's pre-render
// shows "local" times in it, so that the zone's name does not change when
// the live page takes over (app.Dashboard.OnPreRender); loc itself on
// any failure.
func BrowserNamed(loc *time.Location, now time.Time) *time.Location {
	offsets := func(secs []int64) []int {
		out := make([]int, len(secs))
		for i, s := range secs {
			_, out[i] = time.Unix(s, 0).In(loc).Zone()
		}
		return out
	}
	named, err := ZoneFromOffsets(loc.String(), offsets, MinTime.Unix(), now.AddDate(5, 0, 0).Unix())
	if err != nil {
		return loc
	}
	return named
}

// offsetName names an offset as Go's js/wasm time.Local does: "UTC+0",
// "UTC-5", "UTC+5:30".
func offsetName(sec int) string {
	m := sec / 60
	s := "UTC+"
	if m < 0 {
		s, m = "UTC-", -m
	}
	s += strconv.Itoa(m / 60)
	if m%60 != 0 {
		s += ":" + strconv.Itoa(m%60)
	}
	return s
}
