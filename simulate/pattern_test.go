package simulate

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"specdash/compute"
)

func TestParsePattern(t *testing.T) {
	good := map[string]Pattern{
		"":                {Kind: Normal},
		"normal":          {Kind: Normal},
		"collapse":        {Kind: Collapse},
		"loop":            {Kind: Loop},
		"variable":        {Kind: Variable},
		"cliff:3":         {Kind: Cliff, Position: 3},
		"drop":            {Kind: Drop},
		"drop:0.25":       {Kind: Drop, Factor: 0.25},
		"drop:0.25@10m0s": {Kind: Drop, Factor: 0.25, At: 10 * time.Minute},
		"drop@1h0m0s":     {Kind: Drop, At: time.Hour},
	}
	for in, want := range good {
		got, err := ParsePattern(in)
		if err != nil || got != want {
			t.Errorf("ParsePattern(%q) = %+v, %v; want %+v", in, got, err, want)
			continue
		}
		if in != "" && !strings.HasPrefix(in, "drop") && got.String() != in {
			t.Errorf("%q: String() = %q", in, got.String())
		}
	}
	if s := (Pattern{Kind: Drop, Factor: 0.25, At: time.Minute}).String(); s != "drop:0.25@1m0s" {
		t.Errorf("drop String() = %q", s)
	}
	for _, bad := range []string{"cliff", "cliff:0", "cliff:x", "collapse:1", "drop:1.5", "drop:0", "drop@-1m", "drop@soon", "melt", "collapse@5m", "cliff:2@1m"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("ParsePattern(%q): no error", bad)
		}
	}
}

// patternCounts runs a 4-token simulator with pattern p for 500 s at 100
// drafts/s and returns the true counts as compute.Counts.
func patternCounts(t *testing.T, p Pattern) compute.Counts {
	t.Helper()
	s := mustNew(t, Config{Models: []string{"m"}, K: 4, Acceptance: []float64{0.8, 0.7, 0.6, 0.5}, DraftsPerSecond: 100, Seed: 3, Pattern: p})
	s.Step(500 * time.Second)
	return toCompute(s.Truth().Sum("m", false))
}

func toCompute(c Counts) compute.Counts {
	out := compute.Counts{Drafts: float64(c.Drafts), DraftTokens: float64(c.DraftTokens), AcceptedTokens: float64(c.AcceptedTokens)}
	for _, v := range c.AcceptedPerPosition {
		out.AcceptedPerPosition = append(out.AcceptedPerPosition, float64(v))
	}
	return out
}

// TestPatternsGiveTheirVerdict: each pattern's counts get the health
// verdict it stands for (compute.Health), with the exact structural facts
// (cliff positions at 0, variable lengths below k x drafts).
func TestPatternsGiveTheirVerdict(t *testing.T) {
	cases := []struct {
		p     Pattern
		state compute.HealthState
	}{
		{Pattern{}, compute.Healthy},
		{Pattern{Kind: Collapse}, compute.Collapsed},
		{Pattern{Kind: Loop}, compute.SuspectedLoop},
		{Pattern{Kind: Cliff, Position: 2}, compute.PositionCliff},
		{Pattern{Kind: Variable}, compute.Healthy},
		{Pattern{Kind: Drop, Factor: 0.3}, compute.Degraded},
	}
	for _, tc := range cases {
		c := patternCounts(t, tc.p)
		if c.Drafts != 50000 {
			t.Errorf("%s: %v drafts, want 50000", tc.p, c.Drafts)
		}
		v := compute.Health(c, 500, 4, compute.HealthThresholds{})
		if v.State != tc.state {
			t.Errorf("%s: verdict %s (%s), want %s", tc.p, v.State, v.Summary, tc.state)
		}
		switch tc.p.Kind {
		case Cliff:
			if c.AcceptedPerPosition[2] != 0 || c.AcceptedPerPosition[3] != 0 || c.AcceptedPerPosition[1] == 0 || v.CliffPosition != 2 {
				t.Errorf("cliff:2 per position %v, verdict cliff at %d", c.AcceptedPerPosition, v.CliffPosition)
			}
		case Variable:
			if c.DraftTokens >= 4*c.Drafts || c.DraftTokens < c.Drafts || !v.VariableLength {
				t.Errorf("variable: %v draft tokens for %v drafts, VariableLength %v", c.DraftTokens, c.Drafts, v.VariableLength)
			}
		case Normal, "":
			if c.DraftTokens != 4*c.Drafts {
				t.Errorf("normal: %v draft tokens for %v drafts", c.DraftTokens, c.Drafts)
			}
		}
	}
}

// TestNormalPatternKeepsDraws: the Normal pattern draws exactly what the
// simulator drew before patterns existed (same seed, same counts), so a
// pattern switched back to normal is the configured model.
func TestNormalPatternKeepsDraws(t *testing.T) {
	a := patternCounts(t, Pattern{})
	b := patternCounts(t, Pattern{Kind: Normal})
	if a.AcceptedTokens != b.AcceptedTokens || a.AcceptedPerPosition[3] != b.AcceptedPerPosition[3] {
		t.Errorf("zero and Normal patterns differ: %+v vs %+v", a, b)
	}
}

// TestDropPatternChangePoint: a drop at 300 s of activity is found by
// compute.AcceptanceChangePoints in 10 s buckets at bucket 30 (+-1).
func TestDropPatternChangePoint(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"m"}, K: 4, Acceptance: []float64{0.8, 0.7, 0.6, 0.5}, DraftsPerSecond: 20, Seed: 5,
		Pattern: Pattern{Kind: Drop, Factor: 0.6, At: 300 * time.Second}})
	var buckets []compute.Counts
	prev := toCompute(s.Truth().Sum("m", false))
	for range 60 {
		s.Step(10 * time.Second)
		cur := toCompute(s.Truth().Sum("m", false))
		b := compute.Counts{Drafts: cur.Drafts - prev.Drafts, DraftTokens: cur.DraftTokens - prev.DraftTokens, AcceptedTokens: cur.AcceptedTokens - prev.AcceptedTokens}
		for i := range cur.AcceptedPerPosition {
			b.AcceptedPerPosition = append(b.AcceptedPerPosition, cur.AcceptedPerPosition[i]-prev.AcceptedPerPosition[i])
		}
		buckets = append(buckets, b)
		prev = cur
	}
	cps := compute.AcceptanceChangePoints(buckets, compute.ChangeOptions{})
	if len(cps) != 1 || cps[0].Bucket < 29 || cps[0].Bucket > 31 || cps[0].Difference >= 0 {
		t.Errorf("change points %v, want one drop at bucket 30 +- 1", cps)
	}
}

// TestControlPattern: POST /control/pattern switches one model's or every
// model's pattern at run time; /truth shows it; bad requests say why.
func TestControlPattern(t *testing.T) {
	s := mustNew(t, Config{Models: []string{"a", "b c"}, K: 4, Acceptance: []float64{0.7}, DraftsPerSecond: 10, Seed: 1})
	do := func(method, target string) (int, string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := do("POST", "/control/pattern?mode=collapse&model=b+c"); code != 200 || body != "ok collapse\n" {
		t.Fatalf("switch b c: %d %q", code, body)
	}
	_, body := do("GET", "/truth")
	var tr Truth
	if err := json.Unmarshal([]byte(body), &tr); err != nil {
		t.Fatal(err)
	}
	for _, ts := range tr.Series {
		want := "normal"
		if ts.Model == "b c" {
			want = "collapse"
		}
		if ts.Pattern != want {
			t.Errorf("%s: pattern %q, want %q", ts.Model, ts.Pattern, want)
		}
	}
	s.Step(100 * time.Second)
	tr = s.Truth()
	if a, b := tr.Sum("a", false), tr.Sum("b c", false); a.AcceptedTokens*5 < a.DraftTokens || b.AcceptedTokens*50 > b.DraftTokens {
		t.Errorf("after the switch: a accepted %d of %d, b c accepted %d of %d", a.AcceptedTokens, a.DraftTokens, b.AcceptedTokens, b.DraftTokens)
	}
	if code, _ := do("POST", "/control/pattern?mode=cliff:2"); code != 200 {
		t.Errorf("switch all to cliff:2: %d", code)
	}
	for _, bad := range []struct {
		method, target string
		code           int
		says           string
	}{
		{"POST", "/control/pattern?mode=melt", 400, "unknown pattern"},
		{"POST", "/control/pattern?mode=cliff:4", 400, "want 1..k-1 = 1..3"},
		{"POST", "/control/pattern?mode=loop&model=zzz", 400, `no series for model "zzz"`},
		{"GET", "/control/pattern?mode=loop", 405, "use POST"},
	} {
		code, body := do(bad.method, bad.target)
		if code != bad.code || !strings.Contains(body, bad.says) {
			t.Errorf("%s %s: %d %q, want %d containing %q", bad.method, bad.target, code, body, bad.code, bad.says)
		}
	}
	if _, err := New(Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.5}, Pattern: Pattern{Kind: Cliff, Position: 2}}); err == nil || !strings.Contains(err.Error(), `model "m" (k = 2)`) {
		t.Errorf("New with cliff:2 at k = 2: %v", err)
	}
}
