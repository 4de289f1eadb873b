package view

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
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

// EnvSources is the JSON list of configured sources ([]SourceInfo) that the
// server sets.
const EnvSources = "SPECDASH_SOURCES"

// SourceParam is the URL parameter naming the source.
const SourceParam = "source"

// Source kinds (as package server's).
const (
	KindPrometheus = "prometheus"
	KindEmbedded   = "embedded"
)

// SourceInfo is one configured source as the page sees it (no URL
// credentials; Label is what to show).
type SourceInfo struct {
	Name           string `json:"name"`
	Label          string `json:"label"`
	Kind           string `json:"kind"`
	ScrapeInterval string `json:"scrape_interval"`
	Default        bool   `json:"default,omitempty"`
}

// EncodeSources is the EnvSources value for list.
func EncodeSources(list []SourceInfo) string {
	b, _ := json.Marshal(list)
	return string(b)
}

// PickSource returns the source named by u's ?source= among list, else the
// default one; ok is false when list is empty.
func PickSource(list []SourceInfo, u *url.URL) (SourceInfo, bool) {
	if len(list) == 0 {
		return SourceInfo{}, false
	}
	if u != nil {
		if name := u.Query().Get(SourceParam); name != "" {
			for _, s := range list {
				if s.Name == name {
					return s, true
				}
			}
		}
	}
	for _, s := range list {
		if s.Default {
			return s, true
		}
	}
	return list[0], true
}

// UnknownSource reports whether name (a ?source= value) is not one of the
// configured sources of list (then PickSource shows the default one).
func UnknownSource(list []SourceInfo, name string) bool {
	if name == "" || len(list) == 0 {
		return false
	}
	for _, s := range list {
		if s.Name == name {
			return false
		}
	}
	return true
}

// KeepSource adds cur's ?source= to v (so that rewriting the URL for a new
// view keeps the source).
func KeepSource(v url.Values, cur *url.URL) url.Values {
	if cur != nil {
		if s := cur.Query().Get(SourceParam); s != "" {
			v.Set(SourceParam, s)
		}
	}
	return v
}

// DecodeSources decodes an EnvSources value (nil when empty or invalid).
func DecodeSources(env string) []SourceInfo {
	var list []SourceInfo
	if err := json.Unmarshal([]byte(env), &list); err != nil {
		return nil
	}
	return list
}

// SourceAddress is the metricsclient Address of source s (ok: the page
// has a source list): the proxy root of the default source (ProxyAddress)
// or /prom/s/<name>.
func SourceAddress(s SourceInfo, ok bool) string {
	if !ok || s.Default {
		return ProxyAddress
	}
	return ProxyAddress + "/s/" + s.Name
}

// SourceSettings returns the label and scrape interval of source s (ok:
// the page has a source list), or label and scrape unchanged when the
// server configured no source list.
func SourceSettings(s SourceInfo, ok bool, label string, scrape time.Duration) (string, time.Duration) {
	if !ok {
		return label, scrape
	}
	if d, err := time.ParseDuration(s.ScrapeInterval); err == nil && d > 0 {
		scrape = d
	}
	return s.Label, scrape
}

// SwitchSource is the URL of page u reading source name instead: label
// values differ between sources, so only the view settings (range,
// refresh, convention) are kept.
func SwitchSource(u url.URL, name string) string {
	q := u.Query()
	out := url.Values{}
	for _, k := range []string{"range", "refresh", "convention"} {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	out.Set(SourceParam, name)
	u.RawQuery = out.Encode()
	return u.String()
}

// TargetsSummary is the source line of source cur: its label, and for an
// embedded source the count of its targets up and down as the last poll
// saw them (targetErr: why the poll failed, "" when it did not).
func TargetsSummary(cur SourceInfo, targets []metricsclient.Target, targetErr string) string {
	if cur.Kind != KindEmbedded || len(targets) == 0 {
		return cur.Label
	}
	if TargetsUnreachable(targetErr) {
		return cur.Label + ": target status unknown, the specdash server is unreachable"
	}
	up, down := 0, 0
	for _, t := range targets {
		switch t.Health {
		case "up":
			up++
		case "down":
			down++
		}
	}
	n := len(targets)
	return fmt.Sprintf("embedded, scraping %s: %d up, %d down", compute.Quantity(n, "target"), up, down)
}

// DownTargets counts the targets the last poll saw down (none when it
// failed: targetErr).
func DownTargets(targets []metricsclient.Target, targetErr string) int {
	if targetErr != "" {
		return 0
	}
	n := 0
	for _, t := range targets {
		if t.Health == "down" {
			n++
		}
	}
	return n
}

// TargetDown is what the status bar says of down target t: its last scrape
// error ("scrape failed" without one) and that its numbers are stale,
// since lastGood (its last scrape while up, shown in loc, the page's time
// zone; zero when unknown: then it may never have given any, and the text
// says "any numbers").
func TargetDown(t metricsclient.Target, lastGood time.Time, loc *time.Location) (msg, stale string) {
	msg = t.LastError
	if msg == "" {
		msg = "scrape failed"
	}
	if !lastGood.IsZero() {
		return msg, "; its last numbers are kept and shown as they were (stale since " + lastGood.In(loc).Format("15:04:05") + ")"
	}
	// Not seen up on this page: it may never have been (a wrong address).
	return msg, "; any numbers it gave before are kept and shown as they were (stale)"
}

// TargetScraped is what the status bar says of up target t's last scrape,
// in loc (the page's time zone: the source's API gives it in UTC):
// " (scraped 15:04:05)"; "" when unknown.
func TargetScraped(t metricsclient.Target, loc *time.Location) string {
	if t.LastScrape.IsZero() {
		return ""
	}
	return " (scraped " + t.LastScrape.In(loc).Format("15:04:05") + ")"
}

// PreviewStamp is what a pre-rendered chart carries besides its option:
// when the server rendered it and for which page.
type PreviewStamp struct {
	At  int64  // Unix ms, server clock
	URL string // base64url of path?query
}

// StampFor is the stamp of a pre-render of u now.
func StampFor(u *url.URL) PreviewStamp {
	page := u.EscapedPath()
	if page == "" {
		page = "/"
	}
	if u.RawQuery != "" {
		page += "?" + u.RawQuery
	}
	return PreviewStamp{At: time.Now().UnixMilli(), URL: base64.RawURLEncoding.EncodeToString([]byte(page))}
}
