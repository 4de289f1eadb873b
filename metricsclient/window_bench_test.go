package metricsclient

import (
	"fmt"
	"testing"

	"github.com/prometheus/common/model"
)

// benchMatrix is the benchmark case's answer: 16 engines x (3 + 8
// per-position) counter series and their _created gauges, pts points each
// from t0 at step ms.
func benchMatrix(pts int, t0, step int64) model.Matrix {
	var m model.Matrix
	add := func(name string, extra model.LabelSet, e int) {
		for _, n := range []string{name + "_total", name + "_created"} {
			met := model.Metric{model.MetricNameLabel: model.LabelValue(n), "engine": model.LabelValue(fmt.Sprint(e)),
				"model_name": "bench-model", "job": "vllm", "instance": "127.0.0.1:9400"}
			for k, v := range extra {
				met[k] = v
			}
			ss := &model.SampleStream{Metric: met}
			for j := range pts {
				ss.Values = append(ss.Values, model.SamplePair{Timestamp: model.Time(t0 + int64(j)*step), Value: model.SampleValue(1000 + j)})
			}
			m = append(m, ss)
		}
	}
	for e := range 16 {
		for _, n := range []string{"vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens"} {
			add(n, nil, e)
		}
		for p := range 8 {
			add("vllm:spec_decode_num_accepted_tokens_per_pos", model.LabelSet{"position": model.LabelValue(fmt.Sprint(p))}, e)
		}
	}
	return m
}

// BenchmarkIncrementalConvert: what an incremental refresh of the 6 h
// case does besides its requests: merge 3 re-read points per series into
// 361-point series, then convert the merged answer.
func BenchmarkIncrementalConvert(b *testing.B) {
	const step = 60_000
	prev := benchMatrix(361, 0, step)
	fresh := benchMatrix(3, 359*step, step)
	b.Run("merge", func(b *testing.B) {
		for range b.N {
			MergeMatrix(prev, fresh, step, 359*step)
		}
	})
	merged := MergeMatrix(prev, fresh, step, 359*step)
	b.Run("convert", func(b *testing.B) {
		for range b.N {
			if _, _, err := SeriesFromMatrix(merged, VLLMV1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
