package metricsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// ErrorKind classifies a failed request to Prometheus.
type ErrorKind string

const (
	// Unreachable: no HTTP answer (connection refused, DNS, fetch failed).
	Unreachable ErrorKind = "unreachable"
	// BadData: Prometheus rejected the request's parameters or query (HTTP 400).
	BadData ErrorKind = "bad_data"
	// Timeout: the query or the request timed out.
	Timeout ErrorKind = "timeout"
	// Canceled: the caller's context was canceled.
	Canceled ErrorKind = "canceled"
	// Execution: the query failed while being evaluated (HTTP 422).
	Execution ErrorKind = "execution"
	// ServerError: an HTTP 5xx without a Prometheus error body.
	ServerError ErrorKind = "server_error"
	// ClientError: an HTTP 4xx without a Prometheus error body (e.g. a 404
	// from a wrong path prefix or proxy).
	ClientError ErrorKind = "client_error"
	// BadResponse: an answer that is not a Prometheus API response.
	BadResponse ErrorKind = "bad_response"
	// Proxy: specdash's proxy (server/proxy.go) answered for Prometheus,
	// which it could not reach or whose answer it refused; Msg is the
	// proxy's explanation (its ProxyErrorPrefix removed).
	Proxy ErrorKind = "proxy"
	// Other: anything else.
	Other ErrorKind = "error"
)

// ProxyErrorPrefix starts the plain-text body of every error that
// specdash's proxy writes itself (not Prometheus').
const ProxyErrorPrefix = "specdash proxy: "

// APIError is a failed request to the Prometheus HTTP API, with a readable
// message. Err is the underlying error (often a client_golang *v1.Error);
// errors.As/Is see through it.
type APIError struct {
	// Op is the API call: "query_range", "label values".
	Op string
	// Address is the configured Prometheus address.
	Address string
	Kind    ErrorKind
	// Msg is Prometheus' own message (or the transport's).
	Msg string
	Err error
}

func (e *APIError) Error() string {
	switch e.Kind {
	case Unreachable:
		return fmt.Sprintf("cannot reach Prometheus at %s (%s): %s", e.Address, e.Op, e.Msg)
	case BadData:
		return fmt.Sprintf("Prometheus at %s rejected the %s request as bad data: %s", e.Address, e.Op, e.Msg)
	case Timeout:
		return fmt.Sprintf("Prometheus at %s timed out answering %s: %s (try a shorter range or a larger step)", e.Address, e.Op, e.Msg)
	case Canceled:
		return fmt.Sprintf("%s request to Prometheus at %s was canceled: %s", e.Op, e.Address, e.Msg)
	case Execution:
		return fmt.Sprintf("Prometheus at %s failed to evaluate %s: %s", e.Address, e.Op, e.Msg)
	case Proxy:
		return fmt.Sprintf("specdash's proxy at %s could not answer %s: %s", e.Address, e.Op, e.Msg)
	case ClientError, ServerError, BadResponse:
		return fmt.Sprintf("Prometheus at %s answered %s with an error (%s): %s (is the address the API root, e.g. http://host:9090 or /prom?)", e.Address, e.Op, e.Kind, e.Msg)
	default:
		return fmt.Sprintf("%s request to Prometheus at %s failed: %s", e.Op, e.Address, e.Msg)
	}
}

func (e *APIError) Unwrap() error { return e.Err }

// wrapErr converts an error of client_golang or of the transport into an
// *APIError; nil stays nil.
func wrapErr(op, address string, err error) error {
	if err == nil {
		return nil
	}
	e := &APIError{Op: op, Address: address, Kind: Other, Msg: err.Error(), Err: err}
	var apiErr *v1.Error
	var urlErr *url.Error
	switch {
	case errors.Is(err, context.Canceled):
		e.Kind = Canceled
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind = Timeout
	case errors.As(err, &apiErr) && proxyMessage(apiErr) != "":
		// Not Prometheus' answer: the proxy's own message says what went
		// wrong (hints about the API root do not apply).
		e.Kind = Proxy
		e.Msg = truncate(proxyMessage(apiErr), 300)
	case errors.As(err, &apiErr):
		e.Msg = apiErr.Msg
		if d := strings.TrimSpace(apiErr.Detail); d != "" {
			e.Msg += ": " + truncate(d, 200)
		}
		switch apiErr.Type {
		case v1.ErrBadData:
			e.Kind = BadData
		case v1.ErrTimeout:
			e.Kind = Timeout
		case v1.ErrCanceled:
			e.Kind = Canceled
		case v1.ErrExec:
			e.Kind = Execution
		case v1.ErrServer:
			e.Kind = ServerError
		case v1.ErrClient:
			e.Kind = ClientError
		case v1.ErrBadResponse:
			e.Kind = BadResponse
		}
	case errors.As(err, &urlErr):
		if urlErr.Timeout() {
			e.Kind = Timeout
		} else {
			e.Kind = Unreachable
		}
		e.Msg = urlErr.Err.Error()
	}
	return e
}

// proxyMessage is the message of an error that specdash's proxy wrote
// itself (without ProxyErrorPrefix), or "". The proxy answers in the API's
// error shape ({"status":"error","errorType":...,"error":"specdash proxy:
// ..."}): client_golang decodes it for 400, 422 and 503 (Msg), and keeps
// the raw body of other statuses (Detail). Older servers wrote the message
// as plain text.
func proxyMessage(e *v1.Error) string {
	if m, ok := strings.CutPrefix(e.Msg, ProxyErrorPrefix); ok {
		return strings.TrimSpace(m)
	}
	d := strings.TrimSpace(e.Detail)
	if m, ok := strings.CutPrefix(d, ProxyErrorPrefix); ok {
		return strings.TrimSpace(m)
	}
	if strings.HasPrefix(d, "{") {
		var body struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		if json.Unmarshal([]byte(d), &body) == nil && body.Status == "error" {
			if m, ok := strings.CutPrefix(body.Error, ProxyErrorPrefix); ok {
				return strings.TrimSpace(m)
			}
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// MissingMetricsError says that no speculative-decoding series matched, which
// metrics were looked for, and what was found instead. FetchSeries returns it
// instead of an empty result.
type MissingMetricsError struct {
	// Schema is the schema's name, e.g. "vLLM V1".
	Schema string
	// Wanted are the metric names looked for.
	Wanted []string
	// Selector is the PromQL selector that matched nothing.
	Selector string
	// Filters are the label filters that were applied.
	Filters []Filter
	// Start and End bound the window searched.
	Start, End time.Time
	// SpecLike are metric names present in the window whose name contains
	// "spec", "draft" or "accept" (any case), sorted.
	SpecLike []string
	// ExistWithoutFilters is set when Filters are set and the wanted metrics
	// do have series in the window without them.
	ExistWithoutFilters bool
	// FilterValues gives, for each filtered label, the values it has among the
	// wanted metrics' series in the window without filters (sorted, at most 20).
	FilterValues map[string][]string
	// PresentInWindow is set when the wanted metrics have series in the
	// window without the filters (per the label values API).
	PresentInWindow bool
	// ExistOutsideWindow is set when no wanted series exists in the window
	// (without filters) but some exist elsewhere in the database.
	ExistOutsideWindow bool
	// DiagnosisErr is set when looking for alternatives failed.
	DiagnosisErr error

	// Schemas are the human names of the schemas looked for when no
	// schema was given (Detect, FetchAuto); empty when one schema was
	// (FetchSeries). Schema is then "" when no schema was found at all, or
	// the schema that exists without the filters (Cause CauseFiltered).
	Schemas []string
	// EngineMetrics are up to 10 metric names of serving engines (vllm:,
	// ray_vllm, llamacpp:, sglang:, trtllm_) present in the window, set
	// when no speculative-decoding name was found (the engine runs with
	// speculative decoding off).
	EngineMetrics []string
	// Cause is the likely cause (see LikelyCause for a sentence); "" when
	// the diagnosis failed.
	Cause Cause
}

// Cause classifies why no speculative-decoding series matched.
type Cause string

const (
	// CauseFiltered: the metrics exist in the window, but not with the
	// label filters (FilterValues lists the values present).
	CauseFiltered Cause = "filtered"
	// CauseNoStepValues: series exist in the window but have no value at
	// its step points.
	CauseNoStepValues Cause = "no_step_values"
	// CauseOutsideWindow: the metrics exist, but only outside the window.
	CauseOutsideWindow Cause = "outside_window"
	// CauseRenamed: names that look like speculative decoding exist
	// (SpecLike), but none the schema(s) know: relabelled (a
	// metric_relabel_configs rename), another schema, or an engine
	// specdash does not know.
	CauseRenamed Cause = "renamed"
	// CauseSpecDecodingOff: serving-engine metrics exist (EngineMetrics) but
	// no speculative-decoding ones: speculative decoding looks off.
	CauseSpecDecodingOff Cause = "spec_decoding_off"
	// CauseNoMetrics: neither speculative-decoding nor serving-engine
	// metrics exist in the window: another Prometheus, job, or window.
	CauseNoMetrics Cause = "no_metrics"
)

// guessCause derives Cause from the diagnosis fields.
func (e *MissingMetricsError) guessCause() Cause {
	switch {
	case e.DiagnosisErr != nil:
		return ""
	case e.ExistWithoutFilters:
		return CauseFiltered
	case e.PresentInWindow:
		return CauseNoStepValues
	case e.ExistOutsideWindow:
		return CauseOutsideWindow
	case len(e.SpecLike) > 0:
		return CauseRenamed
	case len(e.EngineMetrics) > 0:
		return CauseSpecDecodingOff
	}
	return CauseNoMetrics
}

// LikelyCause returns the likely cause as one sentence for the UI, "" when
// unknown.
func (e *MissingMetricsError) LikelyCause() string {
	switch e.Cause {
	case CauseFiltered:
		return "the label filters exclude every speculative-decoding series: pick values that exist"
	case CauseNoStepValues:
		return "the series exist in the window but have no sample near its step points: widen the range"
	case CauseOutsideWindow:
		return "the metrics exist only outside this window: widen the range or move its end"
	case CauseRenamed:
		return "metrics that look like speculative decoding exist under names no known schema uses: renamed by relabelling (metric_relabel_configs), or an engine specdash does not know"
	case CauseSpecDecodingOff:
		return "the serving engine's metrics are there (" + strings.Join(e.EngineMetrics, ", ") + ") but no speculative-decoding ones: speculative decoding looks off (vLLM creates these counters only when it is on)"
	case CauseNoMetrics:
		return "no serving-engine metrics at all in this window: another Prometheus, another job, or filters that match nothing"
	}
	return ""
}

// excluding returns the filters with a value absent from the metrics
// (FilterValues): the ones to change. When every filter's values exist
// (only their combination matches nothing), all filters.
func (e *MissingMetricsError) excluding() []Filter {
	var out []Filter
	for _, f := range e.Filters {
		have := e.FilterValues[f.Name]
		for _, v := range f.Values {
			if !slices.Contains(have, v) {
				out = append(out, f)
				break
			}
		}
	}
	if len(out) == 0 {
		return e.Filters
	}
	return out
}

func (e *MissingMetricsError) Error() string {
	var b strings.Builder
	if e.Schema == "" && len(e.Schemas) > 0 {
		fmt.Fprintf(&b, "no speculative-decoding metrics of any known schema (%s) matched %s between %s and %s; looked for %s",
			strings.Join(e.Schemas, ", "), e.Selector,
			e.Start.UTC().Format(time.RFC3339), e.End.UTC().Format(time.RFC3339), strings.Join(e.Wanted, ", "))
	} else {
		fmt.Fprintf(&b, "no %s speculative-decoding metrics (%s) matched %s between %s and %s",
			e.Schema, strings.Join(e.Wanted, ", "), e.Selector,
			e.Start.UTC().Format(time.RFC3339), e.End.UTC().Format(time.RFC3339))
	}
	if len(e.Filters) == 0 && e.PresentInWindow {
		b.WriteString("; series exist in the window but have no value at its step points (samples only after the last step point, or a gap longer than the lookback delta)")
	}
	if len(e.Filters) > 0 && e.DiagnosisErr == nil {
		if e.ExistWithoutFilters {
			b.WriteString("; the metrics exist without the filters")
			for _, f := range e.excluding() {
				vals := e.FilterValues[f.Name]
				if len(vals) == 0 {
					fmt.Fprintf(&b, "; label %s is absent from them", f.Name)
					continue
				}
				q := make([]string, len(vals))
				for i, v := range vals {
					q[i] = fmt.Sprintf("%q", v)
				}
				fmt.Fprintf(&b, "; %s values present: %s", f.Name, strings.Join(q, ", "))
			}
		} else {
			b.WriteString("; they are absent even without the filters")
		}
	}
	if e.ExistOutsideWindow {
		b.WriteString("; series exist outside this window: widen the range or move its end (a relative window ends at its last full step, up to one step before now: on a long range, a source that has just started may have data only after it)")
	}
	instead := e.SpecLike
	if e.ExistWithoutFilters {
		// The looked-for metrics exist, only not with these filter values:
		// other names found would only distract from the values to pick.
		instead = nil
	}
	if len(instead) > 0 {
		fmt.Fprintf(&b, "; metrics found instead: %s", strings.Join(instead, ", "))
	} else if e.ExistWithoutFilters {
		// Said above: which filter values exist.
	} else if e.DiagnosisErr == nil && !e.ExistOutsideWindow {
		// (Outside the window they exist: said above.)
		b.WriteString("; no metric whose name contains spec, draft or accept was found (is speculative decoding enabled, and is this the right Prometheus?)")
	}
	if len(e.Schemas) > 0 {
		if c := e.LikelyCause(); c != "" {
			fmt.Fprintf(&b, "; likely cause: %s", c)
		}
	}
	if e.DiagnosisErr != nil {
		fmt.Fprintf(&b, "; looking for alternatives failed: %v", e.DiagnosisErr)
	}
	return b.String()
}
