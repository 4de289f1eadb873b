package metricsclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// TestQueryRangeOnePass: queryRangeMatrix gives exactly what
// v1.API.QueryRange gives, against a real Prometheus: the counters of
// every nasty model name (label values with quotes, backslashes, newlines,
// unicode), a query with a warning-free empty answer, Prometheus' own
// error answer for a bad query (same *v1.Error type and message). Behind a proxy
// that refuses POST (405) it falls back to GET as client_golang does.
func TestQueryRangeOnePass(t *testing.T) {
	base := time.Now().Add(-time.Hour).Truncate(time.Minute).Unix()
	prom := backfillNasty(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := v1.Range{Start: time.Unix(base, 0), End: time.Unix(base+300, 0), Step: 15 * time.Second}

	var posts, gets atomic.Int64
	target, _ := url.Parse(prom.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	noPost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			posts.Add(1)
			http.Error(w, "POST not allowed here", http.StatusMethodNotAllowed)
			return
		}
		gets.Add(1)
		rp.ServeHTTP(w, req)
	}))
	defer noPost.Close()

	for _, addr := range []string{prom.URL, noPost.URL} {
		raw, err := api.NewClient(api.Config{Address: addr})
		if err != nil {
			t.Fatal(err)
		}
		ref := v1.NewAPI(raw)
		g := compute.Grid{Start: r.Start.UnixMilli(), End: r.End.UnixMilli(), Step: r.Step.Milliseconds()}
		q, err := VLLMV1.CounterQuery(nil, time.Duration(g.Step)*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, query := range []string{q, `vllm:spec_decode_num_drafts_total{model_name="no such model"}`} {
			got, gotW, err := queryRangeMatrix(ctx, raw, query, r)
			if err != nil {
				t.Fatalf("%s: %s: %v", addr, query, err)
			}
			val, wantW, _, err := ref.QueryRange(ctx, query, r)
			if err != nil {
				t.Fatalf("%s: v1 %s: %v", addr, query, err)
			}
			want, ok := val.(model.Matrix)
			if !ok {
				t.Fatalf("v1 answered %T", val)
			}
			if strings.Contains(query, "no such") {
				if len(got) != 0 {
					t.Errorf("%s: %d series for a model that does not exist", addr, len(got))
				}
			} else if len(got) != len(nasty)*5+1 {
				t.Errorf("%s: %d series, want %d (every nasty model's 5 counter series, one _created)", addr, len(got), len(nasty)*5+1)
			}
			if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("%s: %s: one pass and v1.API differ:\n%v\n%v", addr, query, got, want)
			}
			if len(gotW) != 0 || len(wantW) != 0 {
				t.Errorf("%s: warnings %v, v1 %v; want none", addr, gotW, wantW)
			}
		}

		// Prometheus' error answer (400, bad_data): the same error.
		_, _, gotErr := queryRangeMatrix(ctx, raw, `sum(`, r)
		_, _, _, wantErr := ref.QueryRange(ctx, `sum(`, r)
		var g1, g2 *v1.Error
		if !errors.As(gotErr, &g1) || !errors.As(wantErr, &g2) || *g1 != *g2 || g1.Type != v1.ErrBadData {
			t.Errorf("%s: bad query: error %#v, v1 %#v; want the same bad_data error", addr, gotErr, wantErr)
		}

	}
	if posts.Load() == 0 || gets.Load() == 0 {
		t.Errorf("proxy refusing POST saw %d POST and %d GET requests; want both (POST refused, then GET)", posts.Load(), gets.Load())
	}
}

// TestDecodeRangeAnswer: the envelope's fields in any order; a result
// before its type; a vector is not a matrix; an error status keeps its
// type and message; broken JSON is an error.
func TestDecodeRangeAnswer(t *testing.T) {
	matrix := `[{"metric":{"__name__":"a","model_name":"m\"x"},"values":[[1700000000,"1"],[1700000015.5,"2.5"]]}]`
	want := model.Matrix{{Metric: model.Metric{"__name__": "a", "model_name": `m"x`}, Values: []model.SamplePair{
		{Timestamp: 1700000000000, Value: 1}, {Timestamp: 1700000015500, Value: 2.5}}}}
	for _, body := range []string{
		`{"status":"success","data":{"resultType":"matrix","result":` + matrix + `}}`,
		`{"data":{"result":` + matrix + `,"resultType":"matrix"},"status":"success","warnings":["w1"]}`,
		`{"status":"success","infos":["i"],"data":{"resultType":"matrix","stats":{"x":1},"result":` + matrix + `}}`,
	} {
		a, err := decodeRangeAnswer([]byte(body))
		if err != nil || !a.matrix || a.status != "success" || !reflect.DeepEqual(a.result, want) {
			t.Errorf("%s: %+v, %v; want the matrix %v", body, a, err, want)
		}
		if strings.Contains(body, "w1") != reflect.DeepEqual(a.warnings, []string{"w1"}) {
			t.Errorf("%s: warnings %v", body, a.warnings)
		}
	}
	a, err := decodeRangeAnswer([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}}`))
	if err != nil || a.matrix {
		t.Errorf("vector: %+v, %v; want no matrix, no error", a, err)
	}
	a, err = decodeRangeAnswer([]byte(`{"status":"error","errorType":"execution","error":"boom","warnings":["w"]}`))
	if err != nil || a.status != "error" || a.errorType != "execution" || a.errMsg != "boom" || len(a.warnings) != 1 {
		t.Errorf("error answer: %+v, %v", a, err)
	}
	for _, bad := range []string{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`, `{"status":`, `[]`} {
		if a, err := decodeRangeAnswer([]byte(bad)); err == nil && a.matrix {
			t.Errorf("%s: decoded %+v; want an error", bad, a)
		}
	}
}

// DecodeRangeMatrix gives the matrix of a success answer only when it has
// no warnings and no infos (what the server's range cache may keep).
func TestDecodeRangeMatrix(t *testing.T) {
	matrix := `[{"metric":{"__name__":"a"},"values":[[1700000000,"1"],[1700000060,"NaN"]]}]`
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"status":"success","data":{"resultType":"matrix","result":` + matrix + `}}`, true},
		{`{"status":"success","infos":[],"data":{"resultType":"matrix","result":` + matrix + `}}`, true},
		{`{"status":"success","warnings":["w"],"data":{"resultType":"matrix","result":` + matrix + `}}`, false},
		{`{"status":"success","infos":["i"],"data":{"resultType":"matrix","result":` + matrix + `}}`, false},
		{`{"status":"success","data":{"resultType":"vector","result":[]}}`, false},
		{`{"status":"error","errorType":"execution","error":"boom"}`, false},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`, false},
	} {
		m, ok := DecodeRangeMatrix([]byte(c.body))
		if ok != c.ok || (ok && (len(m) != 1 || len(m[0].Values) != 2 || m[0].Values[1].Timestamp != 1700000060000)) {
			t.Errorf("%s: %v, %v; want ok %v", c.body, m, ok, c.ok)
		}
	}
}
