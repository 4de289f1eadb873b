//go:build !wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/report"
)

// reportArgs are the parsed flags of `specdash report`.
type reportArgs struct {
	url, rng, end, step, scrape, format, convention, timeout string
	filters, groupBy                                         []string
	fromLog                                                  string
	costs                                                    []string
	insights                                                 bool
	insightsSet                                              bool // --insights or --no-insights given
	k                                                        int  // --k: num_speculative_tokens (V0), 0 unknown
}

// registerReport adds the "report" command: the numbers of one window, per
// group and in total, as text (vLLM's log line) or JSON (report.Result).
func registerReport(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("report", "Print speculative-decoding numbers (acceptance rate, mean acceptance length, per-position acceptance rate, throughput) for a time window, from Prometheus.")
	var r reportArgs
	cmd.Flag("prometheus.url", "Prometheus HTTP API root, e.g. http://127.0.0.1:9090 (Mimir: add the /prometheus prefix). Required unless --from-log.").StringVar(&r.url)
	cmd.Flag("from-log", "Read vLLM log text (SpecDecoding metrics lines, any format) or a raw /metrics scrape from FILE ('-' for stdin) instead of Prometheus.").PlaceHolder("FILE").StringVar(&r.fromLog)
	cmd.Flag("draft-cost-ratio", fmt.Sprintf("Draft cost ratio c = draft step time / target step time for the speedup estimate (default %g); VALUE=c sets it for the groups with a label value VALUE (e.g. a model name). Repeatable.", compute.DefaultDraftCostRatio)).StringsVar(&r.costs)
	cmd.Flag("insights", "Text output: also print estimated speedup, best k, the geometric acceptance fit and 95% intervals (always in JSON; on by default with --from-log or --draft-cost-ratio).").IsSetByUser(&r.insightsSet).BoolVar(&r.insights)
	cmd.Flag("range", "Window length, e.g. 10m, 1h, 1d (Prometheus duration syntax).").Default("10m").StringVar(&r.rng)
	cmd.Flag("end", "Window end, RFC 3339 (e.g. 2025-05-01T12:00:00Z); default now. Rounded down to the step.").StringVar(&r.end)
	cmd.Flag("step", "Query step (default: the smallest of 1s..1d >= the scrape interval giving at most 600 steps).").StringVar(&r.step)
	cmd.Flag("filter", "label=value restricting the series; repeat for several labels (all must match) or for the same label (any of the values).").StringsVar(&r.filters)
	cmd.Flag("group-by", "Label to group by, e.g. model_name or engine; repeatable.").StringsVar(&r.groupBy)
	cmd.Flag("format", "Output format: text (one vLLM log line per group) or json.").Default("text").EnumVar(&r.format, "text", "json")
	cmd.Flag("scrape-interval", "Scrape interval of the vLLM targets; the step never goes below it.").Default("15s").StringVar(&r.scrape)
	cmd.Flag("convention", "Mean acceptance length: bonus (1 + accepted/drafts, vLLM since PR 17908) or no-bonus (accepted/drafts).").Default("bonus").EnumVar(&r.convention, "bonus", "no-bonus")
	cmd.Flag("k", "num_speculative_tokens of the engines, for vLLM V0's windowed system efficiency (V0 does not export k; other schemas read it from the per-position series). 0: unknown.").Default("0").IntVar(&r.k)
	cmd.Flag("timeout", "Timeout of the whole report.").Default("60s").StringVar(&r.timeout)
	cmds[cmd.FullCommand()] = func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if r.fromLog != "" {
			return runReportFromLog(r, os.Stdin, os.Stdout, os.Stderr)
		}
		return runReport(ctx, r, os.Stdout)
	}
}

// parseDuration parses Prometheus durations (1d, 1w, 1h30m) for flag name.
func parseDuration(flag, s string, allowZero bool) (time.Duration, error) {
	if s == "" && allowZero {
		return 0, nil
	}
	d, err := model.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("--%s=%q: %v (use e.g. 30s, 10m, 1h, 1d)", flag, s, err)
	}
	if d == 0 && !allowZero {
		return 0, fmt.Errorf("--%s must be positive", flag)
	}
	return time.Duration(d), nil
}

// runReport parses r, builds the report and writes it to w. Errors in r's
// values are usage errors (badFlags).
func runReport(ctx context.Context, r reportArgs, w io.Writer) error {
	o, scrape, timeout, err := reportOptions(r)
	if err != nil {
		return badFlags(err)
	}
	c, err := metricsclient.New(metricsclient.Config{Address: r.url, ScrapeInterval: scrape})
	if err != nil {
		return badFlags(fmt.Errorf("--prometheus.url: %w", err))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := report.Build(ctx, c, o)
	if err != nil {
		return err
	}
	if r.format == "json" {
		return res.WriteJSON(w)
	}
	res.TextInsights = r.insights || (!r.insightsSet && len(r.costs) > 0)
	return res.WriteText(w)
}

// reportOptions are the report's options, scrape interval and timeout
// from r's flag values; an error names the flag.
func reportOptions(r reportArgs) (o report.Options, scrape, timeout time.Duration, err error) {
	fail := func(e error) (report.Options, time.Duration, time.Duration, error) {
		return report.Options{}, 0, 0, e
	}
	if o.Range, err = parseDuration("range", r.rng, false); err != nil {
		return fail(err)
	}
	if o.Step, err = parseDuration("step", r.step, true); err != nil {
		return fail(err)
	}
	if scrape, err = parseDuration("scrape-interval", r.scrape, false); err != nil {
		return fail(err)
	}
	if timeout, err = parseDuration("timeout", r.timeout, false); err != nil {
		return fail(err)
	}
	if r.end != "" {
		if o.End, err = time.Parse(time.RFC3339, r.end); err != nil {
			return fail(fmt.Errorf("--end=%q: want RFC 3339, e.g. 2025-05-01T12:00:00Z", r.end))
		}
	}
	if o.Filters, err = report.ParseFilters(r.filters); err != nil {
		return fail(fmt.Errorf("--filter: %w", err))
	}
	o.GroupBy = r.groupBy
	if o.Convention, err = report.ParseConvention(r.convention); err != nil {
		return fail(fmt.Errorf("--convention: %w", err))
	}
	if o.DraftCost, err = report.ParseCostRatios(r.costs); err != nil {
		return fail(fmt.Errorf("--draft-cost-ratio: %w", err))
	}
	if r.k < 0 {
		return fail(fmt.Errorf("--k=%d: want num_speculative_tokens, 1 or more (0: unknown)", r.k))
	}
	o.K = r.k
	if err := o.Validate(); err != nil {
		return fail(err)
	}
	if r.url == "" {
		return fail(errors.New("required flag(s) '--prometheus.url' not provided (or read a log with --from-log FILE)"))
	}
	return o, scrape, timeout, nil
}
