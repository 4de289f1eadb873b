package view

import (
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/metricsclient"
)

// TestChainFilters: a label's menu lists values under the other filters
// only, and the selector built from them escapes every value (a value can
// never change the query's structure).
func TestChainFilters(t *testing.T) {
	q := DefaultQuery()
	hostile := `a"b\c} or vector(1) #`
	q.SetFilter("model_name", []string{hostile})
	q.SetFilter("engine", []string{"3", "1.5"})
	got := ChainFilters(q, "engine")
	if len(got) != 1 || got[0].Name != "model_name" || !slices.Equal(got[0].Values, []string{hostile}) {
		t.Fatalf("ChainFilters(engine) = %+v, want the model filter alone", got)
	}
	sel, err := metricsclient.Selector([]string{"vllm:spec_decode_num_drafts_total"}, got)
	if err != nil {
		t.Fatal(err)
	}
	if want := `model_name="a\"b\\c} or vector(1) #"`; !strings.Contains(sel, want) {
		t.Errorf("selector %s lacks the escaped matcher %s", sel, want)
	}
	if strings.Contains(sel, "engine") {
		t.Errorf("engine's menu selector %s filters on engine", sel)
	}
	sel, err = metricsclient.Selector([]string{"vllm:spec_decode_num_drafts_total"}, ChainFilters(q, "model_name"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `engine=~"1\\.5|3"`; !strings.Contains(sel, want) {
		t.Errorf("model's menu selector %s lacks %s (values as regex literals)", sel, want)
	}
	if strings.Contains(sel, "model_name") {
		t.Errorf("model's menu selector %s filters on the model", sel)
	}

	// One request per distinct filter set: the unfiltered labels share one.
	sets := ChainSets(q, []string{"model_name", "engine", "instance", "job"})
	if len(sets) != 3 {
		t.Fatalf("%d filter sets, want 3: %v", len(sets), sets)
	}
	var shared []string
	for _, ls := range sets {
		if len(ls) > 1 {
			shared = ls
		}
	}
	if !slices.Equal(shared, []string{"instance", "job"}) {
		t.Errorf("labels sharing the whole filter set: %v, want instance and job", sets)
	}
}

// TestMenuValues: the menu lists the chained values when known, always
// the chosen ones (an engine=3 from the URL that the label list lacks is
// listed and checked), filtered by the search text (case-insensitive).
func TestMenuValues(t *testing.T) {
	known := []string{"0", "1", "2"}
	if got := MenuValues(known, nil, false, []string{"3"}, ""); !slices.Equal(got, []string{"0", "1", "2", "3"}) {
		t.Errorf("absent chosen value: %v, want 0 1 2 3", got)
	}
	if got := MenuValues(known, []string{"1"}, true, nil, ""); !slices.Equal(got, []string{"1"}) {
		t.Errorf("chained: %v, want only 1", got)
	}
	if got := MenuValues(known, []string{}, true, []string{"2"}, ""); !slices.Equal(got, []string{"2"}) {
		t.Errorf("chained empty with a chosen value: %v, want 2", got)
	}
	models := []string{"Org/Llama-70B", "org/qwen-7b", "mistral"}
	if got := MenuValues(models, nil, false, nil, " LLAMA "); !slices.Equal(got, []string{"Org/Llama-70B"}) {
		t.Errorf("search llama: %v", got)
	}
	if got := MenuValues(models, nil, false, nil, "org/"); !slices.Equal(got, []string{"Org/Llama-70B", "org/qwen-7b"}) {
		t.Errorf("search org/: %v", got)
	}
	if got := MenuValues([]string{"", "a"}, nil, false, nil, "none"); !slices.Equal(got, []string{""}) {
		t.Errorf("search (none): %v, want the empty value", got)
	}
}

// TestFilterSummary: the summary line names every active filter, the
// window and the source.
func TestFilterSummary(t *testing.T) {
	q := DefaultQuery()
	q.Range = "6h"
	q.SetFilter("model_name", []string{"B", "A"})
	q.SetFilter("engine", []string{"3"})
	if got, want := FilterSummary(q, "prom", time.UTC), "model = A, B · engine = 3 · last 6 h · source prom"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	q = DefaultQuery()
	if got, want := FilterSummary(q, "", time.UTC), "all series · last 15 min"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	q.From = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).UnixMilli()
	q.To = time.Date(2026, 12, 1, 11, 30, 0, 0, time.UTC).UnixMilli()
	q.SetFilter("instance", []string{""})
	if got, want := FilterSummary(q, "vm", time.UTC), "instance = (none) · 2026-12-01 10:00 – 11:30 UTC · source vm"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// TestMenuTexts: a filter menu's toggle says what is chosen, its tip
// whether it lists chained values; the values known of a label come from
// the last label lists, else the model and engine lists.
func TestMenuTexts(t *testing.T) {
	if s, tip := MenuTexts("engine", nil, false); s != "all" || tip != "Keep only the series whose engine is one of the checked values (none checked: no filter)." {
		t.Errorf("nothing chosen: %q %q", s, tip)
	}
	if s, tip := MenuTexts("model_name", []string{"a", "b"}, true); s != "a, b" || !strings.HasSuffix(tip, " Listed: the values of the series the other filters keep.") {
		t.Errorf("chosen, chained: %q %q", s, tip)
	}
	models, engines := []string{"m"}, []string{"0", "1"}
	if v := LabelValues(nil, models, engines, "engine"); !slices.Equal(v, engines) {
		t.Errorf("engines without label lists: %v", v)
	}
	if v := LabelValues(map[string][]string{"job": {"vllm"}}, models, engines, "model_name"); v != nil {
		t.Errorf("label lists without model_name: %v", v)
	}
	if v := LabelValues(nil, models, engines, "job"); v != nil {
		t.Errorf("job without label lists: %v", v)
	}
}
