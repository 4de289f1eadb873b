package metricsclient

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/promtest"
	"specdash/internal/testwait"
	"specdash/internal/vmtest"
)

// labelsOM is a small vLLM V1 fleet for the label lists: two models, the
// per-position series with their position label, one engine with a label
// the others lack (region), and a metric of no schema whose label
// (other_label) must not be listed.
func labelsOM(t0 int64) string {
	var b strings.Builder
	type eng struct{ inst, engine, model, extra string }
	engs := []eng{
		{"h1:8000", "0", "m-a", ""},
		{"h1:8000", "1", "m-a", ""},
		{"h2:8000", "0", "m-b", `,region="eu"`},
		{"h3:8000", "0", "m-c \"x\"", ""},
	}
	for _, name := range []string{"vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens"} {
		fmt.Fprintf(&b, "# TYPE %s counter\n", name)
		for _, e := range engs {
			for i := range int64(10) {
				fmt.Fprintf(&b, "%s_total{instance=%q,engine=%q,model_name=\"%s\"%s} %d %d\n", name, e.inst, e.engine, omEscape(e.model), e.extra, 10*i, t0+15*i)
			}
		}
	}
	const pp = "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(&b, "# TYPE %s counter\n", pp)
	for _, e := range engs {
		for p := range 3 {
			for i := range int64(10) {
				fmt.Fprintf(&b, "%s_total{instance=%q,engine=%q,model_name=\"%s\"%s,position=\"%d\"} %d %d\n", pp, e.inst, e.engine, omEscape(e.model), e.extra, p, 3*i, t0+15*i)
			}
		}
	}
	fmt.Fprintln(&b, "# TYPE vllm:num_requests_running gauge")
	for i := range int64(10) {
		fmt.Fprintf(&b, "vllm:num_requests_running{instance=\"h9:8000\",other_label=\"no\"} 1 %d\n", t0+15*i)
	}
	fmt.Fprintln(&b, "# EOF")
	return b.String()
}

// seriesAPILabels is what SeriesLabels answered before it used the label
// values API: the label names and values of every series the series API
// lists for the schema's selector, without __name__ and position.
func seriesAPILabels(t *testing.T, c *Client, filters []Filter, start, end time.Time) map[string][]string {
	t.Helper()
	sel, err := c.schema.Selector(filters)
	if err != nil {
		t.Fatal(err)
	}
	sets, _, _, err := c.api.Series(context.Background(), []string{sel}, start, end)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]bool{}
	for _, ls := range sets {
		for k, v := range ls {
			if k == "__name__" || string(k) == c.schema.PositionLabel {
				continue
			}
			if seen[string(k)] == nil {
				seen[string(k)] = map[string]bool{}
			}
			seen[string(k)][string(v)] = true
		}
	}
	out := map[string][]string{}
	for k, vals := range seen {
		for v := range vals {
			out[k] = append(out[k], v)
		}
		sort.Strings(out[k])
	}
	return out
}

// TestSeriesLabels: the filter menus' label lists, read with the label
// names and label values APIs (match[] = the schema's selector), are
// those the series API gives (what SeriesLabels read before), on a real
// Prometheus and a real VictoriaMetrics, with and without a filter.
func TestSeriesLabels(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	om := labelsOM(t0)
	start, end := time.Unix(t0-60, 0), time.Unix(t0+300, 0)
	all := map[string][]string{
		"instance":   {"h1:8000", "h2:8000", "h3:8000"},
		"engine":     {"0", "1"},
		"model_name": {"m-a", "m-b", `m-c "x"`},
		"region":     {"eu"},
	}
	onlyA := map[string][]string{
		"instance":   {"h1:8000"},
		"engine":     {"0", "1"},
		"model_name": {"m-a"},
	}
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om)})
	vm := vmtest.Start(t)
	vmtest.Import(t, vm, om, nil)
	for _, src := range []struct{ name, url string }{{"Prometheus", prom.URL}, {"VictoriaMetrics", vm}} {
		c, err := New(Config{Address: src.url, Schema: VLLMV1})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var got map[string][]string
		// Imported data becomes searchable after a moment.
		testwait.Until(2*time.Minute, func() bool {
			got, err = c.SeriesLabels(ctx, nil, start, end)
			return err == nil && reflect.DeepEqual(got, all)
		})
		if err != nil || !reflect.DeepEqual(got, all) {
			t.Errorf("%s: labels %v (%v), want %v", src.name, got, err, all)
		}
		if old := seriesAPILabels(t, c, nil, start, end); !reflect.DeepEqual(got, old) {
			t.Errorf("%s: labels %v, the series API's %v", src.name, got, old)
		}
		f := []Filter{{Name: "model_name", Values: []string{"m-a"}}}
		got, err = c.SeriesLabels(ctx, f, start, end)
		if err != nil || !reflect.DeepEqual(got, onlyA) {
			t.Errorf("%s: labels of m-a %v (%v), want %v", src.name, got, err, onlyA)
		}
		if old := seriesAPILabels(t, c, f, start, end); !reflect.DeepEqual(got, old) {
			t.Errorf("%s: labels of m-a %v, the series API's %v", src.name, got, old)
		}
		got, err = c.SeriesLabels(ctx, []Filter{{Name: "model_name", Values: []string{"absent"}}}, start, end)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("%s: labels of an absent model %v (%v), want an empty map", src.name, got, err)
		}
		cancel()
	}
}

// TestSelectionSize: the number of counter series matching the filters at
// the grid's start or end, the larger, on a real Prometheus and a real
// VictoriaMetrics: 4 engines of k 3 (6 counter series each; the gauge of
// no schema not counted), the series of one model, and a window whose end
// lies after the data (counted at its start).
func TestSelectionSize(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	om := labelsOM(t0)
	prom := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, om)})
	vm := vmtest.Start(t)
	vmtest.Import(t, vm, om, nil)
	ms := func(s int64) int64 { return s * 1000 }
	cases := []struct {
		name    string
		g       compute.Grid
		filters []Filter
		want    int
	}{
		{"at the end", compute.Grid{Start: ms(t0 - 600), End: ms(t0 + 120), Step: ms(60)}, nil, 24},
		{"one model", compute.Grid{Start: ms(t0 - 600), End: ms(t0 + 120), Step: ms(60)}, []Filter{{Name: "model_name", Values: []string{"m-a"}}}, 12},
		{"at the start", compute.Grid{Start: ms(t0 + 60), End: ms(t0 + 1260), Step: ms(60)}, nil, 24},
		{"absent model", compute.Grid{Start: ms(t0 - 600), End: ms(t0 + 120), Step: ms(60)}, []Filter{{Name: "model_name", Values: []string{"absent"}}}, 0},
	}
	for _, src := range []struct{ name, url string }{{"Prometheus", prom.URL}, {"VictoriaMetrics", vm}} {
		c, err := New(Config{Address: src.url})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		for i, tc := range cases {
			var n int
			if i == 0 {
				// Imported data becomes searchable after a moment.
				testwait.Until(2*time.Minute, func() bool {
					n, err = c.SelectionSize(ctx, tc.g, tc.filters)
					return err == nil && n == tc.want
				})
			} else {
				n, err = c.SelectionSize(ctx, tc.g, tc.filters)
			}
			if err != nil || n != tc.want {
				t.Errorf("%s, %s: %d series (%v), want %d", src.name, tc.name, n, err, tc.want)
			}
		}
		cancel()
	}
}
