package view

import (
	"errors"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/model"
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

// TestStateTexts: the page's state, status, live-region, empty-chart and
// theme-button texts follow the load.
func TestStateTexts(t *testing.T) {
	failed := errors.New("boom")
	res := &Result{At: time.Date(2026, 12, 1, 14, 2, 10, 0, time.UTC)}
	for _, c := range []struct {
		loaded, preview bool
		err             error
		want            string
	}{{true, true, nil, "preview"}, {true, false, failed, "ready"}, {false, false, failed, "error"}, {false, true, nil, "loading"}} {
		if got := PageState(c.loaded, c.preview, c.err); got != c.want {
			t.Errorf("PageState(%v, %v, %v) = %q, want %q", c.loaded, c.preview, c.err, got, c.want)
		}
	}
	if s, text := Status(true, failed, "T", res, time.UTC); s != "loading" || text != "Loading…" {
		t.Errorf("loading: %q %q", s, text)
	}
	if s, text := Status(false, failed, "Prometheus is unreachable", res, time.UTC); s != "failed" || text != "Prometheus is unreachable" {
		t.Errorf("failed: %q %q", s, text)
	}
	if s, text := Status(false, nil, "", res, time.UTC); s != "updated" || text != "Updated 14:02:10" {
		t.Errorf("updated: %q %q", s, text)
	}
	if s, text := Status(false, nil, "", nil, time.UTC); s != "idle" || text != "" {
		t.Errorf("idle: %q %q", s, text)
	}
	if got := LiveText(false, res, failed, "T"); got != "Refresh failed; the numbers shown are stale. T" {
		t.Errorf("stale live text %q", got)
	}
	if got := LiveText(true, res, nil, ""); got != "Numbers loaded." {
		t.Errorf("a refresh of shown numbers: %q", got)
	}
	if EmptyText("loading") != "Loading…" || EmptyText("error") != "no data: see the message above" || EmptyText("ready") != "no drafts in window" {
		t.Error("empty-chart texts")
	}
	if ThemeLabel(ThemeDark) != "Light theme" || ThemeLabel(ThemeLight) != "Dark theme" {
		t.Error("theme button texts")
	}
	if KText(0) != "unknown" || KText(5) != "5" {
		t.Errorf("k texts %q %q", KText(0), KText(5))
	}
}

// TestNumberTexts: the texts printed next to insights and latency numbers.
func TestNumberTexts(t *testing.T) {
	if n := BestKNote(compute.BestK{BestK: 0, AtSearchLimit: true}); n != " (speculation does not pay off at this c) (at the search limit)" {
		t.Errorf("best k 0: %q", n)
	}
	if n := BestKNote(compute.BestK{BestK: 7, BestExtrapolated: true}); n != " (extrapolated beyond the observed k with the fit)" {
		t.Errorf("extrapolated: %q", n)
	}
	if n := BestKNote(compute.BestK{BestK: 3}); n != "" {
		t.Errorf("plain best k: %q", n)
	}
	// The seed example: 9 of 15 tokens over 5 drafts of k = 3: 2.8
	// tokens per target pass.
	d := model.Estimate(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 0.1)
	if s := SpeedupSub(d); s != "2.80 tokens per target pass / (1 + 0.1 × 3 draft tokens)" {
		t.Errorf("speedup inputs: %q", s)
	}
	if s := SpeedupSub(model.Estimate(compute.Counts{}, 0.1)); s != "" {
		t.Errorf("no drafts (compute.Undefined): %q", s)
	}
	if s := SpeedupSub(model.Estimates{Speedup: compute.Speedup{Reason: "k unknown"}}); s != "k unknown" {
		t.Errorf("another reason: %q", s)
	}
	b := compute.LoadBin{AcceptanceRate: compute.Defined(0.625), MeanITL: compute.Defined(0.0125), Speedup: compute.Speedup{Speedup: compute.Defined(1.5)}}
	if r, itl, sp := LoadBinTexts(b); r != "62.5 %" || itl != model.FormatMs(compute.Defined(0.0125)) || sp != "1.50×" {
		t.Errorf("load bin: %q %q %q", r, itl, sp)
	}
	if r, itl, sp := LoadBinTexts(compute.LoadBin{Speedup: compute.Speedup{Reason: "no drafts"}}); r != model.Dash+" no draft tokens" || itl != model.Dash+" no ITL observations" || sp != model.Dash+" no drafts" {
		t.Errorf("empty load bin: %q %q %q", r, itl, sp)
	}
	if got := PerPositionText(nil); got != "none (V0 prints no per-position data)" {
		t.Errorf("no positions: %q", got)
	}
	if got := PerPositionText([]compute.Value{compute.Defined(0.5), {}}); got != compute.FormatRatio(compute.Defined(0.5))+", "+compute.FormatRatio(compute.Value{}) {
		t.Errorf("positions: %q", got)
	}
	if got := IntervalText(compute.Comparison{Lower: compute.Defined(-0.012), Upper: compute.Defined(0.034)}); got != "-1.2 … +3.4 pp" {
		t.Errorf("interval: %q", got)
	}
	if IntervalText(compute.Comparison{Lower: compute.Defined(0.1)}) != compute.Undefined {
		t.Error("half an interval printed")
	}
}

// TestMessageTexts: a failed load's message, stale when older numbers
// stay; the retry note; the breakdown's note and row sparkline.
func TestMessageTexts(t *testing.T) {
	err := errors.New("boom")
	at := time.Date(2026, 12, 1, 14, 2, 10, 0, time.UTC)
	if s := ErrorText(err, at, nil, time.UTC); s != "boom" {
		t.Errorf("first load failed: %q", s)
	}
	if s := ErrorText(err, at, &Result{At: at.Add(-time.Minute)}, time.UTC); s != "Refresh failed at 14:02:10; showing the numbers from 14:01:10 (stale). boom" {
		t.Errorf("refresh failed: %q", s)
	}
	// In the page's zone, whatever the times' own location.
	if s := ErrorText(err, at, &Result{At: at.Add(-time.Minute)}, time.FixedZone("UTC-5", -5*3600)); s != "Refresh failed at 09:02:10; showing the numbers from 09:01:10 (stale). boom" {
		t.Errorf("refresh failed, page 5 h behind UTC: %q", s)
	}
	if s := RetryText(5*time.Second, 2); s != " — no data yet: retrying every 5s (2 of 12)" {
		t.Errorf("retry: %q", s)
	}
	var res *Result
	if n := res.BreakdownNote(false); !strings.HasPrefix(n, "Choose labels under Group by to split the numbers. One row per group") {
		t.Errorf("ungrouped note %q", n)
	}
	if n := res.BreakdownNote(true); !strings.HasPrefix(n, "One row per group") || !strings.HasSuffix(n, "as on the cards. Click a column header (or Tab to it and press Enter) to sort.") {
		t.Errorf("grouped note %q", n)
	}
	if r := RatesOf([]compute.Stats{{AcceptanceRate: compute.Defined(0.5)}, {}}); len(r) != 2 || r[0].V != 0.5 || r[1].OK {
		t.Errorf("rates %v", r)
	}
}

// TestInsightTexts: the acceptance rate interval's sub-line, the fitted
// rate past the fit's curve, and the /logs drafts card's texts.
func TestInsightTexts(t *testing.T) {
	r := compute.Interval{Estimate: compute.Defined(0.6), Trials: 15}
	if s := RateIntervalSub(r); s != "around 60.0 % of 15 draft tokens (tokens of one draft are not independent: read the per-position intervals too)" {
		t.Errorf("rate interval sub %q", s)
	}
	f := compute.GeometricFit{Curve: []compute.Value{compute.Defined(0.5)}}
	if v := Fitted(f, 0); v.V != 0.5 || !v.OK {
		t.Errorf("fitted at 0: %+v", v)
	}
	if Fitted(f, 1).OK {
		t.Error("fitted past the curve")
	}
	if sub, why := LogDraftTexts(true); sub != "derived: drafted / k (vLLM's log does not print them)" || why != "log window unknown" {
		t.Errorf("log: %q %q", sub, why)
	}
	if sub, why := LogDraftTexts(false); sub != "drafts in the input" || why != "a scrape has no window" {
		t.Errorf("scrape: %q %q", sub, why)
	}
}

// TestITLSub: the line under the latency panel's p50 says whether the
// histogram was read or how many steps it holds; without one, what the
// card would show (its value line gives the reason, not said twice).
func TestITLSub(t *testing.T) {
	cases := []struct {
		l    model.Latency
		want string
	}{
		{model.Latency{Err: errors.New("unreachable")}, "not read"},
		{model.Latency{}, "median, per engine step"},
		{model.Latency{ITLMetric: "vllm:inter_token_latency_seconds", ITL: compute.LatencySummary{Observations: 1234}}, "vllm:inter_token_latency_seconds (classic histogram), 1234 steps in the window"},
	}
	for _, c := range cases {
		if got := ITLSub(&c.l); got != c.want {
			t.Errorf("ITLSub(%+v) = %q, want %q", c.l, got, c.want)
		}
	}
}
