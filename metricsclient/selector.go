package metricsclient

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

// Filter selects series whose label Name equals one of Values (empty Values:
// no constraint). Values are escaped when put into PromQL. Several filters are
// ANDed; the values of one filter are ORed. An empty string among Values
// matches series without the label (PromQL semantics).
type Filter struct {
	Name   string
	Values []string
}

// ValidateLabelName returns an error unless name is a label name that can be
// used in a filter or for grouping: a legacy Prometheus label name
// ([a-zA-Z_][a-zA-Z0-9_]*, the form every Prometheus 2.x accepts unquoted),
// and neither __name__ nor the position label (specdash selects the metric
// names itself and sums over positions).
func ValidateLabelName(name string) error {
	if name == "" {
		return fmt.Errorf("empty label name")
	}
	if !model.LegacyValidation.IsValidLabelName(name) {
		return fmt.Errorf("invalid label name %q: a label name must match [a-zA-Z_][a-zA-Z0-9_]*", name)
	}
	if name == model.MetricNameLabel {
		return fmt.Errorf("label %q cannot be used: specdash chooses the metric names itself", name)
	}
	if name == VLLMV1.PositionLabel {
		return fmt.Errorf("label %q cannot be used: it is the draft position, which specdash reports per position already", name)
	}
	return nil
}

// QuoteString returns s as a PromQL double-quoted string literal. PromQL
// string literals use Go's escape rules (Prometheus' lexer, and its own
// labels.Matcher.String, use strconv.Quote/Unquote), so quotes, backslashes,
// newlines and non-printable runes are escaped and printable Unicode is kept.
// It fails for invalid UTF-8, which Prometheus label values cannot hold.
func QuoteString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("label value %q is not valid UTF-8", s)
	}
	return strconv.Quote(s), nil
}

// Matcher returns the PromQL label matcher for one filter: `name="v"` for a
// single value, `name=~"v1|v2"` (each value escaped with regexp.QuoteMeta, so
// it matches literally; Prometheus anchors the regexp) for several, and ""
// for a filter without values. Duplicate values are dropped.
func Matcher(f Filter) (string, error) {
	if err := ValidateLabelName(f.Name); err != nil {
		return "", err
	}
	seen := map[string]bool{}
	var vals []string
	for _, v := range f.Values {
		if !utf8.ValidString(v) {
			return "", fmt.Errorf("value %q of label %s is not valid UTF-8", v, f.Name)
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		q, err := QuoteString(vals[0])
		if err != nil {
			return "", err
		}
		return f.Name + "=" + q, nil
	default:
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = regexp.QuoteMeta(v)
		}
		q, err := QuoteString(strings.Join(parts, "|"))
		if err != nil {
			return "", err
		}
		return f.Name + "=~" + q, nil
	}
}

// Selector returns the PromQL series selector for the metrics named names
// restricted by filters, e.g.
//
//	{__name__=~"a|b", model_name="m", engine=~"0|1"}
//
// One name gives `__name__="a"`. Names and values are escaped (see Matcher),
// so a value can never change the query's structure. Errors: no names, an
// invalid label name, a value that is not valid UTF-8.
func Selector(names []string, filters []Filter) (string, error) {
	if len(names) == 0 {
		return "", fmt.Errorf("no metric names to select")
	}
	var ms []string
	if len(names) == 1 {
		q, err := QuoteString(names[0])
		if err != nil {
			return "", err
		}
		ms = append(ms, model.MetricNameLabel+"="+q)
	} else {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = regexp.QuoteMeta(n)
		}
		q, err := QuoteString(strings.Join(parts, "|"))
		if err != nil {
			return "", err
		}
		ms = append(ms, model.MetricNameLabel+"=~"+q)
	}
	for _, f := range filters {
		m, err := Matcher(f)
		if err != nil {
			return "", err
		}
		if m != "" {
			ms = append(ms, m)
		}
	}
	return "{" + strings.Join(ms, ", ") + "}", nil
}
