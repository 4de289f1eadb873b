// Package logparse turns vLLM log text, or a raw Prometheus /metrics
// scrape, into speculative-decoding counts (compute.Counts), so users who
// only have logs get the same numbers and charts as from Prometheus.
//
// Log lines (docs/METRICS.md; vLLM's vllm/v1/spec_decode/metrics.py,
// SpecDecodingLogging.log): every form
// vLLM printed is recognised, after any prefix (a logger prefix such as
// `(APIServer pid=1) INFO 04-16 09:49:04 [metrics.py:82] `, a container name
// such as `vllm-0  | `, ANSI colours):
//
//   - FormatCurrent: `SpecDecoding metrics: Mean acceptance length: %.2f,
//     Accepted throughput: %.2f tokens/s, Drafted throughput: %.2f tokens/s,
//     Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate:
//     %.3f, ..., Avg Draft acceptance rate: %.1f%`; counts since the
//     previous line of the same engine.
//   - Format2025: `SpecDecoding metrics: Draft acceptance rate: %.1f%, Mean
//     acceptance length: %.2f, Accepted: %d tokens, Drafted: %d tokens,
//     Per-position acceptance probabilities|rate: %.3f, ...` (vLLM PR 16665
//     and later); windowed like the current form.
//   - FormatV0: `Speculative metrics: Draft acceptance rate: %.3f, System
//     efficiency: %.3f, Number of speculative tokens: k, Number of accepted
//     tokens: N, Number of draft tokens: N, Number of emitted tokens: N.`;
//     cumulative since start-up, turned into windows by differences.
//
// A window without drafts prints its ratios as Python's "nan" ("Mean
// acceptance length: nan", "Avg Draft acceptance rate: nan%", V0's
// "Draft acceptance rate: nan"): such a line is an entry with zero counts
// and undefined printed ratios, not a problem.
//
// The number of drafts is not printed: it is recovered as drafted / k and
// marked derived (Derived.Drafts), and per-position counts as round(rate ×
// drafts) (Derived.PerPosition). Every recovered entry is re-derived with
// compute.Derive and compared with what the line printed; differences
// become Entry.Notes.
//
// The package is pure Go (no I/O beyond an io.Reader, no syscall/js) and
// builds for js/wasm. No function panics on any input.
package logparse

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"specdash/compute"
)

// Format is the form of a vLLM speculative-decoding log line.
type Format int

const (
	// FormatCurrent is vLLM's current line, beginning "SpecDecoding
	// metrics: Mean acceptance length:" (mean length with the bonus token,
	// vLLM PR 17908; throughputs in tokens/s).
	FormatCurrent Format = iota + 1
	// Format2025 is the 2025 line, beginning "SpecDecoding metrics: Draft
	// acceptance rate:" (PR 16665). Its mean length was printed without the
	// bonus token before PR 17908 and with it after: Entry.Convention says
	// which, found from the numbers.
	Format2025
	// FormatV0 is vLLM V0's cumulative "Speculative metrics:" line.
	FormatV0
)

// String names the format: "current", "2025" or "V0".
func (f Format) String() string {
	switch f {
	case FormatCurrent:
		return "current"
	case Format2025:
		return "2025"
	case FormatV0:
		return "V0"
	}
	return "unknown"
}

// MarshalText encodes the format as its name.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Derived says which numbers of an Entry were not printed but recovered.
type Derived struct {
	// Drafts is true when Counts.Drafts = drafted / k (always, for log
	// lines: vLLM does not print the number of drafts).
	Drafts bool `json:"drafts"`
	// PerPosition is true when Counts.AcceptedPerPosition[i] =
	// round(printed rate[i] × drafts).
	PerPosition bool `json:"per_position"`
	// Seconds is true when Entry.Seconds = drafted / drafted throughput.
	Seconds bool `json:"seconds"`
	// Window is true for a V0 entry whose counts are the difference from the
	// previous V0 line of the same source (V0 prints cumulative values).
	Window bool `json:"window"`
}

// Printed holds the values as the line printed them, for cross-checking.
// Missing values are undefined (JSON null).
type Printed struct {
	// AcceptanceRate is a ratio 0..1 (the line's percent / 100 for the V1
	// forms, its ratio for V0).
	AcceptanceRate       compute.Value `json:"acceptance_rate"`
	MeanAcceptanceLength compute.Value `json:"mean_acceptance_length"`
	// AcceptedThroughput and DraftedThroughput are tokens/s.
	AcceptedThroughput compute.Value `json:"accepted_throughput"`
	DraftedThroughput  compute.Value `json:"drafted_throughput"`
	// Accepted and Drafted are tokens (cumulative for V0).
	Accepted compute.Value `json:"accepted"`
	Drafted  compute.Value `json:"drafted"`
	// PerPosition are the per-position acceptance rates (ratios 0..1).
	PerPosition []compute.Value `json:"per_position"`
	// SystemEfficiency (ratio) and Emitted (tokens, cumulative) are V0's.
	SystemEfficiency compute.Value `json:"system_efficiency"`
	Emitted          compute.Value `json:"emitted"`
}

// Entry is one parsed metrics line: one window of counts.
type Entry struct {
	// Line is the 1-based line number in the input.
	Line int `json:"line"`
	// Time is the timestamp as printed in the prefix ("04-16 09:49:04"),
	// "" when the prefix has none.
	Time string `json:"time"`
	// Container is the docker compose service ("vllm-0" of "vllm-0  | ")
	// or kubectl prefix ("pod/vllm-0/vllm" of "[pod/vllm-0/vllm] "), ""
	// when none.
	Container string `json:"container,omitempty"`
	// Engine is the data-parallel rank when the prefix says it ("Engine
	// 000:" or "EngineCore_DP0" give "0", like Prometheus' engine label),
	// "" otherwise.
	Engine string `json:"engine,omitempty"`
	Format Format `json:"format"`
	// K is the number of speculative tokens: the number of per-position
	// values, or V0's "Number of speculative tokens".
	K int `json:"k"`
	// Counts are the window's counts (drafts, tokens). For V0 they have no
	// per-position data.
	Counts compute.Counts `json:"counts"`
	// Seconds is the window length (s), 0 when unknown.
	Seconds float64 `json:"seconds"`
	// Convention is the convention of the printed mean acceptance length.
	Convention compute.Convention `json:"-"`
	Derived    Derived            `json:"derived"`
	Printed    Printed            `json:"printed"`
	// Text is the line from its marker on, without the prefix.
	Text string `json:"text"`
	// Notes are caveats: numbers that could not be recovered exactly, or
	// recovered numbers that do not reprint as the line printed them.
	Notes []string `json:"notes,omitempty"`
}

// Stats derives the entry's numbers (compute.Derive) over Seconds with the
// convention of its printed mean length.
func (e Entry) Stats() compute.Stats {
	return compute.Derive(e.Counts, e.Seconds, e.Convention)
}

// Problem is an input line that looked like a metrics line but could not be
// used.
type Problem struct {
	// Line is the 1-based line number, 0 for the input as a whole.
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Text is the line (cut to 200 bytes).
	Text string `json:"text,omitempty"`
}

// Source is one log source: a container and engine pair.
type Source struct {
	Container string `json:"container,omitempty"`
	Engine    string `json:"engine,omitempty"`
	// Entries is the number of entries from this source; Total their
	// summed counts.
	Entries int            `json:"entries"`
	Total   compute.Counts `json:"total"`
}

// Result is what Parse found.
type Result struct {
	Entries []Entry `json:"entries"`
	// Total is the sum of all entries' counts (per-position summed by
	// position; entries without per-position data add none).
	Total compute.Counts `json:"total"`
	// Sources are the totals per container and engine, sorted.
	Sources  []Source  `json:"sources"`
	Problems []Problem `json:"problems"`
	// Lines is the number of input lines.
	Lines int `json:"lines"`
}

const (
	markerV1 = "SpecDecoding metrics:"
	markerV0 = "Speculative metrics:"
)

var (
	ansiRe      = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	composeRe   = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*\|\s`)
	kubectlRe   = regexp.MustCompile(`^\[([^\]\s]+)\]\s`)
	engineRe    = regexp.MustCompile(`\bEngine\s+0*(\d+)\b|\bEngineCore_DP0*(\d+)\b`)
	timeRe      = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?|\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?`)
	intRe       = regexp.MustCompile(`^\d+$`)
	decimalRe   = regexp.MustCompile(`^\d+(?:\.(\d+))?$`)
	percentRe   = regexp.MustCompile(`^(\d+(?:\.(\d+))?)%$`)
	throughRe   = regexp.MustCompile(`^(\d+(?:\.(\d+))?) tokens/s$`)
	tokensRe    = regexp.MustCompile(`^(\d+) tokens$`)
	maxTextSize = 200
)

// ParseReader reads all of r and parses it (see Parse). The error is only
// the reader's.
func ParseReader(r io.Reader) (Result, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Result{}, fmt.Errorf("reading log: %w", err)
	}
	return Parse(string(b)), nil
}

// v0State is the last cumulative V0 line of a source.
type v0State struct {
	accepted, drafted float64
	k                 int
}

// Parse parses vLLM log text (any mix of the three formats, any prefixes,
// "\n" or "\r\n" line ends) into entries, in input order. Lines without a
// marker ("SpecDecoding metrics:", "Speculative metrics:") are skipped;
// lines with a marker that cannot be used (a field missing, a number
// malformed or cut off) are listed in Problems with the reason. When no
// entry is found, Problems says so (line 0): there is never a silent empty
// result.
func Parse(text string) Result {
	res := Result{Entries: []Entry{}, Problems: []Problem{}, Sources: []Source{}}
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	res.Lines = len(lines)
	v0 := map[[2]string]v0State{}
	for i, raw := range lines {
		line := strings.TrimRight(ansiRe.ReplaceAllString(raw, ""), "\r \t")
		e, reason, ok := parseLine(line)
		if !ok {
			if reason != "" {
				res.Problems = append(res.Problems, Problem{Line: i + 1, Reason: reason, Text: cut(line)})
			}
			continue
		}
		e.Line = i + 1
		if e.Format == FormatV0 {
			windowV0(&e, v0)
		}
		res.Entries = append(res.Entries, e)
	}
	if len(res.Entries) == 0 && len(res.Problems) == 0 {
		reason := fmt.Sprintf("no vLLM speculative-decoding line (%q or %q) in %d lines", markerV1, markerV0, res.Lines)
		if strings.TrimSpace(text) == "" {
			reason = "empty input: paste vLLM log lines containing " + strconv.Quote(markerV1)
		}
		res.Problems = append(res.Problems, Problem{Reason: reason})
	}
	res.Total, res.Sources = totals(res.Entries)
	return res
}

func cut(s string) string {
	if len(s) <= maxTextSize {
		return s
	}
	return strings.ToValidUTF8(s[:maxTextSize], "") + "..."
}

func totals(entries []Entry) (compute.Counts, []Source) {
	total := compute.Counts{AcceptedPerPosition: []float64{}}
	idx := map[[2]string]int{}
	sources := []Source{}
	for _, e := range entries {
		total = total.Add(e.Counts)
		key := [2]string{e.Container, e.Engine}
		j, ok := idx[key]
		if !ok {
			j = len(sources)
			idx[key] = j
			sources = append(sources, Source{Container: e.Container, Engine: e.Engine, Total: compute.Counts{AcceptedPerPosition: []float64{}}})
		}
		sources[j].Entries++
		sources[j].Total = sources[j].Total.Add(e.Counts)
	}
	slices.SortFunc(sources, func(a, b Source) int {
		if c := strings.Compare(a.Container, b.Container); c != 0 {
			return c
		}
		if ea, eb := engineNum(a.Engine), engineNum(b.Engine); ea != eb {
			return ea - eb
		}
		return strings.Compare(a.Engine, b.Engine)
	})
	return total, sources
}

func engineNum(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || len(s) > 9 {
		return -1
	}
	return n
}

// field is one "Key: value" of a metrics line; list holds the extra
// comma-separated values that followed it (per-position rates).
type field struct {
	key   string
	value string
	list  []string
}

// splitFields splits the text after the marker at ", " into fields. A piece
// without ':' continues the previous field's list.
func splitFields(s string) ([]field, string) {
	var out []field
	for piece := range strings.SplitSeq(s, ",") {
		piece = strings.TrimSpace(piece)
		if k, v, ok := strings.Cut(piece, ":"); ok {
			out = append(out, field{key: strings.ToLower(strings.TrimSpace(k)), value: strings.TrimSpace(v)})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Sprintf("text %q before the first field", piece)
		}
		out[len(out)-1].list = append(out[len(out)-1].list, piece)
	}
	return out, ""
}

// parseLine parses one line. ok is false when the line holds no marker
// (reason "") or cannot be used (reason set).
func parseLine(line string) (e Entry, reason string, ok bool) {
	format := Format(0)
	at := strings.Index(line, markerV1)
	marker := markerV1
	if at < 0 {
		if at = strings.Index(line, markerV0); at < 0 {
			return e, "", false
		}
		marker, format = markerV0, FormatV0
	}
	prefix, body := line[:at], strings.TrimSpace(line[at+len(marker):])
	e.Text = cut(line[at:])
	if n := strings.Count(line, markerV1) + strings.Count(line, markerV0); n > 1 {
		return e, fmt.Sprintf("%d metrics lines run together on one line (missing line breaks?)", n), false
	}
	if m := composeRe.FindStringSubmatch(prefix); m != nil {
		e.Container = m[1]
	} else if m := kubectlRe.FindStringSubmatch(prefix); m != nil {
		e.Container = m[1]
	}
	if m := engineRe.FindStringSubmatch(prefix); m != nil {
		e.Engine = m[1] + m[2]
		if e.Engine == "" {
			e.Engine = "0"
		}
	}
	e.Time = timeRe.FindString(prefix)
	if format == FormatV0 {
		if !strings.HasSuffix(body, ".") {
			return e, "V0 line does not end with '.' after \"Number of emitted tokens\": truncated", false
		}
		body = strings.TrimSuffix(body, ".")
	}
	if body == "" {
		return e, "no fields after " + strconv.Quote(marker) + ": truncated", false
	}
	fields, bad := splitFields(body)
	if bad != "" {
		return e, "malformed: " + bad, false
	}
	if format == 0 {
		switch fields[0].key {
		case "mean acceptance length":
			format = FormatCurrent
		case "draft acceptance rate":
			format = Format2025
		default:
			return e, fmt.Sprintf("unknown form: first field %q (want \"Mean acceptance length\" or \"Draft acceptance rate\")", fields[0].key), false
		}
	}
	e.Format = format
	if format == FormatV0 {
		reason = parseV0(&e, fields)
	} else {
		reason = parseV1(&e, fields)
	}
	return e, reason, reason == ""
}

// num parses a non-negative number matching re (group 1 the number when re
// has groups). It returns the value, its decimals, and "" or a reason.
func num(name, s string, re *regexp.Regexp, want string) (float64, int, string) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return 0, 0, fmt.Sprintf("%s has no value: truncated", name)
		}
		return 0, 0, fmt.Sprintf("%s %q is not %s (malformed or truncated)", name, s, want)
	}
	n := m[0]
	if len(m) > 1 && m[1] != "" && re != decimalRe {
		n = m[1]
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, 0, fmt.Sprintf("%s %q is out of range", name, s)
	}
	dec := 0
	if i := strings.IndexByte(n, '.'); i >= 0 {
		dec = len(n) - i - 1
	}
	return v, dec, ""
}

// parsed accumulates the fields of a V1 line with their printed decimals.
type parsed struct {
	vals map[string]float64
	decs map[string]int
	list []float64
	ldec []int
	// nan names the first field printed as "nan" (a ratio over no drafts,
	// see isNaN), "" when none.
	nan string
}

// isNaN reports whether s is Python's "nan" (or "nan%"), which vLLM prints
// for a ratio over a window without drafts: V1's SpecDecodingLogging.log
// (vllm/v1/spec_decode/metrics.py) divides by num_drafts and prints the
// rate as float("nan") when no draft tokens were proposed; V0's
// "Speculative metrics" line prints nan ratios before the first draft.
func isNaN(s string) bool { return s == "nan" || s == "nan%" }

func parseV1(e *Entry, fields []field) string {
	p := parsed{vals: map[string]float64{}, decs: map[string]int{}}
	for _, f := range fields {
		var (
			v    float64
			d    int
			r    string
			name string
		)
		switch f.key {
		case "mean acceptance length", "draft acceptance rate", "avg draft acceptance rate":
			name = "rate"
			if f.key == "mean acceptance length" {
				name = "mean"
			}
			if isNaN(f.value) {
				if p.nan == "" {
					p.nan = f.key
				}
				p.vals[name], p.decs[name] = math.NaN(), 0
				continue
			}
		}
		switch f.key {
		case "mean acceptance length":
			name = "mean"
			v, d, r = num("Mean acceptance length", f.value, decimalRe, "a number")
		case "accepted throughput", "drafted throughput":
			name = f.key
			v, d, r = num(f.key, f.value, throughRe, "\"N.NN tokens/s\"")
		case "accepted", "drafted":
			name = f.key
			v, d, r = num(f.key, f.value, tokensRe, "\"N tokens\"")
		case "draft acceptance rate", "avg draft acceptance rate":
			name = "rate"
			v, d, r = num(f.key, f.value, percentRe, "a percentage \"N.N%\"")
			v /= 100
			d += 2
		case "per-position acceptance rate", "per-position acceptance probabilities":
			for _, s := range append([]string{f.value}, f.list...) {
				if isNaN(s) {
					if p.nan == "" {
						p.nan = f.key
					}
					p.list = append(p.list, math.NaN())
					p.ldec = append(p.ldec, 0)
					continue
				}
				x, dx, rx := num("per-position rate", s, decimalRe, "a number")
				if rx != "" {
					return rx
				}
				p.list = append(p.list, x)
				p.ldec = append(p.ldec, dx)
			}
			continue
		default:
			e.Notes = append(e.Notes, fmt.Sprintf("unknown field %q ignored", f.key))
			continue
		}
		if r != "" {
			return r
		}
		p.vals[name], p.decs[name] = v, d
	}
	need := []string{"mean", "accepted", "drafted"}
	if e.Format == FormatCurrent {
		need = append(need, "accepted throughput", "drafted throughput", "rate")
	} else {
		need = append(need, "rate")
	}
	for _, n := range need {
		if _, ok := p.decs[n]; !ok {
			return fmt.Sprintf("field %q missing: truncated or unknown form", fieldTitle(n, e.Format))
		}
	}
	if len(p.list) == 0 {
		return "per-position acceptance rates missing: truncated (k cannot be known, so drafts cannot be recovered)"
	}
	if p.vals["drafted"] == 0 && p.vals["accepted"] == 0 {
		return zeroDrafts(e, p)
	}
	if p.nan != "" {
		return fmt.Sprintf("%s is nan with %s drafted tokens: vLLM prints nan only for a window without drafts (malformed)", p.nan, fmtCount(p.vals["drafted"]))
	}
	for i, d := range p.ldec {
		if d != p.ldec[0] || d == 0 {
			return fmt.Sprintf("per-position rate %d printed with %d decimals, the first with %d: truncated", i+1, d, p.ldec[0])
		}
	}
	k := len(p.list)
	e.K = k
	accepted, drafted := p.vals["accepted"], p.vals["drafted"]
	if k > compute.MaxPosition+1 {
		return fmt.Sprintf("%d per-position values: more than %d", k, compute.MaxPosition+1)
	}
	e.Printed = Printed{
		AcceptanceRate:       compute.Defined(p.vals["rate"]),
		MeanAcceptanceLength: compute.Defined(p.vals["mean"]),
		Accepted:             compute.Defined(accepted),
		Drafted:              compute.Defined(drafted),
		PerPosition:          make([]compute.Value, k),
	}
	for i, x := range p.list {
		e.Printed.PerPosition[i] = compute.Defined(x)
	}
	if e.Format == FormatCurrent {
		e.Printed.AcceptedThroughput = compute.Defined(p.vals["accepted throughput"])
		e.Printed.DraftedThroughput = compute.Defined(p.vals["drafted throughput"])
	}
	drafts := drafted / float64(k)
	e.Derived.Drafts, e.Derived.PerPosition = true, true
	if math.Mod(drafted, float64(k)) != 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("drafted (%s tokens) is not a multiple of k = %d: some drafts were shorter than k, and drafts = drafted / k = %.6g is a lower bound",
			fmtCount(drafted), k, drafts))
	}
	e.Counts = compute.Counts{Drafts: drafts, DraftTokens: drafted, AcceptedTokens: accepted, AcceptedPerPosition: perPosition(e, p.list, p.ldec[0], drafts, accepted)}
	// Window seconds from the throughputs (the larger count is more precise).
	if e.Format == FormatCurrent {
		if t := p.vals["drafted throughput"]; t > 0 {
			e.Seconds, e.Derived.Seconds = drafted/t, true
		} else if t := p.vals["accepted throughput"]; t > 0 {
			e.Seconds, e.Derived.Seconds = accepted/t, true
		}
	}
	// Convention of the printed mean length.
	e.Convention = compute.WithBonus
	md := p.decs["mean"]
	mean := fmtFixed(p.vals["mean"], md)
	switch m := accepted / drafts; {
	case drafts > 0 && fmtFixed(1+m, md) == mean:
	case drafts > 0 && fmtFixed(m, md) == mean:
		e.Convention = compute.WithoutBonus
	default:
		if e.Format == Format2025 {
			e.Convention = compute.WithoutBonus
		}
		e.Notes = append(e.Notes, fmt.Sprintf("printed mean acceptance length %s matches neither accepted / drafts nor 1 + accepted / drafts with drafts = drafted / k = %.6g: the per-position list may be cut short, or drafts were shorter than k",
			mean, drafts))
	}
	crossCheck(e, p)
	return ""
}

// zeroDrafts makes the entry of a V1 line whose window had no drafts
// ("Accepted: 0 tokens, Drafted: 0 tokens"): zero counts at every one of
// its k positions, whatever the ratios printed (nan, or 0.000 where vLLM
// guards the division), and undefined printed ratios instead of nan.
func zeroDrafts(e *Entry, p parsed) string {
	k := len(p.list)
	if k > compute.MaxPosition+1 {
		return fmt.Sprintf("%d per-position values: more than %d", k, compute.MaxPosition+1)
	}
	e.K = k
	e.Printed = Printed{
		AcceptanceRate:       compute.Defined(p.vals["rate"]),
		MeanAcceptanceLength: compute.Defined(p.vals["mean"]),
		Accepted:             compute.Defined(0),
		Drafted:              compute.Defined(0),
		PerPosition:          make([]compute.Value, k),
	}
	for i, x := range p.list {
		e.Printed.PerPosition[i] = compute.Defined(x)
	}
	if e.Format == FormatCurrent {
		e.Printed.AcceptedThroughput = compute.Defined(p.vals["accepted throughput"])
		e.Printed.DraftedThroughput = compute.Defined(p.vals["drafted throughput"])
	}
	e.Counts = compute.Counts{AcceptedPerPosition: make([]float64, k)}
	e.Derived.Drafts, e.Derived.PerPosition = true, true
	// The printed mean says nothing of the convention here: the 2025
	// form's entry counts as "without bonus", so that the logs page's
	// automatic choice (without bonus only when every entry is) is left
	// to the entries with drafts.
	e.Convention = compute.WithBonus
	if e.Format == Format2025 {
		e.Convention = compute.WithoutBonus
	}
	// No note: nothing was lost (report.FromLog says once how many such
	// windows a log has, instead of a note per line).
	return ""
}

func fieldTitle(n string, f Format) string {
	switch n {
	case "mean":
		return "Mean acceptance length"
	case "rate":
		if f == FormatCurrent {
			return "Avg Draft acceptance rate"
		}
		return "Draft acceptance rate"
	}
	return strings.ToUpper(n[:1]) + n[1:]
}

func fmtFixed(v float64, dec int) string { return strconv.FormatFloat(v, 'f', dec, 64) }

func fmtCount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// perPosition recovers the per-position counts from the printed rates:
// n[i] = round(rate[i] × drafts), rounding half away from zero. When their
// sum differs from accepted, counts are moved by one within the printed
// precision (|n/drafts - rate| <= half a unit of the last printed decimal,
// keeping n non-increasing), toward the counts rounded furthest, until the
// sum equals accepted; a remaining difference is noted.
func perPosition(e *Entry, rates []float64, dec int, drafts, accepted float64) []float64 {
	k := len(rates)
	n := make([]float64, k)
	exact := make([]float64, k)
	lo, hi := make([]float64, k), make([]float64, k)
	half := 0.5 * math.Pow(10, -float64(dec))
	var sum float64
	for i, r := range rates {
		exact[i] = r * drafts
		n[i] = math.Round(exact[i])
		lo[i] = math.Ceil((r - half) * drafts * (1 - 1e-12))
		hi[i] = math.Floor((r + half) * drafts * (1 + 1e-12))
		lo[i], hi[i] = math.Max(0, math.Min(lo[i], n[i])), math.Max(hi[i], n[i])
		sum += n[i]
	}
	diff := accepted - sum
	if diff != 0 && math.Abs(diff) <= 10000 {
		for step := 0; diff != 0 && step < 10000; step++ {
			best, bestGap := -1, math.Inf(-1)
			for i := range k {
				var gap float64
				if diff > 0 {
					if n[i]+1 > hi[i] || (i > 0 && n[i]+1 > n[i-1]) || n[i]+1 > drafts {
						continue
					}
					gap = exact[i] - n[i]
				} else {
					if n[i]-1 < lo[i] || (i < k-1 && n[i]-1 < n[i+1]) {
						continue
					}
					gap = n[i] - exact[i]
				}
				if gap > bestGap {
					best, bestGap = i, gap
				}
			}
			if best < 0 {
				break
			}
			if diff > 0 {
				n[best]++
				diff--
			} else {
				n[best]--
				diff++
			}
		}
	}
	if diff != 0 {
		s := 0.0
		for _, v := range n {
			s += v
		}
		e.Notes = append(e.Notes, fmt.Sprintf("per-position counts recovered as round(rate x drafts) sum to %s, not accepted = %s: the printed rates are too coarse to recover them exactly",
			fmtCount(s), fmtCount(accepted)))
	}
	return n
}

// crossCheck re-derives the entry with compute.Derive and notes every value
// that does not print as the line printed it.
func crossCheck(e *Entry, p parsed) {
	s := e.Stats()
	check := func(name string, got compute.Value, printed float64, dec int) {
		want := fmtFixed(printed, dec)
		if !got.OK {
			e.Notes = append(e.Notes, fmt.Sprintf("recovered %s is undefined, the line says %s", name, want))
			return
		}
		if g := fmtFixed(got.V, dec); g != want {
			e.Notes = append(e.Notes, fmt.Sprintf("recovered %s prints as %s, the line says %s", name, g, want))
		}
	}
	check("mean acceptance length", s.MeanAcceptanceLength, p.vals["mean"], p.decs["mean"])
	// The V1 lines print the rate as a percentage: compare it so.
	pct := s.AcceptanceRate
	if pct.OK {
		pct = compute.Defined(pct.V * 100)
	}
	check("acceptance rate (%)", pct, p.vals["rate"]*100, p.decs["rate"]-2)
	for i, r := range p.list {
		check(fmt.Sprintf("pos %d acceptance rate", i+1), s.PerPositionAcceptanceRate[i], r, p.ldec[i])
	}
	if e.Format == FormatCurrent && e.Seconds > 0 {
		// Seconds come from a rounded throughput: allow its error to
		// propagate (relative half-unit of the drafted throughput).
		dt := p.vals["drafted throughput"]
		rel := 0.5 * math.Pow(10, -float64(p.decs["drafted throughput"])) / dt
		for _, c := range []struct {
			name    string
			got     compute.Value
			printed float64
			dec     int
		}{
			{"accepted throughput", s.AcceptedThroughput, p.vals["accepted throughput"], p.decs["accepted throughput"]},
			{"drafted throughput", s.DraftedThroughput, dt, p.decs["drafted throughput"]},
		} {
			tol := 0.5*math.Pow(10, -float64(c.dec)) + c.printed*rel*1.0001 + 1e-9
			if !c.got.OK || math.Abs(c.got.V-c.printed) > tol {
				e.Notes = append(e.Notes, fmt.Sprintf("recovered %s %s differs from the line's %s tokens/s", c.name, c.got, fmtFixed(c.printed, c.dec)))
			}
		}
	}
}

func parseV0(e *Entry, fields []field) string {
	vals := map[string]float64{}
	decs := map[string]int{}
	nan := "" // the first ratio printed as nan (no draft tokens yet)
	for _, f := range fields {
		if len(f.list) > 0 {
			return fmt.Sprintf("field %q has extra values %q", f.key, f.list)
		}
		switch f.key {
		case "draft acceptance rate", "system efficiency":
			if isNaN(f.value) {
				if nan == "" {
					nan = f.key
				}
				continue
			}
			v, d, r := num(f.key, f.value, decimalRe, "a number")
			if r != "" {
				return r
			}
			vals[f.key], decs[f.key] = v, d
		case "number of speculative tokens", "number of accepted tokens", "number of draft tokens", "number of emitted tokens":
			v, _, r := num(f.key, f.value, intRe, "a whole number")
			if r != "" {
				return r
			}
			vals[f.key] = v
		default:
			e.Notes = append(e.Notes, fmt.Sprintf("unknown field %q ignored", f.key))
		}
	}
	for _, n := range []string{"number of speculative tokens", "number of accepted tokens", "number of draft tokens", "number of emitted tokens"} {
		if _, ok := vals[n]; !ok {
			return fmt.Sprintf("field %q missing: truncated or unknown form", n)
		}
	}
	k := vals["number of speculative tokens"]
	if k < 1 || k > compute.MaxPosition+1 {
		return fmt.Sprintf("number of speculative tokens %s is not 1..%d", fmtCount(k), compute.MaxPosition+1)
	}
	e.K = int(k)
	acc, dr, em := vals["number of accepted tokens"], vals["number of draft tokens"], vals["number of emitted tokens"]
	if nan != "" && dr != 0 {
		return fmt.Sprintf("%s is nan with %s draft tokens: vLLM prints nan only before the first draft (malformed)", nan, fmtCount(dr))
	}
	e.Printed = Printed{Accepted: compute.Defined(acc), Drafted: compute.Defined(dr), Emitted: compute.Defined(em)}
	if d, ok := decs["draft acceptance rate"]; ok {
		e.Printed.AcceptanceRate = compute.Defined(vals["draft acceptance rate"])
		want := fmtFixed(vals["draft acceptance rate"], d)
		if dr > 0 {
			if got := fmtFixed(acc/dr, d); got != want {
				e.Notes = append(e.Notes, fmt.Sprintf("accepted / draft tokens = %s, the line says %s", got, want))
			}
		}
	}
	if d, ok := decs["system efficiency"]; ok {
		e.Printed.SystemEfficiency = compute.Defined(vals["system efficiency"])
		// V0: efficiency = emitted / ((draft / k) × (k + 1)).
		want := fmtFixed(vals["system efficiency"], d)
		if dr > 0 {
			if got := fmtFixed(em/((dr/k)*(k+1)), d); got != want {
				e.Notes = append(e.Notes, fmt.Sprintf("emitted / ((draft / k) x (k + 1)) = %s, the line says system efficiency %s", got, want))
			}
		}
	}
	e.Derived.Drafts = true
	e.Convention = compute.WithBonus
	return ""
}

// windowV0 turns the cumulative V0 values of e into the increase since the
// previous V0 line of the same source (container, engine); the first line
// of a source counts from start-up, and a decrease (a restart) counts from
// 0 again, as compute.Increase does.
func windowV0(e *Entry, state map[[2]string]v0State) {
	key := [2]string{e.Container, e.Engine}
	acc, dr := e.Printed.Accepted.V, e.Printed.Drafted.V
	cur := v0State{accepted: acc, drafted: dr, k: e.K}
	prev, seen := state[key]
	state[key] = cur
	wa, wd := acc, dr
	switch {
	case !seen:
		e.Notes = append(e.Notes, "first V0 line of this source: counts since the server started")
	case acc < prev.accepted || dr < prev.drafted:
		e.Notes = append(e.Notes, "V0 counters went down: the server restarted; counts since the restart")
	default:
		wa, wd = acc-prev.accepted, dr-prev.drafted
		e.Derived.Window = true
		if prev.k != e.K {
			e.Notes = append(e.Notes, fmt.Sprintf("k changed from %d to %d between V0 lines", prev.k, e.K))
		}
	}
	e.Counts = compute.Counts{Drafts: wd / float64(e.K), DraftTokens: wd, AcceptedTokens: wa}
	if math.Mod(wd, float64(e.K)) != 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("draft tokens in the window (%s) are not a multiple of k = %d: drafts = draft tokens / k is approximate", fmtCount(wd), e.K))
	}
}
