package compute

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestHealth: each state with its exact summary and evidence, and the edge
// cases (idle, a handful of drafts, no drafts counter, variable draft
// lengths, mixed k, bad counts).
func TestHealth(t *testing.T) {
	pos4 := []float64{0, 0, 0, 0}
	const varNote = "variable draft lengths: 25000 draft tokens in 10000 drafts, 2.50 per draft, below k = 4: the drafter proposes fewer than k tokens at times (n-gram, suffix decoding), so the per-position rates are lower bounds and no position cliff is judged"
	cases := []struct {
		name     string
		c        Counts
		window   float64
		k        int
		th       HealthThresholds
		state    HealthState
		summary  string
		evidence []string
		notes    []string
		cliff    int
		cause    string
	}{
		{name: "idle", c: Counts{AcceptedPerPosition: pos4}, window: 600, state: Idle,
			summary: "idle: no drafts over the last 10m (no traffic, or speculative decoding off): nothing to judge, not a collapse"},
		{name: "idle without window", c: Counts{}, state: Idle,
			summary: "idle: no drafts (no traffic, or speculative decoding off): nothing to judge, not a collapse"},
		{name: "a handful of drafts, none accepted", c: Counts{Drafts: 5, DraftTokens: 20, AcceptedPerPosition: pos4}, window: 600, state: NotEnoughData,
			summary: "only 5 drafts over the last 10m (fewer than 50): too few to judge"},
		{name: "a handful of drafts, all accepted", c: Counts{Drafts: 5, DraftTokens: 20, AcceptedTokens: 20, AcceptedPerPosition: []float64{5, 5, 5, 5}}, window: 600, state: NotEnoughData,
			summary: "only 5 drafts over the last 10m (fewer than 50): too few to judge"},
		{name: "higher MinDrafts", c: Counts{Drafts: 80, DraftTokens: 320, AcceptedPerPosition: pos4}, window: 60, th: HealthThresholds{MinDrafts: 100}, state: NotEnoughData,
			summary: "only 80 drafts over the last 1m (fewer than 100): too few to judge"},
		{name: "collapse", window: 600, state: Collapsed, cause: CauseCollapsed,
			c:        Counts{Drafts: 247200, DraftTokens: 988800, AcceptedTokens: 2472, AcceptedPerPosition: []float64{2000, 400, 72, 0}},
			summary:  "drafts 412/s but mean acceptance length 1.01 over the last 10m: drafted tokens are almost all rejected",
			evidence: []string{"acceptance rate 0.25 % (95 % interval 0.24 %-0.26 % of 988800 draft tokens), below the collapse threshold 5.0 %"}},
		{name: "collapse, no drafts counter (vLLM V0)", window: 600, state: Collapsed, cause: CauseCollapsed,
			c:        Counts{DraftTokens: 1000, AcceptedTokens: 10},
			summary:  "1000 draft tokens but acceptance rate 1.0 % over the last 10m: drafted tokens are almost all rejected",
			evidence: []string{"acceptance rate 1.0 % (95 % interval 0.54 %-1.8 % of 1000 draft tokens), below the collapse threshold 5.0 %"}},
		{name: "too few tokens without drafts counter", c: Counts{DraftTokens: 100}, window: 600, state: NotEnoughData,
			summary: "only 100 draft tokens over the last 10m (fewer than 200; no drafts counter): too few to judge"},
		{name: "loop", window: 600, state: SuspectedLoop, cause: CauseLoop,
			c:        Counts{Drafts: 6000, DraftTokens: 24000, AcceptedTokens: 23950, AcceptedPerPosition: []float64{6000, 6000, 5980, 5970}},
			summary:  "mean acceptance length 4.99 of at most 5 over the last 10m: nearly every drafted token is accepted, typical of a repetition loop",
			evidence: []string{"acceptance rate 99.8 % (95 % interval 99.7 %-99.8 % of 24000 draft tokens), at or above the loop threshold 97.0 %"}},
		{name: "cliff after pos 4", window: 600, state: PositionCliff, cause: CauseCliff, cliff: 4,
			c:       Counts{Drafts: 10000, DraftTokens: 60000, AcceptedTokens: 23600, AcceptedPerPosition: []float64{8000, 6400, 5100, 4100, 0, 0}},
			summary: "position cliff after pos 4: pos 4 accepts 41.0 % of drafts, pos 5 only 0.0 % over the last 10m (mean acceptance length 3.36)",
			evidence: []string{"pos 4: 41.0 % (95 % interval 40.0 %-42.0 % of 10000 drafts)",
				"pos 5: 0.0 % (95 % interval 0.00 %-0.04 % of 10000 drafts), below the cliff threshold 2.0 % right after a position at or above 20.0 %"}},
		{name: "k = 8 with only pos 1 healthy is a cliff, not a collapse", window: 600, state: PositionCliff, cause: CauseCliff, cliff: 1,
			c:       Counts{Drafts: 10000, DraftTokens: 80000, AcceptedTokens: 3000, AcceptedPerPosition: []float64{3000, 0, 0, 0, 0, 0, 0, 0}},
			summary: "position cliff after pos 1: pos 1 accepts 30.0 % of drafts, pos 2 only 0.0 % over the last 10m (mean acceptance length 1.30)"},
		{name: "drafts without draft tokens", c: Counts{Drafts: 100, AcceptedPerPosition: pos4}, window: 600, state: NotEnoughData,
			summary: "100 drafts over the last 10m but no draft tokens: the draft-token counter is missing from the selection"},
		{name: "accepted above draft tokens", c: Counts{Drafts: 100, DraftTokens: 400, AcceptedTokens: 500}, window: 600, state: NotEnoughData,
			summary: "inconsistent counts: successes (500) exceed trials (400)"},
		{name: "degraded", window: 600, state: Degraded, cause: CauseDegraded,
			c:        Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 4000, AcceptedPerPosition: []float64{2500, 1000, 400, 100}},
			summary:  "acceptance rate 10.0 % over the last 10m, below 20.0 % (mean acceptance length 1.40)",
			evidence: []string{"acceptance rate 10.0 % (95 % interval 9.7 %-10.3 % of 40000 draft tokens), below the degraded threshold 20.0 %"}},
		{name: "healthy", window: 600, state: Healthy,
			c:        Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 18700, AcceptedPerPosition: []float64{8000, 5600, 3400, 1700}},
			summary:  "acceptance rate 46.8 % over the last 10m, mean acceptance length 2.87",
			evidence: []string{"acceptance rate 46.8 % (95 % interval 46.3 %-47.2 % of 40000 draft tokens)"}},
		{name: "smooth geometric decay is no cliff", window: 600, state: Healthy,
			c:       Counts{Drafts: 10000, DraftTokens: 80000, AcceptedTokens: 21988, AcceptedPerPosition: []float64{7000, 4900, 3430, 2401, 1681, 1176, 824, 576}},
			summary: "acceptance rate 27.5 % over the last 10m, mean acceptance length 3.20"},
		{name: "variable draft lengths: zeros at late positions are no cliff", window: 600, state: Healthy,
			c:        Counts{Drafts: 10000, DraftTokens: 25000, AcceptedTokens: 9000, AcceptedPerPosition: []float64{6000, 3000, 0, 0}},
			summary:  "acceptance rate 36.0 % over the last 10m, mean acceptance length 1.90",
			evidence: []string{"acceptance rate 36.0 % (95 % interval 35.4 %-36.6 % of 25000 draft tokens)"},
			notes:    []string{varNote}},
		{name: "mixed k: the per-position denominators explain the draft tokens", window: 600, state: Healthy,
			c:        Counts{Drafts: 10000, DraftTokens: 30000, AcceptedTokens: 12000, AcceptedPerPosition: []float64{7000, 4000, 1000, 0}, DraftsAtPosition: []float64{10000, 10000, 5000, 5000}},
			summary:  "acceptance rate 40.0 % over the last 10m, mean acceptance length 2.20",
			evidence: []string{"acceptance rate 40.0 % (95 % interval 39.4 %-40.6 % of 30000 draft tokens)"},
			notes:    []string{"the group mixes k: each per-position rate is divided by the drafts of the series that draft that far"}},
		{name: "bad counts", c: Counts{Drafts: math.NaN()}, window: 600, state: NotEnoughData,
			summary: "unusable counts: drafts not a number, draft tokens 0, accepted tokens 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Health(tc.c, tc.window, tc.k, tc.th)
			if v.State != tc.state || v.Summary != tc.summary {
				t.Errorf("got %s %q\nwant %s %q", v.State, v.Summary, tc.state, tc.summary)
			}
			if tc.evidence != nil && !slices.Equal(v.Evidence, tc.evidence) {
				t.Errorf("evidence %q\nwant %q", v.Evidence, tc.evidence)
			}
			if !slices.Equal(v.Notes, tc.notes) {
				t.Errorf("notes %q\nwant %q", v.Notes, tc.notes)
			}
			want := tc.cliff
			if tc.state != PositionCliff {
				want = -1
			}
			if v.CliffPosition != want {
				t.Errorf("cliff position %d, want %d", v.CliffPosition, want)
			}
			if v.Cause != tc.cause {
				t.Errorf("cause %q, want %q", v.Cause, tc.cause)
			}
			if v.State.Alarm() != (tc.cause != "") {
				t.Errorf("Alarm() = %v for %s", v.State.Alarm(), v.State)
			}
		})
	}
}

// TestHealthAgainst: a significant drop of at least DropRelative against
// the baseline is Degraded with both intervals; a small or insignificant
// change, or a baseline with too few drafts, leaves the verdict healthy.
func TestHealthAgainst(t *testing.T) {
	base := Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 18700, AcceptedPerPosition: []float64{8000, 5600, 3400, 1700}}
	now := Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 12000, AcceptedPerPosition: []float64{6000, 3500, 1800, 700}}
	v := HealthAgainst(now, base, 600, 0, HealthThresholds{})
	if v.State != Degraded || v.Summary != "acceptance rate dropped from 46.8 % to 30.0 % (-36 % relative) over the last 10m" {
		t.Errorf("drop: %s %q", v.State, v.Summary)
	}
	want := []string{
		"now: acceptance rate 30.0 % (95 % interval 29.6 %-30.5 % of 40000 draft tokens)",
		"baseline: acceptance rate 46.8 % (95 % interval 46.3 %-47.2 % of 40000 draft tokens)",
		"difference -16.8 points (95 % interval -17.4 to -16.1 points)",
	}
	if !slices.Equal(v.Evidence, want) || v.Cause != CauseDegraded {
		t.Errorf("drop evidence %q cause %q", v.Evidence, v.Cause)
	}
	// 10 % lower: significant with these counts, but below DropRelative 25 %.
	small := Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 16830}
	if v := HealthAgainst(small, base, 600, 0, HealthThresholds{}); v.State != Healthy {
		t.Errorf("10 %% drop: %s %q, want healthy", v.State, v.Summary)
	}
	// The same drop with a tight DropRelative is Degraded.
	if v := HealthAgainst(small, base, 600, 0, HealthThresholds{DropRelative: 0.05}); v.State != Degraded {
		t.Errorf("10 %% drop with DropRelative 5 %%: %s, want degraded", v.State)
	}
	// A large relative drop on a few hundred drafts is not significant.
	fewBase := Counts{Drafts: 60, DraftTokens: 240, AcceptedTokens: 120}
	fewNow := Counts{Drafts: 60, DraftTokens: 240, AcceptedTokens: 100}
	if v := HealthAgainst(fewNow, fewBase, 600, 0, HealthThresholds{DropRelative: 0.1}); v.State != Healthy {
		t.Errorf("insignificant drop: %s %q, want healthy", v.State, v.Summary)
	}
	// An idle baseline is ignored with a note.
	v = HealthAgainst(base, Counts{}, 600, 0, HealthThresholds{})
	if v.State != Healthy || len(v.Notes) != 1 || v.Notes[0] != "no comparison with the baseline: idle: no drafts (no traffic, or speculative decoding off): nothing to judge, not a collapse" {
		t.Errorf("idle baseline: %s %q", v.State, v.Notes)
	}
	// A collapse stays a collapse whatever the baseline.
	col := Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 40}
	if v := HealthAgainst(col, base, 600, 0, HealthThresholds{}); v.State != Collapsed {
		t.Errorf("collapse against baseline: %s", v.State)
	}
}

// TestHealthOfBuckets: one verdict per bucket, window = step; an idle
// bucket between busy ones is idle, not collapsed.
func TestHealthOfBuckets(t *testing.T) {
	g := Group{
		Total: Counts{Drafts: 2000, DraftTokens: 8000, AcceptedTokens: 3004},
		Buckets: []Counts{
			{Drafts: 1000, DraftTokens: 4000, AcceptedTokens: 3000},
			{},
			{Drafts: 1000, DraftTokens: 4000, AcceptedTokens: 4},
		},
	}
	grid := Grid{Start: 0, End: 180000, Step: 60000}
	got := HealthOfBuckets(g, grid, 4, HealthThresholds{})
	states := []HealthState{got[0].State, got[1].State, got[2].State}
	if !slices.Equal(states, []HealthState{Healthy, Idle, Collapsed}) {
		t.Errorf("bucket states %v", states)
	}
	if got[2].Summary != "drafts 17/s but mean acceptance length 1.00 over the last 1m: drafted tokens are almost all rejected" {
		t.Errorf("bucket 2 summary %q", got[2].Summary)
	}
	if v := HealthOfGroup(g, grid, 4, HealthThresholds{}); v.State != Healthy || !v.DraftsPerSecond.OK || math.Abs(v.DraftsPerSecond.V-2000.0/180) > 1e-12 {
		t.Errorf("group verdict %s, drafts/s %v", v.State, v.DraftsPerSecond)
	}
}

// TestHealthZ: a 99 % quantile widens the interval and says 99 %.
func TestHealthZ(t *testing.T) {
	c := Counts{Drafts: 10000, DraftTokens: 40000, AcceptedTokens: 18700}
	v := Health(c, 600, 4, HealthThresholds{Z: 2.5758293035489004})
	if want := "acceptance rate 46.8 % (99 % interval 46.1 %-47.4 % of 40000 draft tokens)"; len(v.Evidence) != 1 || v.Evidence[0] != want {
		t.Errorf("evidence %q, want %q", v.Evidence, want)
	}
	if levelText(1) != "68.3 %" || levelText(0) != "95 %" {
		t.Errorf("levelText(1) = %q, levelText(0) = %q", levelText(1), levelText(0))
	}
}

// TestGroupChangePoints: the change points of a group's buckets and the
// time of the first bucket after the change.
func TestGroupChangePoints(t *testing.T) {
	g := Group{}
	for j := range 20 {
		acc := 500.0
		if j >= 12 {
			acc = 300
		}
		g.Buckets = append(g.Buckets, Counts{Drafts: 250, DraftTokens: 1000, AcceptedTokens: acc})
	}
	cps := GroupChangePoints(g, ChangeOptions{Dispersion: 1})
	grid := Grid{Start: 1_000_000, End: 1_000_000 + 20*15_000, Step: 15_000}
	if len(cps) != 1 || cps[0].Bucket != 12 || cps[0].Start(grid) != 1_000_000+12*15_000 {
		t.Errorf("got %v", cps)
	}
}

// The verdict's mean acceptance length follows the convention asked for,
// labelled when it is the older form; the state does not change.
func TestHealthConvention(t *testing.T) {
	c := Counts{Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 1950, AcceptedPerPosition: []float64{800, 650, 500}}
	with := Health(c, 600, 3, HealthThresholds{})
	without := Health(c, 600, 3, HealthThresholds{Convention: WithoutBonus})
	if with.State != without.State || with.MeanLength != Defined(2.95) || without.MeanLength != Defined(1.95) {
		t.Fatalf("with %v %v, without %v %v", with.State, with.MeanLength, without.State, without.MeanLength)
	}
	if !strings.Contains(with.Summary, "mean acceptance length 2.95") || !strings.Contains(without.Summary, "mean acceptance length without bonus token 1.95") {
		t.Errorf("summaries %q / %q", with.Summary, without.Summary)
	}
}
