//go:build !wasm

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"specdash/compute"
	"specdash/metricsclient"
	"specdash/rules"
)

// rulesArgs are the parsed flags of `specdash rules`.
type rulesArgs struct {
	schema, url, detectRange, window, forDur, interval, dropOffset string
	specdashURL, runbookURL, output, timeout                       string
	th                                                             compute.HealthThresholds
}

// registerRules adds the "rules" command: Prometheus recording and
// alerting rules for the speculative-decoding counters (package rules,
// docs/ALERTING.md).
func registerRules(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("rules", "Write Prometheus recording and alerting rules (acceptance rate, mean acceptance length, per-position rates; collapse, cliff, loop and drop alerts) for a metric schema. See docs/ALERTING.md.")
	var r rulesArgs
	ids := make([]string, 0, len(metricsclient.Schemas))
	for _, s := range metricsclient.Schemas {
		ids = append(ids, s.ID)
	}
	d := compute.DefaultHealthThresholds
	cmd.Flag("schema", "Metric schema: "+strings.Join(ids, ", ")+" (\"vllm\" is vllm-v1). Required unless --prometheus.url, which detects it.").StringVar(&r.schema)
	cmd.Flag("prometheus.url", "Prometheus HTTP API root to detect the schema from (e.g. http://127.0.0.1:9090).").StringVar(&r.url)
	cmd.Flag("detect-range", "How far back --prometheus.url looks for speculative-decoding series.").Default("1d").StringVar(&r.detectRange)
	cmd.Flag("window", "rate() window of the recording rules.").Default("10m").StringVar(&r.window)
	cmd.Flag("for", "Override every alert's `for:` (e.g. 1m; 0s: fire on the first evaluation). Default: per alert (collapse 5m, loop 10m, cliff 15m, drop 30m).").StringVar(&r.forDur)
	cmd.Flag("interval", "Evaluation interval of the rule groups (default: Prometheus' global evaluation_interval).").StringVar(&r.interval)
	cmd.Flag("drop-offset", "The drop alert compares the acceptance rate with its value this long ago.").Default("1d").StringVar(&r.dropOffset)
	cmd.Flag("specdash.url", "specdash's base URL, e.g. https://specdash.example.com: each alert links to the dashboard view of its group.").StringVar(&r.specdashURL)
	cmd.Flag("runbook.url", "runbook_url annotation base (an anchor per alert is appended).").Default(rules.DefaultRunbookURL).StringVar(&r.runbookURL)
	cmd.Flag("collapse-rate", "Collapse: acceptance rate below this ratio.").Default(fmt.Sprint(d.CollapseRate)).Float64Var(&r.th.CollapseRate)
	cmd.Flag("loop-rate", "Suspected loop: acceptance rate at or above this ratio.").Default(fmt.Sprint(d.LoopRate)).Float64Var(&r.th.LoopRate)
	cmd.Flag("cliff-healthy", "Cliff: the position before accepts at least this ratio of drafts ...").Default(fmt.Sprint(d.CliffHealthy)).Float64Var(&r.th.CliffHealthy)
	cmd.Flag("cliff-dead", "... and the position accepts less than this ratio.").Default(fmt.Sprint(d.CliffDead)).Float64Var(&r.th.CliffDead)
	cmd.Flag("drop-relative", "Drop: the acceptance rate fell by at least this fraction of its earlier value.").Default(fmt.Sprint(d.DropRelative)).Float64Var(&r.th.DropRelative)
	cmd.Flag("min-drafts", "Alerts need at least this many drafts per window (no alert on an idle server).").Default(fmt.Sprint(d.MinDrafts)).Float64Var(&r.th.MinDrafts)
	cmd.Flag("min-draft-tokens", "The same for schemas without a drafts counter (vLLM V0, TensorRT-LLM): draft tokens per window.").Default(fmt.Sprint(d.MinDraftTokens)).Float64Var(&r.th.MinDraftTokens)
	cmd.Flag("output", "Write the rule file here instead of stdout.").Short('o').StringVar(&r.output)
	cmd.Flag("timeout", "Timeout of the schema detection.").Default("30s").StringVar(&r.timeout)
	cmds[cmd.FullCommand()] = func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		w := io.Writer(os.Stdout)
		if r.output != "" {
			f, err := os.Create(r.output)
			if err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			defer f.Close()
			w = f
		}
		return runRules(ctx, r, w)
	}
}

// runRules parses r, finds the schema and writes the rules to w.
func runRules(ctx context.Context, r rulesArgs, w io.Writer) error {
	o := rules.Options{SpecdashURL: r.specdashURL, RunbookURL: r.runbookURL, Thresholds: r.th}
	var err error
	if o.Window, err = parseDuration("window", r.window, false); err != nil {
		return err
	}
	if o.DropOffset, err = parseDuration("drop-offset", r.dropOffset, false); err != nil {
		return err
	}
	if o.Interval, err = parseDuration("interval", r.interval, true); err != nil {
		return err
	}
	if r.forDur != "" {
		if o.For, err = parseDuration("for", r.forDur, true); err != nil {
			return err
		}
		if o.For == 0 {
			o.For = -1 // no `for:`
		}
	}
	switch {
	case r.schema != "":
		id := r.schema
		if id == "vllm" {
			id = metricsclient.VLLMV1.ID
		}
		s, ok := metricsclient.SchemaByID(id)
		if !ok {
			ids := make([]string, 0, len(metricsclient.Schemas))
			for _, s := range metricsclient.Schemas {
				ids = append(ids, s.ID)
			}
			return fmt.Errorf("--schema=%q: unknown; want one of %s (or vllm)", r.schema, strings.Join(ids, ", "))
		}
		o.Schema = s
	case r.url != "":
		back, err := parseDuration("detect-range", r.detectRange, false)
		if err != nil {
			return err
		}
		timeout, err := parseDuration("timeout", r.timeout, false)
		if err != nil {
			return err
		}
		c, err := metricsclient.New(metricsclient.Config{Address: r.url})
		if err != nil {
			return fmt.Errorf("--prometheus.url: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		end := time.Now()
		det, err := c.Detect(ctx, nil, end.Add(-back), end)
		if err != nil {
			return fmt.Errorf("detect the schema at %s: %w", r.url, err)
		}
		for _, warn := range det.Warnings() {
			fmt.Fprintln(os.Stderr, "specdash rules:", warn)
		}
		o.Schema = det.Schema
	default:
		return fmt.Errorf("give --schema (e.g. --schema=vllm) or --prometheus.url to detect it")
	}
	return rules.Write(w, o)
}
