package compute

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LabelK is one value of a label and the k (number of draft positions) of
// the series that carry it.
type LabelK struct {
	Value string
	K     int
}

// KMix describes the k (num_speculative_tokens) of the source series of a
// selection.
type KMix struct {
	// Ks are the distinct k of the per-position series sets, ascending;
	// empty when there is no per-position series.
	Ks []int
	// Label is a label whose value decides k (every value carries one k and
	// at least two k occur), preferring model_name, then the name that sorts
	// first; "" when no label does, or when len(Ks) < 2.
	Label string
	// ByLabel lists the values of Label with their k, sorted by value; nil
	// when Label is "".
	ByLabel []LabelK
}

// Mixed reports whether the selection holds more than one k.
func (m KMix) Mixed() bool { return len(m.Ks) > 1 }

// DistinctK finds the k of each source series set of series: the
// accepted-per-position series of one engine share all labels (Labels holds
// them without __name__ and position), and their k is the largest Position
// + 1 among them. Series of other families, and per-position series with a
// position outside 0..MaxPosition (Aggregate skips those), are ignored. The
// result is pure: series is not modified.
func DistinctK(series []Series) KMix {
	type set struct {
		labels map[string]string
		k      int
	}
	sets := map[string]*set{}
	var order []string
	for _, s := range series {
		if s.Family != AcceptedPerPosition || s.Position < 0 || s.Position > MaxPosition {
			continue
		}
		id := identity(s.Labels)
		st := sets[id]
		if st == nil {
			st = &set{labels: s.Labels}
			sets[id] = st
			order = append(order, id)
		}
		st.k = max(st.k, s.Position+1)
	}
	var m KMix
	names := map[string]bool{}
	for _, id := range order {
		st := sets[id]
		if !slices.Contains(m.Ks, st.k) {
			m.Ks = append(m.Ks, st.k)
		}
		for n := range st.labels {
			names[n] = true
		}
	}
	slices.Sort(m.Ks)
	if len(m.Ks) < 2 {
		return m
	}
	cands := make([]string, 0, len(names))
	for n := range names {
		cands = append(cands, n)
	}
	slices.SortFunc(cands, func(a, b string) int {
		if (a == "model_name") != (b == "model_name") {
			if a == "model_name" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, n := range cands {
		byVal := map[string]int{}
		ok := true
		for _, id := range order {
			st := sets[id]
			v := st.labels[n] // a missing label is the value ""
			if k, seen := byVal[v]; seen && k != st.k {
				ok = false
				break
			}
			byVal[v] = st.k
		}
		if !ok {
			continue
		}
		m.Label = n
		for v, k := range byVal {
			m.ByLabel = append(m.ByLabel, LabelK{Value: v, K: k})
		}
		slices.SortFunc(m.ByLabel, func(a, b LabelK) int { return strings.Compare(a.Value, b.Value) })
		break
	}
	return m
}

// Warning is the sentence that warns of a selection mixing k, "" when it
// does not (Mixed is false). It names the k, the label that decides them
// when there is one, from which position on the summed per-position rates
// cover fewer series, what still mixes k, and what to do.
func (m KMix) Warning() string {
	if !m.Mixed() {
		return ""
	}
	ks := make([]string, len(m.Ks))
	for i, k := range m.Ks {
		ks[i] = strconv.Itoa(k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the selected series mix k = %s", strings.Join(ks[:len(ks)-1], ", ")+" and "+ks[len(ks)-1])
	if m.Label != "" {
		parts := make([]string, len(m.ByLabel))
		for i, lk := range m.ByLabel {
			parts[i] = fmt.Sprintf("%q k=%d", lk.Value, lk.K)
		}
		fmt.Fprintf(&b, " (%s: %s)", m.Label, strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, ": summed per-position rates from pos %d on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; ", m.Ks[0]+1)
	if m.Label != "" {
		fmt.Fprintf(&b, "group by %s or filter to one k", m.Label)
	} else {
		b.WriteString("filter to one k")
	}
	return b.String()
}
