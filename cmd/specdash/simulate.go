//go:build !wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"specdash/simulate"
)

// registerSimulate adds the "simulate" command: a fake vLLM V1 server with
// speculative decoding whose /metrics a Prometheus can scrape (see package
// simulate).
func registerSimulate(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("simulate", "Serve vLLM-style speculative-decoding /metrics (and /truth, the exact counts) from a deterministic load generator, for demos and tests.")
	listen := cmd.Flag("web.listen-address", "Address to serve /metrics, /truth and POST /control/{pause,resume,reset,pattern} on.").Default(":9400").String()
	models := cmd.Flag("model", "model_name label value (repeatable; any text, spaces and quotes included).").Default("meta-llama/Llama-3.1-8B-Instruct", `Llama 3 "chat" 8B`).Strings()
	engines := cmd.Flag("engines", "Engines (data-parallel ranks) per model: engine labels 0..N-1.").Default("2").Int()
	k := cmd.Flag("k", "num_speculative_tokens: draft tokens per draft.").Default("4").Int()
	var acceptanceSet bool
	acceptance := cmd.Flag("acceptance", "Acceptance model: one per-token probability, or k comma-separated conditional probabilities P(position i accepted | 0..i-1 accepted) (default: 0.8,0.7,0.6,0.5 cut to k, or continued past k = 4 with the ratio of its last two).").
		Default("0.8,0.7,0.6,0.5").IsSetByUser(&acceptanceSet).String()
	perModel := cmd.Flag("model-acceptance", "Per-model acceptance model NAME=P[,P...] (repeatable); a list of n > 1 values sets that model's k to n.").Strings()
	rate := cmd.Flag("drafts-per-second", "Drafts per second for each (model, engine); at most 200000 over all series.").Default("20").Float64()
	seed := cmd.Flag("seed", "Random seed (same seed, same draws).").Default("1").Int64()
	tick := cmd.Flag("tick", "Real-time step of the simulation.").Default("100ms").Duration()
	prefix := cmd.Flag("prefix", `Metric name prefix ("ray_vllm:" mimics Ray Serve).`).Default(simulate.DefaultPrefix).String()
	paused := cmd.Flag("paused", "Start paused (counters at 0 until POST /control/resume).").Bool()
	pattern := cmd.Flag("pattern", "Failure pattern of every series at start: normal, collapse (~0 % accepted), loop (~100 %), variable (1..k tokens per draft), cliff:P (0-based positions >= P never accepted), drop[:FACTOR][@AT] (acceptance x FACTOR, default 0.5, after AT of activity). Switch at run time with POST /control/pattern?mode=...&model=....").Default("normal").String()
	multi := cmd.Flag("multiprocess", `Mimic prometheus_client multiprocess mode: HELP "Multiprocess metric", no _created samples.`).Bool()
	latency := cmd.Flag("latency", "Also serve vllm:inter_token_latency_seconds (a histogram derived from the counts; format vllm only).").Bool()
	native := cmd.Flag("native-histograms", "With --latency: serve the inter-token latency as a native histogram (schema 3) in the protobuf exposition to a scraper that asks for it (Prometheus with --enable-feature=native-histograms); text scrapes are unchanged.").Bool()
	format := cmd.Flag("format", "Engine exposition to speak: vllm (Python front end), vllm-rust (OpenMetrics, # EOF, no _created), llamacpp, trtllm (at /prometheus/metrics), lmdeploy, sglang.").Default(string(simulate.FormatVLLM)).Enum(formatNames()...)

	cmds[cmd.FullCommand()] = func() error {
		acc, err := parseProbs(*acceptance)
		if err != nil {
			return badFlags(fmt.Errorf("--acceptance: %w", err))
		}
		if !acceptanceSet {
			acc = defaultAcceptance(*k)
		}
		if *native && (!*latency || *format != string(simulate.FormatVLLM)) {
			return badFlags(fmt.Errorf("--native-histograms needs --latency and --format %s", simulate.FormatVLLM))
		}
		if *latency && *format != string(simulate.FormatVLLM) {
			return badFlags(fmt.Errorf("--latency serves vLLM's histogram: it needs --format %s (got %s)", simulate.FormatVLLM, *format))
		}
		if *engines < 1 {
			return badFlags(fmt.Errorf("--engines %d: want at least 1", *engines))
		}
		pat, err := simulate.ParsePattern(*pattern)
		if err != nil {
			return badFlags(fmt.Errorf("--pattern: %w", err))
		}
		cfg := simulate.Config{
			Models: *models, Engines: *engines, K: *k, Acceptance: acc,
			DraftsPerSecond: *rate, Seed: *seed, Tick: *tick,
			Prefix: *prefix, Multiprocess: *multi, Format: simulate.Format(*format), Latency: *latency, NativeHistograms: *native,
		}
		cfg.Pattern = pat
		for _, pm := range *perModel {
			i := strings.LastIndexByte(pm, '=')
			if i <= 0 {
				return badFlags(fmt.Errorf("--model-acceptance %q: want NAME=P[,P...]", pm))
			}
			p, err := parseProbs(pm[i+1:])
			if err != nil {
				return badFlags(fmt.Errorf("--model-acceptance %q: %w", pm, err))
			}
			if cfg.PerModel == nil {
				cfg.PerModel = map[string]simulate.ModelOptions{}
			}
			o := simulate.ModelOptions{Acceptance: p}
			if len(p) > 1 {
				o.K = len(p)
			}
			cfg.PerModel[pm[:i]] = o
		}
		if *tick <= 0 {
			return badFlags(fmt.Errorf("--tick %v: want > 0", *tick))
		}
		return runSimulate(cfg, *listen, *paused)
	}
}

// formatNames are the simulator's --format values.
func formatNames() []string {
	out := make([]string, len(simulate.Formats))
	for i, f := range simulate.Formats {
		out[i] = string(f)
	}
	return out
}

// defaultAcceptance is --acceptance's default for k positions: the
// conditional probabilities 0.8, 0.7, 0.6, 0.5 cut to k, or continued past
// the fourth by the ratio of the last two (0.5 / 0.6, each position a
// sixth less likely than the one before), so that any --k runs without an
// --acceptance of its own. k < 1 gives the four (simulate.New names the
// bad k).
func defaultAcceptance(k int) []float64 {
	out := []float64{0.8, 0.7, 0.6, 0.5}
	if k < 1 {
		return out
	}
	if k <= len(out) {
		return out[:k]
	}
	r := out[3] / out[2]
	for len(out) < k {
		out = append(out, out[len(out)-1]*r)
	}
	return out
}

// parseProbs parses "0.8,0.7" into probabilities (range checks are
// simulate.New's).
func parseProbs(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runSimulate(cfg simulate.Config, listen string, paused bool) error {
	sim, err := simulate.New(cfg)
	if err != nil {
		return err
	}
	if paused {
		sim.Pause()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	tr := sim.Truth()
	slog.Info("simulating vLLM speculative decoding",
		"listen", l.Addr().String(), "format", cfg.Format, "metrics_path", cfg.Format.MetricsPath(), "models", cfg.Models, "series", len(tr.Series),
		"drafts_per_second", cfg.DraftsPerSecond, "seed", cfg.Seed, "paused", paused)
	for _, s := range tr.Series {
		slog.Info("series", "model", s.Model, "engine", s.Engine, "k", s.K, "acceptance", s.Acceptance)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	go func() { _ = sim.Run(ctx) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	slog.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
