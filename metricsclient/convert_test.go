package metricsclient

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
)

func stream(name string, labels map[string]string, pts ...float64) *model.SampleStream {
	m := model.Metric{model.MetricNameLabel: model.LabelValue(name)}
	for k, v := range labels {
		m[model.LabelName(k)] = model.LabelValue(v)
	}
	ss := &model.SampleStream{Metric: m}
	for i := 0; i+1 < len(pts); i += 2 {
		ss.Values = append(ss.Values, model.SamplePair{Timestamp: model.Time(pts[i]), Value: model.SampleValue(pts[i+1])})
	}
	return ss
}

func TestSeriesFromMatrix(t *testing.T) {
	l := map[string]string{"model_name": "m", "engine": "0", "job": "vllm"}
	withPos := func(p string) map[string]string {
		c := map[string]string{"position": p}
		for k, v := range l {
			c[k] = v
		}
		return c
	}
	m := model.Matrix{
		stream("vllm:spec_decode_num_accepted_tokens_per_pos_total", withPos("1"), 1000, 2, 2000, 3),
		stream("vllm:spec_decode_num_accepted_tokens_per_pos_total", withPos("0"), 1000, 4, 2000, 6),
		stream("vllm:spec_decode_num_drafts_total", l, 1000, 5, 2000, math.NaN(), 3000, 7),
		stream("vllm:spec_decode_num_draft_tokens_total", l, 1000, 1e6, 2000, 6.491797e+06),
		stream("vllm:spec_decode_num_accepted_tokens_total", l, 1000, 6, 2000, 9),
		// A series with only NaN is dropped.
		stream("vllm:spec_decode_num_drafts_total", map[string]string{"engine": "9"}, 1000, math.NaN()),
		// The counters' _created gauges give start times (seconds -> ms):
		// the value at the first point (1000 ms), else the next one.
		stream("vllm:spec_decode_num_drafts_created", l, 500, 1.6e9, 1000, 1.7e9, 3000, 1.8e9),
		stream("vllm:spec_decode_num_accepted_tokens_per_pos_created", withPos("1"), 1000, math.NaN(), 2000, 1700000000.25),
		// A _created series of another position or label set is not this
		// series' start; none for draft tokens: Created 0.
		stream("vllm:spec_decode_num_accepted_tokens_per_pos_created", withPos("7"), 1000, 1.5e9),
		stream("vllm:spec_decode_num_draft_tokens_created", map[string]string{"engine": "1"}, 1000, 1.5e9),
		// An unexpected metric is skipped with a warning.
		stream("vllm:num_requests_running", l, 1000, 3),
	}
	got, warns, err := SeriesFromMatrix(m, VLLMV1)
	if err != nil {
		t.Fatal(err)
	}
	want := []compute.Series{
		{Family: compute.Drafts, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 5}, {T: 3000, V: 7}}, Created: 1_700_000_000_000},
		{Family: compute.DraftTokens, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 1e6}, {T: 2000, V: 6491797}}},
		{Family: compute.AcceptedTokens, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 6}, {T: 2000, V: 9}}},
		{Family: compute.AcceptedPerPosition, Position: 0, Labels: l, Points: []compute.Point{{T: 1000, V: 4}, {T: 2000, V: 6}}},
		{Family: compute.AcceptedPerPosition, Position: 1, Labels: l, Points: []compute.Point{{T: 1000, V: 2}, {T: 2000, V: 3}}, Created: 1_700_000_000_250},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"vllm:num_requests_running"`) {
		t.Errorf("warnings %q, want one about vllm:num_requests_running", warns)
	}
}

func TestCreatedNames(t *testing.T) {
	want := []string{"vllm:spec_decode_num_drafts_created", "vllm:spec_decode_num_draft_tokens_created",
		"vllm:spec_decode_num_accepted_tokens_created", "vllm:spec_decode_num_accepted_tokens_per_pos_created"}
	if got := VLLMV1.CreatedNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("CreatedNames %q, want %q", got, want)
	}
	if CreatedName("x_created") != "" || CreatedName("_total") != "" || CreatedName("a_total") != "a_created" {
		t.Error("CreatedName")
	}
	for _, c := range []struct {
		step time.Duration
		want string
	}{{15 * time.Second, "5m"}, {5 * time.Minute, "5m"}, {30 * time.Minute, "30m"}, {90 * time.Second, "5m"}, {6 * time.Hour, "6h"}} {
		q, err := LlamaCpp.CounterQuery([]Filter{{Name: "job", Values: []string{`a"b`}}}, c.step)
		w := `last_over_time({__name__=~"llamacpp:spec_decode_num_drafts_total|llamacpp:spec_decode_num_draft_tokens_total|llamacpp:spec_decode_num_accepted_tokens_total|llamacpp:spec_decode_num_accepted_tokens_per_pos_total|llamacpp:spec_decode_num_drafts_created|llamacpp:spec_decode_num_draft_tokens_created|llamacpp:spec_decode_num_accepted_tokens_created|llamacpp:spec_decode_num_accepted_tokens_per_pos_created", job="a\"b"}[` + c.want + `])`
		if err != nil || q != w {
			t.Errorf("step %s: query %s (%v), want %s", c.step, q, err, w)
		}
	}
}

// TestStartWarnings: only series that first appear inside the grid with no
// start time are named, once per label set, with the draft tokens missing.
func TestStartWarnings(t *testing.T) {
	g := compute.Grid{Start: 0, End: 60_000, Step: 15_000}
	a := map[string]string{"engine": "a"}
	b := map[string]string{"engine": "b"}
	c := map[string]string{"engine": "c"}
	d := map[string]string{"engine": "d"}
	e := map[string]string{"engine": "e"}
	series := []compute.Series{
		// a: starts at 15 s, no start time: named, with 40 draft tokens.
		{Family: compute.Drafts, Labels: a, Position: -1, Points: []compute.Point{{T: 15_000, V: 10}}},
		{Family: compute.DraftTokens, Labels: a, Position: -1, Points: []compute.Point{{T: 30_000, V: 40}}},
		{Family: compute.AcceptedPerPosition, Labels: a, Position: 0, Points: []compute.Point{{T: 15_000, V: 7}}},
		// b: starts inside with a start time: counted, not named.
		{Family: compute.DraftTokens, Labels: b, Position: -1, Points: []compute.Point{{T: 15_000, V: 9}}, Created: 5_000},
		// c: has a point at the grid start: not named.
		{Family: compute.DraftTokens, Labels: c, Position: -1, Points: []compute.Point{{T: 0, V: 9}, {T: 15_000, V: 12}}},
		// d: an old process first scraped inside: not named.
		{Family: compute.DraftTokens, Labels: d, Position: -1, Points: []compute.Point{{T: 45_000, V: 9}}, Created: -100_000},
		// e: starts inside without a start time at 0 draft tokens (and
		// drafts): it missed nothing, not named.
		{Family: compute.Drafts, Labels: e, Position: -1, Points: []compute.Point{{T: 15_000, V: 0}, {T: 30_000, V: 2}}},
		{Family: compute.DraftTokens, Labels: e, Position: -1, Points: []compute.Point{{T: 15_000, V: 0}, {T: 30_000, V: 6}}},
	}
	w := startWarnings(series, g)
	if len(w) != 1 || !strings.Contains(w[0], `series {engine="a"} started inside the window (first step point 1970-01-01T00:00:15Z)`) ||
		!strings.Contains(w[0], "the 40 draft tokens it had counted by then may be missing") {
		t.Errorf("warnings %q", w)
	}
	var many []compute.Series
	for i := range 8 {
		many = append(many, compute.Series{Family: compute.Drafts, Labels: map[string]string{"engine": strconv.Itoa(i)}, Position: -1, Points: []compute.Point{{T: 15_000, V: 1}}})
	}
	if w := startWarnings(many, g); len(w) != maxStartWarnings+1 || w[maxStartWarnings] != "and 3 more series started inside the window without a start time" ||
		!strings.Contains(w[0], "the 1 drafts it had counted") {
		t.Errorf("many: %q", w)
	}
}

func TestSeriesFromMatrixMissingFamily(t *testing.T) {
	// vLLM V0: accepted and draft tokens, no drafts, no per-position.
	m := model.Matrix{
		stream("vllm:spec_decode_num_draft_tokens_total", map[string]string{"model_name": "m"}, 1000, 10),
		stream("vllm:spec_decode_num_accepted_tokens_total", map[string]string{"model_name": "m"}, 1000, 6),
	}
	got, warns, err := SeriesFromMatrix(m, VLLMV1)
	if err != nil || len(got) != 2 {
		t.Fatalf("got %d series, err %v", len(got), err)
	}
	joined := strings.Join(warns, "\n")
	for _, n := range []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total"} {
		if !strings.Contains(joined, "metric "+n+" has no series") {
			t.Errorf("no warning for missing %s in %q", n, warns)
		}
	}
	// Empty matrix: no series, no warnings (FetchSeries turns it into a
	// MissingMetricsError).
	got, warns, err = SeriesFromMatrix(nil, VLLMV1)
	if err != nil || len(got) != 0 || len(warns) != 0 {
		t.Errorf("empty matrix: %v %v %v", got, warns, err)
	}
}

func TestSeriesFromMatrixBadPosition(t *testing.T) {
	for _, p := range []string{"", "x", "-1", "1.5", "1025"} {
		labels := map[string]string{"model_name": "m"}
		if p != "" {
			labels["position"] = p
		}
		m := model.Matrix{stream("vllm:spec_decode_num_accepted_tokens_per_pos_total", labels, 1000, 1)}
		_, _, err := SeriesFromMatrix(m, VLLMV1)
		if err == nil || !strings.Contains(err.Error(), "invalid position label") {
			t.Errorf("position %q: error %v", p, err)
		}
	}
}
