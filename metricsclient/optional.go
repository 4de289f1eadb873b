package metricsclient

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/compute"
)

// OptionalRole names a metric a schema may have next to its spec-decode
// counters (Schema.Optional): latency, output and load families, and an
// engine's further speculative-decoding metrics. Each role has one
// OptionalKind.
type OptionalRole string

const (
	// InterTokenLatency is vLLM's histogram vllm:inter_token_latency_seconds
	// (formerly vllm:time_per_output_token_seconds): seconds between a
	// request's consecutive engine outputs, one observation per output
	// (vllm/v1/metrics/stats.py), so a verification step that emits
	// several accepted tokens is one observation.
	InterTokenLatency OptionalRole = "inter_token_latency"
	// TimePerOutputToken is TensorRT-LLM's histogram
	// trtllm_time_per_output_token_seconds: one observation per finished
	// request (its mean time per output token), not per token.
	TimePerOutputToken OptionalRole = "time_per_output_token"
	// IterationTokens is vLLM's histogram vllm:iteration_tokens_total:
	// tokens per engine step (load).
	IterationTokens OptionalRole = "iteration_tokens"
	// GenerationTokens is the output-token counter
	// (vllm:generation_tokens_total and the engines' equivalents): output
	// tokens/s, and with accepted tokens the share of output that came from
	// accepted drafts (compute.OutputShare).
	GenerationTokens OptionalRole = "generation_tokens"
	// RequestsRunning is the gauge of requests running (vllm:num_requests_running).
	RequestsRunning OptionalRole = "requests_running"
	// VerifyCalls is SGLang's counter sglang:spec_verify_calls_total:
	// verification steps per request (drafts, in vLLM's terms), counted when
	// a request finishes.
	VerifyCalls OptionalRole = "verify_calls"
	// FinishedRequests is SGLang's counter sglang:num_requests_total,
	// counted when a request finishes (with VerifyCalls and
	// GenerationTokens).
	FinishedRequests OptionalRole = "finished_requests"
	// DraftedPerPosition is TensorRT-LLM's counter
	// trtllm_spec_decode_drafted_tokens_total{token_position}: draft tokens
	// per 0-based position, counted per finished request.
	DraftedPerPosition OptionalRole = "drafted_per_position"
	// AcceptedPerPosition is TensorRT-LLM's counter
	// trtllm_spec_decode_accepted_tokens_total{token_position}, counted per
	// finished request.
	AcceptedPerPosition OptionalRole = "accepted_per_position"
	// LastAcceptanceLength is TensorRT-LLM's gauge
	// trtllm_spec_decode_acceptance_length (the last iteration's).
	LastAcceptanceLength OptionalRole = "last_acceptance_length"
)

// OptionalKind is how an optional metric is exposed.
type OptionalKind int

const (
	// OptionalCounter: a counter (sample names end in _total).
	OptionalCounter OptionalKind = iota
	// OptionalGauge: a gauge.
	OptionalGauge
	// OptionalHistogram: a histogram; the role's names are base names
	// (a classic histogram's samples <name>_bucket{le}, <name>_sum,
	// <name>_count; a native histogram's samples under <name> itself).
	OptionalHistogram
)

// Kind returns the role's kind.
func (r OptionalRole) Kind() OptionalKind {
	switch r {
	case InterTokenLatency, TimePerOutputToken, IterationTokens:
		return OptionalHistogram
	case RequestsRunning, LastAcceptanceLength:
		return OptionalGauge
	}
	return OptionalCounter
}

// OptionalPositionLabel is the position label of TensorRT-LLM's
// per-position counters (DraftedPerPosition, AcceptedPerPosition).
const OptionalPositionLabel = "token_position"

// OptionalNames returns the base names of the schema's optional metrics for
// role (newest first), nil when the schema has none.
func (s Schema) OptionalNames(role OptionalRole) []string { return s.Optional[role] }

// sampleNames returns the sample names a role's name is exposed as.
func sampleNames(role OptionalRole, name string) []string {
	switch role.Kind() {
	case OptionalHistogram:
		return []string{name + "_bucket", name + "_sum", name + "_count", name + "_created"}
	case OptionalCounter:
		if c := CreatedName(name); c != "" {
			return []string{name, c}
		}
	}
	return []string{name}
}

// OptionalFamily is what FetchOptional found for one role.
type OptionalFamily struct {
	Role OptionalRole
	// Name is the name read: the newest of the role's names that has
	// series in the window.
	Name string
	// Histograms are the series of a histogram role (bucket, sum and count
	// counters at the grid's points, start times from _created).
	Histograms []compute.HistogramSeries
	// Natives are the series of a histogram role the source stores as
	// native histograms (no _bucket series; samples at the grid's points).
	// A family holds either Histograms or Natives.
	Natives []compute.NativeHistogramSeries
	// CustomBuckets is set when the source stores the role as native
	// histograms with custom buckets (Prometheus 3's schema -53):
	// Histograms then holds the classic series of the same observations
	// (compute.ClassicFromCustom).
	CustomBuckets bool
	// Series are the series of a counter or gauge role, values at the
	// grid's points; Labels keep every label but __name__ (a position label
	// included), Role holds the OptionalRole as a Role. Counters' start
	// times are not attached: use Created.
	Series []ExtraSeries
	// GaugeCounts is set for a gauge role read summed
	// (FetchOptionalSummed): Series then holds one series, the sum of the
	// source's series at each point, and GaugeCounts how many series that
	// sum holds at each point (the same points). Use BucketAverages.
	GaugeCounts []compute.Point
	// Created maps a counter series' label string (compute.LabelString of
	// Labels) to its start time, Unix ms, from its _created gauge.
	Created map[string]int64
}

// OptionalFetch is FetchOptional's answer.
type OptionalFetch struct {
	// Families by role; a role without series is absent.
	Families map[OptionalRole]OptionalFamily
	// Warnings: the source's, and older names of a role found next to the
	// newer one (not combined).
	Warnings []string
	// Incremental says that only the newest points were read: the others
	// are the previous load's (FetchOptionalSince).
	Incremental bool
	// Summed says that the source summed the steady series
	// (FetchOptionalSummed): each family holds one summed series and the
	// own series of the Irregular label sets (engines that reset,
	// restarted, started or stopped inside the window).
	Summed    bool
	Irregular int
	raw       *optionalRaw
}

// FetchOptional reads the schema's optional metrics of the given roles (all
// of the schema's roles when none are given) matching filters over g, with
// one query_range of their raw values at the grid's points (last_over_time
// with the counters' Lookback, as FetchAuto reads counters). Per role the
// newest name with series is used; an older one with series too is named
// in a warning and not combined (vLLM observed both inter-token latency
// histograms during the rename, so summing them would count each token
// twice). Absent roles are no error. Combine a histogram role's series with
// OptionalFamily.HistogramIncreases, then Quantile / Mean.
//
// Histogram roles' names are also read as native histograms, with a second
// query_range of the plain names (native histograms are samples of the
// name itself; no last_over_time: Prometheus 2.42's returns a float 0 for
// them, so the samples at the step points are the source's own
// lookback's): a role none of whose names has classic series (_bucket,
// _sum, _count) is read from them; one read from classic series names in
// a warning the native series it leaves out (sources with either kind in
// one selection: the kinds are not combined). A name whose native samples
// do not convert (buckets that fit no exponential schema, e.g. Prometheus
// 3's custom buckets) is not read and a warning says why.
// Errors: an invalid grid or filter, an *APIError, a malformed le label.
func (c *Client) FetchOptional(ctx context.Context, s Schema, g compute.Grid, filters []Filter, roles ...OptionalRole) (*OptionalFetch, error) {
	return c.FetchOptionalSince(ctx, nil, s, g, filters, roles...)
}

// optionalRaw is the source's answer of FetchOptionalSince over one grid,
// before conversion, kept for the next load to continue (Window.WithReads).
type optionalRaw struct {
	schemaID string
	// roles is roleKey of the roles read.
	roles string
	grid  compute.Grid
	// classic is the last_over_time answer of every sample name (or the
	// plain selector's when the source dropped the names: fellBack),
	// native the plain names' answer of the histogram roles (nil: none).
	classic, native model.Matrix
	fellBack        bool
	cacheable       bool
	// sums and counts are a FetchOptionalSummed read's answers of its
	// sums and counts queries (classic is then nil; roles starts with
	// "summed:").
	sums, counts model.Matrix
	// irregular are the label sets a FetchOptionalSummed read took out of
	// its sums; detectedAt the grid end of its last detection over a whole
	// window (a continued read detects over the new points only:
	// summedDetectMaxAge).
	irregular  map[string]map[string]string
	detectedAt int64
	// irrM is the irregular label sets' series as read (named by their
	// sample name), for the next read to continue.
	irrM model.Matrix
}

// roleKey identifies a set of roles.
func roleKey(roles []OptionalRole) string {
	k := make([]string, len(roles))
	for i, r := range roles {
		k[i] = string(r)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

// FetchOptionalSince is FetchOptional continuing prev, the Window of the
// previous load of the same view (nil: a full read). When prev holds the
// same roles' answer of schema s over its own grid (Window.WithReads) and
// g continues it (Window.ContinuesAt: the same source, filters and step, a
// live window that slid forward), the two query_range calls read only the
// grid points from one step before prev's last final point on, and the
// older points are prev's (MergeMatrix); the merged answers are converted
// as a full read's are, so the result equals a full read's as long as the
// points prev held as final did not change (the counters' incremental
// read makes the same assumption). OptionalFetch.Incremental says which
// it was. A continued read whose source answers with warnings, or drops
// the metric names, is done again in full.
func (c *Client) FetchOptionalSince(ctx context.Context, prev *Window, s Schema, g compute.Grid, filters []Filter, roles ...OptionalRole) (*OptionalFetch, error) {
	pl, err := newOptionalPlan(s, g, roles)
	if err != nil {
		return nil, err
	}
	out := &OptionalFetch{Families: map[OptionalRole]OptionalFamily{}}
	if len(pl.names) == 0 {
		return out, nil
	}
	sel, err := Selector(pl.names, filters)
	if err != nil {
		return nil, err
	}
	raw := &optionalRaw{schemaID: s.ID, roles: roleKey(pl.roles), grid: g}
	p, read, from, cont := prev.continueOptional(c, raw, g, filters)
	// The native histograms are read while the classic series are (one
	// round trip, not two); their warnings follow the classic ones'.
	var (
		nativeWarns []string
		nativeErr   error
		wg          sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		raw.native, nativeWarns, nativeErr = c.nativeMatrix(ctx, s, read, filters, pl.roles)
	}()
	defer wg.Wait()
	step := time.Duration(g.Step) * time.Millisecond
	q := "last_over_time(" + sel + "[" + model.Duration(Lookback(step).Round(time.Millisecond)).String() + "])"
	r := v1.Range{Start: time.UnixMilli(read.Start), End: time.UnixMilli(read.End), Step: step}
	m, warns, err := c.queryMatrix(ctx, q, r)
	if err != nil {
		return nil, err
	}
	if unnamed(m) {
		var more []string
		m, more, err = c.queryMatrix(ctx, sel, r)
		warns = append(warns, more...)
		if err != nil {
			return nil, err
		}
		raw.fellBack = true
	}
	wg.Wait()
	if nativeErr != nil {
		return nil, nativeErr
	}
	raw.cacheable = len(warns) == 0 && len(nativeWarns) == 0 && !raw.fellBack
	if cont {
		if !raw.cacheable {
			return c.FetchOptionalSince(ctx, nil, s, g, filters, roles...)
		}
		m = MergeMatrix(p.classic, m, g.Start, from)
		raw.native = MergeMatrix(p.native, raw.native, g.Start, from)
		out.Incremental = true
	}
	raw.classic = m
	out.raw = raw
	// The counters count as the counters' shaped read does across
	// restarts (their samples around them).
	m, more, err := c.samplesAroundRestarts(ctx, g, filters, pl.createdOf(), m)
	if err != nil {
		return nil, err
	}
	warns = append(warns, more...)
	out.Warnings = append(out.Warnings, warns...)
	if raw.fellBack {
		out.Warnings = append(out.Warnings, fallbackWarning(step))
	}
	out.Warnings = append(out.Warnings, nativeWarns...)
	native, bad := nativeFromMatrix(raw.native)
	for _, err := range bad {
		out.Warnings = append(out.Warnings, "not read: "+err.Error())
	}
	if err := pl.convert(out, m, native); err != nil {
		return nil, err
	}
	return out, nil
}

// optionalPlan is what a read of optional families looks for: the roles,
// and the sample names of each role's names with their owner.
type optionalPlan struct {
	s     Schema
	roles []OptionalRole
	// names are the sample names (sampleNames) of every role's names.
	names []string
	owner map[string]optionalName
}

// optionalName is a role's name (a histogram's base name) a sample name
// belongs to.
type optionalName struct {
	role OptionalRole
	name string
}

// newOptionalPlan checks g and lists the sample names of roles (all of
// the schema's when none are given, sorted).
func newOptionalPlan(s Schema, g compute.Grid, roles []OptionalRole) (*optionalPlan, error) {
	if err := ValidateGrid(g); err != nil {
		return nil, err
	}
	if len(roles) == 0 {
		for r := range s.Optional {
			roles = append(roles, r)
		}
		sort.Slice(roles, func(i, j int) bool { return roles[i] < roles[j] })
	}
	pl := &optionalPlan{s: s, roles: roles, owner: map[string]optionalName{}}
	for _, r := range roles {
		for _, n := range s.Optional[r] {
			for _, sn := range sampleNames(r, n) {
				pl.names = append(pl.names, sn)
				pl.owner[sn] = optionalName{r, n}
			}
		}
	}
	return pl, nil
}

// createdOf maps the sample name of each counter of the plan (a
// histogram's buckets, sum and count; a counter) to its _created gauge's
// name ("" for none), for samplesAroundRestarts.
func (pl *optionalPlan) createdOf() map[string]string {
	out := map[string]string{}
	for _, r := range pl.roles {
		for _, n := range pl.s.Optional[r] {
			switch r.Kind() {
			case OptionalHistogram:
				for _, sn := range []string{n + "_bucket", n + "_sum", n + "_count"} {
					out[sn] = n + "_created"
				}
			case OptionalCounter:
				out[n] = CreatedName(n)
			}
		}
	}
	return out
}

// convert turns the classic answer m (each sample name's series at the
// grid's points) and the native histograms into out's families, and
// appends what it found to out's warnings: per role the newest name with
// series (older names with series too are named, not combined).
func (pl *optionalPlan) convert(out *OptionalFetch, m model.Matrix, native nativeRead) error {
	s := pl.s
	// Group the samples by (role, name).
	byName := map[string]model.Matrix{}
	for _, ss := range m {
		sn := string(ss.Metric[model.MetricNameLabel])
		o, ok := pl.owner[sn]
		if !ok {
			continue
		}
		byName[o.name] = append(byName[o.name], ss)
	}
	for _, role := range pl.roles {
		chosen := ""
		for _, n := range s.Optional[role] {
			if hasData(byName[n], role, n) {
				if chosen == "" {
					chosen = n
				} else {
					out.Warnings = append(out.Warnings, fmt.Sprintf("%s has series here too; showing %s only (not combined)", n, chosen))
				}
			}
		}
		if chosen == "" {
			for _, n := range s.Optional[role] {
				if len(native.exp[n]) == 0 && len(native.custom[n]) == 0 {
					continue
				}
				if chosen == "" {
					chosen = n
				} else {
					out.Warnings = append(out.Warnings, fmt.Sprintf("%s has series here too; showing %s only (not combined)", n, chosen))
				}
			}
			if chosen != "" {
				out.Families[role] = OptionalFamily{Role: role, Name: chosen, Natives: native.exp[chosen],
					Histograms: native.custom[chosen], CustomBuckets: len(native.custom[chosen]) > 0}
			}
			continue
		}
		fam := OptionalFamily{Role: role, Name: chosen}
		if role.Kind() == OptionalHistogram {
			hs, err := histogramsFromMatrix(byName[chosen], chosen)
			if err != nil {
				return err
			}
			fam.Histograms = hs
			out.Warnings = append(out.Warnings, nativeLeftOut(s.Optional[role], byName, native, chosen, len(hs))...)
		} else {
			fam.Series, fam.Created = plainFromMatrix(byName[chosen], role, chosen)
		}
		out.Families[role] = fam
	}
	return nil
}

// nativeMatrix reads the names of the histogram roles among roles as
// native histograms over g with one query_range of the plain names (only
// when there is such a role: nil otherwise), with the source's warnings.
func (c *Client) nativeMatrix(ctx context.Context, s Schema, g compute.Grid, filters []Filter, roles []OptionalRole) (model.Matrix, []string, error) {
	var names []string
	for _, r := range roles {
		if r.Kind() == OptionalHistogram {
			names = append(names, s.Optional[r]...)
		}
	}
	if len(names) == 0 {
		return nil, nil, nil
	}
	sel, err := Selector(names, filters)
	if err != nil {
		return nil, nil, err
	}
	step := time.Duration(g.Step) * time.Millisecond
	return c.queryMatrix(ctx, sel, v1.Range{Start: time.UnixMilli(g.Start), End: time.UnixMilli(g.End), Step: step})
}

// nativeLeftOut names the native histogram series of a role's names that
// are not read because the role is read from the classic histograms of
// chosen (nClassic series): a selection whose sources expose the two kinds
// (e.g. some engines with native histograms on) shows the classic ones
// only, as the two do not combine. A native series with the labels of a
// classic series of the same name (a source that stores both kinds of one
// histogram) is the same observations and is not named.
func nativeLeftOut(names []string, byName map[string]model.Matrix, native nativeRead, chosen string, nClassic int) []string {
	var out []string
	for _, n := range names {
		classic := map[string]bool{}
		for _, ss := range byName[n] {
			classic[compute.LabelString(plainLabels(ss.Metric, string(model.BucketLabel)))] = true
		}
		var left []string
		add := func(l map[string]string) {
			if k := compute.LabelString(l); !classic[k] {
				left = append(left, k)
			}
		}
		for _, ns := range native.exp[n] {
			add(ns.Labels)
		}
		for _, hs := range native.custom[n] {
			add(hs.Labels)
		}
		if len(left) == 0 {
			continue
		}
		sort.Strings(left)
		shown := left
		more := ""
		if len(shown) > maxLeftOutNamed {
			shown, more = shown[:maxLeftOutNamed], fmt.Sprintf(" and %d more", len(left)-maxLeftOutNamed)
		}
		out = append(out, fmt.Sprintf("%s has %d native histogram series here too (%s%s); showing the %d classic histogram series of %s only (the two kinds are not combined)",
			n, len(left), strings.Join(shown, ", "), more, nClassic, chosen))
	}
	return out
}

// maxLeftOutNamed is how many left-out series nativeLeftOut names.
const maxLeftOutNamed = 3

// nativeRead is what fetchNative found, by name: exponential native
// histograms, and native histograms with custom buckets (Prometheus 3's
// schema -53) as the classic series of the same observations
// (compute.ClassicFromCustom).
type nativeRead struct {
	exp    map[string][]compute.NativeHistogramSeries
	custom map[string][]compute.HistogramSeries
}

// customBuckets reports whether a stream's samples are a native histogram
// with custom buckets: a bucket bound is infinite (the first and last
// custom buckets; exponential buckets have finite bounds) or a sample's
// buckets fit no exponential schema.
func customBuckets(hs []model.SampleHistogramPair) bool {
	for _, hp := range hs {
		if hp.Histogram == nil {
			continue
		}
		bs := nativeBuckets(hp.Histogram)
		for _, b := range bs {
			if math.IsInf(b.Lower, 0) || math.IsInf(b.Upper, 0) {
				return true
			}
		}
		if _, err := compute.NativeFromBuckets(float64(hp.Histogram.Count), float64(hp.Histogram.Sum), bs); err != nil {
			return true
		}
	}
	return false
}

// nativeBuckets are the API's buckets of h.
func nativeBuckets(h *model.SampleHistogram) []compute.NativeBucket {
	bs := make([]compute.NativeBucket, 0, len(h.Buckets))
	for _, b := range h.Buckets {
		if b == nil {
			continue
		}
		bs = append(bs, compute.NativeBucket{Boundaries: b.Boundaries, Lower: float64(b.Lower), Upper: float64(b.Upper), Count: float64(b.Count)})
	}
	return bs
}

// nativeFromMatrix converts native histogram samples (the Histograms of
// each stream; float samples are ignored) into series by name, sorted by
// label string: exponential ones (compute.NativeFromBuckets) and, for a
// stream with custom buckets (customBuckets), the classic series of the
// same observations (compute.ClassicFromCustom). A name with a sample
// that does not convert, or with streams of both kinds, is left out; errs
// says why, one per name.
func nativeFromMatrix(m model.Matrix) (out nativeRead, errs []error) {
	out = nativeRead{exp: map[string][]compute.NativeHistogramSeries{}, custom: map[string][]compute.HistogramSeries{}}
	bad := map[string]bool{}
	drop := func(name string, err error) {
		errs = append(errs, err)
		bad[name] = true
		delete(out.exp, name)
		delete(out.custom, name)
	}
	for _, ss := range m {
		name := string(ss.Metric[model.MetricNameLabel])
		if len(ss.Histograms) == 0 || bad[name] {
			continue
		}
		labels := plainLabels(ss.Metric)
		if customBuckets(ss.Histograms) {
			samples := make([]compute.CustomSample, 0, len(ss.Histograms))
			for _, hp := range ss.Histograms {
				if hp.Histogram != nil {
					samples = append(samples, compute.CustomSample{T: int64(hp.Timestamp), Count: float64(hp.Histogram.Count), Sum: float64(hp.Histogram.Sum), Buckets: nativeBuckets(hp.Histogram)})
				}
			}
			hs, err := compute.ClassicFromCustom(labels, samples)
			switch {
			case err != nil:
				drop(name, fmt.Errorf("%s%s: %w", name, compute.LabelString(labels), err))
			case len(out.exp[name]) > 0:
				drop(name, fmt.Errorf("%s mixes native histograms with exponential and with custom buckets", name))
			case len(samples) > 0:
				out.custom[name] = append(out.custom[name], hs)
			}
			continue
		}
		if len(out.custom[name]) > 0 {
			drop(name, fmt.Errorf("%s mixes native histograms with exponential and with custom buckets", name))
			continue
		}
		ns := compute.NativeHistogramSeries{Labels: labels}
		for _, hp := range ss.Histograms {
			if hp.Histogram == nil {
				continue
			}
			h, err := compute.NativeFromBuckets(float64(hp.Histogram.Count), float64(hp.Histogram.Sum), nativeBuckets(hp.Histogram))
			if err != nil {
				drop(name, fmt.Errorf("%s%s at %s: %w", name, compute.LabelString(labels), hp.Timestamp.Time().UTC().Format(time.RFC3339), err))
				break
			}
			ns.Samples = append(ns.Samples, compute.NativeSample{T: int64(hp.Timestamp), H: h})
		}
		if len(ns.Samples) > 0 && !bad[name] {
			out.exp[name] = append(out.exp[name], ns)
		}
	}
	for _, ss := range out.exp {
		sort.Slice(ss, func(i, j int) bool { return compute.LabelString(ss[i].Labels) < compute.LabelString(ss[j].Labels) })
	}
	for _, ss := range out.custom {
		sort.Slice(ss, func(i, j int) bool { return compute.LabelString(ss[i].Labels) < compute.LabelString(ss[j].Labels) })
	}
	return out, errs
}

// Native reports whether the family is a native histogram.
func (f OptionalFamily) Native() bool { return len(f.Natives) > 0 }

// HistogramIncreases returns a histogram role's increase in each bucket of
// g, summed over its series (compute.HistogramIncreases for classic
// series, compute.NativeIncreases for native ones). g.Buckets() elements.
func (f OptionalFamily) HistogramIncreases(g compute.Grid) []compute.Histogram {
	if f.Native() {
		return compute.NativeIncreases(f.Natives, g)
	}
	return compute.HistogramIncreases(f.Histograms, g)
}

// hasData reports whether m holds a value sample of the role's name (not
// only _created).
func hasData(m model.Matrix, role OptionalRole, name string) bool {
	for _, ss := range m {
		sn := string(ss.Metric[model.MetricNameLabel])
		if len(ss.Values) > 0 && sn != name+"_created" && (sn != CreatedName(name) || role.Kind() == OptionalGauge) {
			return true
		}
	}
	return false
}

func points(vs []model.SamplePair) []compute.Point {
	out := make([]compute.Point, 0, len(vs))
	for _, v := range vs {
		out = append(out, compute.Point{T: int64(v.Timestamp), V: float64(v.Value)})
	}
	return out
}

func plainLabels(m model.Metric, drop ...string) map[string]string {
	l := map[string]string{}
	for k, v := range m {
		if k == model.MetricNameLabel {
			continue
		}
		skip := false
		for _, d := range drop {
			if string(k) == d {
				skip = true
			}
		}
		if !skip {
			l[string(k)] = string(v)
		}
	}
	return l
}

// plainFromMatrix converts a counter or gauge role's answer.
func plainFromMatrix(m model.Matrix, role OptionalRole, name string) ([]ExtraSeries, map[string]int64) {
	var out []ExtraSeries
	created := map[string][]model.SamplePair{}
	cname := CreatedName(name)
	for _, ss := range m {
		l := plainLabels(ss.Metric)
		if cname != "" && string(ss.Metric[model.MetricNameLabel]) == cname {
			created[compute.LabelString(l)] = ss.Values
			continue
		}
		out = append(out, ExtraSeries{Role: Role(role), Name: name, Labels: l, Points: points(ss.Values)})
	}
	sort.Slice(out, func(i, j int) bool { return compute.LabelString(out[i].Labels) < compute.LabelString(out[j].Labels) })
	cr := map[string]int64{}
	for _, es := range out {
		k := compute.LabelString(es.Labels)
		if pts, ok := created[k]; ok && len(es.Points) > 0 {
			if t := createdAt(pts, es.Points[0].T); t != 0 {
				cr[k] = t
			}
		}
	}
	return out, cr
}

// histogramsFromMatrix converts a histogram's bucket, sum, count and
// created series into one compute.HistogramSeries per label set.
func histogramsFromMatrix(m model.Matrix, base string) ([]compute.HistogramSeries, error) {
	type acc struct {
		h       compute.HistogramSeries
		created []model.SamplePair
	}
	by := map[string]*acc{}
	var keys []string
	get := func(l map[string]string) *acc {
		k := compute.LabelString(l)
		a, ok := by[k]
		if !ok {
			a = &acc{h: compute.HistogramSeries{Labels: l}}
			by[k] = a
			keys = append(keys, k)
		}
		return a
	}
	for _, ss := range m {
		sn := string(ss.Metric[model.MetricNameLabel])
		switch sn {
		case base + "_bucket":
			le := string(ss.Metric[model.BucketLabel])
			ub, ok := compute.ParseUpperBound(le)
			if !ok {
				return nil, fmt.Errorf("%s: malformed le label %q", sn, le)
			}
			a := get(plainLabels(ss.Metric, model.BucketLabel))
			a.h.Buckets = append(a.h.Buckets, compute.HistogramBucketSeries{UpperBound: ub, Points: points(ss.Values)})
		case base + "_sum":
			get(plainLabels(ss.Metric)).h.Sum = points(ss.Values)
		case base + "_count":
			get(plainLabels(ss.Metric)).h.Count = points(ss.Values)
		case base + "_created":
			get(plainLabels(ss.Metric)).created = ss.Values
		}
	}
	sort.Strings(keys)
	out := make([]compute.HistogramSeries, 0, len(keys))
	for _, k := range keys {
		a := by[k]
		if len(a.h.Buckets) == 0 && a.h.Count == nil {
			continue // only _created
		}
		sort.Slice(a.h.Buckets, func(i, j int) bool { return a.h.Buckets[i].UpperBound < a.h.Buckets[j].UpperBound })
		first := int64(0)
		for _, b := range a.h.Buckets {
			if len(b.Points) > 0 && (first == 0 || b.Points[0].T < first) {
				first = b.Points[0].T
			}
		}
		if first != 0 && a.created != nil {
			a.h.Created = createdAt(a.created, first)
		}
		out = append(out, a.h)
	}
	return out, nil
}

// created returns the start time of a counter series (Created), 0 when
// unknown.
func (f OptionalFamily) created(es ExtraSeries) int64 {
	return f.Created[compute.LabelString(es.Labels)]
}

// Increase is the increase of a counter role over (from, to] (Unix ms),
// summed over its series (compute.IncreaseSince with each series' start
// time): e.g. output tokens, SGLang's verify calls.
func (f OptionalFamily) Increase(from, to int64) float64 {
	var sum float64
	for _, es := range f.Series {
		sum += compute.IncreaseSince(es.Points, f.created(es), from, to)
	}
	return sum
}

// BucketIncreases is Increase per bucket of g (g.Buckets() elements).
func (f OptionalFamily) BucketIncreases(g compute.Grid) []float64 {
	out := make([]float64, g.Buckets())
	for _, es := range f.Series {
		for j, v := range compute.BucketIncreasesSince(es.Points, f.created(es), g) {
			out[j] += v
		}
	}
	return out
}

// PositionIncreases is Increase per 0-based position (label
// OptionalPositionLabel, TensorRT-LLM's token_position): element i sums the
// series of position i; positions without series are 0. Errors: a series
// without the label or with a label that is not a position 0..1023.
func (f OptionalFamily) PositionIncreases(from, to int64) ([]float64, error) {
	var out []float64
	for _, es := range f.Series {
		l, ok := es.Labels[OptionalPositionLabel]
		p, err := strconv.Atoi(l)
		if !ok || err != nil || p < 0 || p > 1023 {
			return nil, fmt.Errorf("%s: series %s has no valid %s label (%q)", f.Name, compute.LabelString(es.Labels), OptionalPositionLabel, l)
		}
		for len(out) <= p {
			out = append(out, 0)
		}
		out[p] += compute.IncreaseSince(es.Points, f.created(es), from, to)
	}
	return out, nil
}
