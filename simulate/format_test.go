package simulate

import (
	"math"
	"testing"
)

// Expected strings are what CPython 3 prints for repr(x) and for
// prometheus_client.utils.floatToGoString(x), worked out by hand from their
// rules (repr: shortest round-trip, fixed for 1e-4 <= |x| < 1e16;
// floatToGoString: exponent form when x > 0 and more than 6 digits before
// the dot, with a literal "e+0").
func TestPythonRepr(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{123, "123.0"},
		{-5, "-5.0"},
		{0.1, "0.1"},
		{0.6, "0.6"},
		{1.0 / 3, "0.3333333333333333"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{0.000015, "1.5e-05"},
		{6491797, "6491797.0"},
		{1e15, "1000000000000000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{1e22, "1e+22"},
		{1e100, "1e+100"},
		{-1e16, "-1e+16"},
		{1732890000.5, "1732890000.5"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
	} {
		if got := PythonRepr(c.in); got != c.want {
			t.Errorf("PythonRepr(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFloatToGoString(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{5, "5.0"},
		{123, "123.0"},
		{0.5, "0.5"},
		{999999, "999999.0"},      // 6 digits before the dot: unchanged
		{999999.5, "999999.5"},    // still 6
		{1000000, "1e+06"},        // 7 digits: "1.000000" + "0" stripped
		{6491797, "6.491797e+06"}, // docs/METRICS.md (vLLM V1) example
		{6491797.25, "6.49179725e+06"},
		{10000000, "1e+07"},
		{12345678, "1.2345678e+07"},
		{1732890000.5, "1.7328900005e+09"}, // a _created value
		{1732890000, "1.73289e+09"},
		{1748736000.123456, "1.748736000123456e+09"},
		{12345678901, "1.2345678901e+010"}, // literal "e+0" before a 2-digit exponent
		{1e15, "1e+015"},
		{1e16, "1e+16"},          // repr already has no dot
		{1.5e16, "1.5e+16"},      // dot at index 1: kept
		{-6491797, "-6491797.0"}, // negative: repr unchanged
		{-0.5, "-0.5"},
		{0.00001, "1e-05"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	} {
		if got := FloatToGoString(c.in); got != c.want {
			t.Errorf("FloatToGoString(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscape(t *testing.T) {
	if got, want := escapeLabelValue("a\\b\n\"c\""), `a\\b\n\"c\"`; got != want {
		t.Errorf("escapeLabelValue = %q, want %q", got, want)
	}
	if got, want := escapeHelp("a\\b\n\"c\""), `a\\b\n"c"`; got != want {
		t.Errorf("escapeHelp = %q, want %q", got, want)
	}
}
