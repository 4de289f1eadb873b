package metricsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jsoniter "github.com/json-iterator/go"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// errNotMatrix: the answer was well formed but not a matrix (or not
// decodable here); queryMatrix then asks through v1.API, whose answer and
// errors are the reference.
var errNotMatrix = errors.New("metricsclient: answer is not a matrix")

// queryRangeOnePass is queryMatrix through queryRangeMatrix; ok is false
// when v1.API must answer instead (errNotMatrix).
func (c *Client) queryRangeOnePass(ctx context.Context, q string, r v1.Range) (m model.Matrix, warnings []string, ok bool, err error) {
	m, warnings, err = queryRangeMatrix(ctx, c.raw, q, r)
	switch {
	case errors.Is(err, errNotMatrix):
		return nil, nil, false, nil
	case err != nil:
		return nil, warnings, true, wrapErr("query_range", c.address, err)
	}
	return m, warnings, true, nil
}

// queryRangeMatrix runs a range query through client_golang's api.Client
// as v1.API.QueryRange does (POST, GET when the server refuses POST with
// 403, 405 or 501; the same parameters, the same *v1.Error for error
// answers) and decodes a successful answer in one pass over the body with
// json-iterator, through the decoders client_golang's v1 package registers
// for model.SampleStream and model.SamplePair: the same values as
// v1.API.QueryRange. v1.API.QueryRange decodes the envelope with
// encoding/json, which validates and then skips the whole body twice (the
// envelope, then the data) before json-iterator decodes the result: in the
// browser (wasm) those passes cost several hundred ms of a cold load's 6 h
// answer (docs/PERFORMANCE.md, "Live dashboard").
//
// A success answer whose result is not a matrix, or that does not decode
// here, returns errNotMatrix (the caller asks again through v1.API).
func queryRangeMatrix(ctx context.Context, c api.Client, q string, r v1.Range) (model.Matrix, []string, error) {
	u := c.URL("/api/v1/query_range", nil)
	form := url.Values{}
	form.Set("query", q)
	form.Set("start", formatAPITime(r.Start))
	form.Set("end", formatAPITime(r.End))
	form.Set("step", strconv.FormatFloat(r.Step.Seconds(), 'f', -1, 64))
	encoded := form.Encode()
	req, err := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(encoded))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header["Idempotency-Key"] = nil // as client_golang: retried like a GET
	resp, body, err := c.Do(ctx, req)
	if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		u.RawQuery = encoded
		if req, err = http.NewRequest(http.MethodGet, u.String(), nil); err != nil {
			return nil, nil, err
		}
		resp, body, err = c.Do(ctx, req)
	}
	if err != nil {
		return nil, nil, err
	}
	if code := resp.StatusCode; code/100 != 2 {
		warnings, err := errorAnswer(resp, body)
		return nil, warnings, err
	}
	if resp.StatusCode == http.StatusNoContent {
		return nil, nil, errNotMatrix
	}
	a, err := decodeRangeAnswer(body)
	if err != nil {
		return nil, nil, errNotMatrix
	}
	if a.status == "error" {
		return nil, a.warnings, &v1.Error{Type: v1.ErrorType(a.errorType), Msg: a.errMsg}
	}
	if !a.matrix {
		return nil, a.warnings, errNotMatrix
	}
	return a.result, a.warnings, nil
}

// rangeAnswer is a query_range answer's envelope and result.
type rangeAnswer struct {
	status, errorType, errMsg string
	warnings                  []string
	infos                     bool // the answer has infos (annotations)
	matrix                    bool // result held a matrix, decoded into result
	result                    model.Matrix
}

// DecodeRangeMatrix reads a query_range answer body in one pass, as the
// client does, and returns its matrix when the answer is a success
// without warnings or infos. The server's proxy keeps such answers'
// settled points (server/rangecache.go).
func DecodeRangeMatrix(body []byte) (model.Matrix, bool) {
	a, err := decodeRangeAnswer(body)
	if err != nil || a.status != "success" || !a.matrix || len(a.warnings) > 0 || a.infos {
		return nil, false
	}
	return a.result, true
}

// decodeRangeAnswer reads a query_range answer in one pass. Prometheus
// writes resultType before result; a result before its type is decoded
// afterwards from its bytes.
func decodeRangeAnswer(body []byte) (*rangeAnswer, error) {
	it := jsoniter.ConfigCompatibleWithStandardLibrary.BorrowIterator(body)
	defer jsoniter.ConfigCompatibleWithStandardLibrary.ReturnIterator(it)
	a := &rangeAnswer{}
	var (
		resultType string
		later      []byte // result seen before resultType
		sawResult  bool
	)
	it.ReadObjectCB(func(it *jsoniter.Iterator, field string) bool {
		switch field {
		case "status":
			a.status = it.ReadString()
		case "errorType":
			a.errorType = it.ReadString()
		case "error":
			a.errMsg = it.ReadString()
		case "warnings":
			it.ReadVal(&a.warnings)
		case "infos":
			var infos []string
			it.ReadVal(&infos)
			a.infos = len(infos) > 0
		case "data":
			if it.WhatIsNext() != jsoniter.ObjectValue {
				it.Skip()
				return true
			}
			it.ReadObjectCB(func(it *jsoniter.Iterator, field string) bool {
				switch field {
				case "resultType":
					resultType = it.ReadString()
				case "result":
					sawResult = true
					if resultType == model.ValMatrix.String() {
						it.ReadVal(&a.result)
					} else {
						later = append([]byte(nil), it.SkipAndReturnBytes()...)
					}
				default:
					it.Skip()
				}
				return true
			})
		default:
			it.Skip()
		}
		return true
	})
	if it.Error != nil {
		return nil, it.Error
	}
	if a.status == "error" {
		return a, nil
	}
	if !sawResult || resultType != model.ValMatrix.String() {
		return a, nil
	}
	if later != nil {
		if err := jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(later, &a.result); err != nil {
			return nil, err
		}
	}
	a.matrix = true
	return a, nil
}

// errorAnswer is client_golang's *v1.Error for a non-2xx answer (v1's
// apiClientImpl.Do): Prometheus' own error envelope for 400 and 422, a
// generic HTTP error with the body as detail otherwise.
func errorAnswer(resp *http.Response, body []byte) ([]string, error) {
	code := resp.StatusCode
	generic := func() error {
		t, msg := v1.ErrServer, fmt.Sprintf("server error: %d", code)
		switch code / 100 {
		case 4:
			t, msg = v1.ErrClient, fmt.Sprintf("client error: %d", code)
		case 5:
		default:
			t, msg = v1.ErrBadResponse, fmt.Sprintf("bad response code %d", code)
		}
		return &v1.Error{Type: t, Msg: msg, Detail: string(body)}
	}
	if code != http.StatusBadRequest && code != http.StatusUnprocessableEntity {
		return nil, generic()
	}
	var env struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType v1.ErrorType    `json:"errorType"`
		Error     string          `json:"error"`
		Warnings  []string        `json:"warnings"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, generic()
	}
	if env.Status == "success" {
		return env.Warnings, &v1.Error{Type: v1.ErrBadResponse, Msg: "inconsistent body for response code"}
	}
	if env.ErrorType == "" {
		env.ErrorType = v1.ErrClient
	}
	if env.Error == "" {
		env.Error = fmt.Sprintf("client error: %d", code)
	}
	return env.Warnings, &v1.Error{Type: env.ErrorType, Msg: env.Error}
}

// formatAPITime is client_golang's formatTime: Unix seconds with the
// fraction, shortest form.
func formatAPITime(t time.Time) string {
	return strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
}
