package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
)

func TestParseFilters(t *testing.T) {
	got, err := ParseFilters([]string{"model_name=a b", "engine=0", "model_name=x=y", "engine=1", "model_name=", `model_name=say "hi"`})
	if err != nil {
		t.Fatal(err)
	}
	want := []metricsclient.Filter{
		{Name: "model_name", Values: []string{"a b", "x=y", "", `say "hi"`}},
		{Name: "engine", Values: []string{"0", "1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for arg, msg := range map[string]string{
		"model_name":  "want label=value",
		"=x":          "empty label name",
		"bad label=x": `invalid label name "bad label"`,
		"position=0":  "draft position",
		"__name__=x":  "chooses the metric names",
	} {
		if _, err := ParseFilters([]string{arg}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseFilters(%q) = %v, want %q", arg, err, msg)
		}
	}
}

func TestParseConvention(t *testing.T) {
	for s, want := range map[string]compute.Convention{"bonus": compute.WithBonus, "": compute.WithBonus, "no-bonus": compute.WithoutBonus} {
		if got, err := ParseConvention(s); err != nil || got != want {
			t.Errorf("ParseConvention(%q) = %v, %v", s, got, err)
		}
		if ConventionName(want) == "" {
			t.Error("empty name")
		}
	}
	if _, err := ParseConvention("bonus+1"); err == nil || !strings.Contains(err.Error(), "use bonus or no-bonus") {
		t.Errorf("bad convention: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	good := Options{Range: time.Minute, GroupBy: []string{"model_name", "engine"}, Filters: []metricsclient.Filter{{Name: "engine", Values: []string{"0"}}}}
	if err := good.Validate(); err != nil {
		t.Errorf("good options: %v", err)
	}
	bad := []struct {
		o   Options
		msg string
	}{
		{Options{}, "range must be positive"},
		{Options{Range: -time.Minute}, "range must be positive"},
		{Options{Range: time.Minute, Step: -time.Second}, "step must not be negative"},
		{Options{Range: time.Minute, Step: time.Microsecond}, "whole number of milliseconds"},
		{Options{Range: time.Minute, GroupBy: []string{"model name"}}, `group by: invalid label name "model name"`},
		{Options{Range: time.Minute, GroupBy: []string{"engine", "engine"}}, "given twice"},
		{Options{Range: time.Minute, GroupBy: []string{"position"}}, "draft position"},
		{Options{Range: time.Minute, Filters: []metricsclient.Filter{{Name: "m", Values: []string{"\xfe"}}}}, "not valid UTF-8"},
		{Options{Range: time.Minute, Convention: 7}, "unknown convention"},
	}
	for _, c := range bad {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Validate(%+v) = %v, want %q", c.o, err, c.msg)
		}
	}
	if _, err := Build(t.Context(), nil, good); err == nil {
		t.Error("Build with a nil client succeeded")
	}
}

// seedResult is vLLM PR 16665's worked example (5 drafts, k = 3, 9 of 15
// draft tokens accepted, per position [5, 3, 1]) over 10 s, grouped by
// model_name, plus a group without drafts.
func seedResult(conv compute.Convention) *Result {
	seed := compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}
	empty := compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}
	end := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	return &Result{
		WindowSeconds: 10, CoveredSeconds: 10, Start: end.Add(-10 * time.Second), End: end, StepSeconds: 5,
		Convention: ConventionName(conv),
		Groups: []Group{
			{Labels: map[string]string{"model_name": "idle"}, Stats: compute.Derive(empty, 10, conv)},
			{Labels: map[string]string{"model_name": "m \"x\"\n"}, Stats: compute.Derive(seed, 10, conv)},
		},
		Total:   compute.Derive(seed, 10, conv),
		GroupBy: []string{"model_name"},
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := seedResult(compute.WithoutBonus).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
	  "window_seconds": 10, "covered_seconds": 10, "start": "2025-05-01T11:59:50Z", "end": "2025-05-01T12:00:00Z", "step_seconds": 5,
	  "convention": "no-bonus",
	  "groups": [
	    {"labels": {"model_name": "idle"}, "k": 3, "drafts": 0, "draft_tokens": 0, "accepted_tokens": 0,
	     "accepted_per_position": [0, 0, 0], "acceptance_rate": null, "mean_acceptance_length": null,
	     "per_position_acceptance_rate": [null, null, null], "accepted_throughput": 0, "drafted_throughput": 0,
	     "drafts_per_second": 0},
	    {"labels": {"model_name": "m \"x\"\n"}, "k": 3, "drafts": 5, "draft_tokens": 15, "accepted_tokens": 9,
	     "accepted_per_position": [5, 3, 1], "acceptance_rate": 0.6, "mean_acceptance_length": 1.8,
	     "per_position_acceptance_rate": [1, 0.6, 0.2], "accepted_throughput": 0.9, "drafted_throughput": 1.5,
	     "drafts_per_second": 0.5}
	  ],
	  "total": {"k": 3, "drafts": 5, "draft_tokens": 15, "accepted_tokens": 9,
	     "accepted_per_position": [5, 3, 1], "acceptance_rate": 0.6, "mean_acceptance_length": 1.8,
	     "per_position_acceptance_rate": [1, 0.6, 0.2], "accepted_throughput": 0.9, "drafted_throughput": 1.5,
	     "drafts_per_second": 0.5}
	}`
	var want map[string]any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON\n%s\nwant\n%s", b.String(), wantJSON)
	}
	if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
		t.Errorf("NaN/Inf in JSON: %s", b.String())
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := seedResult(compute.WithBonus).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `window 10s (2025-05-01T11:59:50Z to 2025-05-01T12:00:00Z), step 5s, mean acceptance length with bonus token (1 + accepted/drafts)
{model_name="idle"}: SpecDecoding metrics: Mean acceptance length: n/a, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: n/a, n/a, n/a, Avg Draft acceptance rate: n/a
{model_name="m \"x\"\n"}: SpecDecoding metrics: Mean acceptance length: 2.80, Accepted throughput: 0.90 tokens/s, Drafted throughput: 1.50 tokens/s, Accepted: 9 tokens, Drafted: 15 tokens, Per-position acceptance rate: 1.000, 0.600, 0.200, Avg Draft acceptance rate: 60.0%
total: SpecDecoding metrics: Mean acceptance length: 2.80, Accepted throughput: 0.90 tokens/s, Drafted throughput: 1.50 tokens/s, Accepted: 9 tokens, Drafted: 15 tokens, Per-position acceptance rate: 1.000, 0.600, 0.200, Avg Draft acceptance rate: 60.0%
`
	if b.String() != want {
		t.Errorf("text\n%s\nwant\n%s", b.String(), want)
	}
	// Ungrouped: header and total only; warnings and violations listed.
	r := seedResult(compute.WithoutBonus)
	r.GroupBy = nil
	r.Warnings = []string{"w1"}
	r.Total = compute.Derive(compute.Counts{Drafts: 1, DraftTokens: 2, AcceptedTokens: 5, AcceptedPerPosition: []float64{1, 1}}, 10, compute.WithoutBonus)
	b.Reset()
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !strings.Contains(lines[0], "without bonus token (accepted/drafts)") || !strings.HasPrefix(lines[1], "total: SpecDecoding metrics: Mean acceptance length: 5.00,") ||
		!strings.HasPrefix(lines[2], "  inconsistent counts: ") || lines[len(lines)-1] != "warning: w1" {
		t.Errorf("ungrouped text:\n%s", b.String())
	}
}

// A window from log timestamps is not a whole number of seconds: printed
// to the second from a minute on, to the millisecond below.
func TestSecondsText(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{300.003124511, "5m0s"}, {600, "10m0s"}, {59.9994, "59.999s"}, {10, "10s"}, {0.25, "250ms"}, {3599.6, "1h0m0s"}} {
		if got := seconds(c.s); got != c.want {
			t.Errorf("seconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestFutureEndNow: a report whose window ends after now reads it with
// Request.Now = now (rates per second up to now); an end at or before now
// reads every bucket as complete (zero Now).
func TestFutureEndNow(t *testing.T) {
	now := time.Date(2026, 12, 1, 19, 2, 0, 0, time.UTC)
	if got := futureEndNow(now.Add(58*time.Minute), now); !got.Equal(now) {
		t.Errorf("future end: Now %v, want %v", got, now)
	}
	for _, end := range []time.Time{now, now.Add(-time.Hour)} {
		if got := futureEndNow(end, now); !got.IsZero() {
			t.Errorf("end %v: Now %v, want zero", end, got)
		}
	}
}
