package compute

import (
	"encoding/json"
	"math"
	"testing"
)

func TestValueJSON(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Value{0.6, true}, "0.6"},
		{Value{0, true}, "0"},
		{Value{}, "null"},
		{Value{3, false}, "null"},
		{Value{math.NaN(), true}, "null"},
		{Value{math.Inf(-1), true}, "null"},
		{Value{1e21, true}, "1e+21"},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.v, b, err, tc.want)
		}
	}
	var got []Value
	if err := json.Unmarshal([]byte(`[null, 2.5, 0, -1e3]`), &got); err != nil {
		t.Fatal(err)
	}
	want := []Value{{}, {2.5, true}, {0, true}, {-1000, true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Unmarshal[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	var v Value
	if err := json.Unmarshal([]byte(`"x"`), &v); err == nil {
		t.Error("string accepted as a Value")
	}
	// Round trip through a Stats.
	s := Derive(workedExample, 10, WithBonus)
	b, _ := json.Marshal(s)
	var back Stats
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.MeanAcceptanceLength != s.MeanAcceptanceLength || back.PerPositionAcceptanceRate[2] != s.PerPositionAcceptanceRate[2] || back.K != 3 {
		t.Errorf("round trip %+v", back)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatPercent(Value{0.6, true}, 1), "60.0 %"},
		{FormatPercent(Value{0.96543, true}, 2), "96.54 %"},
		{FormatPercent(Value{0.5, true}, -3), "50 %"},
		{FormatPercent(Value{}, 1), Undefined},
		{FormatPercent(Value{math.NaN(), true}, 1), Undefined},
		{FormatLength(Value{2.8, true}), "2.80 tokens/draft"},
		{FormatLength(Value{}), "no drafts in window"},
		{FormatRatio(Value{0.2, true}), "0.200"},
		{FormatRatio(Value{}), "n/a"},
		{FormatPValue(Value{0.120210, true}), "= 0.12"},
		{FormatPValue(Value{0.0421234, true}), "= 0.0421"},
		{FormatPValue(Value{0, true}), "< 0.001"},
		{FormatPValue(Value{0.00099, true}), "< 0.001"},
		{FormatPValue(Value{1, true}), "= 1"},
		{FormatPValue(Value{}), "n/a"},
		{FormatRate(Value{12.34, true}, "tokens/s"), "12.3 tokens/s"},
		{FormatRate(Value{0, true}, "tokens/s"), "0.0 tokens/s"},
		{FormatRate(Value{0.04217, true}, "drafts/s"), "0.042 drafts/s"},
		{FormatRate(Value{1234.56, true}, ""), "1234.6"},
		{FormatRate(Value{math.Inf(1), true}, "tokens/s"), Undefined},
		{FormatCount(6.491797e+06, "tokens"), "6491797 tokens"},
		{FormatCount(-0.2, ""), "0"},
		{FormatCount(math.NaN(), "tokens"), "n/a"},
		{Value{0.6, true}.String(), "0.6"},
		{Value{}.String(), "n/a"},
		{WithBonus.String(), "with bonus token"},
		{WithoutBonus.String(), "without bonus token"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
