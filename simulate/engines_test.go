package simulate

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// parseExposition parses body as Prometheus' scraper does for contentType
// and returns value by series string and type by TYPE name.
func parseExposition(t *testing.T, body []byte, contentType string) (map[string]float64, map[string]string) {
	t.Helper()
	p, err := textparse.New(body, contentType, labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil || p == nil {
		t.Fatalf("parser for %q: %v", contentType, err)
	}
	vals, types := map[string]float64{}, map[string]string{}
	var ls labels.Labels
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parse (%s): %v\n%s", contentType, err, body)
		}
		switch e {
		case textparse.EntryType:
			n, typ := p.Type()
			types[string(n)] = string(typ)
		case textparse.EntrySeries:
			_, _, v := p.Series()
			p.Labels(&ls)
			vals[ls.String()] = v
		}
	}
	return vals, types
}

// TestFormats: every format parses as its engine's exposition (OpenMetrics
// for vLLM's Rust front end, text 0.0.4 otherwise) and carries the true
// counts under the engine's names and labels.
func TestFormats(t *testing.T) {
	if _, err := ParseFormat("vllm-go"); err == nil || !strings.Contains(err.Error(), "vllm-rust") {
		t.Errorf("ParseFormat(vllm-go) = %v", err)
	}
	if _, err := New(Config{Models: []string{"m"}, K: 2, Acceptance: []float64{0.5}, Format: "x"}); err == nil {
		t.Error("New accepted format x")
	}
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			s, err := New(Config{Models: []string{`m "q"`}, Engines: 2, K: 2, Acceptance: []float64{0.7}, DraftsPerSecond: 5, Seed: 3, Start: time.Unix(1700000000, 0), Format: f})
			if err != nil {
				t.Fatal(err)
			}
			// Before any draft: llama.cpp has no per-position family yet,
			// TensorRT-LLM no per-position series.
			before := string(s.exposition())
			if hasPerPos := strings.Contains(before, "per_pos_total{") || strings.Contains(before, "token_position="); hasPerPos != (f == FormatVLLM || f == FormatVLLMRust) {
				t.Errorf("per-position series before the first draft: %v\n%s", hasPerPos, before)
			}
			s.Step(4 * time.Second)
			tr := s.Truth()
			var drafts, dtok, acc, pos1 int64
			for _, x := range tr.Series {
				drafts += x.Exposed.Drafts
				dtok += x.Exposed.DraftTokens
				acc += x.Exposed.AcceptedTokens
				pos1 += x.Exposed.AcceptedPerPosition[1]
			}
			hs := httptest.NewServer(s)
			defer hs.Close()
			resp, err := hs.Client().Get(hs.URL + f.MetricsPath())
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != f.ContentType() {
				t.Fatalf("GET %s: %d %q", f.MetricsPath(), resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if other := map[bool]string{true: "/metrics", false: "/prometheus/metrics"}[f == FormatTRTLLM]; other != f.MetricsPath() {
				if r, err := hs.Client().Get(hs.URL + other); err != nil || r.StatusCode != 404 {
					t.Errorf("GET %s: %v %v, want 404", other, r, err)
				} else {
					r.Body.Close()
				}
			}
			vals, types := parseExposition(t, body, f.ContentType())
			sum := func(name string, match ...string) (total float64) {
				for k, v := range vals {
					if strings.HasPrefix(k, "{__name__=\""+name+"\"") || strings.HasPrefix(k, name+"{") {
						ok := true
						for _, m := range match {
							ok = ok && strings.Contains(k, m)
						}
						if ok {
							total += v
						}
					}
				}
				return total
			}
			want := map[string]float64{}
			switch f {
			case FormatVLLM, FormatVLLMRust, FormatLMDeploy, FormatLlamaCpp:
				p := map[Format]string{FormatVLLM: "vllm:", FormatVLLMRust: "vllm:", FormatLMDeploy: "lmdeploy:", FormatLlamaCpp: "llamacpp:"}[f]
				want[p+"spec_decode_num_drafts_total"] = float64(drafts)
				want[p+"spec_decode_num_draft_tokens_total"] = float64(dtok)
				want[p+"spec_decode_num_accepted_tokens_total"] = float64(acc)
				if got := sum(p+"spec_decode_num_accepted_tokens_per_pos_total", `position="1"`); got != float64(pos1) {
					t.Errorf("position 1: %v, want %d", got, pos1)
				}
			case FormatTRTLLM:
				want["trtllm_spec_decode_num_draft_tokens_total"] = float64(dtok)
				want["trtllm_spec_decode_num_accepted_tokens_total"] = float64(acc)
				if got := sum("trtllm_spec_decode_drafted_tokens_total", `token_position="0"`); got != float64(drafts) {
					t.Errorf("drafted at position 0: %v, want %d", got, drafts)
				}
				if got := sum("trtllm_spec_decode_accepted_tokens_total", `token_position="1"`); got != float64(pos1) {
					t.Errorf("accepted at position 1: %v, want %d", got, pos1)
				}
			case FormatSGLang:
				want["sglang:spec_verify_calls_total"] = float64(drafts)
			}
			for n, w := range want {
				if got := sum(n); got != w || w == 0 {
					t.Errorf("%s = %v, want %v (> 0)", n, got, w)
				}
			}
			text := string(body)
			switch f {
			case FormatVLLMRust:
				if !strings.HasSuffix(text, "\n# EOF\n") || strings.Contains(text, "_created") || strings.Contains(text, ".0\n") ||
					types["vllm:spec_decode_num_drafts"] != "counter" || !strings.Contains(text, `{model_name="m \"q\"",engine="0"}`) {
					t.Errorf("not the Rust crate's OpenMetrics (types %v):\n%s", types, text)
				}
			case FormatLlamaCpp:
				if strings.Contains(text, "model_name") || strings.Contains(text, "_created") || types["llamacpp:spec_decode_num_drafts_total"] != "counter" {
					t.Errorf("not llama.cpp's text:\n%s", text)
				}
			case FormatLMDeploy:
				if strings.Contains(text, "_created") || !strings.Contains(text, "lmdeploy:spec_decode_mean_accept_length{") {
					t.Errorf("not LMDeploy's text:\n%s", text)
				}
			default:
				if !strings.Contains(text, "_created{") {
					t.Errorf("prometheus_client text without _created:\n%s", text)
				}
			}
		})
	}
}
