package view

import (
	"errors"
	"fmt"
	"strings"

	"specdash/metricsclient"
)

// Problem kinds (data-problem).
const (
	ProblemNoMetrics        = "no-metrics"
	ProblemFiltered         = "filtered"
	ProblemPrometheusDown   = "prometheus-down"
	ProblemServerDown       = "server-down"
	ProblemPrometheusFailed = "prometheus-failed"
	ProblemOther            = "other"
)

// Problem is what went wrong with a load, for people: a headline, the
// likely cause, what to check, and one-line facts (what was looked for,
// what was found instead) with their long forms folded.
type Problem struct {
	Kind  string
	Title string
	Cause string
	Steps []string
	// Facts are short lines ("Looked for: 4 vLLM V1 counters"); Folded are
	// the long lists behind them, shown in the details.
	Facts  []string
	Folded []string
}

// maxInline is how many names a fact line lists before "and N more".
const maxInline = 3

// inline lists at most maxInline names, then how many more.
func inline(names []string) string {
	if len(names) <= maxInline {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxInline], ", "), len(names)-maxInline)
}

// DescribeProblem classifies a load's error. client says whether the
// error came from the browser, whose only server is specdash (its proxy):
// no HTTP answer at all there means specdash itself is unreachable, not
// Prometheus (the proxy answers for an unreachable Prometheus).
func DescribeProblem(err error, client bool) Problem {
	var miss *metricsclient.MissingMetricsError
	var api *metricsclient.APIError
	switch {
	case err == nil:
		return Problem{}
	case errors.As(err, &miss):
		return missingProblem(miss)
	case errors.As(err, &api) && api.Kind == metricsclient.Unreachable && client:
		return Problem{Kind: ProblemServerDown, Title: "The specdash server is unreachable",
			Cause: "this page gets no answer from the specdash server it was loaded from (stopped, restarted elsewhere, or the network is down); Prometheus may be fine",
			Steps: []string{"Check that `specdash serve` is running and reachable from this browser.", "The page retries on its next refresh, or press Refresh."}}
	case errors.As(err, &api) && (api.Kind == metricsclient.Unreachable ||
		(api.Kind == metricsclient.Proxy && strings.Contains(api.Msg, "unreachable"))):
		return Problem{Kind: ProblemPrometheusDown, Title: "Prometheus is unreachable",
			Cause: "specdash is running, but the Prometheus it reads does not answer",
			Steps: []string{"Check that Prometheus is running at the address specdash was started with (--prometheus.url).", "The page retries on its next refresh, or press Refresh."}}
	case errors.As(err, &api) && api.Kind == metricsclient.Timeout:
		return Problem{Kind: ProblemPrometheusFailed, Title: "Prometheus timed out",
			Cause: "the query took too long", Steps: []string{"Choose a shorter time range, or filter to fewer series."}}
	case errors.As(err, &api):
		return Problem{Kind: ProblemPrometheusFailed, Title: "Prometheus could not answer",
			Cause: "the request to Prometheus failed (see the details)"}
	}
	return Problem{Kind: ProblemOther, Title: "Loading the numbers failed"}
}

func missingProblem(m *metricsclient.MissingMetricsError) Problem {
	p := Problem{Kind: ProblemNoMetrics, Title: "No speculative-decoding metrics in this window", Cause: m.LikelyCause()}
	if m.Cause == metricsclient.CauseFiltered {
		p.Kind, p.Title = ProblemFiltered, "The filters match no speculative-decoding series"
		p.Steps = append(p.Steps, "Choose other filter values, or \"all\".")
	}
	schema := m.Schema
	if schema == "" && len(m.Schemas) > 0 {
		schema = "any known schema (" + inline(m.Schemas) + ")"
	}
	if len(m.Wanted) > 0 {
		p.Facts = append(p.Facts, fmt.Sprintf("Looked for: %d counters of %s, e.g. %s", len(m.Wanted), schema, m.Wanted[0]))
		p.Folded = append(p.Folded, "Metric names looked for: "+strings.Join(m.Wanted, ", "))
	}
	switch {
	case len(m.SpecLike) > 0:
		p.Facts = append(p.Facts, "Found instead: "+inline(m.SpecLike))
		p.Folded = append(p.Folded, "Names that look like speculative decoding: "+strings.Join(m.SpecLike, ", "))
	case len(m.EngineMetrics) > 0:
		p.Facts = append(p.Facts, "Found instead: serving-engine metrics only ("+inline(m.EngineMetrics)+")")
	case m.DiagnosisErr == nil && !m.ExistOutsideWindow && !m.ExistWithoutFilters:
		p.Facts = append(p.Facts, "Found instead: no metric whose name contains spec, draft or accept")
	}
	switch m.Cause {
	case metricsclient.CauseSpecDecodingOff, metricsclient.CauseRenamed, metricsclient.CauseNoMetrics:
		p.Steps = append(p.Steps, "Start vLLM with speculative decoding on (--speculative-config), and check that this is the right Prometheus and job.")
	case metricsclient.CauseOutsideWindow, metricsclient.CauseNoStepValues:
		p.Steps = append(p.Steps, "Widen the time range or move its end.")
	}
	return p
}

// TargetsUnreachable reports whether the target status poll got no answer
// from the specdash server (metricsclient.FetchTargets' transport error).
func TargetsUnreachable(msg string) bool {
	return strings.HasPrefix(msg, "target status unavailable")
}
