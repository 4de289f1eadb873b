// Package decode benchmarks the browser's decode step of a dashboard
// refresh on the host and, with GOOS=js GOARCH=wasm, in Node: the
// query_range answer of the benchmark case (16 engines x 8 positions, 176
// series, 6 h at the dashboard's 1 min step: 361 points each) decoded by
// metricsclient.FetchSeries (client_golang's api/v1, then compute.Series),
// and, as a floor, the same bytes decoded by encoding/json into any.
//
//	go test -run '^$' -bench . ./bench/decode/
//	GOOS=js GOARCH=wasm PATH="$PATH:$(go env GOROOT)/lib/wasm" go test -run '^$' -bench . ./bench/decode/
//
// Under js/wasm net/http uses Go's in-process fake network, so the
// httptest server works in Node; serving the bytes costs under 1 ms.
package decode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/metricsclient"
)

const (
	engines, k, points = 16, 8, 361
	t0                 = 1795950000 // seconds
)

// answer is a Prometheus query_range answer shaped like the benchmark
// case's (labels as Prometheus returns them, job and instance included).
func answer() string {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	first := true
	add := func(metric string) {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(`{"metric":` + metric + `,"values":[`)
		for j := range points {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `[%d,"%d"]`, t0+60*j, 1000000+j*2345)
		}
		b.WriteString("]}")
	}
	for e := range engines {
		for _, n := range []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_accepted_tokens_total"} {
			add(fmt.Sprintf(`{"__name__":%q,"engine":"%d","model_name":"bench-model","job":"vllm","instance":"127.0.0.1:8000"}`, n, e))
		}
		for p := range k {
			add(fmt.Sprintf(`{"__name__":"vllm:spec_decode_num_accepted_tokens_per_pos_total","engine":"%d","model_name":"bench-model","position":"%d","job":"vllm","instance":"127.0.0.1:8000"}`, e, p))
		}
	}
	b.WriteString("]}}")
	return b.String()
}

// BenchmarkDecode reports points/s and MB/s (of JSON) per variant.
func BenchmarkDecode(b *testing.B) {
	body := answer()
	n := float64(engines * (3 + k) * points)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, RoundTripper: http.DefaultTransport, ScrapeInterval: 15 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	g := compute.Grid{Start: t0 * 1000, End: (t0 + 60*(points-1)) * 1000, Step: 60000}
	report := func(b *testing.B) {
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		b.SetBytes(int64(len(body)))
	}
	b.Run("FetchSeries", func(b *testing.B) {
		for b.Loop() {
			s, _, err := c.FetchSeries(context.Background(), g, nil)
			if err != nil {
				b.Fatal(err)
			}
			if len(s) != engines*(3+k) || len(s[0].Points) != points {
				b.Fatalf("%d series", len(s))
			}
		}
		report(b)
	})
	b.Run("encoding-json-any", func(b *testing.B) {
		for b.Loop() {
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
}
