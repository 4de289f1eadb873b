//go:build !js

package metricsclient

import (
	"testing"
	"time"
)

func init() { stepLocal = StepLocal }

func TestStepLocal(t *testing.T) {
	counters, err := VLLMV1.CounterQuery([]Filter{{Name: "model_name", Values: []string{`a"b`}}}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		want bool
	}{
		{counters, true},
		{`sum by (model_name, position) (last_over_time({__name__="vllm:spec_decode_num_drafts_total"}[5m]))`, true},
		{`label_replace(count(last_over_time(x[5m])), "specdash_part", "x", "", "") or label_replace(sum by (le) (last_over_time(x_bucket[5m])), "specdash_part", "x_bucket", "", "")`, true},
		{`sum(count_over_time(x[59s999ms]))`, true},
		{`last_over_time(x[5m] offset 1h) and x`, true},
		{`time() - timestamp(x)`, true},
		{`-x * 2`, true},
		{`x @ end()`, false},
		{`x @ start()`, false},
		{`sum(last_over_time(x[5m] @ 1796205600))`, false},
		{`rate(x[5m:1m])`, false},
		{`max_over_time(rate(x[1m])[10m:])`, false},
		{`x[range()]`, false},
		{`sum(`, false},
		{``, false},
	} {
		if got := StepLocal(c.q); got != c.want {
			t.Errorf("StepLocal(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}
