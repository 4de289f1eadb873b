package view

import (
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"time"

	"specdash/compute"
	"specdash/model"
)

// The page's controls edit the view: each edit is the Query it leads to
// (the dashboard then writes it into the URL and loads).

// WithSelect is q after the select whose id is field chose value v
// ("range", "refresh", "tz", "convention", "compare", and "compare-a" and
// "compare-b" with EncodeOption of a group key); false when v is no range
// (ValidRange) for "range". Other fields leave q as it is.
func (q Query) WithSelect(field, v string) (Query, bool) {
	switch field {
	case "range":
		if !ValidRange(v) {
			return q, false
		}
		q.Range, q.From, q.To = v, 0, 0
	case "refresh":
		q.Refresh = v
	case "tz":
		q.TZ = TZLocal
		if v == TZUTC {
			q.TZ = TZUTC
		}
	case "convention":
		q.Convention = compute.WithBonus
		if v == ConventionNoBonus {
			q.Convention = compute.WithoutBonus
		}
	case "compare":
		q.Compare = CompareOff
		if v == CompareWindow || v == CompareGroups {
			q.Compare = v
		}
	case "compare-a":
		q.CompareA = DecodeOption(v)
	case "compare-b":
		q.CompareB = DecodeOption(v)
	}
	return q, true
}

// PageURL is the page cur showing q: q's own parameters replace cur's
// (MergeValues), cur's other parameters and its source stay (KeepSource).
// The dashboard writes it into the address bar after every edit.
func PageURL(cur *url.URL, q Query) *url.URL {
	u := *cur
	u.RawQuery = KeepSource(MergeValues(cur.Query(), q.Values()), cur).Encode()
	return &u
}

// SelectHref is where choosing v in the select field of the page cur
// showing q leads, as the server writes it into the pre-rendered page's
// <option data-href> for web/static/preview.js, so that the select works
// before the wasm runs: base64url (unpadded) of PageURL's path and query
// for q.WithSelect(field, v), "" when that choice is no edit (an unknown
// range, such as the "custom" entry). base64, because go-app writes
// pre-rendered attribute values with strconv.Quote, not HTML escaping.
func SelectHref(cur *url.URL, q Query, field, v string) string {
	n, ok := q.WithSelect(field, v)
	if !ok {
		return ""
	}
	return EditHref(cur, n)
}

// EditHref is SelectHref for any edit that leads to q: base64url of
// PageURL's path and query; "" without a page, or when that is longer
// than MaxEditHref (the page carries one per control: a long URL must not
// make it grow by as many times its length).
func EditHref(cur *url.URL, q Query) string {
	if cur == nil {
		return ""
	}
	q.Warn = ""
	u := PageURL(cur, q).RequestURI()
	if len(u) > MaxEditHref {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(u))
}

// MaxEditHref bounds the path and query of an EditHref (bytes).
const MaxEditHref = 2048

// WithGroup is q with label added to (on) or removed from the group-by
// labels shown (grouping); compared groups are reset.
func (q Query) WithGroup(grouping []string, label string, on bool) Query {
	gb := slices.DeleteFunc(slices.Clone(grouping), func(l string) bool { return l == label })
	if on {
		gb = append(gb, label)
	}
	if gb == nil {
		gb = []string{} // explicit: no grouping (nil is per model)
	}
	q.GroupBy = gb
	q.CompareA, q.CompareB = "", ""
	return q
}

// FilterHref is where the pre-rendered page's filter menu of label leads
// before the wasm runs (web/static/preview.js): href is EditHref of q
// without a filter on label, to which preview.js appends one param
// parameter per value the user's change keeps, as Query.SetFilter and
// Values would write them.
func FilterHref(cur *url.URL, q Query, label string) (href, param string) {
	q.SetFilter(label, nil)
	return EditHref(cur, q), filterParam(label)
}

// WithWindow is q with the window the From/To inputs give (Unix ms, 0 for
// an empty input), or with base the compare baseline's (both empty: the
// window just before); an error names what CheckWindow refused at now,
// prefixed "Time window: " or "Baseline window: ".
func (q Query) WithWindow(base bool, from, to int64, now time.Time) (Query, error) {
	if base && from == 0 && to == 0 {
		q.BaseFrom, q.BaseTo = 0, 0
		return q, nil
	}
	if err := CheckWindow(from, to, now); err != nil {
		what := "Time window"
		if base {
			what = "Baseline window"
		}
		return q, errors.New(what + ": " + err.Error() + ".")
	}
	if base {
		q.BaseFrom, q.BaseTo = from, to
	} else {
		q.From, q.To = from, to
	}
	return q, nil
}

// Zoom is q with the absolute window of a span selected on chart: bucket
// start of the first to bucket end of the last selected bucket of res
// (heatmap columns first[c] mapped to their buckets); false when the span
// holds no bucket.
func (q Query) Zoom(res *Result, chart string, heatFirst []int, from, to int) (Query, bool) {
	if res == nil {
		return q, false
	}
	g := res.Grid
	n := g.Buckets()
	if n == 0 {
		return q, false
	}
	if chart == ChartHeatmap && heatFirst != nil {
		from, to = model.ColumnBuckets(heatFirst, n, from, to)
	}
	from, to = max(from, 0), min(to, n-1)
	if to < from {
		return q, false
	}
	q.From, q.To = g.BucketStart(from), g.BucketEnd(to)
	return q, true
}

// Live is q back on a relative window ending now (its range, or the
// default one).
func (q Query) Live() Query {
	q.From, q.To = 0, 0
	if !slices.Contains(Ranges, q.Range) {
		q.Range = DefaultQuery().Range
	}
	return q
}

// SortedBy is q after a click on column col's header: an unsorted column
// is sorted (a number column largest first, the group column ascending),
// an ascending one descending, a descending one no longer.
func (q Query) SortedBy(col string) Query {
	switch q.Sort {
	case col:
		q.Sort = "-" + col
	case "-" + col:
		q.Sort = ""
	default:
		q.Sort = col
		if col != ColGroup {
			q.Sort = "-" + col // numbers: largest first
		}
	}
	return q
}

// CompareHref is the dashboard URL comparing the window after change c
// (the view's window) with the one before it (the baseline).
func (q Query) CompareHref(c model.Change) string {
	q.From, q.To = c.At, c.AfterTo
	q.Refresh = "off"
	q.Compare = CompareWindow
	q.BaseFrom, q.BaseTo = c.BeforeFrom, c.At
	q.CompareA, q.CompareB = "", ""
	return "/?" + q.Values().Encode()
}
