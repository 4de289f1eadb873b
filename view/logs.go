package view

import (
	"fmt"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/logparse"
	"specdash/model"
	"specdash/report"
)

// ParseLogs is the /logs page's report of text (vLLM log lines or a raw
// scrape) from file ("" when pasted), in convention conv (the page's
// select: "auto", ConventionBonus or ConventionNoBonus): "auto" follows
// the log, without the bonus token when every V1 line printed it so. It
// returns the convention used and, when nothing could be used, why ("" when
// something could); a panic below becomes that error and no report.
func ParseLogs(file, text, conv string) (rep *report.LogReport, used compute.Convention, problem string) {
	defer func() {
		if r := recover(); r != nil {
			rep, problem = nil, fmt.Sprintf("internal error while parsing: %v", r)
		}
	}()
	name := file
	if name == "" {
		name = "pasted text"
	}
	used = compute.WithBonus
	switch conv {
	case ConventionNoBonus:
		used = compute.WithoutBonus
	case "auto":
		if !logparse.LooksLikeScrape(text) {
			res := logparse.Parse(text)
			used = model.LogConvention(res)
			rep = report.FromLog(name, res, used, nil)
			return rep, used, unusable(rep)
		}
	}
	rep = report.ParseInput(name, text, used, nil)
	return rep, used, unusable(rep)
}

// unusable says why nothing of rep could be used, "" when something could.
func unusable(rep *report.LogReport) string {
	switch {
	case rep.Usable():
		return ""
	case rep.Input == "scrape":
		return "No speculative-decoding counter in this scrape: see the problems below."
	}
	return "Nothing could be used: see the problems below."
}

// LogSummary is the line above the /logs page's numbers: what rep read
// (metrics lines and their formats, or a scrape's counter groups) and the
// convention used.
func LogSummary(rep *report.LogReport, used compute.Convention) string {
	if rep.Input == "scrape" {
		return fmt.Sprintf("%d counter groups in a scrape of %d lines: totals since each server started (no window, so no throughput)", rep.Entries, rep.Lines)
	}
	return fmt.Sprintf("%d metrics lines (%s) of %d lines in %s; mean acceptance length %s",
		rep.Entries, strings.Join(rep.Formats, ", "), rep.Lines, rep.File, used)
}

// PerPositionText lists per-position rates as ratios, or says there are
// none (vLLM V0 prints no per-position data).
func PerPositionText(rates []compute.Value) string {
	if len(rates) == 0 {
		return "none (V0 prints no per-position data)"
	}
	per := make([]string, len(rates))
	for j, v := range rates {
		per[j] = compute.FormatRatio(v)
	}
	return strings.Join(per, ", ")
}

// LogSpeedup is the estimated speedup of a source of the /logs page
// (undefined without insights).
func LogSpeedup(g report.Group) compute.Value {
	if g.Insights != nil && g.Insights.Speedup != nil {
		return g.Insights.Speedup.Speedup
	}
	return compute.Value{}
}

// LogDraftTexts are the /logs page's drafts card's sub-line and why its
// throughputs are undefined: a log's drafts are derived (drafted / k)
// and its window unknown; a scrape has drafts but no window.
func LogDraftTexts(derived bool) (draftsSub, noWindow string) {
	if derived {
		return "derived: drafted / k (vLLM's log does not print them)", "log window unknown"
	}
	return "drafts in the input", "a scrape has no window"
}

// LogSourcesTexts are the /logs page's per-source table's note and drafts
// column header for input ("log" or "scrape"): a log's sources are the
// line prefixes' container and engine, a scrape's the label sets of its
// series; the header's "*" and the note's key appear only when some row's
// drafts are derived (drafted / k: vLLM's log does not print drafts).
func LogSourcesTexts(input string, anyDerived bool, costRatio float64) (note, draftsHeader string) {
	note = "A source is a container and engine as the line prefixes name them."
	if input == "scrape" {
		note = "A source is a label set of the scrape's series (without position)."
	}
	draftsHeader = "Drafts"
	if anyDerived {
		note += " Drafts marked * are derived as drafted / k."
		draftsHeader = "Drafts*"
	}
	return note + " Speedup at c = " + strconv.FormatFloat(costRatio, 'g', -1, 64) + ".", draftsHeader
}
