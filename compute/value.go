package compute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Undefined is what the format helpers print for an undefined Value, for
// example an acceptance rate over a window without drafts. Never "NaN".
const Undefined = "no drafts in window"

// UndefinedShort is the short form of Undefined, used in log lines
// (FormatLogLine, FormatLegacyLogLine) and table cells.
const UndefinedShort = "n/a"

// Value is a derived number that may be undefined (for example a ratio with
// no drafts in the window). It marshals to JSON null when !OK. A Value made
// by this package never holds NaN or Inf when OK.
type Value struct {
	V  float64
	OK bool
}

// Defined returns Value{v, true}, or an undefined Value when v is NaN or Inf.
func Defined(v float64) Value {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Value{}
	}
	return Value{V: v, OK: true}
}

// ratio returns num/den, undefined when den is 0 or either input or the
// result is not finite.
func ratio(num, den float64) Value {
	if den == 0 || !finite(num) || !finite(den) {
		return Value{}
	}
	return Defined(num / den)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// MarshalJSON encodes the number, or null when v is undefined (or, should
// one be made by hand, not finite).
func (v Value) MarshalJSON() ([]byte, error) {
	if !v.OK || !finite(v.V) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v.V, 'g', -1, 64), nil
}

// UnmarshalJSON decodes null as undefined and a number as defined. Anything
// else is an error.
func (v *Value) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*v = Value{}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("compute.Value: want a number or null, got %s", b)
	}
	*v = Defined(f)
	return nil
}

// String prints the number with up to 6 significant digits, or
// UndefinedShort.
func (v Value) String() string {
	if !v.OK || !finite(v.V) {
		return UndefinedShort
	}
	return strconv.FormatFloat(v.V, 'g', 6, 64)
}

func clampDecimals(d int) int {
	return min(max(d, 0), 9)
}

// FormatPercent prints a ratio (0..1) as a percentage with the given number
// of decimals (clamped to 0..9) and a space before the sign:
// Value{0.6, true} with 1 decimal -> "60.0 %". Undefined prints Undefined.
func FormatPercent(v Value, decimals int) string {
	if !v.OK || !finite(v.V*100) {
		return Undefined
	}
	return strconv.FormatFloat(v.V*100, 'f', clampDecimals(decimals), 64) + " %"
}

// FormatLength prints a mean acceptance length (tokens per draft) with two
// decimals, as vLLM's log line does: "2.80 tokens/draft". Undefined prints
// Undefined.
func FormatLength(v Value) string {
	if !v.OK || !finite(v.V) {
		return Undefined
	}
	return strconv.FormatFloat(v.V, 'f', 2, 64) + " tokens/draft"
}

// FormatRatio prints a ratio 0..1 (such as a per-position acceptance rate)
// with three decimals, as vLLM's log line does: "0.600". Undefined prints
// UndefinedShort (it is meant for table cells).
func FormatRatio(v Value) string {
	if !v.OK || !finite(v.V) {
		return UndefinedShort
	}
	return strconv.FormatFloat(v.V, 'f', 3, 64)
}

// FormatPValue prints a p-value (probability 0..1) as it reads after "p":
// "= 0.12", "= 0.0421" (three significant digits), and "< 0.001" below
// 0.001, where more digits are noise (a chi-square tail that underflows
// would print "= 0"). Undefined prints "n/a".
func FormatPValue(v Value) string {
	switch {
	case !v.OK || !finite(v.V):
		return UndefinedShort
	case v.V < 0.001:
		return "< 0.001"
	}
	return "= " + strconv.FormatFloat(v.V, 'g', 3, 64)
}

// FormatRate prints a rate followed by its unit, for example
// FormatRate(Value{12.34, true}, "tokens/s") -> "12.3 tokens/s". One decimal
// when |v| >= 1 or v == 0, two significant digits below 1 (0.042 drafts/s).
// Undefined prints Undefined.
func FormatRate(v Value, unit string) string {
	if !v.OK || !finite(v.V) {
		return Undefined
	}
	var s string
	if a := math.Abs(v.V); a >= 1 || a == 0 {
		s = strconv.FormatFloat(v.V, 'f', 1, 64)
	} else {
		s = strconv.FormatFloat(v.V, 'g', 2, 64)
	}
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// FormatCount prints a count (drafts or tokens) rounded to a whole number,
// followed by the unit when given: FormatCount(9, "tokens") -> "9 tokens".
// NaN and Inf print UndefinedShort.
func FormatCount(n float64, unit string) string {
	if !finite(n) {
		return UndefinedShort
	}
	r := math.Round(n)
	if r == 0 {
		r = 0 // no "-0"
	}
	s := strconv.FormatFloat(r, 'f', 0, 64)
	if unit == "" {
		return s
	}
	return s + " " + unit
}
