// Package app is specdash's browser front end: go-app v10 components that
// query Prometheus through the server's same-origin proxy (/prom) with
// specdash/metricsclient and compute every number with specdash/compute.
//
// The same package is linked into the server, which pre-renders the page
// (Render runs there; OnMount, OnNav and all loading run only in the
// browser, see app.IsClient).
//
// Test hooks on the page (stable, for end-to-end tests and scripts):
//   - the root element [data-dashboard] carries data-state
//     ("loading"|"ready"|"error"), data-window-start and data-window-end
//     (Unix ms of the grid the numbers are for), data-step-seconds, and
//     data-stale="true" when a refresh failed and older numbers are shown;
//   - every headline number is an element [data-metric=<name>] with
//     data-value, a plain decimal that parses back to the exact float64;
//     when the number is undefined (no drafts in window) data-value is
//     absent and data-undefined="true"; names: acceptance-rate (ratio 0..1),
//     mean-acceptance-length (tokens per draft), k, drafts-per-second,
//     accepted-throughput and drafted-throughput (tokens/s);
//   - [data-metric=per-position-acceptance-rate][data-position=1..k]
//     (1-based; ratio 0..1);
//   - charts are [data-chart=per-position|acceptance-rate|acceptance-length],
//     each holding an ECharts instance.
package app

import (
	"net/url"
	"slices"
	"time"

	"specdash/compute"
)

// Environment keys the server sets (go-app Handler.Env) and the page reads
// with app.Getenv.
const (
	// EnvSource is the upstream shown as the data source (no userinfo).
	EnvSource = "SPECDASH_SOURCE"
	// EnvScrapeInterval is the upstream's scrape interval, a Go duration.
	EnvScrapeInterval = "SPECDASH_SCRAPE_INTERVAL"
	// EnvVersion is specdash's version, shown in the footer.
	EnvVersion = "SPECDASH_VERSION"
	// EnvWasmMissing is "1" when the server has no app.wasm to serve.
	EnvWasmMissing = "SPECDASH_WASM_MISSING"
)

// ProxyAddress is where the browser reaches the Prometheus API: the
// server's same-origin proxy.
const ProxyAddress = "/prom"

// All is the selector value for "no filter".
const All = "all"

// Ranges are the selectable window lengths, shortest first.
var Ranges = []string{"5m", "15m", "1h", "6h", "24h"}

// Refreshes are the selectable auto-refresh periods; "off" disables it.
var Refreshes = []string{"off", "5s", "10s", "30s"}

// Conventions are the URL values of the mean-acceptance-length conventions.
const (
	ConventionBonus   = "bonus"
	ConventionNoBonus = "nobonus"
)

// Query is the dashboard's state; it lives in the page URL
// (?range=15m&refresh=5s&model=...&engine=...&convention=...) so that a
// URL reproduces a view.
type Query struct {
	// Range is the window length, one of Ranges (default "15m").
	Range string
	// Refresh is the auto-refresh period, one of Refreshes (default "off").
	Refresh string
	// Model and Engine filter on the model_name and engine labels; "" is
	// all.
	Model, Engine string
	// Convention of the mean acceptance length (default WithBonus).
	Convention compute.Convention
}

// DefaultQuery is the view of a URL without parameters.
func DefaultQuery() Query {
	return Query{Range: "15m", Refresh: "off"}
}

// ParseQuery reads a Query from URL parameters; unknown or invalid values
// fall back to the defaults.
func ParseQuery(v url.Values) Query {
	q := DefaultQuery()
	if r := v.Get("range"); slices.Contains(Ranges, r) {
		q.Range = r
	}
	if r := v.Get("refresh"); slices.Contains(Refreshes, r) {
		q.Refresh = r
	}
	if m := v.Get("model"); m != All {
		q.Model = m
	}
	if e := v.Get("engine"); e != All {
		q.Engine = e
	}
	if v.Get("convention") == ConventionNoBonus {
		q.Convention = compute.WithoutBonus
	}
	return q
}

// Values encodes q as URL parameters (defaults included for range, so a
// shared URL keeps its window even if defaults change).
func (q Query) Values() url.Values {
	v := url.Values{}
	v.Set("range", q.Range)
	if q.Refresh != "off" && q.Refresh != "" {
		v.Set("refresh", q.Refresh)
	}
	if q.Model != "" {
		v.Set("model", q.Model)
	}
	if q.Engine != "" {
		v.Set("engine", q.Engine)
	}
	if q.Convention == compute.WithoutBonus {
		v.Set("convention", ConventionNoBonus)
	}
	return v
}

// RangeDuration is the window length of q.
func (q Query) RangeDuration() time.Duration {
	d, err := time.ParseDuration(q.Range)
	if err != nil || d <= 0 {
		return 15 * time.Minute
	}
	return d
}

// RefreshDuration is the auto-refresh period of q, 0 when off.
func (q Query) RefreshDuration() time.Duration {
	d, err := time.ParseDuration(q.Refresh)
	if err != nil {
		return 0
	}
	return d
}

// SameData reports whether q and o select the same data (they may differ in
// refresh period only), so that numbers for o may stay shown for q.
func (q Query) SameData(o Query) bool {
	return q.Range == o.Range && q.Model == o.Model && q.Engine == o.Engine && q.Convention == o.Convention
}
