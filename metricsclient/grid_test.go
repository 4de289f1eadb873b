package metricsclient

import (
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

func TestChooseStep(t *testing.T) {
	const s, m, h, d = time.Second, time.Minute, time.Hour, 24 * time.Hour
	cases := []struct {
		rng, scrape, want time.Duration
	}{
		{5 * m, 15 * s, 15 * s},    // 20 buckets
		{10 * m, 1 * s, 1 * s},     // exactly 600 buckets
		{10*m + 1*s, 1 * s, 2 * s}, // 601 at 1 s
		{10 * m, 0, 15 * s},        // default scrape interval
		{1 * h, 15 * s, 15 * s},    // 240
		{3 * h, 15 * s, 30 * s},    // 720 at 15 s -> 360
		{6 * h, 15 * s, 1 * m},     // 720 at 30 s -> 360
		{24 * h, 15 * s, 5 * m},    // 720 at 2m -> 288
		{7 * d, 15 * s, 30 * m},    // 672 at 15m -> 336
		{30 * d, 15 * s, 2 * h},    // 720 at 1h -> 360
		{365 * d, 15 * s, 1 * d},   // 730 at 12h -> 365
		{5 * m, 20 * s, 30 * s},    // scrape interval not nice: next nice above
		{5 * m, 30 * s, 30 * s},
		{1 * m, 2 * m, 2 * m}, // never below the scrape interval
		{0, 15 * s, 15 * s},
		{1000 * d, 15 * s, 2 * d}, // beyond the list: whole days
		{10 * m, 36 * h, 2 * d},   // scrape interval above a day
	}
	for _, c := range cases {
		got := ChooseStep(c.rng, c.scrape)
		if got != c.want {
			t.Errorf("ChooseStep(%v, %v) = %v, want %v", c.rng, c.scrape, got, c.want)
		}
		if c.rng > 0 && int64(ceilDiv(c.rng, got)) > MaxBuckets {
			t.Errorf("ChooseStep(%v, %v) = %v gives more than %d buckets", c.rng, c.scrape, got, MaxBuckets)
		}
	}
}

func TestAlignGrid(t *testing.T) {
	end := time.Date(2025, 5, 1, 12, 34, 56, 789e6, time.UTC)
	endMs := end.UnixMilli()
	cases := []struct {
		rng, step time.Duration
		want      compute.Grid
	}{
		// End 12:34:56.789 rounds down to 12:34:45 (15 s grid); 10 m = 40 steps.
		{10 * time.Minute, 15 * time.Second, compute.Grid{Start: endMs - 11789 - 600000, End: endMs - 11789, Step: 15000}},
		// Range not a multiple of the step: rounded up (100 s -> 7 steps of 15 s).
		{100 * time.Second, 15 * time.Second, compute.Grid{Start: endMs - 11789 - 105000, End: endMs - 11789, Step: 15000}},
		// 1 m step: end 12:34:00.
		{5 * time.Minute, time.Minute, compute.Grid{Start: endMs - 56789 - 300000, End: endMs - 56789, Step: 60000}},
		// Range below one step: one bucket.
		{time.Second, time.Minute, compute.Grid{Start: endMs - 56789 - 60000, End: endMs - 56789, Step: 60000}},
		{0, time.Minute, compute.Grid{Start: endMs - 56789 - 60000, End: endMs - 56789, Step: 60000}},
		// Invalid step: zero grid.
		{time.Minute, 0, compute.Grid{}},
		{time.Minute, time.Microsecond, compute.Grid{}},
	}
	for _, c := range cases {
		got := AlignGrid(end, c.rng, c.step)
		if got != c.want {
			t.Errorf("AlignGrid(%v, %v, %v) = %+v, want %+v", end, c.rng, c.step, got, c.want)
		}
		if got.Step > 0 && (got.End%got.Step != 0 || got.Start%got.Step != 0 || got.End > endMs) {
			t.Errorf("AlignGrid(%v, %v) = %+v is not aligned or ends after %d", c.rng, c.step, got, endMs)
		}
	}
	// Already aligned end stays.
	al := time.UnixMilli(1_700_000_100_000)
	if g := AlignGrid(al, time.Minute, 10*time.Second); g.End != 1_700_000_100_000 || g.Start != 1_700_000_040_000 {
		t.Errorf("aligned end moved: %+v", g)
	}
	// Before the epoch: rounds down, not toward zero.
	if g := AlignGrid(time.UnixMilli(-1500), time.Second, time.Second); g.End != -2000 || g.Start != -3000 {
		t.Errorf("negative end: %+v", g)
	}
}

func TestRateWindow(t *testing.T) {
	const s, m = time.Second, time.Minute
	cases := []struct{ step, scrape, want time.Duration }{
		{15 * s, 15 * s, 60 * s}, // 4 x scrape
		{1 * m, 15 * s, 75 * s},  // step + scrape
		{45 * s, 15 * s, 60 * s}, // equal: 60 both
		{5 * m, 30 * s, 330 * s},
		{1 * s, 1 * s, 4 * s},
		{15 * s, 0, 60 * s}, // default 15 s
	}
	for _, c := range cases {
		if got := RateWindow(c.step, c.scrape); got != c.want {
			t.Errorf("RateWindow(%v, %v) = %v, want %v", c.step, c.scrape, got, c.want)
		}
	}
}

func TestValidateGrid(t *testing.T) {
	ok := []compute.Grid{
		{Start: 0, End: 15000, Step: 15000},
		{Start: 0, End: 10999 * 1000, Step: 1000}, // 11,000 points
	}
	for _, g := range ok {
		if err := ValidateGrid(g); err != nil {
			t.Errorf("ValidateGrid(%+v): %v", g, err)
		}
	}
	bad := map[compute.Grid]string{
		{}:                            "step 0 ms must be positive",
		{Start: 10, End: 10, Step: 1}: "is not after start",
		{Start: 0, End: 10, Step: 3}:  "not a multiple",
		{Start: 0, End: 11000 * 1000, Step: 1000}: "11001 points per series, more than Prometheus' limit of 11000: use a step of at least 1.001s",
	}
	for g, want := range bad {
		err := ValidateGrid(g)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateGrid(%+v) = %v, want %q", g, err, want)
		}
	}
}
