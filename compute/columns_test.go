package compute

import (
	"reflect"
	"testing"
)

func TestColumns(t *testing.T) {
	// 7 buckets of 10 s starting at 20 s, 3 per column aligned to 30 s:
	// bucket starts 20 | 30 40 50 | 60 70 80: columns {0}, {1,2,3}, {4,5,6}.
	g := Grid{Start: 20000, End: 90000, Step: 10000}
	b := make([]Counts, 7)
	for j := range b {
		b[j] = Counts{Drafts: float64(j + 1), DraftTokens: 2 * float64(j+1), AcceptedTokens: float64(j), AcceptedPerPosition: []float64{float64(j) / 2, float64(j) / 2}}
	}
	first, cols := Columns(b, g, 3)
	if !reflect.DeepEqual(first, []int{0, 1, 4}) {
		t.Fatalf("first %v, want [0 1 4]", first)
	}
	want := []Counts{
		{Drafts: 1, DraftTokens: 2, AcceptedTokens: 0, AcceptedPerPosition: []float64{0, 0}},
		{Drafts: 2 + 3 + 4, DraftTokens: 18, AcceptedTokens: 1 + 2 + 3, AcceptedPerPosition: []float64{3, 3}},
		{Drafts: 5 + 6 + 7, DraftTokens: 36, AcceptedTokens: 4 + 5 + 6, AcceptedPerPosition: []float64{7.5, 7.5}},
	}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %+v, want %+v", cols, want)
	}
	// Ratio of sums: column 1's rate at pos 1 is 3/9, not the mean of the
	// buckets' 0.5/2, 1/3, 1.5/4.
	if s := Derive(cols[1], 30, WithBonus); !near(s.PerPositionAcceptanceRate[0].V, 3.0/9) {
		t.Errorf("column 1 pos 1 rate %v, want 3/9", s.PerPositionAcceptanceRate[0])
	}
	// The window slides one step: the full columns keep their contents.
	g2 := Grid{Start: 30000, End: 100000, Step: 10000}
	first2, cols2 := Columns(append(b[1:], Counts{Drafts: 8, AcceptedPerPosition: []float64{0, 0}}), g2, 3)
	if !reflect.DeepEqual(first2, []int{0, 3, 6}) || !reflect.DeepEqual(cols2[0], want[1]) || !reflect.DeepEqual(cols2[1], want[2]) {
		t.Errorf("slid: first %v columns %+v", first2, cols2)
	}
	// f = 1: one column per bucket, copies.
	first1, cols1 := Columns(b, g, 1)
	if len(first1) != 7 || !reflect.DeepEqual(cols1[6], b[6]) {
		t.Errorf("f=1: %v %+v", first1, cols1)
	}
	cols1[6].AcceptedPerPosition[0] = -1
	if b[6].AcceptedPerPosition[0] == -1 {
		t.Error("f=1 columns alias the buckets")
	}
	for _, c := range []struct{ n, max, want int }{{360, 120, 3}, {361, 120, 4}, {120, 120, 1}, {5, 0, 1}, {288, 120, 3}} {
		if got := ColumnFactor(c.n, c.max); got != c.want {
			t.Errorf("ColumnFactor(%d, %d) = %d, want %d", c.n, c.max, got, c.want)
		}
	}
}
