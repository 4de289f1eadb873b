package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"specdash/compute"
	"specdash/logparse"
)

// LogInfo describes the input of a Model built from log text or a
// /metrics scrape (FromLog, FromScrape).
type LogInfo struct {
	// Input is "log" or "scrape".
	Input string
	// Formats are the log line forms seen ("current", "2025", "V0";
	// "prometheus text" for a scrape).
	Formats []string
	// Entries are the metrics lines used (scrape: the number of groups).
	Entries int
}

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

// FromLog builds the Model of parsed log text (logparse.Parse): one group
// per source (container, engine), the total, derived counts marked, the
// mean acceptance length in convention conv, insights at costs (nil:
// compute.DefaultDraftCostRatio). Throughputs are defined only where the
// lines printed them (the current form) for every entry of the group.
func FromLog(res logparse.Result, conv compute.Convention, costs *CostRatios) *Model {
	info := &LogInfo{Input: "log", Entries: len(res.Entries), Formats: []string{}}
	r := &Model{Request: Request{Convention: conv, DraftCost: costs, Insights: true, GroupBy: []string{"container", "engine"}},
		Groups: []Group{}, Log: info}
	// Groups: one per source (container, engine), V0 entries apart from
	// the V1 ones (they have no per-position counts, so summing them with
	// V1 counts would break the per-position invariants).
	type acc struct {
		labels  map[string]string
		k       int
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
		if f := e.Format.String(); !slices.Contains(info.Formats, f) {
			info.Formats = append(info.Formats, f)
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
			a = &acc{labels: map[string]string{"container": e.Container, "engine": e.Engine, "k": strconv.Itoa(e.K)}, k: e.K, v0: v0, timed: true, counts: compute.Counts{AcceptedPerPosition: []float64{}}}
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
			r.Notes = append(r.Notes, fmt.Sprintf("line %d: %s", e.Line, n))
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
		r.Request.GroupBy = append(r.Request.GroupBy, "k")
	} else {
		for _, a := range groups {
			delete(a.labels, "k")
		}
	}
	if hasV0 {
		r.Request.GroupBy = append(r.Request.GroupBy, "format")
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
	counts := make([]compute.Counts, 0, len(groups))
	for _, a := range groups {
		secs := 0.0
		if a.timed {
			secs = a.seconds
		}
		counts = append(counts, a.counts)
		g := Group{Labels: a.labels, Name: GroupName(a.labels, r.Request.GroupBy), Stats: compute.Derive(a.counts, secs, conv)}
		if g.Stats.K == 0 {
			// V0 lines print no per-position counts, but they print k
			// (each group's lines share one).
			g.Stats.K = a.k
		}
		g.Key = compute.GroupKey(a.labels, r.Request.GroupBy)
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
		timed = timed && g.Stats.WindowSeconds > 0
		window += g.Stats.WindowSeconds
	}
	if len(sources) == 1 && timed {
		r.WindowSeconds = window
	} else if len(sources) > 1 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d sources: the total has no throughput (their windows may overlap in time; the log does not say over which wall time)", len(sources)))
	}
	if idle > 0 && r.WindowSeconds > 0 {
		lines := "1 line"
		if idle > 1 {
			lines = strconv.Itoa(idle) + " lines"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s without drafts (vLLM prints 0 tokens/s and nan ratios): their windows' lengths are not printed, so throughputs are over the windows of the lines with drafts", lines))
	}
	if mixedK {
		ks := make([]int, 0, len(kLines))
		for k := range kLines {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		parts := make([]string, len(ks))
		for i, k := range ks {
			parts[i] = fmt.Sprintf("k = %d: %s from line %d", k, lines(kLines[k]), kFirst[k])
		}
		if splitK {
			r.Notes = append(r.Notes, fmt.Sprintf("the log mixes lines with different k (%s): each k is a group of its own; the total sums them, so its k, per-position rates, fit and best k mix different k: read them per group", strings.Join(parts, "; ")))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("the sources have different k (%s): the total sums them, so its k, per-position rates, fit and best k mix different k: read them per group", strings.Join(parts, "; ")))
		}
	}
	if hasV0 && hasV1 {
		r.Notes = append(r.Notes, "the log mixes vLLM V0 lines (no per-position counts) with V1 lines: the total's per-position numbers, fit and best k are inconsistent; read them per group")
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	r.Stats, r.Insights = compute.Derive(res.Total, r.WindowSeconds, conv), ComputeInsights(res.Total, total)
	if r.Stats.K == 0 && len(kLines) == 1 {
		for k := range kLines {
			r.Stats.K = k // V0 lines: the k they print
		}
	}
	r.Insights.Derived = derivedNames(all)
	r.addTotalsHealth(counts, res.Total)
	if mixedK {
		if f := r.Insights.Fit; f != nil {
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
		r.Notes = append(r.Notes, fmt.Sprintf("%d lines (first: line %d) printed the mean acceptance length %s: use --convention %s to compare with them",
			len(otherConv), otherConv[0], other, ConventionName(other)))
	}
	r.warnUnused(costs)
	return r
}

// FromScrape builds the Model of a parsed /metrics scrape
// (logparse.ParseScrape): one group per prefix, model and engine. The
// counters are totals since the server started, so there is no window and
// no throughput.
func FromScrape(s logparse.Scrape, conv compute.Convention, costs *CostRatios) *Model {
	r := &Model{Request: Request{Convention: conv, DraftCost: costs, Insights: true, GroupBy: []string{"model_name", "engine"}},
		Groups: []Group{}, Log: &LogInfo{Input: "scrape", Entries: len(s.Groups), Formats: []string{"prometheus text"}}}
	counts := make([]compute.Counts, 0, len(s.Groups))
	for _, sg := range s.Groups {
		labels := map[string]string{"model_name": sg.Model, "engine": sg.Engine}
		if sg.Prefix != "vllm:" {
			labels["prefix"] = sg.Prefix
			if !slices.Contains(r.Request.GroupBy, "prefix") {
				r.Request.GroupBy = append(r.Request.GroupBy, "prefix")
			}
		}
		g := Group{Labels: labels, Stats: compute.Derive(sg.Counts, 0, conv)}
		g.Insights = ComputeInsights(sg.Counts, costs.For(labels))
		r.Groups = append(r.Groups, g)
		counts = append(counts, sg.Counts)
		for _, n := range sg.Notes {
			r.Notes = append(r.Notes, compute.LabelString(labels)+": "+n)
		}
	}
	total := compute.DefaultDraftCostRatio
	if costs != nil {
		total = costs.Default
	}
	for i := range r.Groups {
		g := &r.Groups[i]
		g.Key, g.Name = compute.GroupKey(g.Labels, r.Request.GroupBy), GroupName(g.Labels, r.Request.GroupBy)
	}
	r.Stats, r.Insights = compute.Derive(s.Total, 0, conv), ComputeInsights(s.Total, total)
	r.addTotalsHealth(counts, s.Total)
	if len(s.Groups) > 0 {
		r.Notes = append(r.Notes, "a scrape holds counter totals since each server started, not a window: no throughput; scrape twice and subtract for a window")
	}
	r.warnUnused(costs)
	return r
}

// addTotalsHealth gives the groups of a log or a scrape (counts[i] is
// group i's) and their total the health verdicts of a window
// (compute.Health, the thresholds of Request.Health) from their counts
// and the seconds their throughputs cover (0, unknown: no drafts/s is
// judged). There are no buckets, so no change points.
func (r *Model) addTotalsHealth(counts []compute.Counts, total compute.Counts) {
	th := r.Request.Health.Thresholds
	th.Convention = r.Request.Convention
	for i := range r.Groups {
		v := compute.Health(counts[i], r.Groups[i].Stats.WindowSeconds, r.healthK(counts[i]), th)
		r.Groups[i].Health = &v
	}
	v := compute.Health(total, r.WindowSeconds, r.healthK(total), th)
	r.Health = &v
}

func (r *Model) warnUnused(costs *CostRatios) {
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
		r.Notes = append(r.Notes, fmt.Sprintf("draft cost ratio for %q matched no source", k))
	}
}

// LogConvention is the convention the log's lines printed their mean
// acceptance length in: WithoutBonus when every V1 entry printed it
// without the bonus token (vLLM PR 16665 until 17908), else WithBonus.
func LogConvention(res logparse.Result) compute.Convention {
	n, without := 0, 0
	for _, e := range res.Entries {
		if e.Format == logparse.FormatV0 {
			continue
		}
		n++
		if e.Convention == compute.WithoutBonus {
			without++
		}
	}
	if n > 0 && without == n {
		return compute.WithoutBonus
	}
	return compute.WithBonus
}

// lines prints "1 line", "3 lines".
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

// ConventionName returns "bonus" for compute.WithBonus and "no-bonus" for
// compute.WithoutBonus (the --convention values).
func ConventionName(c compute.Convention) string {
	if c == compute.WithoutBonus {
		return "no-bonus"
	}
	return "bonus"
}

// bothInts parses two engine labels as numbers.
func bothInts(a, b string) (int, int, bool) {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return x, y, err1 == nil && err2 == nil && len(a) < 10 && len(b) < 10
}
