package simulate

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// PatternKind names a failure pattern the simulator can produce on demand
// (docs/ALERTING.md describes each and the verdict or alert it should
// raise).
type PatternKind string

const (
	// Normal: the configured acceptance model.
	Normal PatternKind = "normal"
	// Collapse: drafts keep flowing but almost every draft token is
	// rejected (each position accepted with CollapseAcceptance), as with an
	// MTP drafter under prefill/decode disaggregation (vLLM issue 54926).
	Collapse PatternKind = "collapse"
	// Cliff: positions from Pattern.Position on are never accepted; the
	// earlier ones keep the configured acceptance.
	Cliff PatternKind = "cliff"
	// Drop: from Pattern.At (active simulated time since start) on, every
	// conditional acceptance probability is multiplied by Pattern.Factor: a
	// step drop, as after an upgrade.
	Drop PatternKind = "drop"
	// Loop: every position accepted with LoopAcceptance: a repetition loop.
	Loop PatternKind = "loop"
	// Variable: each draft proposes 1..k tokens (uniform), as n-gram or
	// suffix decoding do: draft tokens < k x drafts.
	Variable PatternKind = "variable"
)

// CollapseAcceptance and LoopAcceptance are the per-position conditional
// acceptance probabilities of the Collapse and Loop patterns.
const (
	CollapseAcceptance = 0.003
	LoopAcceptance     = 0.998
	// DefaultDropFactor is Pattern.Factor of a Drop when it is 0.
	DefaultDropFactor = 0.5
)

// Pattern is a failure pattern applied to the draws of some series.
type Pattern struct {
	Kind PatternKind `json:"kind"`
	// Position is Cliff's first 0-based position that is never accepted
	// (1..k-1; the "position" label value).
	Position int `json:"position,omitempty"`
	// At is when a Drop starts: active simulated time since the
	// simulator started (0: at once).
	At time.Duration `json:"at,omitempty"`
	// Factor multiplies a Drop's conditional probabilities (0 <
	// Factor < 1; 0 means DefaultDropFactor).
	Factor float64 `json:"factor,omitempty"`
}

// String is the pattern in ParsePattern's syntax.
func (p Pattern) String() string {
	switch p.Kind {
	case "", Normal:
		return string(Normal)
	case Cliff:
		return fmt.Sprintf("cliff:%d", p.Position)
	case Drop:
		f := p.Factor
		if f == 0 {
			f = DefaultDropFactor
		}
		s := "drop:" + strconv.FormatFloat(f, 'g', -1, 64)
		if p.At > 0 {
			s += "@" + p.At.String()
		}
		return s
	}
	return string(p.Kind)
}

// ParsePattern parses "normal", "collapse", "loop", "variable",
// "cliff:P" (P the first 0-based position never accepted) and
// "drop[:FACTOR][@AT]" (e.g. "drop:0.5@10m": acceptance halves after 10
// minutes of simulated activity).
func ParsePattern(s string) (Pattern, error) {
	s = strings.TrimSpace(s)
	head, _, _ := strings.Cut(s, "@")
	name, arg, hasArg := strings.Cut(head, ":")
	switch PatternKind(name) {
	case "", Normal, Collapse, Loop, Variable:
		if hasArg || head != s {
			return Pattern{}, fmt.Errorf("pattern %q takes no argument", name)
		}
		if name == "" {
			name = string(Normal)
		}
		return Pattern{Kind: PatternKind(name)}, nil
	case Cliff:
		p, err := strconv.Atoi(arg)
		if err != nil || p < 1 || head != s {
			return Pattern{}, fmt.Errorf("pattern %q: want cliff:P with P the first 0-based position never accepted, 1 or more", s)
		}
		return Pattern{Kind: Cliff, Position: p}, nil
	case Drop:
		out := Pattern{Kind: Drop}
		if name != s {
			name, at, hasAt := strings.Cut(s, "@")
			if hasAt {
				d, err := time.ParseDuration(at)
				if err != nil || d < 0 {
					return Pattern{}, fmt.Errorf("pattern %q: @%s is not a duration >= 0 (e.g. 10m)", s, at)
				}
				out.At = d
			}
			if _, f, ok := strings.Cut(name, ":"); ok {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil || !(v > 0 && v < 1) {
					return Pattern{}, fmt.Errorf("pattern %q: factor %q: want a number between 0 and 1", s, f)
				}
				out.Factor = v
			}
		}
		return out, nil
	}
	return Pattern{}, fmt.Errorf("unknown pattern %q: want normal, collapse, loop, variable, cliff:P or drop[:FACTOR][@AT]", s)
}

// validate checks p against k.
func (p Pattern) validate(k int) error {
	switch p.Kind {
	case "", Normal, Collapse, Loop, Variable:
	case Cliff:
		if p.Position < 1 || p.Position >= k {
			return fmt.Errorf("pattern %s: position %d: want 1..k-1 = 1..%d", p, p.Position, k-1)
		}
	case Drop:
		if p.Factor < 0 || p.Factor >= 1 || p.At < 0 {
			return fmt.Errorf("pattern %s: want 0 <= factor < 1 and at >= 0", p)
		}
	default:
		return fmt.Errorf("unknown pattern %q", p.Kind)
	}
	return nil
}

// draftLen is the number of draft tokens of the next draft: k, or 1..k
// for Variable (one extra draw only in that pattern, so the others keep
// the draws of the configured model).
func (p Pattern) draftLen(r *rand.Rand, k int) int {
	if p.Kind == Variable {
		return 1 + r.IntN(k)
	}
	return k
}

// accept is the conditional acceptance probability of 0-based position i
// whose configured value is base, after active simulated time.
func (p Pattern) accept(i int, base float64, active time.Duration) float64 {
	switch p.Kind {
	case Collapse:
		return CollapseAcceptance
	case Loop:
		return LoopAcceptance
	case Cliff:
		if i >= p.Position {
			return 0
		}
	case Drop:
		if active >= p.At {
			f := p.Factor
			if f == 0 {
				f = DefaultDropFactor
			}
			return base * f
		}
	}
	return base
}

// SetPattern switches the pattern of the series of model ("" every model)
// from the next draft on. It returns an error naming the known models when
// none matches, or when the pattern does not fit a series' k (a cliff
// position beyond k); then nothing changes.
func (s *Simulator) SetPattern(model string, p Pattern) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hit []*series
	for _, sr := range s.series {
		if model != "" && sr.model != model {
			continue
		}
		if err := p.validate(sr.k); err != nil {
			return fmt.Errorf("simulate: model %q (k = %d): %w", sr.model, sr.k, err)
		}
		hit = append(hit, sr)
	}
	if len(hit) == 0 {
		return fmt.Errorf("simulate: no series for model %q; models %q", model, s.cfg.Models)
	}
	for _, sr := range hit {
		sr.pattern = p
	}
	return nil
}

// servePattern is POST /control/pattern?mode=PATTERN[&model=NAME]
// (ParsePattern's syntax; model optional: every model).
func (s *Simulator) servePattern(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return
	}
	q := r.URL.Query()
	p, err := ParsePattern(q.Get("mode"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.SetPattern(q.Get("model"), p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, _ = io.WriteString(w, "ok "+p.String()+"\n")
}
