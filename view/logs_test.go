package view

import (
	"os"
	"strings"
	"testing"

	"specdash/compute"
)

// TestParseLogs: the /logs page's parse of a real log (two k), of text
// without metrics lines, and the convention "auto" follows the log (this
// one prints the mean acceptance length without the bonus token).
func TestParseLogs(t *testing.T) {
	b, err := os.ReadFile("../logparse/testdata/seed_000.log")
	if err != nil {
		t.Fatal(err)
	}
	rep, used, problem := ParseLogs("", string(b), "auto")
	if rep == nil || problem != "" || len(rep.Groups) != 2 || rep.File != "pasted text" || used != compute.WithoutBonus {
		t.Fatalf("seed log: %+v, %v, %q", rep, used, problem)
	}
	if s := LogSummary(rep, used); !strings.HasPrefix(s, "8 metrics lines (") || !strings.HasSuffix(s, " in pasted text; mean acceptance length "+used.String()) {
		t.Errorf("summary %q", s)
	}
	if _, used, _ := ParseLogs("a.log", string(b), ConventionBonus); used != compute.WithBonus {
		t.Errorf("bonus chosen: %v", used)
	}
	rep, _, problem = ParseLogs("a.log", "hello\nworld\n", "auto")
	if rep == nil || rep.Usable() || problem != "Nothing could be used: see the problems below." {
		t.Errorf("no metrics lines: %+v %q", rep, problem)
	}
}

// TestLogSourcesTexts: a log's sources are its line prefixes, a scrape's
// its label sets; the "*" and its key only when a row's drafts are
// derived.
func TestLogSourcesTexts(t *testing.T) {
	for _, c := range []struct {
		input         string
		derived       bool
		note, heading string
	}{
		{"log", true, "A source is a container and engine as the line prefixes name them. Drafts marked * are derived as drafted / k. Speedup at c = 0.05.", "Drafts*"},
		{"scrape", false, "A source is a label set of the scrape's series (without position). Speedup at c = 0.05.", "Drafts"},
	} {
		note, heading := LogSourcesTexts(c.input, c.derived, 0.05)
		if note != c.note || heading != c.heading {
			t.Errorf("%s (derived %v): %q, %q; want %q, %q", c.input, c.derived, note, heading, c.note, c.heading)
		}
	}
}
