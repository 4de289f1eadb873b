//go:build !wasm

package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"specdash/embedded"
	"specdash/server"
)

// TestDefaultListen: the listen address without --web.listen-address or a
// config file honours SPECDASH_PORT (as `make run` does), else :8080; a
// value that is not a port is refused, naming it.
func TestDefaultListen(t *testing.T) {
	for _, c := range []struct {
		env, want string
		bad       bool
	}{
		{"", ":8080", false},
		{"9000", ":9000", false},
		{"0", ":0", false},
		{"65536", "", true},
		{"80a", "", true},
		{":9000", "", true},
	} {
		got, err := defaultListen(func(k string) string {
			if k == "SPECDASH_PORT" {
				return c.env
			}
			return ""
		})
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("SPECDASH_PORT=%q: %q, %v; want %q (error %v)", c.env, got, err, c.want, c.bad)
		}
		if c.bad && err != nil && !strings.Contains(err.Error(), `SPECDASH_PORT="`+c.env+`"`) {
			t.Errorf("SPECDASH_PORT=%q: error %q does not name the value", c.env, err)
		}
	}
}

// TestEmbeddedLimits: the limit flags' defaults are embedded's, given
// flags reach embedded.Config, and an embedded source's keys win over them.
func TestEmbeddedLimits(t *testing.T) {
	parse := func(args ...string) *serveFlags {
		t.Helper()
		a := kingpin.New("specdash", "")
		cmds := map[string]func() error{}
		f := registerServe(a, cmds)
		if _, err := a.Parse(append([]string{"serve"}, args...)); err != nil {
			t.Fatal(err)
		}
		return f
	}
	var c embedded.Config
	parse().limits.apply(&c, nil)
	want := embedded.Config{BodySizeLimit: embedded.DefaultBodySizeLimit, SampleLimit: embedded.DefaultSampleLimit,
		LabelLimit: embedded.DefaultLabelLimit, LabelNameLengthLimit: embedded.DefaultLabelNameLengthLimit,
		LabelValueLengthLimit: embedded.DefaultLabelValueLengthLimit, QueryConcurrency: embedded.DefaultQueryConcurrency,
		QueryMaxSamples: embedded.DefaultQueryMaxSamples, QueryTimeout: embedded.DefaultQueryTimeout}
	if c.BodySizeLimit != want.BodySizeLimit || c.SampleLimit != want.SampleLimit || c.LabelLimit != want.LabelLimit ||
		c.LabelNameLengthLimit != want.LabelNameLengthLimit || c.LabelValueLengthLimit != want.LabelValueLengthLimit ||
		c.QueryConcurrency != want.QueryConcurrency || c.QueryMaxSamples != want.QueryMaxSamples || c.QueryTimeout != want.QueryTimeout {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	f := parse("--scrape.body-size-limit=2MiB", "--scrape.sample-limit=7", "--scrape.label-limit=9",
		"--scrape.label-name-length-limit=11", "--scrape.label-value-length-limit=13",
		"--query.max-concurrency=2", "--query.max-samples=1000", "--query.timeout=3s")
	c = embedded.Config{}
	f.limits.apply(&c, nil)
	if c.BodySizeLimit != 2<<20 || c.SampleLimit != 7 || c.LabelLimit != 9 || c.LabelNameLengthLimit != 11 ||
		c.LabelValueLengthLimit != 13 || c.QueryConcurrency != 2 || c.QueryMaxSamples != 1000 || c.QueryTimeout != 3*time.Second {
		t.Errorf("flags gave %+v", c)
	}
	fc, err := server.ParseConfig([]byte(`sources:
  - name: lab
    embedded:
      targets: [http://a:1/metrics]
      body_size_limit: 1MiB
      label_value_length_limit: 100
      query_timeout: 5s
`))
	if err != nil {
		t.Fatal(err)
	}
	c = embedded.Config{}
	f.limits.apply(&c, fc.Sources[0].Embedded)
	if c.BodySizeLimit != 1<<20 || c.LabelValueLengthLimit != 100 || c.QueryTimeout != 5*time.Second || c.SampleLimit != 7 {
		t.Errorf("config file over flags gave %+v", c)
	}
}

// TestScrapeIntervalZero: --scrape.interval=0s is refused, naming the flag,
// as --prometheus.scrape-interval=0s is; embedded.Config would otherwise
// read the 0 as its 5s default and scrape every 5s without a word.
func TestScrapeIntervalZero(t *testing.T) {
	for _, args := range [][]string{
		{"--scrape.interval=0s"},
		{"--scrape.interval=0s", "--scrape.target=http://127.0.0.1:1/metrics"},
	} {
		a := kingpin.New("specdash", "")
		f := registerServe(a, map[string]func() error{})
		if _, err := a.Parse(append([]string{"serve", "--web.listen-address=127.0.0.1:0"}, args...)); err != nil {
			t.Fatal(err)
		}
		// The deadline only ends a server that should not have started.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err := runServe(ctx, f, nil)
		cancel()
		if err == nil || err.Error() != "serve: --scrape.interval must be positive, got 0s" {
			t.Errorf("%v: err = %v, want the interval refused", args, err)
		}
	}
}

// TestCacheTTLNegative: a negative --web.cache-ttl is refused, not read as
// "off" without a word (0s is off).
func TestCacheTTLNegative(t *testing.T) {
	a := kingpin.New("specdash", "")
	f := registerServe(a, map[string]func() error{})
	if _, err := a.Parse([]string{"serve", "--web.listen-address=127.0.0.1:0", "--web.cache-ttl=-1s"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := runServe(ctx, f, nil); err == nil || err.Error() != "serve: --web.cache-ttl must be 0 (off) or positive, got -1s" {
		t.Errorf("err = %v, want the negative TTL refused", err)
	}
}

// TestPreRenderTimeoutFlag: --web.prerender-timeout (and the config file's
// prerender_timeout) maps 0 to "off" (negative in server.Config, whose 0
// is its default) and keeps a positive budget; a negative one is refused,
// naming the flag (the config file's durations cannot be negative).
func TestPreRenderTimeoutFlag(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want time.Duration
		ok   bool
	}{
		{0, -1, true},
		{time.Second, time.Second, true},
		{250 * time.Millisecond, 250 * time.Millisecond, true},
		{-time.Second, 0, false},
	} {
		if got, ok := preRenderTimeout(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("preRenderTimeout(%s) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	a := kingpin.New("specdash", "")
	f := registerServe(a, map[string]func() error{})
	if _, err := a.Parse([]string{"serve", "--web.listen-address=127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if f.preRender != server.DefaultPreRenderTimeout || f.preRenderSet {
		t.Errorf("default --web.prerender-timeout %s (set %v), want %s", f.preRender, f.preRenderSet, server.DefaultPreRenderTimeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a = kingpin.New("specdash", "")
	f = registerServe(a, map[string]func() error{})
	if _, err := a.Parse([]string{"serve", "--web.listen-address=127.0.0.1:0", "--web.prerender-timeout=-1s"}); err != nil {
		t.Fatal(err)
	}
	if err := runServe(ctx, f, nil); err == nil || err.Error() != "serve: --web.prerender-timeout must be 0 (off) or positive, got -1s" {
		t.Errorf("err = %v, want the negative flag refused", err)
	}
}

// TestWarnPreRenderTimeout: a pre-render budget at or above the upstream
// timeout (default 30 s) is warned about, naming both flags; below, nothing.
func TestWarnPreRenderTimeout(t *testing.T) {
	for _, tc := range []struct {
		pre, upstream time.Duration
		warn          bool
	}{
		{time.Second, 30 * time.Second, false},
		{-1, 30 * time.Second, false}, // off
		{30 * time.Second, 30 * time.Second, true},
		{time.Hour, 0, true}, // the default upstream timeout
		{29 * time.Second, 0, false},
		{5 * time.Second, 2 * time.Second, true},
	} {
		var buf bytes.Buffer
		warnPreRenderTimeout(slog.New(slog.NewTextHandler(&buf, nil)), tc.pre, tc.upstream)
		out := buf.String()
		if got := strings.Contains(out, "level=WARN"); got != tc.warn {
			t.Errorf("pre-render %s, upstream %s: warned %v (%q), want %v", tc.pre, tc.upstream, got, out, tc.warn)
		}
		if tc.warn && (!strings.Contains(out, "prerender_timeout="+tc.pre.String()) || !strings.Contains(out, "upstream_timeout=") ||
			!strings.Contains(out, "--web.prerender-timeout") || !strings.Contains(out, "--web.upstream-timeout")) {
			t.Errorf("pre-render %s: warning %q does not name both flags and values", tc.pre, out)
		}
	}
}

// TestFileWebUnderFlags: the config file's upstream_timeout, cache_ttl and
// prerender_timeout apply where their flag was not given, and a flag given
// wins (as for the listen address); a negative or zero
// --web.upstream-timeout is refused.
func TestFileWebUnderFlags(t *testing.T) {
	d := func(v time.Duration) *model.Duration { m := model.Duration(v); return &m }
	web := server.WebConfig{UpstreamTimeout: model.Duration(10 * time.Second), CacheTTL: d(0), PreRenderTimeout: d(3 * time.Second)}
	for _, tc := range []struct {
		args               []string
		upstream, ttl, pre time.Duration
	}{
		{nil, 10 * time.Second, -1, 3 * time.Second},
		{[]string{"--web.upstream-timeout=60s", "--web.cache-ttl=2s", "--web.prerender-timeout=500ms"}, 60 * time.Second, 2 * time.Second, 500 * time.Millisecond},
		// Given at their defaults, they still win.
		{[]string{"--web.upstream-timeout=30s", "--web.cache-ttl=5s"}, 30 * time.Second, 5 * time.Second, 3 * time.Second},
	} {
		a := kingpin.New("specdash", "")
		f := registerServe(a, map[string]func() error{})
		if _, err := a.Parse(append([]string{"serve"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		cfg := server.Config{UpstreamTimeout: f.timeout, CacheTTL: f.cacheTTL, PreRenderTimeout: f.preRender}
		f.applyFileWeb(&cfg, web)
		if cfg.UpstreamTimeout != tc.upstream || cfg.CacheTTL != tc.ttl || cfg.PreRenderTimeout != tc.pre {
			t.Errorf("%q: upstream %s, cache %s, pre-render %s; want %s, %s, %s", tc.args,
				cfg.UpstreamTimeout, cfg.CacheTTL, cfg.PreRenderTimeout, tc.upstream, tc.ttl, tc.pre)
		}
	}
	for _, v := range []string{"-5s", "0s"} {
		a := kingpin.New("specdash", "")
		f := registerServe(a, map[string]func() error{})
		if _, err := a.Parse([]string{"serve", "--web.listen-address=127.0.0.1:0", "--web.upstream-timeout=" + v}); err != nil {
			t.Fatal(err)
		}
		want := "serve: --web.upstream-timeout must be positive, got " + v
		if err := runServe(context.Background(), f, nil); err == nil || err.Error() != want {
			t.Errorf("--web.upstream-timeout=%s: err = %v, want %q", v, err, want)
		}
	}
}

// TestWarmUpFlag: the warm-up is on unless --no-web.warm-up.
func TestWarmUpFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--no-web.warm-up"}, false},
		{[]string{"--web.warm-up"}, true},
	} {
		a := kingpin.New("specdash", "")
		f := registerServe(a, map[string]func() error{})
		if _, err := a.Parse(append([]string{"serve", "--web.listen-address=127.0.0.1:0"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if f.warmUp != tc.want {
			t.Errorf("%v: warm-up %v, want %v", tc.args, f.warmUp, tc.want)
		}
	}
}
