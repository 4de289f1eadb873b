package compute

import (
	"reflect"
	"strings"
	"testing"
)

// perPos returns the accepted-per-position series of one engine with
// positions 0..k-1, plus its drafts series (ignored by DistinctK).
func perPos(labels map[string]string, k int) []Series {
	out := []Series{{Family: Drafts, Labels: labels, Position: -1, Points: []Point{{T: 0, V: 0}, {T: 1000, V: 10}}}}
	for p := range k {
		out = append(out, Series{Family: AcceptedPerPosition, Labels: labels, Position: p, Points: []Point{{T: 0, V: 0}, {T: 1000, V: float64(p)}}})
	}
	return out
}

func TestDistinctK(t *testing.T) {
	a0 := map[string]string{"model_name": "A", "engine": "0"}
	a1 := map[string]string{"model_name": "A", "engine": "1"}
	b0 := map[string]string{"model_name": "B", "engine": "0"}
	cat := func(ss ...[]Series) []Series {
		var out []Series
		for _, s := range ss {
			out = append(out, s...)
		}
		return out
	}

	t.Run("two engines k=4 and k=5", func(t *testing.T) {
		m := DistinctK(cat(perPos(a0, 4), perPos(b0, 5)))
		want := KMix{Ks: []int{4, 5}, Label: "model_name", ByLabel: []LabelK{{"A", 4}, {"B", 5}}}
		if !reflect.DeepEqual(m, want) || !m.Mixed() {
			t.Fatalf("got %+v, want %+v", m, want)
		}
		w := m.Warning()
		const wantW = `the selected series mix k = 4 and 5 (model_name: "A" k=4, "B" k=5): summed per-position rates from pos 5 on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; group by model_name or filter to one k`
		if w != wantW {
			t.Fatalf("warning\n%s\nwant\n%s", w, wantW)
		}
	})

	t.Run("same k", func(t *testing.T) {
		m := DistinctK(cat(perPos(a0, 4), perPos(a1, 4), perPos(b0, 4)))
		if !reflect.DeepEqual(m.Ks, []int{4}) || m.Mixed() || m.Label != "" || m.ByLabel != nil || m.Warning() != "" {
			t.Fatalf("got %+v, warning %q", m, m.Warning())
		}
	})

	t.Run("no per-position series", func(t *testing.T) {
		var s []Series
		for _, l := range []map[string]string{a0, b0} {
			s = append(s, Series{Family: Drafts, Labels: l, Position: -1}, Series{Family: AcceptedTokens, Labels: l, Position: -1})
		}
		if m := DistinctK(s); m.Ks != nil || m.Mixed() || m.Warning() != "" {
			t.Fatalf("got %+v", m)
		}
		if m := DistinctK(nil); m.Ks != nil || m.Mixed() {
			t.Fatalf("nil: got %+v", m)
		}
	})

	t.Run("k from the largest position, engine label decides", func(t *testing.T) {
		// Engine 1 of model A runs k=3 (only positions 0 and 2 exported):
		// model_name does not decide k, engine does.
		s := cat(perPos(a0, 4), perPos(b0, 4))
		s = append(s, Series{Family: AcceptedPerPosition, Labels: a1, Position: 2}, Series{Family: AcceptedPerPosition, Labels: a1, Position: 0},
			// garbage positions are ignored, as Aggregate skips them
			Series{Family: AcceptedPerPosition, Labels: a1, Position: MaxPosition + 1}, Series{Family: AcceptedPerPosition, Labels: a1, Position: -1})
		m := DistinctK(s)
		want := KMix{Ks: []int{3, 4}, Label: "engine", ByLabel: []LabelK{{"0", 4}, {"1", 3}}}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("got %+v, want %+v", m, want)
		}
		if w := m.Warning(); w == "" || !strings.Contains(w, "from pos 4 on") || !strings.Contains(w, "group by engine") {
			t.Fatalf("warning %q", w)
		}
	})

	t.Run("no label decides", func(t *testing.T) {
		// A/0 k=3, A/1 k=4, B/0 k=4, B/1 k=3: neither label alone decides.
		b1 := map[string]string{"model_name": "B", "engine": "1"}
		m := DistinctK(cat(perPos(a0, 3), perPos(a1, 4), perPos(b0, 4), perPos(b1, 3)))
		if !reflect.DeepEqual(m.Ks, []int{3, 4}) || m.Label != "" || m.ByLabel != nil {
			t.Fatalf("got %+v", m)
		}
		const wantW = `the selected series mix k = 3 and 4: summed per-position rates from pos 4 on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; filter to one k`
		if w := m.Warning(); w != wantW {
			t.Fatalf("warning\n%s\nwant\n%s", w, wantW)
		}
	})
}
