package server

import (
	"cmp"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"

	"specdash/metricsclient"
)

// The range cache keeps the settled points of query_range answers, so that
// a window that moved on by a few steps (a new viewer's load a minute after
// another's, a reload, the pre-render and then the browser) asks the source
// only for the points it has not answered yet, as the query frontends of
// Thanos, Cortex and Mimir do (their "results cache"). At 1,024 engines the
// source's work for the dashboard's range queries grows with engines ×
// points (docs/PERFORMANCE.md, "Scale"); a window's settled points are read
// once, not once per viewer and load.
//
// A point is settled when it is older than the freshness margin
// (rangeFreshness): every sample at or before it has been scraped and
// ingested, so the source's value there no longer changes. Only
// step-local queries are kept (metricsclient.StepLocal: no `@`, no
// subquery), whose value at a point does not depend on the query's start
// or end, so that the answer over a grid is the union of the answers over
// its parts. Answers with warnings, infos or native histograms, and
// requests with parameters other than query, start, end and step, pass as
// before. An entry is rebuilt after rangeMaxAge (data backfilled into the
// past since, or deleted, shows then) and dropped after rangeMaxIdle
// unused: a dashboard opened at least hourly finds its window's settled
// points kept.

const (
	// rangeFreshness is the least age of a kept point (VictoriaMetrics'
	// -search.cacheTimestampOffset is 5 m too; Mimir's
	// max_cache_freshness 10 m). At least 3 scrape intervals.
	rangeFreshness = 5 * time.Minute
	rangeMaxAge    = 24 * time.Hour
	rangeMaxIdle   = time.Hour
	rangeMaxBytes  = 64 << 20
	// rangeMaxPoints is Prometheus' own bound on the points of a range
	// query's series (11,000): a longer one goes upstream to be refused
	// there, not merged here from parts that each fit.
	rangeMaxPoints = 11000
)

// rangeRequest is a query_range request the range cache can answer: a
// step-local query over a grid of whole milliseconds.
type rangeRequest struct {
	key              string // source, step, grid phase and query
	params           url.Values
	start, end, step int64 // ms; end - start is a multiple of step
}

// parseRangeRequest returns the request's grid when the range cache may
// answer it.
func parseRangeRequest(source string, params url.Values) (rangeRequest, bool) {
	for k, v := range params {
		switch k {
		case "query", "start", "end", "step":
			if len(v) != 1 {
				return rangeRequest{}, false
			}
		default:
			return rangeRequest{}, false
		}
	}
	start, ok1 := parseAPITime(params.Get("start"))
	end, ok2 := parseAPITime(params.Get("end"))
	step, ok3 := parseAPIStep(params.Get("step"))
	if !ok1 || !ok2 || !ok3 || step <= 0 || end < start || (end-start)%step != 0 || (end-start)/step >= rangeMaxPoints {
		return rangeRequest{}, false
	}
	q := params.Get("query")
	if !metricsclient.StepLocal(q) {
		return rangeRequest{}, false
	}
	phase := ((start % step) + step) % step
	return rangeRequest{
		key:    source + "\x00" + strconv.FormatInt(step, 10) + "\x00" + strconv.FormatInt(phase, 10) + "\x00" + q,
		params: params, start: start, end: end, step: step,
	}, true
}

// parseAPITime reads a time parameter as the Prometheus API does (Unix
// seconds, or RFC 3339), in milliseconds, when it is a whole second (the
// dashboard's grids are): Prometheus rounds fractions of a millisecond
// its own way, which the range cache does not redo.
func parseAPITime(s string) (int64, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) > 1e11 || f != math.Trunc(f) {
			return 0, false
		}
		return int64(f) * 1000, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Nanosecond() != 0 {
		return 0, false
	}
	return t.Unix() * 1000, true
}

// parseAPIStep reads a step parameter as the Prometheus API does (seconds,
// or a Prometheus duration), in milliseconds, when it is whole seconds
// (Prometheus truncates a fractional step to nanoseconds first, then to
// milliseconds: 1.025 s is 1024 ms to it).
func parseAPIStep(s string) (int64, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || f < 1 || f > 1e9 || f != math.Trunc(f) {
			return 0, false
		}
		return int64(f) * 1000, true
	}
	d, err := model.ParseDuration(s)
	if err != nil || d <= 0 || time.Duration(d)%time.Second != 0 {
		return 0, false
	}
	return time.Duration(d).Milliseconds(), true
}

// fmtAPITime writes ms as Unix seconds, exactly.
func fmtAPITime(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

// partParams are the request's parameters over the grid points from..to.
func (rr rangeRequest) partParams(from, to int64) url.Values {
	v := url.Values{}
	for k, vs := range rr.params {
		v[k] = slices.Clone(vs)
	}
	v.Set("start", fmtAPITime(from))
	v.Set("end", fmtAPITime(to))
	return v
}

// extent is the settled part of a query's answers: every grid point from
// from to to (ms, inclusive), the series sorted by key.
type extent struct {
	from, to int64
	series   []rangeSeries
	size     int
	made     time.Time
	used     time.Time
}

type rangeSeries struct {
	// key is the label set's text (labels.Labels.String: every value
	// quoted, so that two label sets never share it, where
	// model.Metric.String writes a metric name's braces unquoted); lbls
	// orders the series as Prometheus does (labels.Compare).
	key    string
	lbls   labels.Labels
	metric model.Metric
	points []model.SamplePair // ascending
}

type rangeCache struct {
	mu      sync.Mutex
	entries map[string]*extent
	bytes   int
}

func newRangeCache() *rangeCache { return &rangeCache{entries: map[string]*extent{}} }

// get returns the key's extent (never changed once stored) or nil.
func (c *rangeCache) get(key string, now time.Time) *extent {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil {
		return nil
	}
	if now.Sub(e.made) >= rangeMaxAge || now.Sub(e.used) >= rangeMaxIdle {
		c.bytes -= e.size
		delete(c.entries, key)
		return nil
	}
	e.used = now
	return e
}

// put stores e under key, evicting the least recently used entries over
// rangeMaxBytes.
func (c *rangeCache) put(key string, e *extent) {
	if e.size > rangeMaxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.entries[key]; old != nil {
		c.bytes -= old.size
	}
	c.entries[key] = e
	c.bytes += e.size
	for c.bytes > rangeMaxBytes {
		var lru string
		for k, x := range c.entries {
			if k != key && (lru == "" || x.used.Before(c.entries[lru].used)) {
				lru = k
			}
		}
		if lru == "" {
			break
		}
		c.bytes -= c.entries[lru].size
		delete(c.entries, lru)
	}
}

// decodeRange returns an answer's series when the range cache can keep
// them: a matrix of float samples without warnings or infos, read as the
// dashboard's client reads it (metricsclient.DecodeRangeMatrix).
func decodeRange(body []byte) (model.Matrix, bool) {
	m, ok := metricsclient.DecodeRangeMatrix(body)
	if !ok {
		return nil, false
	}
	for _, s := range m {
		if len(s.Histograms) > 0 {
			return nil, false
		}
	}
	return m, true
}

// mergeRange joins the points of parts (in time order of their ranges, which
// do not overlap) within from..to, by series.
func mergeRange(from, to int64, parts ...[]rangeSeries) []rangeSeries {
	idx := map[string]int{}
	var out []rangeSeries
	for _, part := range parts {
		for _, s := range part {
			lo, _ := slices.BinarySearchFunc(s.points, from, byTime)
			hi, _ := slices.BinarySearchFunc(s.points, to+1, byTime)
			if lo >= hi {
				continue
			}
			i, ok := idx[s.key]
			if !ok {
				i = len(out)
				idx[s.key] = i
				out = append(out, rangeSeries{key: s.key, lbls: s.lbls, metric: s.metric})
			}
			out[i].points = append(out[i].points, s.points[lo:hi]...)
		}
	}
	slices.SortFunc(out, func(a, b rangeSeries) int { return labels.Compare(a.lbls, b.lbls) })
	return out
}

// byTime compares a point's time with t (ms), for binary searches.
func byTime(p model.SamplePair, t int64) int { return cmp.Compare(int64(p.Timestamp), t) }

// seriesOf keys a decoded matrix' series.
func seriesOf(m model.Matrix) []rangeSeries {
	out := make([]rangeSeries, len(m))
	for i, s := range m {
		l := make(map[string]string, len(s.Metric))
		for k, v := range s.Metric {
			l[string(k)] = string(v)
		}
		ls := labels.FromMap(l)
		out[i] = rangeSeries{key: ls.String(), lbls: ls, metric: s.Metric, points: s.Values}
	}
	return out
}

// newExtent holds ss' points within from..to.
func newExtent(from, to int64, ss []rangeSeries, now time.Time) *extent {
	e := &extent{from: from, to: to, series: mergeRange(from, to, ss), made: now, used: now}
	for _, s := range e.series {
		e.size += 64 + 2*len(s.key) + 16*len(s.points)
	}
	return e
}

// encodeRange writes series as a Prometheus query_range answer: values as
// Prometheus formats them (shortest decimal, "NaN", "+Inf", "-Inf"),
// timestamps in seconds.
func encodeRange(series []rangeSeries) []byte {
	n := 64
	for _, s := range series {
		n += 32 + len(s.key) + 32*len(s.points)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"status":"success","data":{"resultType":"matrix","result":[`...)
	for i, s := range series {
		if i > 0 {
			b = append(b, ',')
		}
		m, _ := json.Marshal(s.metric)
		b = append(b, `{"metric":`...)
		b = append(b, m...)
		b = append(b, `,"values":[`...)
		for j, p := range s.points {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendFloat(b, float64(p.Timestamp)/1000, 'f', -1, 64)
			b = append(b, `,"`...)
			b = strconv.AppendFloat(b, float64(p.Value), 'f', -1, 64)
			b = append(b, `"]`...)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}}"...)
}

// rangeFetch answers a cacheable query_range request: from the settled
// points kept for its query and upstream requests for the rest of its grid
// (at most two: before and after the kept points), or, when nothing kept
// overlaps or adjoins the grid, with whole() (the request as it came).
// The settled points of what it read are kept for the next request.
func (p *proxy) rangeFetch(src *upstream, method string, rr rangeRequest, whole func() (*answer, error)) (*answer, error) {
	now := p.now()
	// The newest settled grid point.
	settled := now.Add(-p.rangeFresh).UnixMilli()
	phase := ((rr.start % rr.step) + rr.step) % rr.step
	settled -= ((settled-phase)%rr.step + rr.step) % rr.step

	e := p.ranges.get(rr.key, now)
	if e == nil || e.to+rr.step < rr.start || e.from-rr.step > rr.end {
		p.metrics.rangeCache.WithLabelValues("whole").Inc()
		a, err := whole()
		if err != nil || a.status != 200 || settled < rr.start || len(a.body) > rangeMaxBytes/4 {
			return a, err
		}
		if m, ok := decodeRange(a.body); ok {
			p.ranges.put(rr.key, newExtent(rr.start, min(rr.end, settled), seriesOf(m), now))
		}
		return a, nil
	}

	var before, after []rangeSeries
	for i, part := range [][2]int64{{rr.start, e.from - rr.step}, {e.to + rr.step, rr.end}} {
		if part[0] > part[1] {
			continue
		}
		v := rr.partParams(part[0], part[1])
		var a *answer
		var err error
		if method == "GET" {
			a, err = p.fetch(src, "query_range", method, v.Encode(), nil, "")
		} else {
			a, err = p.fetch(src, "query_range", method, "", []byte(v.Encode()), "application/x-www-form-urlencoded")
		}
		if err != nil || a.status != 200 {
			return a, err
		}
		m, ok := decodeRange(a.body)
		if !ok {
			// Warnings, histograms: the request as it came.
			p.metrics.rangeCache.WithLabelValues("whole").Inc()
			return whole()
		}
		if i == 0 {
			before = seriesOf(m)
		} else {
			after = seriesOf(m)
		}
	}
	if before == nil && after == nil {
		p.metrics.rangeCache.WithLabelValues("cached").Inc()
	} else {
		p.metrics.rangeCache.WithLabelValues("extended").Inc()
	}
	merged := mergeRange(rr.start, rr.end, before, e.series, after)
	body := encodeRange(merged)
	if int64(len(body)) > p.maxResp {
		return nil, errTooLarge
	}
	// Keep the settled points of the kept and the new ones, at most twice
	// this window back from its end.
	from, to := min(rr.start, e.from), min(max(rr.end, e.to), settled)
	from = max(from, rr.end-2*(rr.end-rr.start))
	if to >= from && (before != nil || after != nil) {
		p.ranges.put(rr.key, newExtent(from, to, mergeRange(from, to, before, e.series, after), now))
	}
	return &answer{status: 200, ctype: "application/json", body: body}, nil
}
