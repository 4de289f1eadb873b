package view

import (
	"fmt"

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
