package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCLIGroupByMissingLabel: --group-by a label no series of the selection
// has splits nothing, and the report says so in text and JSON, naming the
// label and the labels the series have (engine and model_name in
// backfillLinear). A label the series have gets no such note.
func TestCLIGroupByMissingLabel(t *testing.T) {
	base := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	srv := backfillLinear(t, base, []string{"a", "b"})
	end := time.Unix(base+600, 0).UTC()
	common := []string{"report", "--prometheus.url=" + srv.URL, "--end=" + end.Format(time.RFC3339), "--scrape-interval=15s", "--range=10m"}
	const note = `group by label "nolabel": no series of the selection has it, so it splits nothing; the vLLM V1 series in the window have the labels engine, model_name`

	out, errOut, code := runCLI(t, with(common, "--group-by=nolabel")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nwarning: "+note+"\n") {
		t.Errorf("text lacks the warning %q:\n%s", note, out)
	}
	// One group of everything: model a's 400 drafts and b's 800.
	if !strings.Contains(out, `{nolabel=""}: `) || !strings.Contains(out, "Accepted: 1560 tokens, Drafted: 2400 tokens") {
		t.Errorf("text: want one group of all 2400 draft tokens:\n%s", out)
	}

	out, errOut, code = runCLI(t, with(common, "--format=json", "--group-by=model_name", "--group-by=nolabel")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Warnings []string `json:"warnings"`
		Groups   []struct {
			Labels map[string]string `json:"labels"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(doc.Warnings, note) || len(doc.Groups) != 2 {
		t.Errorf("JSON: warnings %q, %d groups; want the note and groups a and b", doc.Warnings, len(doc.Groups))
	}

	out, errOut, code = runCLI(t, with(common, "--group-by=model_name")...)
	if code != 0 || strings.Contains(out, "no series of the selection has it") {
		t.Errorf("--group-by=model_name: exit %d, %s\n%s", code, errOut, out)
	}
}
