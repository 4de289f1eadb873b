// Package rules writes Prometheus recording and alerting rules for the
// speculative-decoding counters of one schema (metricsclient.Schema): the
// acceptance rate, mean acceptance length and per-position acceptance rates
// as ratios of sums per model and per engine, and alerts for the silent
// failures specdash's health verdicts (compute.Health) name: collapse,
// position cliff, suspected loop and drop. docs/ALERTING.md explains every
// rule, threshold and runbook.
//
// The rules use the schema's real metric names (vLLM V1's end in _total)
// and never alert on an idle server: every alert requires a minimum draft
// (or draft-token) rate, and every ratio divides only by a denominator > 0.
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"go.yaml.in/yaml/v3"

	"specdash/compute"
	"specdash/metricsclient"
)

// Defaults of Options.
const (
	DefaultWindow       = 10 * time.Minute
	DefaultDropOffset   = 24 * time.Hour
	DefaultMaxPositions = 16
	// DefaultRunbookURL is where the runbook annotation points when
	// Options.RunbookURL is empty: this repository's docs/ALERTING.md.
	DefaultRunbookURL = "docs/ALERTING.md"
)

// Default `for:` of each alert (Options.For overrides them all).
var DefaultFor = map[string]time.Duration{
	AlertCollapse: 5 * time.Minute,
	AlertCliff:    15 * time.Minute,
	AlertLoop:     10 * time.Minute,
	AlertDrop:     30 * time.Minute,
}

// Alert names.
const (
	AlertCollapse = "SpecDecodeAcceptanceCollapsed"
	AlertCliff    = "SpecDecodePositionCliff"
	AlertLoop     = "SpecDecodeSuspectedLoop"
	AlertDrop     = "SpecDecodeAcceptanceDrop"
)

// Options configures Generate. Zero fields take the defaults.
type Options struct {
	// Schema is the engine's metric schema (required; counters only).
	Schema metricsclient.Schema
	// Window is the rate() window of the recording rules (default 10m).
	Window time.Duration
	// For, when > 0, replaces every alert's `for:` (DefaultFor); tests use
	// a short one. A negative For means no `for:` at all.
	For time.Duration
	// Interval is the rule groups' evaluation interval (0: Prometheus'
	// global evaluation_interval).
	Interval time.Duration
	// DropOffset is how far back the drop alert compares (default 1d: the
	// same hour yesterday).
	DropOffset time.Duration
	// MaxPositions bounds the positions the cliff alert checks (default
	// 16: positions 1..15 against their predecessors).
	MaxPositions int
	// Thresholds are the health thresholds (compute.HealthThresholds; zero
	// fields take compute.DefaultHealthThresholds): CollapseRate, LoopRate,
	// CliffHealthy, CliffDead, DropRelative, and MinDrafts (MinDraftTokens
	// without a drafts counter) as the minimum per Window.
	Thresholds compute.HealthThresholds
	// SpecdashURL is the dashboard's base URL (e.g.
	// https://specdash.example.com); when set, every alert gets a
	// "specdash_url" annotation that opens the view of the alerting group.
	SpecdashURL string
	// RunbookURL is the runbook_url annotation (default DefaultRunbookURL).
	RunbookURL string
}

// level is one aggregation level of the rules.
type level struct {
	name   string   // record-name prefix: "model", "engine"
	labels []string // the by() labels
}

func (o Options) levels() []level {
	model := []string{"job"}
	if slices.Contains(o.Schema.Labels, "model_name") {
		model = []string{"model_name"}
	}
	engine := []string{"job", "instance"}
	for _, l := range o.Schema.Labels {
		if !slices.Contains(engine, l) {
			engine = append(engine, l)
		}
	}
	return []level{{"model", model}, {"engine", engine}}
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.DropOffset <= 0 {
		o.DropOffset = DefaultDropOffset
	}
	if o.MaxPositions < 2 {
		o.MaxPositions = DefaultMaxPositions
	}
	d := compute.DefaultHealthThresholds
	th := &o.Thresholds
	for _, f := range []struct {
		v   *float64
		def float64
	}{{&th.MinDrafts, d.MinDrafts}, {&th.MinDraftTokens, d.MinDraftTokens}, {&th.CollapseRate, d.CollapseRate},
		{&th.LoopRate, d.LoopRate}, {&th.CliffHealthy, d.CliffHealthy}, {&th.CliffDead, d.CliffDead}, {&th.DropRelative, d.DropRelative}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if o.RunbookURL == "" {
		o.RunbookURL = DefaultRunbookURL
	}
	o.SpecdashURL = strings.TrimRight(o.SpecdashURL, "/")
	return o
}

// Validate checks o.
func (o Options) Validate() error {
	switch {
	case o.Schema.ID == "":
		return errors.New("rules: no schema: give one (e.g. vllm-v1) or a Prometheus URL to detect it")
	case o.Schema.Kind == metricsclient.Gauges:
		return fmt.Errorf("rules: %s exports gauges that each cover one decode-log window, not counters: recording rules cannot form ratios of sums from them, and an idle server cannot be told from a collapsed one; no rules are written for this schema", o.Schema.Name)
	case !o.Schema.HasFamily(compute.DraftTokens) || !o.Schema.HasFamily(compute.AcceptedTokens):
		return fmt.Errorf("rules: %s has no draft-token and accepted-token counters", o.Schema.Name)
	}
	th := o.Thresholds
	for name, v := range map[string]float64{"collapse rate": th.CollapseRate, "loop rate": th.LoopRate, "cliff healthy": th.CliffHealthy, "cliff dead": th.CliffDead, "drop relative": th.DropRelative} {
		if v < 0 || v > 1 {
			return fmt.Errorf("rules: %s threshold %v: want a ratio in [0, 1]", name, v)
		}
	}
	if o.SpecdashURL != "" {
		u, err := url.Parse(o.SpecdashURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("rules: specdash URL %q: want http(s)://host[:port][/path]", o.SpecdashURL)
		}
	}
	return nil
}

// dur prints a duration in Prometheus syntax ("10m", "1d").
func dur(d time.Duration) string { return model.Duration(d).String() }

// fnum prints a threshold without exponent noise.
func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Names of the recording rules of level lv and window w.
func recName(lv level, metric, op string, w time.Duration) string {
	return fmt.Sprintf("%s:spec_decode_%s:%s%s", lv.name, metric, op, dur(w))
}

// RecordName returns the name of a recording rule Generate writes, for
// level "model" or "engine" and metric one of drafts, draft_tokens,
// accepted_tokens, accepted_tokens_per_pos (op "rate"), acceptance_rate,
// mean_acceptance_length, per_position_acceptance_rate (op "ratio_rate").
// Example: RecordName("model", "acceptance_rate", "ratio_rate", 10m) =
// "model:spec_decode_acceptance_rate:ratio_rate10m".
func RecordName(lvl, metric, op string, w time.Duration) string {
	return recName(level{name: lvl}, metric, op, w)
}

// Generate returns the rule groups for o: one recording group per level
// (model, engine) and one alerting group.
func Generate(o Options) (rulefmt.RuleGroups, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return rulefmt.RuleGroups{}, err
	}
	s := o.Schema
	w := o.Window
	hasDrafts := s.HasFamily(compute.Drafts)
	hasPos := s.HasFamily(compute.AcceptedPerPosition) && s.PositionLabel != ""
	var groups []rulefmt.RuleGroup
	for _, lv := range o.levels() {
		by := strings.Join(lv.labels, ", ")
		sum := func(metric string, extra ...string) string {
			b := by
			if len(extra) > 0 {
				b += ", " + strings.Join(extra, ", ")
			}
			return fmt.Sprintf("sum by (%s) (rate(%s[%s]))", b, metric, dur(w))
		}
		var rs []rulefmt.Rule
		rec := func(name, expr string) { rs = append(rs, rulefmt.Rule{Record: name, Expr: expr}) }
		drafts := recName(lv, "drafts", "rate", w)
		tokens := recName(lv, "draft_tokens", "rate", w)
		accepted := recName(lv, "accepted_tokens", "rate", w)
		if hasDrafts {
			rec(drafts, sum(s.Metrics[compute.Drafts]))
		}
		rec(tokens, sum(s.Metrics[compute.DraftTokens]))
		rec(accepted, sum(s.Metrics[compute.AcceptedTokens]))
		rec(recName(lv, "acceptance_rate", "ratio_rate", w), fmt.Sprintf("%s / (%s > 0)", accepted, tokens))
		if hasDrafts {
			rec(recName(lv, "mean_acceptance_length", "ratio_rate", w), fmt.Sprintf("1 + %s / (%s > 0)", accepted, drafts))
		}
		if hasDrafts && hasPos {
			perPos := recName(lv, "accepted_tokens_per_pos", "rate", w)
			rec(perPos, sum(s.Metrics[compute.AcceptedPerPosition], s.PositionLabel))
			rec(recName(lv, "per_position_acceptance_rate", "ratio_rate", w),
				fmt.Sprintf("%s / on (%s) group_left () (%s > 0)", perPos, by, drafts))
		}
		g := rulefmt.RuleGroup{Name: fmt.Sprintf("specdash-%s-%s", s.ID, lv.name), Rules: rs}
		if o.Interval > 0 {
			g.Interval = model.Duration(o.Interval)
		}
		groups = append(groups, g)
	}
	alerts := rulefmt.RuleGroup{Name: fmt.Sprintf("specdash-%s-alerts", s.ID), Rules: o.alerts(o.levels()[0], hasDrafts, hasPos)}
	if o.Interval > 0 {
		alerts.Interval = model.Duration(o.Interval)
	}
	groups = append(groups, alerts)
	return rulefmt.RuleGroups{Groups: groups}, nil
}

// alerts are the alerting rules on level lv.
func (o Options) alerts(lv level, hasDrafts, hasPos bool) []rulefmt.Rule {
	w := o.Window
	th := o.Thresholds
	by := strings.Join(lv.labels, ", ")
	rate := recName(lv, "acceptance_rate", "ratio_rate", w)
	// The busy guard: at least MinDrafts drafts (MinDraftTokens draft
	// tokens) per window: the recorded rate times the window.
	off := dur(o.DropOffset)
	guardName, guardMin := recName(lv, "drafts", "rate", w), th.MinDrafts
	busy := fmt.Sprintf("at least %s drafts per %s", fnum(th.MinDrafts), dur(w))
	if !hasDrafts {
		guardName, guardMin = recName(lv, "draft_tokens", "rate", w), th.MinDraftTokens
		busy = fmt.Sprintf("at least %s draft tokens per %s", fnum(th.MinDraftTokens), dur(w))
	}
	secs := fnum(w.Seconds())
	guard := fmt.Sprintf("%s * %s >= %s", guardName, secs, fnum(guardMin))
	guardThen := fmt.Sprintf("%s offset %s * %s >= %s", guardName, off, secs, fnum(guardMin))
	group := groupText(lv)
	var out []rulefmt.Rule
	add := func(name, severity, expr, summary, description, runbook, anchor string) {
		r := rulefmt.Rule{
			Alert:  name,
			Expr:   expr,
			Labels: map[string]string{"severity": severity},
			Annotations: map[string]string{
				"summary":     summary,
				"description": description,
				"runbook":     runbook,
				"runbook_url": o.RunbookURL + "#" + anchor,
			},
		}
		if o.SpecdashURL != "" {
			r.Annotations["specdash_url"] = o.specdashLink(lv)
		}
		f := DefaultFor[name]
		if o.For > 0 {
			f = o.For
		} else if o.For < 0 {
			f = 0
		}
		r.For = model.Duration(f)
		out = append(out, r)
	}
	lenText := ""
	if hasDrafts {
		lenText = fmt.Sprintf(" (mean acceptance length {{ with query (printf `%s{%s}` %s) }}{{ . | first | value | printf \"%%.2f\" }}{{ end }})",
			recName(lv, "mean_acceptance_length", "ratio_rate", w), selectorFormat(lv), selectorArgs(lv))
	}
	collapse := fmt.Sprintf("%s < %s\nand on (%s)\n%s", rate, fnum(th.CollapseRate), by, guard)
	if hasDrafts && hasPos {
		// A large k with a healthy first position is a cliff, not a
		// collapse (as in compute.Health).
		collapse += fmt.Sprintf("\nunless on (%s)\n%s{%s=\"0\"} >= %s", by, recName(lv, "per_position_acceptance_rate", "ratio_rate", w), o.Schema.PositionLabel, fnum(th.CliffHealthy))
	}
	add(AlertCollapse, "critical", collapse,
		"Speculative decoding collapsed for "+group+": drafts flow but almost none is accepted",
		fmt.Sprintf("Acceptance rate {{ $value | humanizePercentage }} over the last %s%s with %s: drafted tokens are almost all rejected, so speculative decoding only costs time. Threshold %s.", dur(w), lenText, busy, pct(th.CollapseRate)),
		compute.CauseCollapsed+". Check the drafter's logs and config (speculative_config), compare with a known-good deployment, and disable speculative decoding until fixed.",
		"collapse")
	add(AlertLoop, "warning",
		fmt.Sprintf("%s >= %s\nand on (%s)\n%s", rate, fnum(th.LoopRate), by, guard),
		"Acceptance near 100 % for "+group+": suspected repetition loop",
		fmt.Sprintf("Acceptance rate {{ $value | humanizePercentage }} over the last %s%s with %s: nearly every drafted token is accepted, typical of a generation loop. Threshold %s.", dur(w), lenText, busy, pct(th.LoopRate)),
		compute.CauseLoop+".",
		"loop")
	if hasDrafts && hasPos {
		pp := recName(lv, "per_position_acceptance_rate", "ratio_rate", w)
		var terms []string
		for i := 1; i < o.MaxPositions; i++ {
			terms = append(terms, fmt.Sprintf("(%s{%s=\"%d\"} < %s and on (%s) %s{%s=\"%d\"} >= %s)",
				pp, o.Schema.PositionLabel, i, fnum(th.CliffDead), by, pp, o.Schema.PositionLabel, i-1, fnum(th.CliffHealthy)))
		}
		expr := "(\n  " + strings.Join(terms, "\n  or\n  ") + "\n)\nand on (" + by + ")\n" + guard
		// Only fixed-length drafts: draft tokens per draft = k (the number
		// of positions). With variable lengths (n-gram, suffix decoding)
		// the per-position rates are lower bounds and zeros at late
		// positions are short drafts, not a cliff (as in compute.Health).
		expr += fmt.Sprintf("\nand on (%s)\n(%s / %s >= count by (%s) (%s) - 0.01)",
			by, recName(lv, "draft_tokens", "rate", w), recName(lv, "drafts", "rate", w), by, recName(lv, "accepted_tokens_per_pos", "rate", w))
		add(AlertCliff, "warning", expr,
			"Per-position acceptance cliff for "+group+" at 0-based position {{ $labels."+o.Schema.PositionLabel+" }}",
			fmt.Sprintf("Draft position {{ $labels.%s }} (0-based) accepts only {{ $value | humanizePercentage }} of drafts over the last %s while the position before it accepts at least %s (%s): the mean acceptance length can hide it.", o.Schema.PositionLabel, dur(w), pct(th.CliffHealthy), busy),
			compute.CauseCliff+".",
			"cliff")
	}
	add(AlertDrop, "warning",
		fmt.Sprintf("%s < %s * (%s offset %s)\nand on (%s)\n%s\nand on (%s)\n%s", rate, fnum(1-th.DropRelative), rate, off, by, guard, by, guardThen),
		fmt.Sprintf("Acceptance rate of %s dropped by more than %s against %s ago", group, pct(th.DropRelative), off),
		fmt.Sprintf("Acceptance rate {{ $value | humanizePercentage }} over the last %s, below %s of its value %s ago, with %s now and then. A drop right after a deploy points at the change.", dur(w), pct(1-th.DropRelative), off, busy),
		compute.CauseDegraded+". Compare the config and versions of now and then; specdash's change-point view shows when it changed.",
		"drop")
	return out
}

func pct(v float64) string { return strconv.FormatFloat(v*100, 'g', -1, 64) + " %" }

// groupText is the alert's group in template form, e.g.
// `model {{ $labels.model_name }}`.
func groupText(lv level) string {
	parts := make([]string, len(lv.labels))
	for i, l := range lv.labels {
		parts[i] = fmt.Sprintf("%s {{ $labels.%s }}", l, l)
	}
	return strings.Join(parts, ", ")
}

// selectorFormat and selectorArgs build a printf selector of lv's labels
// with the alert's values, for a query template.
func selectorFormat(lv level) string {
	parts := make([]string, len(lv.labels))
	for i, l := range lv.labels {
		parts[i] = l + "=%q"
	}
	return strings.Join(parts, ",")
}

func selectorArgs(lv level) string {
	parts := make([]string, len(lv.labels))
	for i, l := range lv.labels {
		parts[i] = "$labels." + l
	}
	return strings.Join(parts, " ")
}

// filterParam is the dashboard's URL parameter of a label filter (see
// view/query.go filterParam: model_name is "model", engine is "engine",
// others "f.<label>").
func filterParam(label string) string {
	switch label {
	case "model_name":
		return "model"
	case "engine":
		return "engine"
	}
	return "f." + label
}

// specdashLink is the template of the dashboard URL showing the alerting
// group over the last hour, grouped by engine (or instance).
func (o Options) specdashLink(lv level) string {
	var b strings.Builder
	b.WriteString(o.SpecdashURL + "/?range=1h")
	for _, l := range lv.labels {
		fmt.Fprintf(&b, "&%s={{ $labels.%s | urlquery }}", filterParam(l), l)
	}
	if slices.Contains(o.Schema.Labels, "engine") {
		b.WriteString("&group=engine")
	} else {
		b.WriteString("&group=instance")
	}
	return b.String()
}

// Marshal is the YAML of Generate's rule groups (a Prometheus rule file).
func Marshal(g rulefmt.RuleGroups) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Generated by `specdash rules`; see docs/ALERTING.md.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(g); err != nil {
		return nil, fmt.Errorf("rules: marshal YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("rules: marshal YAML: %w", err)
	}
	return b.Bytes(), nil
}

// Write generates the rules for o and writes the rule file to w.
func Write(w io.Writer, o Options) error {
	g, err := Generate(o)
	if err != nil {
		return err
	}
	y, err := Marshal(g)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}
