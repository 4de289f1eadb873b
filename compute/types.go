// Package compute is specdash's metric math: from counter samples of the
// speculative-decoding counters to acceptance rate, mean acceptance length,
// per-position acceptance rates and throughput.
//
// It is pure Go (no I/O, no syscall/js) and builds for the host and for
// js/wasm, so the browser, the server and the CLI compute every number with
// the same code.
//
// Data flows one way:
//
//	[]Series (counter values at step-aligned times, from metricsclient)
//	  -> Aggregate (exact increases per bucket, summed per group: ratio of sums)
//	  -> []Group{Total Counts, Buckets []Counts}
//	  -> Derive (ratios and rates for one interval; Group.TotalStats, Group.BucketStats)
//	  -> Stats (undefined values are Value{OK: false}: JSON null, printed as Undefined)
//
// Increases are exact differences of counter values (Increase,
// BucketIncreases): no extrapolation, resets handled, NaN stale markers
// skipped, so a window's numbers match vLLM's own log line (FormatLogLine,
// FormatLegacyLogLine). Check reports counts that break the counters'
// invariants. No function panics on bad input, and no NaN or Inf ever comes
// out as a defined Value.
//
// Metric names and formulas: docs/METRICS.md (vLLM V1,
// vllm/v1/spec_decode/metrics.py, class SpecDecodingProm).
package compute

// Family identifies one of the four speculative-decoding counters of vLLM V1.
type Family int

const (
	// Drafts is vllm:spec_decode_num_drafts_total: one draft is one request in
	// one verification step that carried draft tokens.
	Drafts Family = iota
	// DraftTokens is vllm:spec_decode_num_draft_tokens_total (tokens).
	DraftTokens
	// AcceptedTokens is vllm:spec_decode_num_accepted_tokens_total (tokens).
	AcceptedTokens
	// AcceptedPerPosition is vllm:spec_decode_num_accepted_tokens_per_pos_total,
	// one series per 0-based draft position (label "position").
	AcceptedPerPosition
)

// Point is one counter value at one time.
// T is Unix time in milliseconds; V is the counter's value (drafts or tokens).
type Point struct {
	T int64
	V float64
}

// Series is one counter time series: the values of one counter for one label
// set, at ascending times (step-aligned values from a range query, or raw
// samples).
type Series struct {
	Family Family
	// Labels are the identifying labels without __name__ and without position.
	Labels map[string]string
	// Position is the 0-based draft position for AcceptedPerPosition, -1 otherwise.
	Position int
	// Points are in ascending T.
	Points []Point
	// Created is when the counter (its process) started counting from 0,
	// Unix milliseconds; 0 means unknown. It comes from the series'
	// <name>_created gauge (prometheus_client exports one per counter; its
	// value is Unix seconds), read at the series' first point. It is used
	// only as a start time, never summed into a count. See IncreaseSince
	// for when it matters.
	Created int64
}

// Counts holds the increases of the four counters over one interval, summed
// over a set of series. Units: drafts, and tokens.
type Counts struct {
	Drafts         float64
	DraftTokens    float64
	AcceptedTokens float64
	// AcceptedPerPosition is indexed by 0-based position; its length is k.
	AcceptedPerPosition []float64
	// DraftsAtPosition[i] is the drafts of the series that draft position
	// i (their k > i): the denominator of the per-position acceptance rate
	// at i when the summed series mix k. nil means every position's
	// denominator is Drafts (one k, the usual case); otherwise its length
	// is len(AcceptedPerPosition). Aggregate, Sum and Add set it only for
	// mixed k. Use PositionDrafts to read it.
	DraftsAtPosition []float64
}

// PositionDrafts is the denominator of the per-position acceptance rate at
// 0-based position i: DraftsAtPosition[i] when set, else Drafts (drafts).
func (c Counts) PositionDrafts(i int) float64 {
	if c.DraftsAtPosition != nil {
		if i < len(c.DraftsAtPosition) {
			return c.DraftsAtPosition[i]
		}
		return 0
	}
	return c.Drafts
}

// Grid is a step-aligned time grid. Start, End and Step are Unix
// milliseconds (Step > 0, End-Start a multiple of Step). Bucket j covers the
// half-open interval (Start+j*Step, Start+(j+1)*Step]; the grid as a whole
// covers (Start, End].
type Grid struct {
	Start, End, Step int64
}

// Convention selects the form of the mean acceptance length.
type Convention int

const (
	// WithBonus is 1 + accepted / drafts: the bonus token included, vLLM's
	// convention since its PR 17908 (May 2025). The default.
	WithBonus Convention = iota
	// WithoutBonus is accepted / drafts, as vLLM printed from PR 16665 until
	// PR 17908 (and as the worked example in PR 16665's review thread gives
	// it).
	WithoutBonus
)
