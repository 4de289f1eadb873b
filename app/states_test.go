package app

import (
	"strings"
	"testing"

	"specdash/metricsclient"
	"specdash/view"
)

// The error banner: headline, cause and facts visible, the whole message
// in a <details>.
func TestProblemBanner(t *testing.T) {
	miss := &metricsclient.MissingMetricsError{Schema: "vLLM V1", Wanted: []string{"vllm:spec_decode_num_drafts_total", "vllm:b", "vllm:c"},
		SpecLike: []string{"my_spec_drafts"}, Cause: metricsclient.CauseRenamed}
	d := &Dashboard{q: view.DefaultQuery(), err: miss}
	html := renderHTML(t, d.renderMessages())
	title := strings.Index(html, "No speculative-decoding metrics in this window")
	cause := strings.Index(html, "Likely cause: metrics that look like speculative decoding exist")
	details := strings.Index(html, "<details")
	full := strings.Index(html, "vllm:b, vllm:c")
	if title < 0 || cause < title || details < cause || full < details {
		t.Errorf("banner order: title %d, cause %d, details %d, names %d; want title, cause, then the names folded:\n%s", title, cause, details, full, html)
	}
	if !strings.Contains(html, "Found instead: my_spec_drafts") || !strings.Contains(html, `data-problem="no-metrics"`) {
		t.Errorf("banner lacks what was found instead:\n%s", html)
	}
}
