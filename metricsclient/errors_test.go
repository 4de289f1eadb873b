package metricsclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

func TestWrapErr(t *testing.T) {
	cases := []struct {
		err  error
		kind ErrorKind
		msg  string
	}{
		{&v1.Error{Type: v1.ErrBadData, Msg: `invalid parameter "query": parse error`}, BadData,
			`Prometheus at http://p:9090 rejected the query_range request as bad data: invalid parameter "query": parse error`},
		{&v1.Error{Type: v1.ErrTimeout, Msg: "query timed out in expression evaluation"}, Timeout,
			"Prometheus at http://p:9090 timed out answering query_range: query timed out in expression evaluation (try a shorter range or a larger step)"},
		{&v1.Error{Type: v1.ErrClient, Msg: "client error: 404", Detail: "404 page not found\n"}, ClientError,
			"Prometheus at http://p:9090 answered query_range with an error (client_error): client error: 404: 404 page not found (is the address the API root"},
		{&v1.Error{Type: v1.ErrExec, Msg: "many-to-many matching"}, Execution, "failed to evaluate query_range: many-to-many matching"},
		{&v1.Error{Type: v1.ErrServer, Msg: "server error: 502", Detail: "specdash proxy: Prometheus is unreachable: connection refused (is it running?)\n"}, Proxy,
			"specdash's proxy at http://p:9090 could not answer query_range: Prometheus is unreachable: connection refused (is it running?)"},
		// The proxy's API-shaped errors: a 502/504 body client_golang keeps
		// raw, and a 503/400 one it decodes.
		{&v1.Error{Type: v1.ErrServer, Msg: "server error: 502", Detail: `{"status":"error","errorType":"bad_response","error":"specdash proxy: source b answered 200 text/html (52 bytes) where the Prometheus API answers JSON"}`}, Proxy,
			"specdash's proxy at http://p:9090 could not answer query_range: source b answered 200 text/html (52 bytes) where the Prometheus API answers JSON"},
		{&v1.Error{Type: "bad_response", Msg: "specdash proxy: source a answered HTTP 503 Service Unavailable without an API error body"}, Proxy,
			"could not answer query_range: source a answered HTTP 503 Service Unavailable without an API error body"},
		// A JSON 502 body that is not the proxy's stays the source's.
		{&v1.Error{Type: v1.ErrServer, Msg: "server error: 502", Detail: `{"status":"error","error":"bad gateway"}`}, ServerError,
			`answered query_range with an error (server_error): server error: 502: {"status":"error","error":"bad gateway"}`},
		{&url.Error{Op: "Post", URL: "http://p:9090/api/v1/query_range", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}, Unreachable,
			"cannot reach Prometheus at http://p:9090 (query_range): dial tcp 127.0.0.1:1: connect: connection refused"},
		{context.Canceled, Canceled, "query_range request to Prometheus at http://p:9090 was canceled"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), Timeout, "timed out"},
		{errors.New("strange"), Other, "query_range request to Prometheus at http://p:9090 failed: strange"},
	}
	for _, c := range cases {
		err := wrapErr("query_range", "http://p:9090", c.err)
		var ae *APIError
		if !errors.As(err, &ae) {
			t.Fatalf("%v: not an *APIError", c.err)
		}
		if ae.Kind != c.kind {
			t.Errorf("%v: kind %s, want %s", c.err, ae.Kind, c.kind)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: message\n %s\nwant it to contain\n %s", c.err, err, c.msg)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%v: errors.Is does not see the cause", c.err)
		}
	}
	if wrapErr("x", "y", nil) != nil {
		t.Error("wrapErr(nil) != nil")
	}
}

func TestMissingMetricsErrorMessage(t *testing.T) {
	start := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	end := start.Add(10 * time.Minute)
	wanted := VLLMV1.Names()
	e := &MissingMetricsError{
		Schema: "vLLM V1", Wanted: wanted, Selector: `{m="x"}`, Start: start, End: end,
		Filters:             []Filter{{Name: "model_name", Values: []string{"absent"}}},
		ExistWithoutFilters: true, PresentInWindow: true,
		FilterValues: map[string][]string{"model_name": {"a", `b "q"`}},
		SpecLike:     []string{"vllm:spec_decode_num_drafts_total"},
	}
	want := `no vLLM V1 speculative-decoding metrics (vllm:spec_decode_num_drafts_total, vllm:spec_decode_num_draft_tokens_total, vllm:spec_decode_num_accepted_tokens_total, vllm:spec_decode_num_accepted_tokens_per_pos_total) matched {m="x"} between 2025-05-01T12:00:00Z and 2025-05-01T12:10:00Z; the metrics exist without the filters; model_name values present: "a", "b \"q\""`
	if got := e.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// Two filters, one of whose values exist: only the other one is named.
	two := *e
	two.Filters = []Filter{{Name: "engine", Values: []string{"0"}}, {Name: "model_name", Values: []string{"absent"}}}
	two.FilterValues = map[string][]string{"model_name": {"a"}, "engine": {"0", "1"}}
	if got := two.Error(); !strings.Contains(got, `model_name values present: "a"`) || strings.Contains(got, "engine values present") {
		t.Errorf("one excluding filter of two: %s", got)
	}
	// Both values exist, not together: both named.
	two.FilterValues["model_name"] = []string{"a", "absent"}
	if got := two.Error(); !strings.Contains(got, `model_name values present: "a", "absent"`) || !strings.Contains(got, `engine values present: "0", "1"`) {
		t.Errorf("a combination that matches nothing: %s", got)
	}

	// Filters that exclude everything: the values to pick, not other names.
	e.SpecLike = append(e.SpecLike, "vllm:spec_decode_draft_acceptance_rate")
	if got := e.Error(); got != want {
		t.Errorf("filtered, other spec-like names present: got\n%s\nwant\n%s", got, want)
	}

	e = &MissingMetricsError{Schema: "vLLM V1", Wanted: wanted, Selector: "{}", Start: start, End: end,
		SpecLike: []string{"vllm:spec_decode_draft_acceptance_rate", "vllm:spec_decode_efficiency"}}
	if got := e.Error(); !strings.HasSuffix(got, "; metrics found instead: vllm:spec_decode_draft_acceptance_rate, vllm:spec_decode_efficiency") {
		t.Errorf("V0 case: %s", got)
	}
	e = &MissingMetricsError{Schema: "vLLM V1", Wanted: wanted, Selector: "{}", Start: start, End: end, ExistOutsideWindow: true}
	// They exist, only elsewhere: not also "no metric ... was found (is
	// speculative decoding enabled ...)", which contradicted it.
	if got := e.Error(); !strings.Contains(got, "series exist outside this window: widen the range or move its end (a relative window ends at its last full step") || strings.Contains(got, "no metric whose name contains spec, draft or accept was found") {
		t.Errorf("outside-window case: %s", got)
	}
	e = &MissingMetricsError{Schema: "vLLM V1", Wanted: wanted, Selector: "{}", Start: start, End: end,
		Filters: []Filter{{Name: "engine", Values: []string{"7"}}}}
	if got := e.Error(); !strings.Contains(got, "they are absent even without the filters") {
		t.Errorf("absent case: %s", got)
	}
}
