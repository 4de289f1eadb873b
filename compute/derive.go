package compute

// Stats are the derived numbers for one interval. JSON field names are the
// ones `specdash report --format=json` prints; undefined values are null.
// Counts are drafts and tokens, rates tokens/s or drafts/s, ratios 0..1.
type Stats struct {
	// WindowSeconds is the interval's length in seconds (0 when unknown).
	WindowSeconds float64 `json:"-"`
	// K is len(AcceptedPerPosition): num_speculative_tokens as seen in the
	// per-position counter (0 when it is absent).
	K                   int       `json:"k"`
	Drafts              float64   `json:"drafts"`
	DraftTokens         float64   `json:"draft_tokens"`
	AcceptedTokens      float64   `json:"accepted_tokens"`
	AcceptedPerPosition []float64 `json:"accepted_per_position"`
	// AcceptanceRate is accepted / draft tokens (ratio 0..1); undefined
	// when there are no draft tokens.
	AcceptanceRate Value `json:"acceptance_rate"`
	// MeanAcceptanceLength is 1 + accepted / drafts (WithBonus) or
	// accepted / drafts (WithoutBonus), tokens per draft; undefined when
	// there are no drafts.
	MeanAcceptanceLength Value `json:"mean_acceptance_length"`
	// PerPositionAcceptanceRate[i] is accepted at position i / the drafts
	// of the series that draft position i (all drafts unless the series
	// mix k: DraftsAtPosition); length K; undefined when there are no such
	// drafts.
	PerPositionAcceptanceRate []Value `json:"per_position_acceptance_rate"`
	// DraftsAtPosition is Counts.DraftsAtPosition (drafts): set only when
	// the series mix k, so the per-position denominators differ.
	DraftsAtPosition []float64 `json:"drafts_at_position,omitempty"`
	// AcceptedThroughput and DraftedThroughput are tokens/s,
	// DraftsPerSecond drafts/s; undefined when WindowSeconds <= 0.
	AcceptedThroughput Value      `json:"accepted_throughput"`
	DraftedThroughput  Value      `json:"drafted_throughput"`
	DraftsPerSecond    Value      `json:"drafts_per_second"`
	Convention         Convention `json:"-"`
	// Violations are Check's findings on the counts (see Check); empty
	// when the counts are consistent.
	Violations []string `json:"violations,omitempty"`
}

// clean returns v, or 0 when v is NaN or Inf (Derive reports such inputs
// through Check).
func clean(v float64) float64 {
	if !finite(v) {
		return 0
	}
	return v
}

// Derive computes the derived numbers of one interval from the summed
// increases c over an interval of the given length in seconds.
// Formulas (docs/METRICS.md, "Formulas"; vLLM vllm/v1/spec_decode/metrics.py):
//
//   - K = len(c.AcceptedPerPosition);
//   - acceptance rate = accepted / draft tokens, undefined when draft
//     tokens = 0;
//   - mean acceptance length = 1 + accepted / drafts (WithBonus, vLLM PR
//     17908) or accepted / drafts (WithoutBonus, PR 16665 until 17908),
//     undefined when drafts = 0;
//   - per-position acceptance rate[i] = accepted_per_pos[i] / drafts: the
//     denominator is all drafts, so their sum is mean length (WithBonus) - 1;
//     when the summed series mix k it is the drafts of the series with
//     k > i (c.PositionDrafts(i)): a position some series never draft is
//     not diluted by their drafts (ratio of sums over those series);
//   - accepted and drafted throughput = tokens / seconds (tokens/s), drafts
//     per second = drafts / seconds; undefined when seconds <= 0 (or not
//     finite), defined and 0 when the counts are 0 over a positive window.
//
// Stats.Violations = Check(c). NaN or Inf counts are reported there and
// treated as 0; no NaN or Inf ever comes out of Derive. The slices of the
// result are never nil (JSON [] rather than null) and never alias c's.
func Derive(c Counts, seconds float64, conv Convention) Stats {
	k := len(c.AcceptedPerPosition)
	s := Stats{
		K:                         k,
		Drafts:                    clean(c.Drafts),
		DraftTokens:               clean(c.DraftTokens),
		AcceptedTokens:            clean(c.AcceptedTokens),
		AcceptedPerPosition:       make([]float64, k),
		PerPositionAcceptanceRate: make([]Value, k),
		Convention:                conv,
		Violations:                Check(c),
	}
	if finite(seconds) && seconds > 0 {
		s.WindowSeconds = seconds
	}
	if c.DraftsAtPosition != nil {
		s.DraftsAtPosition = make([]float64, k)
	}
	for i, v := range c.AcceptedPerPosition {
		s.AcceptedPerPosition[i] = clean(v)
		d := s.Drafts
		if s.DraftsAtPosition != nil {
			d = clean(c.PositionDrafts(i))
			s.DraftsAtPosition[i] = d
		}
		s.PerPositionAcceptanceRate[i] = ratio(s.AcceptedPerPosition[i], d)
	}
	s.AcceptanceRate = ratio(s.AcceptedTokens, s.DraftTokens)
	s.MeanAcceptanceLength = ratio(s.AcceptedTokens, s.Drafts)
	if s.MeanAcceptanceLength.OK && conv != WithoutBonus {
		s.MeanAcceptanceLength = Defined(1 + s.MeanAcceptanceLength.V)
	}
	if s.WindowSeconds > 0 {
		s.AcceptedThroughput = ratio(s.AcceptedTokens, s.WindowSeconds)
		s.DraftedThroughput = ratio(s.DraftTokens, s.WindowSeconds)
		s.DraftsPerSecond = ratio(s.Drafts, s.WindowSeconds)
	}
	return s
}

// Counts returns the counts s was derived from (copies of its slices):
// drafts, draft tokens, accepted tokens, accepted per position and, when
// the series mixed k, the drafts at each position.
func (s Stats) Counts() Counts {
	c := Counts{Drafts: s.Drafts, DraftTokens: s.DraftTokens, AcceptedTokens: s.AcceptedTokens,
		AcceptedPerPosition: append([]float64(nil), s.AcceptedPerPosition...)}
	if s.DraftsAtPosition != nil {
		c.DraftsAtPosition = append([]float64(nil), s.DraftsAtPosition...)
	}
	return c
}

// String names the convention: "with bonus token" or "without bonus token".
func (c Convention) String() string {
	if c == WithoutBonus {
		return "without bonus token"
	}
	return "with bonus token"
}
