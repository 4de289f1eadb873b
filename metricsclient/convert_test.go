package metricsclient

import (
	"math"
	"reflect"
	"strings"
	"testing"

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
		// An unexpected metric is skipped with a warning.
		stream("vllm:spec_decode_num_drafts_created", l, 1000, 1.7e9),
	}
	got, warns, err := SeriesFromMatrix(m, VLLMV1)
	if err != nil {
		t.Fatal(err)
	}
	want := []compute.Series{
		{Family: compute.Drafts, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 5}, {T: 3000, V: 7}}},
		{Family: compute.DraftTokens, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 1e6}, {T: 2000, V: 6491797}}},
		{Family: compute.AcceptedTokens, Position: -1, Labels: l, Points: []compute.Point{{T: 1000, V: 6}, {T: 2000, V: 9}}},
		{Family: compute.AcceptedPerPosition, Position: 0, Labels: l, Points: []compute.Point{{T: 1000, V: 4}, {T: 2000, V: 6}}},
		{Family: compute.AcceptedPerPosition, Position: 1, Labels: l, Points: []compute.Point{{T: 1000, V: 2}, {T: 2000, V: 3}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"vllm:spec_decode_num_drafts_created"`) {
		t.Errorf("warnings %q, want one about the _created series", warns)
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
