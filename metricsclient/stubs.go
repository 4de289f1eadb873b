package metricsclient

// CONTRACT STUBS: the metricsclient helper replaces this file (same names and
// signatures; more may be added).

import (
	"context"
	"net/http"
	"time"

	"specdash/compute"
)

// Config configures a Client.
type Config struct {
	// Address of the Prometheus HTTP API root, e.g. "http://127.0.0.1:9090"
	// or, in the browser, the same-origin proxy "/prom".
	Address string
	// RoundTripper; nil means http.DefaultTransport (required in wasm).
	RoundTripper http.RoundTripper
	// ScrapeInterval of the source (default 15 s); the step never goes below it.
	ScrapeInterval time.Duration
}

// Filter selects series whose label Name equals one of Values (empty Values:
// no constraint). Values are escaped when put into PromQL.
type Filter struct {
	Name   string
	Values []string
}

// Client queries one Prometheus-compatible source.
type Client struct{}

func New(cfg Config) (*Client, error) { panic("todo") }

// FetchSeries returns the four vLLM V1 spec-decode counters (never _created)
// matching filters, as values at the grid's step points.
func (c *Client) FetchSeries(ctx context.Context, g compute.Grid, filters []Filter) ([]compute.Series, []string, error) {
	panic("todo")
}

// LabelValues returns the values of label among the spec-decode series.
func (c *Client) LabelValues(ctx context.Context, label string, filters []Filter, start, end time.Time) ([]string, error) {
	panic("todo")
}

// ChooseStep picks the step for a range: never below the scrape interval.
func ChooseStep(rng, scrapeInterval time.Duration) time.Duration { panic("todo") }

// AlignGrid returns the grid of length rng ending at end rounded down to step.
func AlignGrid(end time.Time, rng, step time.Duration) compute.Grid { panic("todo") }
