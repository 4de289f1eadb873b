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
		o, ok := c.ClockOffset()
		// The Date header has whole seconds: the estimate is within 1.5 s
		// (half a second of truncation, plus the round trip on loopback).
		if !ok || o < tc.skew-1500*time.Millisecond || o > tc.skew+1500*time.Millisecond {
			t.Errorf("skew %v: ClockOffset = %v, %v", tc.skew, o, ok)
		}
		got := c.WithSchema(VLLMV1).Now().Sub(time.Now())
		if tc.applied && (got < tc.skew-2*time.Second || got > tc.skew+2*time.Second) {
			t.Errorf("skew %v: Now is %v from the local clock", tc.skew, got)
		}
		if !tc.applied && (got > time.Second || got < -time.Second) {
			t.Errorf("skew %v: Now moved by %v within the tolerance", tc.skew, got)
		}
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
	if o, ok := c.ClockOffset(); !ok || o > 1500*time.Millisecond || o < -1500*time.Millisecond {
		t.Errorf("after an answer: offset %v, %v: want the answer's (about 0)", o, ok)
	}
	c.SeedClockOffset(time.Hour)
	if got := c.Now().Sub(time.Now()); got > 2*time.Second || got < -2*time.Second {
		t.Errorf("a seed after an answer moved Now by %v", got)
	}
}
