package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's own metrics, served at /metrics.
//
//	specdash_http_requests_total{handler,code,method}      counter
//	specdash_http_request_duration_seconds{handler}        histogram (seconds)
//	specdash_upstream_requests_total{source,endpoint,result} counter;
//	    result: "ok" (2xx), "4xx", "5xx", "error" (no usable answer)
//	specdash_upstream_request_duration_seconds{source,endpoint} histogram
//	specdash_proxy_cache_requests_total{result}             counter;
//	    result: "hit" (answered from the cache), "coalesced" (shared an
//	    identical request in flight), "miss" (went upstream)
//	specdash_proxy_range_cache_requests_total{result}       counter;
//	    query_range requests the range cache took (rangecache.go),
//	    result: "cached" (every point kept), "extended" (kept points and
//	    an upstream request for the others), "whole" (the whole range
//	    upstream)
//	specdash_panics_total{where}                            counter;
//	    where: "http" (a request handler), "proxy" (an upstream fetch);
//	    internal/panics.Total, shared with other parts of the process
//
// handler is one of proxy, assets, app, metrics, health.
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	upstream     *prometheus.CounterVec
	upstreamTime *prometheus.HistogramVec
	cache        *prometheus.CounterVec
	rangeCache   *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "specdash_http_requests_total",
			Help: "HTTP requests served by specdash, by handler, status code and method.",
		}, []string{"handler", "code", "method"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "specdash_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by handler (seconds).",
			Buckets: prometheus.DefBuckets,
		}, []string{"handler"}),
		upstream: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "specdash_upstream_requests_total",
			Help: "Requests the proxy sent to its upstream sources, by source, API endpoint and result (ok, 4xx, 5xx, error).",
		}, []string{"source", "endpoint", "result"}),
		upstreamTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "specdash_upstream_request_duration_seconds",
			Help:    "Latency of the proxy's upstream requests, by source and API endpoint (seconds).",
			Buckets: prometheus.DefBuckets,
		}, []string{"source", "endpoint"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "specdash_proxy_cache_requests_total",
			Help: "Proxy requests by cache result: hit (cached answer), coalesced (joined an identical request in flight), miss (went upstream).",
		}, []string{"result"}),
		rangeCache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "specdash_proxy_range_cache_requests_total",
			Help: "Range queries the proxy's range cache took, by result: cached (every point kept), extended (kept points and an upstream request for the others), whole (the whole range upstream).",
		}, []string{"result"}),
	}
	reg.MustRegister(m.requests, m.duration, m.upstream, m.upstreamTime, m.cache, m.rangeCache)
	for _, r := range []string{"cached", "extended", "whole"} {
		m.rangeCache.WithLabelValues(r)
	}
	for _, r := range []string{"hit", "coalesced", "miss"} {
		m.cache.WithLabelValues(r)
	}
	return m
}

// instrument counts and times h's requests under the handler label name.
func (m *metrics) instrument(name string, h http.Handler) http.Handler {
	return promhttp.InstrumentHandlerDuration(
		m.duration.MustCurryWith(prometheus.Labels{"handler": name}),
		promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(prometheus.Labels{"handler": name}), h))
}

// handler serves the registry (with the Go and process collectors when the
// registry is specdash's own).
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// defaultRegistry is a fresh registry with the Go and process collectors.
func defaultRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
