package logparse

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// ScrapeGroup is the speculative-decoding counters of one model and engine
// in a /metrics scrape.
type ScrapeGroup struct {
	// Prefix is the metric name prefix: "vllm:", "ray_vllm:", "ray_vllm_",
	// "llamacpp:" or "lmdeploy:".
	Prefix string `json:"prefix"`
	// Model and Engine are the model_name and engine labels ("" when
	// absent, as for llama.cpp).
	Model  string `json:"model"`
	Engine string `json:"engine"`
	// Counts are the counters' values: totals since the server started
	// (drafts, tokens), summed over the series of the group.
	Counts compute.Counts `json:"counts"`
	// Series is the number of samples summed.
	Series int `json:"series"`
	// Notes say which counters were absent.
	Notes []string `json:"notes,omitempty"`
}

// Scrape is what ParseScrape found.
type Scrape struct {
	// Groups are sorted by prefix, model, engine (numerically).
	Groups []ScrapeGroup `json:"groups"`
	// Total sums every group's counts.
	Total    compute.Counts `json:"total"`
	Problems []Problem      `json:"problems"`
}

// scrapeFamilies maps the name suffixes of the four counters (vLLM V1,
// vllm/v1/spec_decode/metrics.py, as exposed by prometheus_client with
// "_total"; docs/METRICS.md "vLLM V1") to their compute.Family.
var scrapeFamilies = []struct {
	suffix string
	family compute.Family
}{
	{"spec_decode_num_drafts_total", compute.Drafts},
	{"spec_decode_num_draft_tokens_total", compute.DraftTokens},
	{"spec_decode_num_accepted_tokens_total", compute.AcceptedTokens},
	{"spec_decode_num_accepted_tokens_per_pos_total", compute.AcceptedPerPosition},
}

var scrapePrefixes = []string{"vllm:", "ray_vllm:", "ray_vllm_", "llamacpp:", "lmdeploy:"}

// matchScrapeName returns the prefix and family of a counter sample name.
// Names ending in "_created" (prometheus_client's creation timestamps)
// never match.
func matchScrapeName(name string) (string, compute.Family, bool) {
	for _, p := range scrapePrefixes {
		rest, ok := strings.CutPrefix(name, p)
		if !ok {
			continue
		}
		for _, f := range scrapeFamilies {
			if rest == f.suffix {
				return p, f.family, true
			}
		}
	}
	return "", 0, false
}

// LooksLikeScrape reports whether text looks like a Prometheus text
// exposition (a "# TYPE" or "# HELP" line, or a line starting with a
// speculative-decoding metric name) rather than log text.
func LooksLikeScrape(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# TYPE ") || strings.HasPrefix(line, "# HELP ") {
			return true
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		if _, _, ok := matchScrapeName(name); ok {
			return true
		}
	}
	return false
}

// ParseScrape parses a raw Prometheus /metrics scrape in the text format
// (version 0.0.4) with expfmt's TextParser and sums the four vLLM
// speculative-decoding counters per metric prefix, model_name and engine
// into compute.Counts: vllm:spec_decode_num_drafts_total,
// _num_draft_tokens_total, _num_accepted_tokens_total and
// _num_accepted_tokens_per_pos_total{position} (also under the Ray Serve
// prefixes ray_vllm: and ray_vllm_, and llama.cpp's llamacpp:). The
// "_created" samples are never added (their value is a Unix timestamp).
// Other labels (instance, job, ...) are summed over.
//
// Counter values are totals since the server started, not a window: the
// difference of two scrapes is a window. A parse error stops the parser:
// what was read before it is kept and the error is a Problem with its line.
// Samples that are not finite and >= 0, or per-position samples with a
// missing or bad position label, are Problems and are skipped, as are
// values over 2^53. No group at all gives a Problem naming the metrics
// looked for.
func ParseScrape(text string) Scrape {
	out := Scrape{Groups: []ScrapeGroup{}, Problems: []Problem{}, Total: compute.Counts{AcceptedPerPosition: []float64{}}}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		pr := Problem{Reason: "scrape: " + err.Error()}
		if pe, ok := err.(expfmt.ParseError); ok {
			pr.Line, pr.Reason = pe.Line, "scrape is not valid Prometheus text format: "+pe.Msg+" (samples before this line are used)"
		}
		out.Problems = append(out.Problems, pr)
	}
	type key struct{ prefix, model, engine string }
	groups := map[key]*ScrapeGroup{}
	seen := map[key]map[compute.Family]bool{}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		prefix, fam, ok := matchScrapeName(name)
		if !ok {
			continue
		}
		mf := fams[name]
		for _, m := range mf.GetMetric() {
			var v float64
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				v = m.GetCounter().GetValue()
			case dto.MetricType_UNTYPED:
				v = m.GetUntyped().GetValue()
			case dto.MetricType_GAUGE:
				v = m.GetGauge().GetValue()
			default:
				out.Problems = append(out.Problems, Problem{Reason: fmt.Sprintf("%s has type %s, want counter: skipped", name, mf.GetType())})
				continue
			}
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			desc := name + describeLabels(labels)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				out.Problems = append(out.Problems, Problem{Reason: fmt.Sprintf("%s = %v: counters must be finite and >= 0; skipped", desc, v)})
				continue
			}
			if v > maxCount {
				// Two near math.MaxFloat64 summed to +Inf (fuzzing found it).
				out.Problems = append(out.Problems, Problem{Reason: fmt.Sprintf("%s = %v: over 2^53, where float64 no longer holds whole token counts; skipped", desc, v)})
				continue
			}
			k := key{prefix, labels["model_name"], labels["engine"]}
			g := groups[k]
			if g == nil {
				g = &ScrapeGroup{Prefix: prefix, Model: k.model, Engine: k.engine, Counts: compute.Counts{AcceptedPerPosition: []float64{}}}
				groups[k] = g
				seen[k] = map[compute.Family]bool{}
			}
			switch fam {
			case compute.Drafts:
				g.Counts.Drafts += v
			case compute.DraftTokens:
				g.Counts.DraftTokens += v
			case compute.AcceptedTokens:
				g.Counts.AcceptedTokens += v
			case compute.AcceptedPerPosition:
				pos, err := strconv.Atoi(labels["position"])
				if err != nil || pos < 0 || pos > compute.MaxPosition {
					out.Problems = append(out.Problems, Problem{Reason: fmt.Sprintf("%s: position label %q is not 0..%d; skipped", desc, labels["position"], compute.MaxPosition)})
					continue
				}
				for len(g.Counts.AcceptedPerPosition) <= pos {
					g.Counts.AcceptedPerPosition = append(g.Counts.AcceptedPerPosition, 0)
				}
				g.Counts.AcceptedPerPosition[pos] += v
			}
			seen[k][fam] = true
			g.Series++
		}
	}
	for k, g := range groups {
		for _, f := range scrapeFamilies {
			if !seen[k][f.family] {
				note := fmt.Sprintf("%s%s absent", g.Prefix, f.suffix)
				switch f.family {
				case compute.Drafts:
					note += ": drafts unknown (vLLM V0 has no drafts counter), so mean acceptance length is undefined"
				case compute.AcceptedPerPosition:
					note += ": no per-position rates (vLLM V0, or llama.cpp before its first speculative request)"
				}
				g.Notes = append(g.Notes, note)
			}
		}
		out.Groups = append(out.Groups, *g)
	}
	slices.SortFunc(out.Groups, func(a, b ScrapeGroup) int {
		if c := strings.Compare(a.Prefix, b.Prefix); c != 0 {
			return c
		}
		if c := strings.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		if ea, eb := engineNum(a.Engine), engineNum(b.Engine); ea != eb {
			return ea - eb
		}
		return strings.Compare(a.Engine, b.Engine)
	})
	for _, g := range out.Groups {
		out.Total = out.Total.Add(g.Counts)
	}
	if len(out.Groups) == 0 {
		// Another engine's speculative-decoding metrics (TensorRT-LLM's
		// trtllm_spec_decode_*, SGLang's sglang:spec_* gauges): say what
		// was found and what reads it, not "is it on?".
		var other []string
		for _, n := range names {
			if strings.Contains(n, "spec_decode") || strings.Contains(n, ":spec_") {
				other = append(other, n)
			}
		}
		reason := fmt.Sprintf("no speculative-decoding counter (vllm:spec_decode_num_drafts_total and the like) among the %d metric families of the scrape: is speculative decoding on?", len(fams))
		if len(other) > 0 {
			reason = fmt.Sprintf("the scrape has another engine's speculative-decoding metrics (%s), which --from-log does not read: it reads vLLM-style counters (<prefix>spec_decode_num_drafts_total and the like); for this engine, let specdash scrape the target (specdash serve --scrape.target=URL) or read it from Prometheus (specdash report --prometheus.url)",
				strings.Join(other[:min(len(other), 3)], ", "))
		}
		out.Problems = append(out.Problems, Problem{Reason: reason})
	}
	return out
}

// maxCount is the largest count ParseScrape takes: 2^53, the end of the
// whole numbers float64 holds exactly. Sums of such counts stay finite.
const maxCount = 1 << 53

// describeLabels prints labels as {a="x", b="y"}, sorted by name ("" for
// none).
func describeLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	return compute.LabelString(labels)
}
