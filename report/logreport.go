package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/logparse"
	"specdash/model"
)

// LogReport is a report from vLLM log text or a raw /metrics scrape instead
// of Prometheus (`specdash report --from-log`): per source and in total,
// with the same numbers and insights as Result. JSON:
//
//	{"input": "log"|"scrape", "file", "lines", "entries", "formats": [..],
//	 "convention", "window_seconds", "groups": [{"labels": {..}, the
//	 compute.Stats fields, the Insights fields}], "total": {the same, no
//	 labels}, "problems": [{"line", "reason", "text"}], "warnings"?}
//
// Log groups are keyed by the labels "container" and "engine" (from the
// line prefixes, "" when absent); scrape groups by "model_name" and
// "engine" (and "prefix" when it is not "vllm:"). Counts are drafts and
// tokens; for logs the drafts are derived (drafted / k, Insights.Derived).
type LogReport struct {
	// Input is "log" or "scrape"; File the name given ("-" for stdin).
	Input string `json:"input"`
	File  string `json:"file"`
	// Lines is the number of input lines; Entries the metrics lines used
	// (scrape: the number of groups).
	Lines   int `json:"lines"`
	Entries int `json:"entries"`
	// Formats are the log line forms seen ("current", "2025", "V0").
	Formats    []string `json:"formats"`
	Convention string   `json:"convention"`
	// WindowSeconds is the summed window of the entries when one source
	// printed all of them with throughputs, else 0 (unknown; null in JSON,
	// see MarshalJSON).
	WindowSeconds float64            `json:"window_seconds"`
	Groups        []Group            `json:"groups"`
	Total         totalJSON          `json:"total"`
	Problems      []logparse.Problem `json:"problems"`
	Warnings      []string           `json:"warnings,omitempty"`

	// GroupBy are the label names of the groups.
	GroupBy []string `json:"-"`
	// TextInsights makes WriteText print the insights.
	TextInsights bool `json:"-"`
}

// TotalStats returns the total's numbers.
func (r *LogReport) TotalStats() compute.Stats { return r.Total.Stats }

// TotalInsights returns the total's insights.
func (r *LogReport) TotalInsights() *Insights { return r.Total.Insights }

// FromLog builds a report from parsed log text (logparse.Parse): the view
// model of the lines (model.FromLog: one group per source, the total,
// derived counts marked, insights at costs) written as a report.
func FromLog(file string, res logparse.Result, conv compute.Convention, costs *CostRatios) *LogReport {
	return fromModel(file, res.Lines, res.Problems, model.FromLog(res, conv, costs))
}

// FromScrape builds a report from a parsed /metrics scrape
// (logparse.ParseScrape): the view model of its groups (model.FromScrape;
// no window, no throughput) written as a report.
func FromScrape(file string, s logparse.Scrape, lines int, conv compute.Convention, costs *CostRatios) *LogReport {
	return fromModel(file, lines, s.Problems, model.FromScrape(s, conv, costs))
}

func fromModel(file string, lines int, problems []logparse.Problem, m *model.Model) *LogReport {
	r := &LogReport{Input: m.Log.Input, File: file, Lines: lines, Entries: m.Log.Entries, Formats: m.Log.Formats,
		Convention: ConventionName(m.Request.Convention), WindowSeconds: m.WindowSeconds, Groups: []Group{},
		Total: totalJSON{Stats: m.Stats, Insights: m.Insights, Health: m.Health}, Problems: problems, Warnings: m.Notes, GroupBy: m.Request.GroupBy}
	if r.Problems == nil {
		r.Problems = []logparse.Problem{}
	}
	for _, g := range m.Groups {
		r.Groups = append(r.Groups, Group{Labels: g.Labels, Stats: g.Stats, Insights: g.Insights, Health: g.Health})
	}
	return r
}

// Usable reports whether anything could be parsed (at least one entry or
// scrape group).
func (r *LogReport) Usable() bool { return r.Entries > 0 }

// MarshalJSON encodes r as documented on LogReport, with window_seconds
// null when unknown (undefined values are null, README's --format json).
func (r LogReport) MarshalJSON() ([]byte, error) {
	type plain LogReport
	var window *float64
	if r.WindowSeconds > 0 {
		window = &r.WindowSeconds
	}
	return json.Marshal(struct {
		plain
		WindowSeconds *float64 `json:"window_seconds"`
	}{plain(r), window})
}

// WriteJSON writes r as indented JSON (see LogReport) and a newline.
func (r *LogReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes a header line (input, lines used, formats, convention),
// one vLLM log line per group with its labels (compute.FormatLogLine), the
// total line, the insights under each when TextInsights, then warnings.
// Problems are not written (the CLI prints them on stderr, see
// WriteProblems).
func (r *LogReport) WriteText(w io.Writer) error {
	var b strings.Builder
	conv := "with bonus token (1 + accepted/drafts)"
	if r.Convention == "no-bonus" {
		conv = "without bonus token (accepted/drafts)"
	}
	what := fmt.Sprintf("%s (%s) of %s", compute.Quantity(r.Entries, "metrics line"), strings.Join(r.Formats, ", "), compute.Quantity(r.Lines, "line"))
	if r.Input == "scrape" {
		what = fmt.Sprintf("%s of %s", compute.Quantity(r.Entries, "counter group"), compute.Quantity(r.Lines, "line"))
	}
	window := "window unknown"
	if r.WindowSeconds > 0 {
		window = "window " + seconds(r.WindowSeconds)
	}
	fmt.Fprintf(&b, "%s %s: %s, %s, mean acceptance length %s\n", r.Input, strconv.Quote(r.File), what, window, conv)
	if r.Input == "log" && r.Entries > 0 {
		b.WriteString("drafts are derived as drafted / k (vLLM's log does not print them)\n")
	}
	// One group is the total: print it once (naming its source when the
	// prefixes named one).
	groups := r.Groups
	if len(groups) == 1 {
		if name := sourceLabels(groups[0].Labels); name != "" {
			fmt.Fprintf(&b, "one source: %s\n", name)
		}
		groups = nil
	}
	for _, g := range groups {
		name := sourceLabels(g.Labels)
		if name == "" {
			name = "(no container or engine in the line prefix)"
		}
		fmt.Fprintf(&b, "%s: %s\n", name, compute.FormatLogLine(g.Stats))
		writeHealthText(&b, g.Health, nil)
		for _, v := range g.Violations {
			fmt.Fprintf(&b, "  inconsistent counts: %s\n", v)
		}
		if r.TextInsights {
			WriteInsightsText(&b, g.Insights)
		}
	}
	fmt.Fprintf(&b, "total: %s\n", compute.FormatLogLine(r.Total.Stats))
	writeHealthText(&b, r.Total.Health, nil)
	for _, v := range r.Total.Violations {
		fmt.Fprintf(&b, "  inconsistent counts: %s\n", v)
	}
	if r.TextInsights {
		WriteInsightsText(&b, r.Total.Insights)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sourceLabels prints a group's labels as LabelString does, without the
// empty ones (a log line without a container prefix has container ""):
// {engine="0"}; "" when all are empty.
func sourceLabels(labels map[string]string) string {
	set := make(map[string]string, len(labels))
	for n, v := range labels {
		if v != "" {
			set[n] = v
		}
	}
	if len(set) == 0 {
		return ""
	}
	return LabelString(set)
}

// WriteProblems writes one line per problem: "line N: reason: text" (line
// 0 is the input as a whole: "input: reason").
func (r *LogReport) WriteProblems(w io.Writer) error {
	var b strings.Builder
	for _, p := range r.Problems {
		if p.Line > 0 {
			fmt.Fprintf(&b, "%s line %d: %s", r.File, p.Line, p.Reason)
		} else {
			fmt.Fprintf(&b, "%s: %s", r.File, p.Reason)
		}
		if p.Text != "" {
			fmt.Fprintf(&b, ": %s", strconv.Quote(p.Text))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseInput parses text as a /metrics scrape when
// logparse.LooksLikeScrape, else as vLLM log text, and builds the report.
func ParseInput(file, text string, conv compute.Convention, costs *CostRatios) *LogReport {
	if logparse.LooksLikeScrape(text) {
		return FromScrape(file, logparse.ParseScrape(text), countLines(text), conv, costs)
	}
	return FromLog(file, logparse.Parse(text), conv, costs)
}

func countLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}
