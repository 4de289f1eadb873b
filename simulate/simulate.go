// Package simulate is a load generator that looks like a vLLM V1 server
// with speculative decoding to a Prometheus scraper: it serves /metrics in
// the exact bytes Python's prometheus_client (generate_latest, text format
// 0.0.4) writes for vLLM's SpecDecodingProm counters
// (vllm/v1/spec_decode/metrics.py; names, HELP and labels in
// docs/METRICS.md "vLLM V1"), plus a few other vLLM families, and it knows
// the exact true counts behind them (Truth, /truth) so tests can compare a
// dashboard's numbers with the answer.
//
// Model: for each model and each engine, a series of drafts arrives at
// Config.DraftsPerSecond. Every draft carries k draft tokens; its accepted
// tokens form a prefix whose length is drawn from the model's acceptance
// model: the draft token at position i is accepted with the conditional
// probability Acceptance[i] given that positions 0..i-1 were accepted. The
// random draws use a seeded PCG generator per (model, engine), so a
// simulator driven by Step is fully deterministic. A failure Pattern
// (Config.Pattern, SetPattern, POST /control/pattern) changes this on
// demand: collapse, loop, a cliff at a position, a step drop, or variable
// draft lengths (fewer than k draft tokens per draft).
//
// Comparing a dashboard with Truth: Prometheus only sees scraped values,
// and an increase over a window never counts what the counter held at the
// window's first sample. For an exact comparison, start with the counters at
// 0 (Pause before any Step or Run, or `specdash simulate --paused`), wait
// until Prometheus has scraped the zeros, Resume (or Step), Pause again,
// wait until the final values are scraped, then compare the increase over a
// window that starts before the first scrape with Truth's Total (Total
// equals Exposed when no reset happened).
//
// Time: the simulator has its own clock, starting at Config.Start. Step(d)
// advances it by d (tests); Run advances it by the real elapsed time every
// Config.Tick. The number of drafts of a series after an active time T is
// floor(DraftsPerSecond * T) exactly, however T was split into steps.
package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"
)

// DefaultTick is the real-time step of Run when Config.Tick is zero.
const DefaultTick = 100 * time.Millisecond

// DefaultPrefix is vLLM's metric-name prefix. Under Ray Serve it is
// "ray_vllm:" (later "ray_vllm_"), see docs/METRICS.md.
const DefaultPrefix = "vllm:"

// maxK bounds k (num_speculative_tokens) to keep /metrics small; real
// deployments use k <= 10 or so.
const maxK = 64

// maxEngines bounds the number of engines per model.
const maxEngines = 256

// maxDraftsInAll bounds DraftsPerSecond times the number of series: Step
// draws every draft under the lock that /metrics takes, so 1e9 drafts/s
// kept a core busy and /metrics unanswered. 200000 drafts/s in all is far
// above a real vLLM fleet's and a few percent of a core.
const maxDraftsInAll = 200_000

// ModelOptions overrides Config.K and Config.Acceptance for one model.
// Zero values mean "use the Config default".
type ModelOptions struct {
	// K is num_speculative_tokens for this model (draft tokens per draft).
	K int
	// Acceptance is the model's acceptance model; same rules as
	// Config.Acceptance, with len 1 or len K.
	Acceptance []float64
}

// Config configures a Simulator. New validates it.
type Config struct {
	// Models are the model_name label values, at least one, unique and
	// non-empty; any UTF-8 (spaces, slashes, quotes, backslashes, newlines)
	// is allowed.
	Models []string
	// Engines is the number of engines (data-parallel ranks) per model;
	// their engine labels are "0" .. "Engines-1". Ignored when EngineIDs is
	// set. Default 1.
	Engines int
	// EngineIDs, if set, are the engine label values to use instead of
	// 0..Engines-1 (e.g. []string{"3"}: only the last engine, as vLLM before
	// PR 21257 exposed). Unique and non-empty.
	EngineIDs []string
	// K is num_speculative_tokens: draft tokens per draft (1..64).
	K int
	// Acceptance is the acceptance model: either one per-token probability
	// (len 1: every position accepted with that probability, given the
	// previous ones were) or K conditional probabilities, Acceptance[i] =
	// P(position i accepted | positions 0..i-1 accepted). Each in [0, 1].
	// The expected per-position acceptance rate is then the running product
	// Acceptance[0]*...*Acceptance[i].
	Acceptance []float64
	// PerModel overrides K and Acceptance for some models (keys must be in
	// Models).
	PerModel map[string]ModelOptions
	// DraftsPerSecond is the draft rate of each (model, engine) series, in
	// drafts per second of simulated time (>= 0).
	DraftsPerSecond float64
	// Seed makes the random draws reproducible.
	Seed int64
	// Tick is Run's real-time step (default DefaultTick).
	Tick time.Duration
	// Start is the simulated clock's initial time, used for _created values
	// (default time.Now()).
	Start time.Time
	// Prefix is the metric-name prefix (default DefaultPrefix "vllm:").
	Prefix string
	// Format is the engine exposition to speak (default FormatVLLM; see
	// Format). FormatLMDeploy with the default Prefix uses "lmdeploy:".
	Format Format
	// Latency adds the histogram <prefix>inter_token_latency_seconds to
	// FormatVLLM's /metrics, derived from the counts (Counts.InterTokenLatency).
	Latency bool
	// NativeHistograms (with Latency, FormatVLLM) serves /metrics in the
	// protobuf exposition to a scraper that asks for it (Prometheus with
	// --enable-feature=native-histograms), the inter-token latency then a
	// native histogram (Counts.NativeInterTokenLatency, NativeITLSchema),
	// as a vLLM instrumented with client_golang's
	// NativeHistogramBucketFactor would; vLLM's own prometheus_client has
	// no native histograms. Text scrapes are unchanged.
	NativeHistograms bool
	// Multiprocess mimics prometheus_client's multiprocess mode: every HELP
	// reads "Multiprocess metric" and no _created samples are written.
	Multiprocess bool
	// Pattern is the failure pattern of every series at start (zero:
	// Normal); SetPattern and POST /control/pattern switch it at run time.
	Pattern Pattern
}

// Counts are counter values of one (model, engine) series.
// Units: drafts, and tokens.
type Counts struct {
	Drafts         int64 `json:"drafts"`
	DraftTokens    int64 `json:"draft_tokens"`
	AcceptedTokens int64 `json:"accepted_tokens"`
	// AcceptedPerPosition is indexed by 0-based position; its length is k.
	AcceptedPerPosition []int64 `json:"accepted_per_position"`
	// GenerationTokens is vllm:generation_tokens_total: accepted tokens
	// plus one bonus token per draft.
	GenerationTokens int64 `json:"generation_tokens"`
}

func (c Counts) clone() Counts {
	c.AcceptedPerPosition = slices.Clone(c.AcceptedPerPosition)
	return c
}

// TrueSeries is the exact truth for one (model, engine) series.
type TrueSeries struct {
	Model  string `json:"model"`
	Engine string `json:"engine"`
	K      int    `json:"k"`
	// Acceptance is the conditional acceptance model in use, length K.
	Acceptance []float64 `json:"acceptance"`
	// Total counts every draft since the simulator started, summed across
	// ResetCounters: what a dashboard should find for a window covering the
	// whole run, when it handles counter resets correctly.
	Total Counts `json:"total"`
	// Exposed are the counter values /metrics shows now (since the last
	// reset, or since start).
	Exposed Counts `json:"exposed"`
	// Created is the _created value: start time or time of the last reset.
	Created time.Time `json:"created"`
	// Resets is how many times ResetCounters hit this series.
	Resets int `json:"resets"`
	// Pattern is the failure pattern in use (ParsePattern's syntax).
	Pattern string `json:"pattern"`
}

// Truth is a consistent snapshot of every series.
type Truth struct {
	// Time is the simulated clock at the snapshot.
	Time time.Time `json:"time"`
	// Series in exposition order: models in Config order, then engines.
	Series []TrueSeries `json:"series"`
}

type series struct {
	model, engine string
	k             int
	acc           []float64
	rng           *rand.Rand // acceptance draws
	gaugeRNG      *rand.Rand // num_requests_running, kept apart so it never shifts the acceptance draws
	total         Counts
	exposed       Counts
	created       time.Time
	resets        int
	running       int
	pattern       Pattern
}

// Simulator is a simulated vLLM V1 server. It is safe for concurrent use.
type Simulator struct {
	cfg Config

	mu      sync.Mutex
	now     time.Time
	active  time.Duration // simulated time spent not paused
	emitted int64         // drafts emitted per series so far
	paused  bool
	series  []*series
}

// New validates cfg and returns a Simulator with every series at 0 (the
// per-position series exist at 0 for positions 0..k-1 from the start, as in
// vLLM). Errors name the offending field and value.
func New(cfg Config) (*Simulator, error) {
	if len(cfg.Models) == 0 {
		return nil, errors.New("simulate: no models: give at least one model name")
	}
	seen := map[string]bool{}
	for _, m := range cfg.Models {
		if m == "" {
			return nil, errors.New("simulate: empty model name")
		}
		if seen[m] {
			return nil, fmt.Errorf("simulate: model %q given twice", m)
		}
		seen[m] = true
	}
	for m := range cfg.PerModel {
		if !seen[m] {
			return nil, fmt.Errorf("simulate: PerModel names model %q, which is not in Models %q", m, cfg.Models)
		}
	}
	engines := slices.Clone(cfg.EngineIDs)
	if len(engines) == 0 {
		n := cfg.Engines
		if n == 0 {
			n = 1
		}
		if n < 1 || n > maxEngines {
			return nil, fmt.Errorf("simulate: engines = %d, want 1..%d", cfg.Engines, maxEngines)
		}
		for i := 0; i < n; i++ {
			engines = append(engines, strconv.Itoa(i))
		}
	} else {
		es := map[string]bool{}
		for _, e := range engines {
			if e == "" || es[e] {
				return nil, fmt.Errorf("simulate: engine IDs %q: each must be non-empty and unique", engines)
			}
			es[e] = true
		}
	}
	if math.IsNaN(cfg.DraftsPerSecond) || math.IsInf(cfg.DraftsPerSecond, 0) || cfg.DraftsPerSecond < 0 {
		return nil, fmt.Errorf("simulate: drafts per second = %v, want a finite number >= 0", cfg.DraftsPerSecond)
	}
	if cfg.Tick < 0 {
		return nil, fmt.Errorf("simulate: tick = %v, want > 0", cfg.Tick)
	}
	if cfg.Tick == 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Start.IsZero() {
		cfg.Start = time.Now()
	}
	if _, err := ParseFormat(string(cfg.Format)); err != nil {
		return nil, err
	}
	if cfg.Format == "" {
		cfg.Format = FormatVLLM
	}
	if cfg.Format == FormatLMDeploy && (cfg.Prefix == "" || cfg.Prefix == DefaultPrefix) {
		cfg.Prefix = "lmdeploy:"
	}
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	s := &Simulator{cfg: cfg, now: cfg.Start}
	idx := uint64(0)
	for _, m := range cfg.Models {
		k, acc := cfg.K, cfg.Acceptance
		if o, ok := cfg.PerModel[m]; ok {
			if o.K != 0 {
				k = o.K
			}
			if o.Acceptance != nil {
				acc = o.Acceptance
			}
		}
		full, err := acceptanceModel(k, acc)
		if err != nil {
			return nil, fmt.Errorf("simulate: model %q: %w", m, err)
		}
		if err := cfg.Pattern.validate(k); err != nil {
			return nil, fmt.Errorf("simulate: model %q (k = %d): %w", m, k, err)
		}
		for _, e := range engines {
			idx++
			sr := &series{
				model: m, engine: e, k: k, acc: full,
				rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), idx)),
				gaugeRNG: rand.New(rand.NewPCG(uint64(cfg.Seed)^0x9e3779b97f4a7c15, idx)),
				total:    Counts{AcceptedPerPosition: make([]int64, k)},
				exposed:  Counts{AcceptedPerPosition: make([]int64, k)},
				created:  cfg.Start,
				pattern:  cfg.Pattern,
			}
			s.series = append(s.series, sr)
		}
	}
	if all := cfg.DraftsPerSecond * float64(len(s.series)); all > maxDraftsInAll {
		return nil, fmt.Errorf("simulate: drafts per second = %v for each of %d series (%v in all), want at most %v in all: every draft is drawn, and more would hold /metrics up for the whole tick",
			cfg.DraftsPerSecond, len(s.series), all, maxDraftsInAll)
	}
	return s, nil
}

// acceptanceModel checks k and acc and returns K conditional probabilities.
func acceptanceModel(k int, acc []float64) ([]float64, error) {
	if k < 1 || k > maxK {
		return nil, fmt.Errorf("k = %d, want 1..%d (num_speculative_tokens)", k, maxK)
	}
	for i, p := range acc {
		if math.IsNaN(p) || p < 0 || p > 1 {
			return nil, fmt.Errorf("acceptance[%d] = %v, want a probability in [0, 1]", i, p)
		}
	}
	switch len(acc) {
	case 1:
		out := make([]float64, k)
		for i := range out {
			out[i] = acc[0]
		}
		return out, nil
	case k:
		return slices.Clone(acc), nil
	default:
		return nil, fmt.Errorf("acceptance has %d values %v, want 1 (per-token probability) or k = %d (conditional per position)", len(acc), acc, k)
	}
}

// Step advances the simulated clock by d (d <= 0 does nothing) and, unless
// paused, emits the drafts that fall due: after an active time T each series
// has emitted floor(DraftsPerSecond * T) drafts in total.
func (s *Simulator) Step(d time.Duration) {
	if d <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(d)
	if s.paused {
		return
	}
	s.active += d
	due := int64(math.Floor(s.cfg.DraftsPerSecond * s.active.Seconds()))
	n := due - s.emitted
	s.emitted = due
	for _, sr := range s.series {
		for j := int64(0); j < n; j++ {
			sr.draft(s.active)
		}
		// A plausible batch size: a few requests while drafts flow.
		if s.cfg.DraftsPerSecond > 0 {
			sr.running = 1 + sr.gaugeRNG.IntN(8)
		}
	}
}

// draft draws one draft's length and accepted length (under the series'
// pattern, after active simulated time) and counts it.
func (sr *series) draft(active time.Duration) {
	l := sr.pattern.draftLen(sr.rng, sr.k)
	n := 0
	for n < l && sr.rng.Float64() < sr.pattern.accept(n, sr.acc[n], active) {
		n++
	}
	for _, c := range []*Counts{&sr.total, &sr.exposed} {
		c.Drafts++
		c.DraftTokens += int64(l)
		c.AcceptedTokens += int64(n)
		for i := 0; i < n; i++ {
			c.AcceptedPerPosition[i]++
		}
		c.GenerationTokens += int64(n) + 1
	}
}

// Run advances the clock in real time: every Config.Tick it steps by the
// real time elapsed since the previous step. It returns nil when ctx is
// done.
func (s *Simulator) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			s.Step(now.Sub(last))
			last = now
		}
	}
}

// Pause stops draft production (the clock still advances): the counters
// stay flat and num_requests_running drops to 0, like an idle server.
func (s *Simulator) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = true
	for _, sr := range s.series {
		sr.running = 0
	}
}

// Resume restarts draft production after Pause. Drafts resume at the
// configured rate; the paused time is not made up for.
func (s *Simulator) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = false
}

// Paused reports whether the simulator is paused.
func (s *Simulator) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// ResetCounters simulates a restart of one engine: its exposed counters go
// back to 0 and its _created becomes the current simulated time. Truth's
// Total keeps counting across the reset. An empty engine resets every
// engine of the model. It returns an error naming the known models and
// engines if none matches.
func (s *Simulator) ResetCounters(model, engine string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hit := false
	for _, sr := range s.series {
		if sr.model != model || (engine != "" && sr.engine != engine) {
			continue
		}
		hit = true
		sr.exposed = Counts{AcceptedPerPosition: make([]int64, sr.k)}
		sr.created = s.now
		sr.resets++
	}
	if !hit {
		return fmt.Errorf("simulate: no series for model %q engine %q; models %q, engines %q", model, engine, s.cfg.Models, s.engineIDs())
	}
	return nil
}

func (s *Simulator) engineIDs() []string {
	var out []string
	for _, sr := range s.series {
		if !slices.Contains(out, sr.engine) {
			out = append(out, sr.engine)
		}
	}
	return out
}

// Now returns the simulated clock.
func (s *Simulator) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Sum returns the Total counts of the series of model summed over its
// engines ("" sums every model), per position by index (length: the largest
// k summed). With exposed true it sums the Exposed counts instead.
func (t Truth) Sum(model string, exposed bool) Counts {
	var out Counts
	for _, ts := range t.Series {
		if model != "" && ts.Model != model {
			continue
		}
		c := ts.Total
		if exposed {
			c = ts.Exposed
		}
		out.Drafts += c.Drafts
		out.DraftTokens += c.DraftTokens
		out.AcceptedTokens += c.AcceptedTokens
		out.GenerationTokens += c.GenerationTokens
		for len(out.AcceptedPerPosition) < len(c.AcceptedPerPosition) {
			out.AcceptedPerPosition = append(out.AcceptedPerPosition, 0)
		}
		for i, v := range c.AcceptedPerPosition {
			out.AcceptedPerPosition[i] += v
		}
	}
	return out
}

// Truth returns a consistent snapshot of the exact counts of every series.
func (s *Simulator) Truth() Truth {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := Truth{Time: s.now}
	for _, sr := range s.series {
		t.Series = append(t.Series, TrueSeries{
			Model: sr.model, Engine: sr.engine, K: sr.k,
			Acceptance: slices.Clone(sr.acc),
			Total:      sr.total.clone(),
			Exposed:    sr.exposed.clone(),
			Created:    sr.created,
			Resets:     sr.resets,
			Pattern:    sr.pattern.String(),
		})
	}
	return t
}
