package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/logparse"
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

// derivedNames lists what was derived in any of the entries.
func derivedNames(d logparse.Derived) []string {
	var out []string
	if d.Drafts {
		out = append(out, "drafts")
	}
	if d.PerPosition {
		out = append(out, "accepted_per_position")
	}
	if d.Seconds {
		out = append(out, "window_seconds")
	}
	return out
}

func orDerived(a, b logparse.Derived) logparse.Derived {
	return logparse.Derived{Drafts: a.Drafts || b.Drafts, PerPosition: a.PerPosition || b.PerPosition, Seconds: a.Seconds || b.Seconds, Window: a.Window || b.Window}
}

// FromLog builds a report from parsed log text (logparse.Parse): one group
// per source (container, engine), the total, derived counts marked, the
// mean acceptance length in convention conv, insights at costs (nil:
// compute.DefaultDraftCostRatio). Throughputs are defined only where the
// lines printed them (the current form) for every entry of the group.
func FromLog(file string, res logparse.Result, conv compute.Convention, costs *CostRatios) *LogReport {
	r := &LogReport{Input: "log", File: file, Lines: res.Lines, Entries: len(res.Entries), Formats: []string{},
		Convention: ConventionName(conv), Groups: []Group{}, Problems: res.Problems, GroupBy: []string{"container", "engine"}}
	if r.Problems == nil {
		r.Problems = []logparse.Problem{}
	}
	// Groups: one per source (container, engine), V0 entries apart from
	// the V1 ones (they have no per-position counts, so summing them with
	// V1 counts would break the per-position invariants).
	type acc struct {
		labels  map[string]string
		v0      bool
		counts  compute.Counts
		seconds float64
		timed   bool
		derived logparse.Derived
	}
	var groups []*acc
	idx := map[[4]string]*acc{}
	kLines := map[int]int{} // k -> number of lines
	kFirst := map[int]int{} // k -> first line
	kBySource := map[[3]string]map[int]bool{}
	var all logparse.Derived
	var otherConv []int
	idle := 0 // lines of windows without drafts (0 tokens/s: length unknown)
	hasV0, hasV1 := false, false
	for _, e := range res.Entries {
		if f := e.Format.String(); !slices.Contains(r.Formats, f) {
			r.Formats = append(r.Formats, f)
		}
		v0 := e.Format == logparse.FormatV0
		hasV0, hasV1 = hasV0 || v0, hasV1 || !v0
		if kLines[e.K] == 0 {
			kFirst[e.K] = e.Line
		}
		kLines[e.K]++
		src := [3]string{e.Container, e.Engine, strconv.FormatBool(v0)}
		if kBySource[src] == nil {
			kBySource[src] = map[int]bool{}
		}
		kBySource[src][e.K] = true
		key := [4]string{e.Container, e.Engine, strconv.FormatBool(v0), strconv.Itoa(e.K)}
		a := idx[key]
		if a == nil {
			a = &acc{labels: map[string]string{"container": e.Container, "engine": e.Engine, "k": strconv.Itoa(e.K)}, v0: v0, timed: true, counts: compute.Counts{AcceptedPerPosition: []float64{}}}
			idx[key] = a
			groups = append(groups, a)
		}
		a.counts = a.counts.Add(e.Counts)
		if e.Seconds > 0 {
			a.seconds += e.Seconds
		} else if e.Counts.DraftTokens == 0 && !v0 {
			idle++ // adds no tokens; the group keeps its window
		} else {
			a.timed = false
		}
		a.derived = orDerived(a.derived, e.Derived)
		all = orDerived(all, e.Derived)
		if e.Convention != conv && !v0 && e.Counts.Drafts > 0 { // no drafts: no mean printed
			otherConv = append(otherConv, e.Line)
		}
		for _, n := range e.Notes {
			r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: %s", e.Line, n))
		}
	}
	// k is a group label only when the lines of one source differ in k (a
	// change of num_speculative_tokens between restarts); sources with
	// different k are groups anyway.
	splitK := false
	for _, ks := range kBySource {
		splitK = splitK || len(ks) > 1
	}
	mixedK := len(kLines) > 1
	if splitK {
		r.GroupBy = append(r.GroupBy, "k")
	} else {
		for _, a := range groups {
			delete(a.labels, "k")
		}
	}
	if hasV0 {
		r.GroupBy = append(r.GroupBy, "format")
		for _, a := range groups {
			a.labels["format"] = "V1"
			if a.v0 {
				a.labels["format"] = "V0"
			}
		}
	}
	slices.SortStableFunc(groups, func(a, b *acc) int {
		for _, n := range []string{"container", "engine", "format", "k"} {
			if c := strings.Compare(a.labels[n], b.labels[n]); c != 0 {
				if n == "engine" || n == "k" {
					if x, y, ok := bothInts(a.labels[n], b.labels[n]); ok {
						return x - y
					}
				}
				if n == "format" {
					return -c // V1 before V0
				}
				return c
			}
		}
		return 0
	})
	for _, a := range groups {
		secs := 0.0
		if a.timed {
			secs = a.seconds
		}
		g := Group{Labels: a.labels, Stats: compute.Derive(a.counts, secs, conv)}
		g.Insights = ComputeInsights(a.counts, costs.For(g.Labels))
		g.Insights.Derived = derivedNames(a.derived)
		r.Groups = append(r.Groups, g)
	}
	// Groups of one source (they differ only in k) follow each other in
	// time: their windows add up. Several sources may overlap.
	sources := map[[3]string]bool{}
	timed := true
	window := 0.0
	for _, g := range r.Groups {
		sources[[3]string{g.Labels["container"], g.Labels["engine"], g.Labels["format"]}] = true
		timed = timed && g.WindowSeconds > 0
		window += g.WindowSeconds
	}
	if len(sources) == 1 && timed {
		r.WindowSeconds = window
	} else if len(sources) > 1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d sources: the total has no throughput (their windows may overlap in time; the log does not say over which wall time)", len(sources)))
	}
	if idle > 0 && window > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s without drafts (vLLM prints 0 tokens/s and nan ratios): their windows' lengths are not printed, so throughputs are over the windows of the lines with drafts", plural(idle, "line")))
	}
	if mixedK {
		ks := make([]int, 0, len(kLines))
		for k := range kLines {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		parts := make([]string, len(ks))
		for i, k := range ks {
			parts[i] = fmt.Sprintf("k = %d: %s from line %d", k, plural(kLines[k], "line"), kFirst[k])
		}
		if splitK {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the log mixes lines with different k (%s): each k is a group of its own; the total sums them, so its k, per-position rates, fit and best k mix different k: read them per group", strings.Join(parts, "; ")))
		} else {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the sources have different k (%s): the total sums them, so its k, per-position rates, fit and best k mix different k: read them per group", strings.Join(parts, "; ")))
		}
	}
	if hasV0 && hasV1 {
		r.Warnings = append(r.Warnings, "the log mixes vLLM V0 lines (no per-position counts) with V1 lines: the total's per-position numbers, fit and best k are inconsistent; read them per group")
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	r.Total = totalJSON{compute.Derive(res.Total, r.WindowSeconds, conv), ComputeInsights(res.Total, total)}
	r.Total.Insights.Derived = derivedNames(all)
	if mixedK {
		if f := r.Total.Insights.Fit; f != nil {
			// Not drafts shorter than k: lines with a smaller k.
			f.Notes = slices.DeleteFunc(f.Notes, func(n string) bool { return strings.Contains(n, "shorter than k") })
			f.Notes = append(f.Notes, "the total sums lines with different k: read the fit per group")
		}
	}
	if len(otherConv) > 0 {
		other := compute.WithoutBonus
		if conv == compute.WithoutBonus {
			other = compute.WithBonus
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d lines (first: line %d) printed the mean acceptance length %s: use --convention %s to compare with them",
			len(otherConv), otherConv[0], other, ConventionName(other)))
	}
	r.warnUnused(costs)
	return r
}

// FromScrape builds a report from a parsed /metrics scrape
// (logparse.ParseScrape): one group per prefix, model and engine. The
// counters are totals since the server started, so there is no window and
// no throughput.
func FromScrape(file string, s logparse.Scrape, lines int, conv compute.Convention, costs *CostRatios) *LogReport {
	r := &LogReport{Input: "scrape", File: file, Lines: lines, Entries: len(s.Groups), Formats: []string{"prometheus text"},
		Convention: ConventionName(conv), Groups: []Group{}, Problems: s.Problems, GroupBy: []string{"model_name", "engine"}}
	if r.Problems == nil {
		r.Problems = []logparse.Problem{}
	}
	for _, sg := range s.Groups {
		labels := map[string]string{"model_name": sg.Model, "engine": sg.Engine}
		if sg.Prefix != "vllm:" {
			labels["prefix"] = sg.Prefix
			if !slices.Contains(r.GroupBy, "prefix") {
				r.GroupBy = append(r.GroupBy, "prefix")
			}
		}
		g := Group{Labels: labels, Stats: compute.Derive(sg.Counts, 0, conv)}
		g.Insights = ComputeInsights(sg.Counts, costs.For(labels))
		r.Groups = append(r.Groups, g)
		for _, n := range sg.Notes {
			r.Warnings = append(r.Warnings, LabelString(labels)+": "+n)
		}
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	r.Total = totalJSON{compute.Derive(s.Total, 0, conv), ComputeInsights(s.Total, total)}
	if len(s.Groups) > 0 {
		r.Warnings = append(r.Warnings, "a scrape holds counter totals since each server started, not a window: no throughput; scrape twice and subtract for a window")
	}
	r.warnUnused(costs)
	return r
}

func (r *LogReport) warnUnused(costs *CostRatios) {
	if costs == nil {
		return
	}
	var unused []string
	for k := range costs.ByValue {
		used := false
		for _, g := range r.Groups {
			for _, v := range g.Labels {
				used = used || v == k
			}
		}
		if !used {
			unused = append(unused, k)
		}
	}
	slices.Sort(unused)
	for _, k := range unused {
		r.Warnings = append(r.Warnings, fmt.Sprintf("draft cost ratio for %q matched no source", k))
	}
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
	what := fmt.Sprintf("%d metrics lines (%s) of %d lines", r.Entries, strings.Join(r.Formats, ", "), r.Lines)
	if r.Input == "scrape" {
		what = fmt.Sprintf("%d counter groups of %d lines", r.Entries, r.Lines)
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
		for _, v := range g.Violations {
			fmt.Fprintf(&b, "  inconsistent counts: %s\n", v)
		}
		if r.TextInsights {
			WriteInsightsText(&b, g.Insights)
		}
	}
	fmt.Fprintf(&b, "total: %s\n", compute.FormatLogLine(r.Total.Stats))
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
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

// bothInts parses two engine labels as numbers.
func bothInts(a, b string) (int, int, bool) {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return x, y, err1 == nil && err2 == nil && len(a) < 10 && len(b) < 10
}
