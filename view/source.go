package view

import (
	"encoding/json"
	"net/url"
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
