package view

import (
	"specdash/compute"
	"testing"
)

func TestSplitUnit(t *testing.T) {
	for in, want := range map[string][2]string{
		"60.0 %":              {"60.0", "%"},
		"2.80 tokens/draft":   {"2.80", "tokens/draft"},
		"0.042 drafts/s":      {"0.042", "drafts/s"},
		compute.Undefined:     {"", ""},
		"unknown":             {"", ""},
		"12.3 tokens/s extra": {"12.3", "tokens/s extra"},
	} {
		num, unit, _ := SplitUnit(in)
		if num != want[0] || unit != want[1] {
			t.Errorf("splitUnit(%q) = %q, %q", in, num, unit)
		}
	}
}

// Significant differences are coloured by direction: lower acceptance in B
// is worse, not green.
func TestCompareDirectionClass(t *testing.T) {
	for _, c := range []struct {
		cmp  compute.Comparison
		want string
	}{
		{compute.Comparison{Significant: true, Difference: compute.Defined(0.05)}, "compare-better"},
		{compute.Comparison{Significant: true, Difference: compute.Defined(-0.05)}, "compare-worse"},
		{compute.Comparison{Significant: false, Difference: compute.Defined(-0.05)}, ""},
		{compute.Comparison{Reason: "no drafts", Significant: true, Difference: compute.Defined(-0.05)}, ""},
	} {
		if got := DirectionClass(c.cmp); got != c.want {
			t.Errorf("%+v: class %q, want %q", c.cmp, got, c.want)
		}
	}
}

// TestHealthTone: every state has its own sign and tone, so the state
// never shows by colour alone; alarms are never "ok".
func TestHealthTone(t *testing.T) {
	for s, want := range map[compute.HealthState]string{
		compute.Healthy: "ok ✓", compute.Collapsed: "bad ✕", compute.Degraded: "warn ⚠", compute.PositionCliff: "warn ⚠",
		compute.SuspectedLoop: "warn ⚠", compute.Idle: "none –", compute.NotEnoughData: "none –",
	} {
		tone, sign := HealthTone(s)
		if tone+" "+sign != want || (s.Alarm() && tone == "ok") {
			t.Errorf("%s: %s %s, want %s", s, tone, sign, want)
		}
	}
}

// The compare table's p column reads as the report's p-values do.
func TestPCell(t *testing.T) {
	for v, want := range map[compute.Value]string{
		compute.Defined(0):         "< 0.001",
		compute.Defined(4.87e-297): "< 0.001",
		compute.Defined(0.0234):    "0.023",
		compute.Defined(1):         "1.000",
		{}:                         compute.Undefined,
	} {
		if got := PCell(v); got != want {
			t.Errorf("pCell(%v) = %q, want %q", v, got, want)
		}
	}
}
