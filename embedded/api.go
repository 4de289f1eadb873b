package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/scrape"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/util/annotations"
)

// This file serves the read-only Prometheus HTTP API subset specdash uses,
// written after github.com/prometheus/prometheus/web/api/v1 (api.go,
// json_codec.go, util/jsonutil) v0.316.0: same paths, parameters, JSON
// shapes, error types and HTTP codes. web/api/v1's NewAPI is not used: its
// 45-parameter constructor and its imports (remote write/OTLP, rules,
// alertmanager, OpenAPI) cost far more than these handlers.

// Version is what /api/v1/status/buildinfo reports as "version": the
// Prometheus library version, marked as embedded in specdash.
const Version = "3.16.0-specdash-embedded"

// Error types and HTTP codes of web/api/v1 (getDefaultErrorCode).
const (
	errorTimeout   = "timeout"
	errorCanceled  = "canceled"
	errorExec      = "execution"
	errorBadData   = "bad_data"
	errorInternal  = "internal"
	errorCostLimit = "cost_limit"

	statusClientClosedConnection = 499
	// maxPoints is Prometheus' limit of points per series of a range query.
	maxPoints = 11000
)

type apiError struct {
	typ string
	err error
}

func (e *apiError) code() int {
	switch e.typ {
	case errorBadData:
		return http.StatusBadRequest
	case errorExec, errorCostLimit:
		return http.StatusUnprocessableEntity
	case errorCanceled:
		return statusClientClosedConnection
	case errorTimeout:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// response is web/api/v1's Response.
type response struct {
	Status    string   `json:"status"`
	Data      any      `json:"data,omitempty"`
	ErrorType string   `json:"errorType,omitempty"`
	Error     string   `json:"error,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	Infos     []string `json:"infos,omitempty"`
}

type apiResult struct {
	data     any
	err      *apiError
	warnings annotations.Annotations
}

type apiFunc func(r *http.Request) apiResult

// Handler serves, at Prometheus' paths, GET and POST (form bodies):
//
//	/api/v1/query             (query, time, timeout, limit, lookback_delta)
//	/api/v1/query_range       (query, start, end, step, timeout, limit, lookback_delta)
//	/api/v1/labels            (match[], start, end, limit)
//	/api/v1/label/<name>/values (GET; match[], start, end, limit)
//	/api/v1/series            (match[] required, start, end, limit)
//	/api/v1/status/buildinfo  (GET)
//	/api/v1/targets           (GET; state=active|dropped|any; activeTargets in
//	                          Prometheus' shape, droppedTargets always empty)
//
// Success: {"status":"success","data":...,"warnings"?,"infos"?}, HTTP 200.
// Errors: {"status":"error","errorType":"bad_data"|"execution"|"timeout"|
// "canceled"|"internal"|"cost_limit","error":"..."} with HTTP 400, 422,
// 503, 499, 500 and 422 as Prometheus. Other paths: 404; other methods: 405.
func (e *Engine) Handler() http.Handler {
	mux := http.NewServeMux()
	both := func(path string, f apiFunc) {
		mux.HandleFunc("GET "+path, e.wrap(f))
		mux.HandleFunc("POST "+path, e.wrap(f))
	}
	both("/api/v1/query", e.query)
	both("/api/v1/query_range", e.queryRange)
	both("/api/v1/labels", e.labelNames)
	both("/api/v1/series", e.series)
	mux.HandleFunc("GET /api/v1/label/{name}/values", e.wrap(e.labelValues))
	mux.HandleFunc("GET /api/v1/status/buildinfo", e.wrap(e.buildInfo))
	mux.HandleFunc("GET /api/v1/targets", e.wrap(e.targets))
	return mux
}

func (e *Engine) wrap(f apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				e.respondError(w, &apiError{errorInternal, e.recovered("query", r.URL.Path, p)})
			}
		}()
		if err := r.ParseForm(); err != nil {
			e.respondError(w, &apiError{errorBadData, fmt.Errorf("error parsing form values: %w", err)})
			return
		}
		res := f(r)
		if res.err != nil {
			e.respondError(w, res.err)
			return
		}
		warn, info := res.warnings.AsStrings(r.FormValue("query"), 10, 10)
		b, err := json.Marshal(&response{Status: "success", Data: res.data, Warnings: warn, Infos: info})
		if err != nil {
			e.log.Error("error marshaling response", "url", r.URL, "err", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
	}
}

func (e *Engine) respondError(w http.ResponseWriter, apiErr *apiError) {
	b, err := json.Marshal(&response{Status: "error", ErrorType: apiErr.typ, Error: apiErr.err.Error()})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(apiErr.code())
	_, _ = w.Write(b)
}

func invalidParam(err error, name string) apiResult {
	return apiResult{err: &apiError{errorBadData, fmt.Errorf("invalid parameter %q: %w", name, err)}}
}

// returnAPIError classifies a query or storage error as web/api/v1 does.
func returnAPIError(err error) *apiError {
	var eqc promql.ErrQueryCanceled
	var eqt promql.ErrQueryTimeout
	var es promql.ErrStorage
	var etms promql.ErrTooManySeries
	var etmss promql.ErrTooManySamplesRead
	var qte *QueueTimeoutError
	switch {
	case errors.As(err, &qte):
		// Not in web/api/v1, whose tracker wait ends in a bare context
		// error (execution, 422): a timeout is a timeout.
		if errors.Is(err, context.Canceled) {
			return &apiError{errorCanceled, err}
		}
		return &apiError{errorTimeout, err}
	case errors.As(err, &eqc):
		return &apiError{errorCanceled, err}
	case errors.As(err, &eqt):
		return &apiError{errorTimeout, err}
	case errors.As(err, &etms), errors.As(err, &etmss):
		return &apiError{errorCostLimit, err}
	case errors.As(err, &es):
		return &apiError{errorInternal, err}
	case errors.Is(err, context.Canceled):
		return &apiError{errorCanceled, err}
	}
	return &apiError{errorExec, err}
}

func queryConstructionError(err error) *apiError {
	var eqt promql.ErrQueryTimeout
	var eqc promql.ErrQueryCanceled
	var qte *QueueTimeoutError
	if errors.As(err, &eqt) || errors.As(err, &eqc) || errors.As(err, &qte) {
		return returnAPIError(err)
	}
	return &apiError{errorBadData, fmt.Errorf("invalid parameter %q: %w", "query", err)}
}

// queryData is web/api/v1's QueryData (no stats).
type queryData struct {
	ResultType parser.ValueType `json:"resultType"`
	Result     any              `json:"result"`
}

// queryCtx is the request's context bounded by its timeout parameter and
// by Config.QueryTimeout: the engine applies QueryTimeout to evaluation
// only, not to the wait for a slot while the query is parsed
// (promql.Engine.NewInstantQuery's queueActive), which would otherwise
// wait as long as the client does.
func (e *Engine) queryCtx(r *http.Request) (context.Context, context.CancelFunc, *apiError) {
	ctx := r.Context()
	d := e.cfg.QueryTimeout
	if to := r.FormValue("timeout"); to != "" {
		pd, err := parseDuration(to)
		if err != nil {
			return nil, nil, &apiError{errorBadData, fmt.Errorf("invalid parameter %q: %w", "timeout", err)}
		}
		if pd > 0 && pd < d {
			d = pd
		}
	}
	if d > 0 {
		c, cancel := context.WithTimeout(ctx, d)
		return c, cancel, nil
	}
	return ctx, func() {}, nil
}

func (e *Engine) queryOpts(r *http.Request) (promql.QueryOpts, error) {
	var lookback time.Duration
	if s := r.FormValue("lookback_delta"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("error parsing lookback delta duration: %w", err)
		}
		lookback = d
	}
	return promql.NewPrometheusQueryOpts(false, lookback, nil), nil
}

func (e *Engine) query(r *http.Request) apiResult {
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	ts, err := parseTimeParam(r, "time", time.Now())
	if err != nil {
		return invalidParam(err, "time")
	}
	ctx, cancel, apiErr := e.queryCtx(r)
	if apiErr != nil {
		return apiResult{err: apiErr}
	}
	defer cancel()
	opts, err := e.queryOpts(r)
	if err != nil {
		return apiResult{err: &apiError{errorBadData, err}}
	}
	qry, err := e.qe.NewInstantQuery(ctx, e.queryable, opts, r.FormValue("query"), ts)
	if err != nil {
		return apiResult{err: queryConstructionError(err)}
	}
	defer qry.Close()
	return e.execQuery(ctx, qry, limit)
}

func (e *Engine) queryRange(r *http.Request) apiResult {
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	start, err := parseTime(r.FormValue("start"))
	if err != nil {
		return invalidParam(err, "start")
	}
	end, err := parseTime(r.FormValue("end"))
	if err != nil {
		return invalidParam(err, "end")
	}
	if end.Before(start) {
		return invalidParam(errors.New("end timestamp must not be before start time"), "end")
	}
	step, err := parseDuration(r.FormValue("step"))
	if err != nil {
		return invalidParam(err, "step")
	}
	if step <= 0 {
		return invalidParam(errors.New("zero or negative query resolution step widths are not accepted. Try a positive integer"), "step")
	}
	if end.Sub(start)/step > maxPoints {
		return apiResult{err: &apiError{errorBadData, errors.New("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)")}}
	}
	ctx, cancel, apiErr := e.queryCtx(r)
	if apiErr != nil {
		return apiResult{err: apiErr}
	}
	defer cancel()
	opts, err := e.queryOpts(r)
	if err != nil {
		return apiResult{err: &apiError{errorBadData, err}}
	}
	qry, err := e.qe.NewRangeQuery(ctx, e.queryable, opts, r.FormValue("query"), start, end, step)
	if err != nil {
		return apiResult{err: queryConstructionError(err)}
	}
	defer qry.Close()
	return e.execQuery(ctx, qry, limit)
}

// execQuery runs qry and encodes its value while the query is open (its
// result refers to pooled memory released by Close).
func (e *Engine) execQuery(ctx context.Context, qry promql.Query, limit int) apiResult {
	res := qry.Exec(ctx)
	if res.Err != nil {
		return apiResult{err: returnAPIError(e.describeQueryError(res.Err)), warnings: res.Warnings}
	}
	warnings := res.Warnings
	var out any
	switch v := res.Value.(type) {
	case promql.Matrix:
		if limit > 0 && len(v) > limit {
			v = v[:limit]
			warnings = warnings.Add(errors.New("results truncated due to limit"))
		}
		out = encodeMatrix(v)
	case promql.Vector:
		if limit > 0 && len(v) > limit {
			v = v[:limit]
			warnings = warnings.Add(errors.New("results truncated due to limit"))
		}
		out = encodeVector(v)
	case promql.Scalar:
		out = jsonPoint{T: v.T, F: v.V}
	case promql.String:
		out = [2]any{jsonTime(v.T), v.V}
	default:
		return apiResult{err: &apiError{errorInternal, fmt.Errorf("unexpected result type %T", res.Value)}}
	}
	// Encode now: the value's memory is pooled and reused after Close.
	b, err := json.Marshal(queryData{ResultType: res.Value.Type(), Result: out})
	if err != nil {
		return apiResult{err: &apiError{errorInternal, err}}
	}
	return apiResult{data: json.RawMessage(b), warnings: warnings}
}

func (e *Engine) labelNames(r *http.Request) apiResult {
	return e.labelSet(r, returnAPIError, func(ctx context.Context, q storage.Querier, hints *storage.LabelHints, ms []*labels.Matcher) ([]string, annotations.Annotations, error) {
		return q.LabelNames(ctx, hints, ms...)
	})
}

func (e *Engine) labelValues(r *http.Request) apiResult {
	name := r.PathValue("name")
	if strings.HasPrefix(name, "U__") {
		name = model.UnescapeName(name, model.ValueEncodingEscaping)
	}
	if !model.UTF8Validation.IsValidLabelName(name) {
		return apiResult{err: &apiError{errorBadData, fmt.Errorf("invalid label name: %q", name)}}
	}
	execErr := func(err error) *apiError { return &apiError{errorExec, err} }
	return e.labelSet(r, execErr, func(ctx context.Context, q storage.Querier, hints *storage.LabelHints, ms []*labels.Matcher) ([]string, annotations.Annotations, error) {
		return q.LabelValues(ctx, name, hints, ms...)
	})
}

// labelSet is what the label names and label values handlers share, as in
// Prometheus' web/api/v1: limit, start, end and match[] parsed (bad_data
// errors), get called once per matcher set (once with none when no
// match[] is given), the union sorted and cut to limit. Storage errors
// become apiErr(err), as each handler reports them in Prometheus.
func (e *Engine) labelSet(r *http.Request, apiErr func(error) *apiError, get func(context.Context, storage.Querier, *storage.LabelHints, []*labels.Matcher) ([]string, annotations.Annotations, error)) apiResult {
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	start, end, res, ok := parseRange(r)
	if !ok {
		return res
	}
	sets, err := e.parseMatchers(r.Form["match[]"])
	if err != nil {
		return apiResult{err: &apiError{errorBadData, err}}
	}
	q, err := e.db.Querier(timestamp.FromTime(start), timestamp.FromTime(end))
	if err != nil {
		return apiResult{err: apiErr(err)}
	}
	defer q.Close()
	hints := &storage.LabelHints{Limit: hintLimit(limit)}
	var warnings annotations.Annotations
	set := map[string]struct{}{}
	if len(sets) == 0 {
		sets = [][]*labels.Matcher{nil}
	}
	for _, ms := range sets {
		vals, w, err := get(r.Context(), q, hints, ms)
		if err != nil {
			return apiResult{err: apiErr(err), warnings: warnings}
		}
		warnings.Merge(w)
		for _, v := range vals {
			set[v] = struct{}{}
		}
	}
	return sortedResult(set, limit, warnings)
}

func (e *Engine) series(r *http.Request) apiResult {
	if len(r.Form["match[]"]) == 0 {
		return apiResult{err: &apiError{errorBadData, errors.New("no match[] parameter provided")}}
	}
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	start, end, res, ok := parseRange(r)
	if !ok {
		return res
	}
	sets, err := e.parseMatchers(r.Form["match[]"])
	if err != nil {
		return invalidParam(err, "match[]")
	}
	q, err := e.db.Querier(timestamp.FromTime(start), timestamp.FromTime(end))
	if err != nil {
		return apiResult{err: returnAPIError(err)}
	}
	defer q.Close()
	hints := &storage.SelectHints{Start: timestamp.FromTime(start), End: timestamp.FromTime(end), Func: "series", Limit: hintLimit(limit)}
	var set storage.SeriesSet
	if len(sets) > 1 {
		var ss []storage.SeriesSet
		for _, ms := range sets {
			ss = append(ss, q.Select(r.Context(), true, hints, ms...))
		}
		set = storage.NewMergeSeriesSet(ss, 0, storage.ChainedSeriesMerge)
	} else {
		set = q.Select(r.Context(), false, hints, sets[0]...)
	}
	metrics := []labels.Labels{}
	warnings := set.Warnings()
	for set.Next() {
		metrics = append(metrics, set.At().Labels())
		if limit > 0 && len(metrics) > limit {
			metrics = metrics[:limit]
			warnings = warnings.Add(errors.New("results truncated due to limit"))
			break
		}
	}
	if err := set.Err(); err != nil {
		return apiResult{err: returnAPIError(err), warnings: warnings}
	}
	return apiResult{data: metrics, warnings: warnings}
}

// buildInfo is web/api/v1's PrometheusVersion.
type buildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	Branch    string `json:"branch"`
	BuildUser string `json:"buildUser"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
}

func (e *Engine) buildInfo(*http.Request) apiResult {
	return apiResult{data: buildInfo{
		Version:   Version,
		Revision:  "embedded",
		Branch:    "specdash",
		BuildUser: "specdash",
		BuildDate: "",
		GoVersion: runtime.Version(),
	}}
}

// apiTarget is web/api/v1's Target.
type apiTarget struct {
	DiscoveredLabels   labels.Labels `json:"discoveredLabels"`
	Labels             labels.Labels `json:"labels"`
	ScrapePool         string        `json:"scrapePool"`
	ScrapeURL          string        `json:"scrapeUrl"`
	GlobalURL          string        `json:"globalUrl"`
	LastError          string        `json:"lastError"`
	LastScrape         time.Time     `json:"lastScrape"`
	LastScrapeDuration float64       `json:"lastScrapeDuration"`
	Health             string        `json:"health"`
	ScrapeInterval     string        `json:"scrapeInterval"`
	ScrapeTimeout      string        `json:"scrapeTimeout"`
}

type targetDiscovery struct {
	ActiveTargets       []*apiTarget   `json:"activeTargets"`
	DroppedTargets      []any          `json:"droppedTargets"`
	DroppedTargetCounts map[string]int `json:"droppedTargetCounts"`
}

func (e *Engine) targets(r *http.Request) apiResult {
	state := strings.ToLower(r.FormValue("state"))
	res := &targetDiscovery{ActiveTargets: []*apiTarget{}, DroppedTargets: []any{}, DroppedTargetCounts: map[string]int{e.cfg.JobName: 0}}
	if state != "" && state != "active" && state != "any" {
		return apiResult{data: res}
	}
	lb := labels.NewBuilder(labels.EmptyLabels())
	iv := model.Duration(e.cfg.ScrapeInterval).String()
	storageErr := e.StorageError()
	for _, t := range e.activeTargets() {
		u := t.URL().String()
		h, err := targetReport(t)
		lastErr, health := e.describeScrapeError(u, err), string(h)
		if storageErr != "" {
			// The target answers, but its samples are not stored.
			lastErr, health = storageErr, string(scrape.HealthBad)
		}
		res.ActiveTargets = append(res.ActiveTargets, &apiTarget{
			DiscoveredLabels:   t.DiscoveredLabels(lb),
			Labels:             t.Labels(lb),
			ScrapePool:         e.cfg.JobName,
			ScrapeURL:          u,
			GlobalURL:          u,
			LastError:          lastErr,
			LastScrape:         t.LastScrape(),
			LastScrapeDuration: t.LastScrapeDuration().Seconds(),
			Health:             health,
			ScrapeInterval:     iv,
			ScrapeTimeout:      iv,
		})
	}
	return apiResult{data: res}
}

// parseMatchers parses match[] selectors; each set must have a matcher
// that does not match the empty string (as Prometheus).
func (e *Engine) parseMatchers(ms []string) ([][]*labels.Matcher, error) {
	sets, err := e.parser.ParseMetricSelectors(ms)
	if err != nil {
		return nil, err
	}
outer:
	for _, set := range sets {
		for _, m := range set {
			if m != nil && !m.Matches("") {
				continue outer
			}
		}
		return nil, errors.New("match[] must contain at least one non-empty matcher")
	}
	return sets, nil
}

// minTime and maxTime are web/api/v1's MinTime and MaxTime, the defaults
// of optional start and end.
var (
	minTime = time.Unix(math.MinInt64/1000+62135596801, 0).UTC()
	maxTime = time.Unix(math.MaxInt64/1000-62135596801, 999999999).UTC()

	minTimeFormatted = minTime.Format(time.RFC3339Nano)
	maxTimeFormatted = maxTime.Format(time.RFC3339Nano)
)

func parseRange(r *http.Request) (start, end time.Time, res apiResult, ok bool) {
	start, err := parseTimeParam(r, "start", minTime)
	if err != nil {
		return start, end, invalidParam(err, "start"), false
	}
	end, err = parseTimeParam(r, "end", maxTime)
	if err != nil {
		return start, end, invalidParam(err, "end"), false
	}
	return start, end, apiResult{}, true
}

func parseTimeParam(r *http.Request, name string, def time.Time) (time.Time, error) {
	v := r.FormValue(name)
	if v == "" {
		return def, nil
	}
	t, err := parseTime(v)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time value for '%s': %w", name, err)
	}
	return t, nil
}

// parseTime accepts Unix seconds (float) and RFC 3339, as Prometheus.
func parseTime(s string) (time.Time, error) {
	if t, err := strconv.ParseFloat(s, 64); err == nil {
		s, ns := math.Modf(t)
		ns = math.Round(ns*1000) / 1000
		return time.Unix(int64(s), int64(ns*float64(time.Second))).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	switch s {
	case minTimeFormatted:
		return minTime, nil
	case maxTimeFormatted:
		return maxTime, nil
	}
	return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
}

// parseDuration accepts seconds (float) and Prometheus durations ("15s").
func parseDuration(s string) (time.Duration, error) {
	if d, err := strconv.ParseFloat(s, 64); err == nil {
		ts := d * float64(time.Second)
		if math.IsNaN(ts) || ts >= float64(math.MaxInt64) || ts < float64(math.MinInt64) {
			return 0, fmt.Errorf("cannot parse %q to a valid duration. It overflows int64", s)
		}
		return time.Duration(ts), nil
	}
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), nil
	}
	return 0, fmt.Errorf("cannot parse %q to a valid duration", s)
}

func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errors.New("limit must be non-negative")
	}
	return n, nil
}

func hintLimit(limit int) int {
	if limit > 0 && limit < math.MaxInt {
		return limit + 1
	}
	return limit
}

// JSON encoding of query results, as web/api/v1's json_codec.go and
// util/jsonutil: timestamps as Unix seconds with up to 3 decimals, values
// as strings ("NaN", "+Inf", exponent form below 1e-6 and from 1e21).

type jsonTime int64

func (t jsonTime) MarshalJSON() ([]byte, error) {
	ms := int64(t)
	var b []byte
	if ms < 0 {
		b = append(b, '-')
		ms = -ms
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	if f := ms % 1000; f != 0 {
		b = append(b, '.')
		if f < 100 {
			b = append(b, '0')
		}
		if f < 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, f, 10)
	}
	return b, nil
}

func formatFloat(f float64) string {
	abs := math.Abs(f)
	fmtc := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmtc = 'e'
	}
	return strconv.FormatFloat(f, fmtc, -1, 64)
}

type jsonPoint struct {
	T int64
	F float64
}

func (p jsonPoint) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]any{jsonTime(p.T), formatFloat(p.F)})
}

type jsonSeries struct {
	Metric     labels.Labels   `json:"metric"`
	Values     []jsonPoint     `json:"values,omitempty"`
	Histograms []promql.HPoint `json:"histograms,omitempty"`
}

type jsonSample struct {
	Metric    labels.Labels  `json:"metric"`
	Value     *jsonPoint     `json:"value,omitempty"`
	Histogram *promql.HPoint `json:"histogram,omitempty"`
}

func encodeMatrix(m promql.Matrix) []jsonSeries {
	out := make([]jsonSeries, 0, len(m))
	for _, s := range m {
		js := jsonSeries{Metric: s.Metric, Histograms: s.Histograms}
		for _, p := range s.Floats {
			js.Values = append(js.Values, jsonPoint{T: p.T, F: p.F})
		}
		out = append(out, js)
	}
	return out
}

func encodeVector(v promql.Vector) []jsonSample {
	out := make([]jsonSample, 0, len(v))
	for _, s := range v {
		js := jsonSample{Metric: s.Metric}
		if s.H == nil {
			js.Value = &jsonPoint{T: s.T, F: s.F}
		} else {
			js.Histogram = &promql.HPoint{T: s.T, H: s.H}
		}
		out = append(out, js)
	}
	return out
}

// sortedResult answers a set of label names or values as Prometheus does:
// sorted, cut to limit (> 0) with a warning saying so.
func sortedResult(set map[string]struct{}, limit int, warnings annotations.Annotations) apiResult {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
		warnings = warnings.Add(errors.New("results truncated due to limit"))
	}
	return apiResult{data: out, warnings: warnings}
}
