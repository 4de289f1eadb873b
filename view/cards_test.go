package view

import "testing"

// TestKSub: the k card says which k a mixed selection holds (the card
// shows the largest), nothing more for one k.
func TestKSub(t *testing.T) {
	for _, c := range []struct {
		ks   []int
		want string
	}{
		{nil, "draft positions"},
		{[]int{4}, "draft positions"},
		{[]int{4, 6}, "mixed: k = 4, 6; the largest shown"},
	} {
		if got := KSub(c.ks); got != c.want {
			t.Errorf("KSub(%v) = %q, want %q", c.ks, got, c.want)
		}
	}
}
