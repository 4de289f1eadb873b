package simulate

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// TestNativeInterTokenLatencyCounts: k = 2, 10 drafts: 4 accepted none (20
// ms), 3 one (30 ms), 3 both (40 ms); in schema 3 (bounds 2^(i/8)) 0.02 s
// is in bucket -45 (2^-5.75 = 0.0186 < 0.02 <= 2^-5.625 = 0.0203), 0.03 s
// in -40 (0.0287, 0.03125], 0.04 s in -37 (0.0372, 0.0405]. As client_golang
// writes it: spans (-45, 1), (4, 1), (2, 1), deltas 4, -1, 0.
func TestNativeInterTokenLatencyCounts(t *testing.T) {
	b, n, sum := Counts{Drafts: 10, DraftTokens: 20, AcceptedTokens: 9, AcceptedPerPosition: []int64{6, 3}}.NativeInterTokenLatency(NativeITLSchema)
	if len(b) != 3 || b[-45] != 4 || b[-40] != 3 || b[-37] != 3 || n != 10 || math.Abs(sum-0.29) > 1e-15 {
		t.Fatalf("buckets %v count %d sum %v", b, n, sum)
	}
	h := nativeDTO(b, n, sum, NativeITLSchema, time.Time{})
	var spans [][2]int64
	for _, s := range h.PositiveSpan {
		spans = append(spans, [2]int64{int64(s.GetOffset()), int64(s.GetLength())})
	}
	if len(spans) != 3 || spans[0] != [2]int64{-45, 1} || spans[1] != [2]int64{4, 1} || spans[2] != [2]int64{2, 1} ||
		len(h.PositiveDelta) != 3 || h.PositiveDelta[0] != 4 || h.PositiveDelta[1] != -1 || h.PositiveDelta[2] != 0 {
		t.Errorf("spans %v deltas %v", spans, h.PositiveDelta)
	}
	if e, _, _ := (Counts{AcceptedPerPosition: []int64{0, 0}}).NativeInterTokenLatency(NativeITLSchema); len(e) != 0 {
		t.Errorf("no drafts: %v", e)
	}
}

// TestNativeExposition: with NativeHistograms a scraper that negotiates
// protobuf gets every family of the text exposition and the inter-token
// latency as a native histogram of the counts (schema 3, no classic
// buckets); a text scrape is unchanged.
func TestNativeExposition(t *testing.T) {
	cfg := Config{Models: []string{"m"}, Engines: 2, K: 3, Acceptance: []float64{0.7}, DraftsPerSecond: 10, Seed: 5, Start: time.Unix(1700000000, 0), Latency: true, NativeHistograms: true}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Step(3 * time.Second)
	srv := httptest.NewServer(s)
	defer srv.Close()
	get := func(accept string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	resp, body := get("")
	if resp.Header.Get("Content-Type") != ContentType || string(body) != string(s.exposition()) {
		t.Errorf("text scrape changed: %s", resp.Header.Get("Content-Type"))
	}
	// Prometheus 2.42's Accept header with native histograms enabled.
	resp, body = get("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.google.protobuf") {
		t.Fatalf("content type %q", ct)
	}
	dec := expfmt.NewDecoder(strings.NewReader(string(body)), expfmt.NewFormat(expfmt.TypeProtoDelim))
	fams := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		fams[mf.GetName()] = &mf
	}
	if fams["vllm:spec_decode_num_drafts"] == nil && fams["vllm:spec_decode_num_drafts_total"] == nil {
		t.Errorf("counters missing: %d families", len(fams))
	}
	itl := fams["vllm:inter_token_latency_seconds"]
	if itl == nil || itl.GetType() != dto.MetricType_HISTOGRAM || len(itl.Metric) != 2 {
		t.Fatalf("ITL family %v", itl)
	}
	truth := map[string]Counts{}
	for _, x := range s.Truth().Series {
		truth[x.Engine] = x.Exposed
	}
	for _, m := range itl.Metric {
		var engine string
		for _, l := range m.Label {
			if l.GetName() == "engine" {
				engine = l.GetValue()
			}
		}
		h := m.GetHistogram()
		c := truth[engine]
		_, wantSum := c.InterTokenLatency()
		if h.GetSchema() != NativeITLSchema || len(h.Bucket) != 0 || h.GetSampleCount() != uint64(c.Drafts) || c.Drafts == 0 || h.GetSampleSum() != wantSum || h.CreatedTimestamp == nil {
			t.Errorf("engine %s: %v, want %d drafts, sum %v", engine, h, c.Drafts, wantSum)
		}
		// The buckets decode to the observations: index by index.
		want, _, _ := c.NativeInterTokenLatency(NativeITLSchema)
		got := map[int32]int64{}
		idx, cnt := int32(0), int64(0)
		d := 0
		for _, sp := range h.PositiveSpan {
			idx += sp.GetOffset()
			for range sp.GetLength() {
				cnt += h.PositiveDelta[d]
				got[idx] = cnt
				d++
				idx++
			}
		}
		for i, n := range want {
			if got[i] != n {
				t.Errorf("engine %s bucket %d: %d, want %d", engine, i, got[i], n)
			}
		}
		if len(got) != len(want) {
			t.Errorf("engine %s: buckets %v, want %v", engine, got, want)
		}
	}
}
