//go:build !wasm

package main

import (
	"fmt"
	"io"
	"os"

	"specdash/report"
)

// maxLogBytes bounds the log read by --from-log (256 MiB).
const maxLogBytes = 256 << 20

// runReportFromLog is `specdash report --from-log FILE`: it parses the log
// text or /metrics scrape in FILE ("-": stdin), writes the report to w and
// the problems (bad lines, with line numbers) to errw. It fails only when
// nothing could be parsed.
func runReportFromLog(r reportArgs, stdin io.Reader, w, errw io.Writer) error {
	conv, err := report.ParseConvention(r.convention)
	if err != nil {
		return fmt.Errorf("--convention: %w", err)
	}
	costs, err := report.ParseCostRatios(r.costs)
	if err != nil {
		return fmt.Errorf("--draft-cost-ratio: %w", err)
	}
	if r.url != "" {
		return fmt.Errorf("--from-log and --prometheus.url exclude each other: give one source")
	}
	var in io.Reader = stdin
	name := r.fromLog
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("--from-log: %w", err)
		}
		defer f.Close()
		in = f
	} else {
		name = "stdin"
	}
	b, err := io.ReadAll(io.LimitReader(in, maxLogBytes+1))
	if err != nil {
		return fmt.Errorf("--from-log: reading %s: %w", name, err)
	}
	if len(b) > maxLogBytes {
		return fmt.Errorf("--from-log: %s is larger than %d MiB: cut it first (e.g. grep 'SpecDecoding metrics')", name, maxLogBytes>>20)
	}
	res := report.ParseInput(name, string(b), conv, costs)
	res.TextInsights = r.insights || !r.insightsSet // on unless --no-insights
	if err := res.WriteProblems(errw); err != nil {
		return err
	}
	if !res.Usable() {
		what := "no vLLM speculative-decoding log line (\"SpecDecoding metrics:\" or \"Speculative metrics:\") could be used"
		if res.Input == "scrape" {
			what = "no speculative-decoding counter found in the scrape"
		}
		return fmt.Errorf("%s: %s (problems above)", name, what)
	}
	if r.format == "json" {
		return res.WriteJSON(w)
	}
	return res.WriteText(w)
}
