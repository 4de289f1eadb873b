package metricsclient

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"specdash/compute"
)

// Detection is the result of Detect: the schema to use and what else was
// found in the window.
type Detection struct {
	// Schema is the preferred schema (earliest in Schemas) with series in
	// the window; show Schema.Name in the UI ("vLLM V1", ...).
	Schema Schema
	// Others are the other schemas with series in the window, in order of
	// preference; their series are not read.
	Others []Schema
	// Present are the known schemas' metric names present in the window,
	// sorted.
	Present []string
	// SpecLike are all metric names present in the window whose name
	// contains "spec", "draft" or "accept" (any case), sorted: Present and
	// names no schema knows.
	SpecLike []string
	// Ended are the human names of the Others none of whose series has
	// a value at the window's end (their engines stopped), when another
	// schema's series have: Detect prefers the schemas still exported.
	Ended []string
}

// OtherNames returns the human names of Others.
func (d Detection) OtherNames() []string {
	out := make([]string, len(d.Others))
	for i, s := range d.Others {
		out[i] = s.Name
	}
	return out
}

// Warnings are sentences about the detection for the user: the other
// schemas found (and, for vLLM V0 next to V1, that their shared counters
// are summed together).
func (d Detection) Warnings() []string {
	if len(d.Others) == 0 {
		return nil
	}
	var w []string
	if others := slices.DeleteFunc(d.OtherNames(), func(n string) bool { return slices.Contains(d.Ended, n) }); len(others) > 0 {
		w = append(w, fmt.Sprintf("series of %s are present too; showing %s (specdash prefers %s)",
			strings.Join(others, ", "), d.Schema.Name, preferenceOrder()))
	}
	if len(d.Ended) > 0 {
		w = append(w, fmt.Sprintf("series of %s are present too, but none has a value at the window's end (their engines stopped); showing %s, whose series have",
			strings.Join(d.Ended, ", "), d.Schema.Name))
	}
	if d.Schema.ID == VLLMV1.ID {
		for _, o := range d.Others {
			if o.ID == VLLMV0.ID {
				w = append(w, "vLLM V0 and V1 share the names vllm:spec_decode_num_draft_tokens_total and vllm:spec_decode_num_accepted_tokens_total: V0 servers' tokens are counted in the acceptance rate and throughputs; filter by model_name or job to separate them")
			}
		}
	}
	return w
}

func preferenceOrder() string {
	n := make([]string, len(Schemas))
	for i, s := range Schemas {
		n[i] = s.Name
	}
	return strings.Join(n, " > ")
}

// specLikeSelector is specLikeMatcher restricted by filters.
func specLikeSelector(filters []Filter) (string, error) {
	ms := []string{model.MetricNameLabel + `=~"(?i).*(spec|draft|accept).*"`}
	for _, f := range filters {
		m, err := Matcher(f)
		if err != nil {
			return "", err
		}
		if m != "" {
			ms = append(ms, m)
		}
	}
	return "{" + strings.Join(ms, ", ") + "}", nil
}

// engineMatcher matches the metrics of the serving engines specdash knows,
// spec-decode or not (vllm:num_requests_running, llamacpp:..., ...).
const engineMatcher = `{__name__=~"(vllm|ray_vllm|llamacpp|lmdeploy|sglang|trtllm)[:_].+"}`

// allSchemaNames returns every name of every schema, deduplicated, in
// schema order.
func allSchemaNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range Schemas {
		for _, n := range s.AllNames() {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func schemaNames() []string {
	out := make([]string, len(Schemas))
	for i, s := range Schemas {
		out[i] = s.Name
	}
	return out
}

// detectIn picks the schemas whose Signature names occur in names.
func detectIn(names []string) (found []Schema, present []string, specLikeNames []string) {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
		if looksSpec(n) {
			specLikeNames = append(specLikeNames, n)
		}
	}
	for _, s := range Schemas {
		for _, n := range s.Signature {
			if have[n] {
				found = append(found, s)
				break
			}
		}
	}
	for _, n := range allSchemaNames() {
		if have[n] {
			present = append(present, n)
		}
	}
	sort.Strings(present)
	sort.Strings(specLikeNames)
	return found, present, specLikeNames
}

// Detect finds which schemas of Schemas have series matching filters
// between start and end, with one request (the label values API on
// __name__ with match[] = names containing spec, draft or accept, plus the
// filters), and picks the first in order of preference (vLLM V1 > Ray Serve
// > llama.cpp > LMDeploy > TensorRT-LLM > vLLM V0 > SGLang). A schema is present when
// one of its Signature names is.
//
// When no schema matches it returns a *MissingMetricsError with Schemas set:
// the names looked for, the spec-like names that exist, and the likely
// Cause (filters that exclude an existing schema, metrics only outside the
// window, renamed metrics, speculative decoding off, no engine metrics at
// all); these take a few more requests. Other errors: an invalid filter, an
// *APIError.
func (c *Client) Detect(ctx context.Context, filters []Filter, start, end time.Time) (Detection, error) {
	sel, err := specLikeSelector(filters)
	if err != nil {
		return Detection{}, err
	}
	names, err := c.labelValues(ctx, model.MetricNameLabel, []string{sel}, start, end)
	if err != nil {
		return Detection{}, err
	}
	found, present, spec := detectIn(names)
	if len(found) == 0 {
		return Detection{}, c.diagnoseNoSchema(ctx, sel, filters, start, end)
	}
	var ended []string
	if len(found) > 1 {
		if found, ended, err = c.preferExported(ctx, found, filters, end); err != nil {
			return Detection{}, err
		}
	}
	return Detection{Schema: found[0], Others: found[1:], Present: present, SpecLike: spec, Ended: ended}, nil
}

// preferExported orders the schemas found (in order of preference) so
// that those with a series that has a value at end (within the source's
// lookback) come first, and returns the names of
// the others (none when no schema has such a series): the label values
// API lists every name the source holds in the range, and Prometheus'
// head block keeps a stopped engine's names for hours, so without this a
// vLLM fleet that stopped would stay chosen while an SGLang one runs. One
// instant query. A source that cannot answer it leaves the order as it is.
func (c *Client) preferExported(ctx context.Context, found []Schema, filters []Filter, end time.Time) ([]Schema, []string, error) {
	var names []string
	for _, s := range found {
		names = append(names, s.Signature...)
	}
	sel, err := Selector(names, filters)
	if err != nil {
		return nil, nil, err
	}
	// A plain selector: every source keeps its metric names (some drop
	// them from last_over_time's results).
	q := "count by (" + model.MetricNameLabel + ") (" + sel + ")"
	vec, _, err := c.queryVector(ctx, q, end)
	if err != nil {
		if ctx.Err() == nil && unsupported(err) {
			return found, nil, nil
		}
		return nil, nil, err
	}
	live := map[string]bool{}
	for _, s := range vec {
		live[string(s.Metric[model.MetricNameLabel])] = true
	}
	exported := func(s Schema) bool { return slices.ContainsFunc(s.Signature, func(n string) bool { return live[n] }) }
	var first, rest []Schema
	for _, s := range found {
		if exported(s) {
			first = append(first, s)
		} else {
			rest = append(rest, s)
		}
	}
	if len(first) == 0 {
		return found, nil, nil
	}
	var ended []string
	for _, s := range rest {
		ended = append(ended, s.Name)
	}
	return append(first, rest...), ended, nil
}

// diagnoseNoSchema builds the *MissingMetricsError when Detect found no
// schema with the filters.
func (c *Client) diagnoseNoSchema(ctx context.Context, sel string, filters []Filter, start, end time.Time) error {
	var active []Filter
	for _, f := range filters {
		if len(f.Values) > 0 {
			active = append(active, f)
		}
	}
	if len(active) > 0 {
		// Does a schema exist without the filters? Then diagnose it as
		// FetchSeries does (which filter values exist).
		names, err := c.labelValues(ctx, model.MetricNameLabel, []string{specLikeMatcher}, start, end)
		if err == nil {
			if found, _, _ := detectIn(names); len(found) > 0 {
				s := found[0]
				e := c.WithSchema(s).diagnose(ctx, s.AllNames(), sel, active, start, end)
				e.Schemas = schemaNames()
				return e
			}
		}
	}
	e := &MissingMetricsError{
		Schemas:  schemaNames(),
		Wanted:   allSchemaNames(),
		Selector: sel,
		Filters:  active,
		Start:    start,
		End:      end,
	}
	names, err := c.labelValues(ctx, model.MetricNameLabel, []string{specLikeMatcher}, start, end)
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	_, _, e.SpecLike = detectIn(names)
	known, err := Selector(allSchemaNames(), nil)
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	all, err := c.labelValues(ctx, model.MetricNameLabel, []string{known}, time.Time{}, time.Time{})
	if err != nil {
		e.DiagnosisErr = err
		return e
	}
	e.ExistOutsideWindow = len(all) > 0
	if !e.ExistOutsideWindow && len(e.SpecLike) == 0 {
		eng, err := c.labelValues(ctx, model.MetricNameLabel, []string{engineMatcher}, start, end)
		if err != nil {
			e.DiagnosisErr = err
			return e
		}
		if len(eng) > 10 {
			eng = eng[:10]
		}
		e.EngineMetrics = eng
	}
	e.Cause = e.guessCause()
	return e
}

// ExtraSeries is one series of a schema's Extra metric (a Role): vLLM V0's
// emitted-tokens counter and lifetime gauges, SGLang's windowed gauges.
type ExtraSeries struct {
	Role Role
	// Name is the metric name.
	Name string
	// Labels are the identifying labels without __name__.
	Labels map[string]string
	// Points are the values at the grid's step points, ascending T (Unix
	// ms), NaN left out: counter values (tokens) for EmittedTokens, gauge
	// values (ratios 0..1, or tokens per draft for WindowAcceptLength)
	// otherwise.
	Points []compute.Point
}

// Fetched is what FetchAuto returns.
type Fetched struct {
	// Detection says which schema was read (Detection.Schema) and what
	// else was found.
	Detection Detection
	// Series are the schema's counter families (compute.Aggregate them);
	// empty for a gauge schema.
	Series []compute.Series
	// Extra are the series of the schema's Extra metrics.
	Extra []ExtraSeries
	// AveragedOverTime is true for a gauge schema (SGLang): its numbers are
	// averages over time of the Extra gauges (compute.AverageGauge), never
	// rates or ratios of sums; label them so.
	AveragedOverTime bool
	// Warnings from Prometheus and specdash: other schemas present,
	// families or gauges without series.
	Warnings []string
	// Incremental is true when Fetch re-read only the newest points and
	// took the rest from the previous Window (FetchRequest.Prev).
	Incremental bool
	// Labels are SeriesLabels of the detected schema over the grid
	// (unfiltered) when FetchRequest.Labels asked for them: read
	// concurrently with the counters, or reused from the previous Window
	// (see FetchRequest.LabelsMaxAge). nil when not asked for or when the
	// look-up failed (LabelsErr says why).
	Labels    map[string][]string
	LabelsErr error
}

// Schema returns the schema that was read.
func (f *Fetched) Schema() Schema { return f.Detection.Schema }

// FetchAuto detects the schema in the grid's window (Detect, ignoring the
// client's own schema) and fetches all its metrics matching filters over the
// grid: counter families as compute.Series exactly as FetchSeries does (one
// query_range of the counters and their _created gauges, start times set),
// Extra metrics as ExtraSeries with one query_range of their plain selector
// (values at the step points). Two requests for vLLM V1 and SGLang, three
// for vLLM V0 (counters and gauges, concurrently). It is Fetch without a
// previous Window (always a full fetch) and without the label look-up.
//
// Errors: an invalid grid or filter, an *APIError, a malformed position
// label, and a *MissingMetricsError when no schema is found (see Detect) or
// the detected schema's series have no values at the grid's points.
func (c *Client) FetchAuto(ctx context.Context, g compute.Grid, filters []Filter) (*Fetched, error) {
	f, _, err := c.Fetch(ctx, FetchRequest{Grid: g, Filters: filters})
	return f, err
}
