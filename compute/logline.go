package compute

import (
	"strconv"
	"strings"
)

// logNum formats a defined value with the given decimals, or UndefinedShort.
func logNum(v Value, decimals int) string {
	if !v.OK || !finite(v.V) {
		return UndefinedShort
	}
	return strconv.FormatFloat(v.V, 'f', decimals, 64)
}

// logPercent formats a ratio 0..1 as vLLM does, "%.1f%%" of ratio*100, or
// UndefinedShort (without a percent sign).
func logPercent(v Value) string {
	if !v.OK || !finite(v.V*100) {
		return UndefinedShort
	}
	return strconv.FormatFloat(v.V*100, 'f', 1, 64) + "%"
}

// logPerPosition joins the per-position rates with "%.3f", or prints
// UndefinedShort when k = 0.
func logPerPosition(vs []Value) string {
	if len(vs) == 0 {
		return UndefinedShort
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = logNum(v, 3)
	}
	return strings.Join(parts, ", ")
}

// FormatLogLine prints s as vLLM's current log line (vllm/v1/spec_decode/
// metrics.py, SpecDecodingLogging.log; docs/METRICS.md "vLLM's log
// lines"), so a user can compare the dashboard with the server's log:
//
//	SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s, Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %.3f, %.3f, ..., Avg Draft acceptance rate: %.1f%%
//
// vLLM's mean length there includes the bonus token: derive s WithBonus to
// compare. Counts are rounded to whole tokens. Undefined values (no drafts,
// no window) print "n/a" (UndefinedShort; the rate then has no "%"), and so
// does the per-position list when k = 0 (vLLM would print nothing there).
func FormatLogLine(s Stats) string {
	var b strings.Builder
	b.WriteString("SpecDecoding metrics: Mean acceptance length: ")
	b.WriteString(logNum(s.MeanAcceptanceLength, 2))
	b.WriteString(", Accepted throughput: ")
	b.WriteString(logNum(s.AcceptedThroughput, 2))
	b.WriteString(" tokens/s, Drafted throughput: ")
	b.WriteString(logNum(s.DraftedThroughput, 2))
	b.WriteString(" tokens/s, Accepted: ")
	b.WriteString(FormatCount(s.AcceptedTokens, "tokens"))
	b.WriteString(", Drafted: ")
	b.WriteString(FormatCount(s.DraftTokens, "tokens"))
	b.WriteString(", Per-position acceptance rate: ")
	b.WriteString(logPerPosition(s.PerPositionAcceptanceRate))
	b.WriteString(", Avg Draft acceptance rate: ")
	b.WriteString(logPercent(s.AcceptanceRate))
	return b.String()
}

// FormatLegacyLogLine prints s as vLLM's 2025 log line (PR 16665, the form
// of the log lines in that PR's review thread; docs/METRICS.md "vLLM's log
// lines"):
//
//	SpecDecoding metrics: Draft acceptance rate: %.1f%%, Mean acceptance length: %.2f, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance probabilities: %.3f, ...
//
// Those lines' mean length is WithoutBonus (PR 17908 later added the bonus
// token to the same line): derive s WithoutBonus to reproduce them. Counts
// are rounded to whole tokens; undefined values print "n/a" as in
// FormatLogLine.
func FormatLegacyLogLine(s Stats) string {
	var b strings.Builder
	b.WriteString("SpecDecoding metrics: Draft acceptance rate: ")
	b.WriteString(logPercent(s.AcceptanceRate))
	b.WriteString(", Mean acceptance length: ")
	b.WriteString(logNum(s.MeanAcceptanceLength, 2))
	b.WriteString(", Accepted: ")
	b.WriteString(FormatCount(s.AcceptedTokens, "tokens"))
	b.WriteString(", Drafted: ")
	b.WriteString(FormatCount(s.DraftTokens, "tokens"))
	b.WriteString(", Per-position acceptance probabilities: ")
	b.WriteString(logPerPosition(s.PerPositionAcceptanceRate))
	return b.String()
}
