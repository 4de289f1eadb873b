package simulate

import (
	"math"
	"strconv"
	"strings"
)

// PythonRepr returns Python 3's repr() of a float: the shortest decimal
// string that round-trips, in fixed notation when the decimal exponent e
// (of d.ddd x 10^e) satisfies -4 <= e < 16, with ".0" appended to whole
// numbers ("123.0", "0.0", "-0.0"); otherwise in scientific notation with at
// least two exponent digits ("1e+16", "1.5e-05"). Infinities and NaN give
// "inf", "-inf" and "nan".
//
// Source: CPython's float_repr (format code 'r', Python/pystrtod.c).
func PythonRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	// Shortest round-trip digits, e.g. "1.7328900005e+09".
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	mant, expStr := e[:i], e[i+1:]
	exp, _ := strconv.Atoi(expStr) // FormatFloat always writes a valid exponent
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return sign + s
	}
	es := "+"
	if exp < 0 {
		es = "-"
		exp = -exp
	}
	x := strconv.Itoa(exp)
	if len(x) < 2 {
		x = "0" + x
	}
	return sign + mant + "e" + es + x
}

// FloatToGoString formats a sample value exactly as Python's
// prometheus_client does in its text exposition
// (prometheus_client/utils.py, floatToGoString): "+Inf", "-Inf", "NaN";
// otherwise Python's repr of the float, except that a positive value whose
// repr has more than 6 digits before the decimal point is rewritten in a
// Go-like exponent form: the repr's digits as a mantissa d.ddd with trailing
// zeros and dot stripped, then "e+0" and the exponent. Examples:
// 123.0 -> "123.0", 6491797.0 -> "6.491797e+06", 1732890000.5 ->
// "1.7328900005e+09", 1e7 -> "1e+07". The "e+0" prefix is literal, so from
// 1e10 on the exponent has three digits ("1e+010"), a prometheus_client
// quirk reproduced on purpose; from 1e16 on Python's repr is already in
// exponent form ("1e+16") and is kept.
func FloatToGoString(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+Inf"
	case math.IsInf(d, -1):
		return "-Inf"
	case math.IsNaN(d):
		return "NaN"
	}
	s := PythonRepr(d)
	dot := strings.IndexByte(s, '.')
	if d > 0 && dot > 6 {
		mantissa := strings.TrimRight(s[:1]+"."+s[1:dot]+s[dot+1:], "0.")
		return mantissa + "e+0" + strconv.Itoa(dot-1)
	}
	return s
}

// escapeLabelValue escapes a label value like prometheus_client's
// generate_latest: backslash, newline and double quote.
func escapeLabelValue(v string) string {
	return labelEscaper.Replace(v)
}

// escapeHelp escapes HELP text like prometheus_client's generate_latest:
// backslash and newline only.
func escapeHelp(v string) string {
	return helpEscaper.Replace(v)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)
