// Package promtest runs a real Prometheus server for tests.
//
// It execs /usr/bin/prometheus (and /usr/bin/promtool for backfilling), found
// with exec.LookPath. When a binary is missing the test fails with "install
// it: make deps": tests that need a real Prometheus never skip.
//
// Typical use:
//
//	dir := promtest.Backfill(t, fixtures.KnownAnswer().OpenMetrics)
//	srv := promtest.Start(t, promtest.Options{DataDir: dir})
//	v := srv.Query(t, `vllm:spec_decode_num_drafts_total`, at)
//
// or, scraping a live target:
//
//	srv := promtest.Start(t, promtest.Options{Targets: []string{"127.0.0.1:9400"}})
//	srv.WaitFor(t, `vllm:spec_decode_num_drafts_total > 0`, promtest.NonEmpty, 30*time.Second)
//
// Every server listens on a free 127.0.0.1 port, keeps its data in a
// temporary directory (unless Options.DataDir is given), is stopped by
// t.Cleanup, and its log is printed when the test fails.
package promtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// DefaultScrapeInterval is the scrape (and evaluation) interval used when
// Options.ScrapeInterval is zero.
const DefaultScrapeInterval = time.Second

// readyTimeout bounds the wait for /-/ready after start.
const readyTimeout = 2 * time.Minute // generous: a busy machine

// Options configures a test Prometheus.
type Options struct {
	// Targets are scrape targets as "host:port" (metrics path /metrics,
	// job "vllm"). Empty: no scrape job (query-only server, e.g. over
	// backfilled data).
	Targets []string
	// ScrapeInterval is the scrape and evaluation interval; 0 means
	// DefaultScrapeInterval (1 s). The scrape timeout equals the interval.
	ScrapeInterval time.Duration
	// DataDir is the TSDB directory (e.g. from Backfill). "" means a fresh
	// directory under t.TempDir().
	DataDir string
	// HonorLabels sets honor_labels on the scrape job (keep the target's own
	// "job"/"instance" labels when it exposes them).
	HonorLabels bool
	// ExtraFlags are appended to Prometheus' command line (e.g.
	// "--web.cors.origin=.*").
	ExtraFlags []string
}

// Server is a running (or stopped) Prometheus process.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT" (no trailing slash).
	URL string
	// Addr is "127.0.0.1:PORT".
	Addr string
	// DataDir is the TSDB directory in use.
	DataDir string
	// ConfigFile is the path of the generated prometheus.yml.
	ConfigFile string
	// LogFile is the path of the file that collects Prometheus' stdout and
	// stderr over every start of this server.
	LogFile string

	opts Options
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd exits
}

// binary finds a required executable or fails the test.
func binary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		// A plain PATH lookup may miss /usr/bin in minimal environments.
		if _, err2 := os.Stat("/usr/bin/" + name); err2 == nil {
			return "/usr/bin/" + name
		}
		t.Fatalf("promtest: %s not found (%v): install it: make deps", name, err)
	}
	return p
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Start runs Prometheus for the duration of the test: free loopback port,
// config written to a temp dir, waits until /-/ready answers 200. It fails the
// test (t.Fatal) if the binary is missing or the server does not become
// ready within readyTimeout; the log is printed on any test failure. Under
// `go test -short` it skips the test: every test that needs a real
// Prometheus goes through here (make test runs them).
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	skipShort(t)
	if o.ScrapeInterval <= 0 {
		o.ScrapeInterval = DefaultScrapeInterval
	}
	dir := t.TempDir()
	s := &Server{
		opts:       o,
		DataDir:    o.DataDir,
		ConfigFile: filepath.Join(dir, "prometheus.yml"),
		LogFile:    filepath.Join(dir, "prometheus.log"),
	}
	if s.DataDir == "" {
		s.DataDir = filepath.Join(dir, "data")
	}
	if err := os.WriteFile(s.ConfigFile, []byte(configYAML(o)), 0o644); err != nil {
		t.Fatalf("promtest: write config: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(s.LogFile)
			t.Logf("promtest: Prometheus log (%s):\n%s", s.LogFile, b)
		}
	})
	t.Cleanup(s.Stop) // runs before the log is printed (cleanups are LIFO)

	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		addr, err := freeAddr()
		if err != nil {
			t.Fatalf("promtest: find a free port: %v", err)
		}
		s.Addr = addr
		s.URL = "http://" + addr
		if lastErr = s.launch(t); lastErr == nil {
			return s
		}
		if !errors.Is(lastErr, errExited) {
			break // not a port race: do not retry
		}
	}
	t.Fatalf("promtest: start Prometheus: %v", lastErr)
	return nil
}

var errExited = errors.New("prometheus exited before it was ready")

// launch starts the process on s.Addr and waits for readiness.
func (s *Server) launch(t testing.TB) error {
	t.Helper()
	bin := binary(t, "prometheus")
	logf, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	fmt.Fprintf(logf, "=== promtest: start on %s, data %s\n", s.Addr, s.DataDir)
	args := []string{
		"--config.file=" + s.ConfigFile,
		"--storage.tsdb.path=" + s.DataDir,
		"--storage.tsdb.retention.time=100y",
		"--web.listen-address=" + s.Addr,
		"--web.enable-lifecycle",
		"--log.level=info",
	}
	args = append(args, s.opts.ExtraFlags...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("exec %s: %w", bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("%w (see log %s): %s", errExited, s.LogFile, tail(s.LogFile, 2000))
		default:
		}
		resp, err := client.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("not ready after %v at %s/-/ready: %s", readyTimeout, s.URL, tail(s.LogFile, 2000))
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Stop terminates Prometheus (SIGTERM, then SIGKILL after 10 s) and waits for
// it to exit. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Restart stops Prometheus and starts it again on the same address with the
// same data directory and config (a Prometheus restart as a user sees it).
// It fails the test if the server does not come back.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.launch(t); err != nil {
		t.Fatalf("promtest: restart Prometheus: %v", err)
	}
}

// API returns a client_golang v1 API client for this server.
func (s *Server) API(t testing.TB) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: s.URL})
	if err != nil {
		t.Fatalf("promtest: api client: %v", err)
	}
	return v1.NewAPI(c)
}

// Query runs a PromQL instant query at time ts and returns the result (a
// model.Vector, model.Scalar, model.Matrix or *model.String). It fails the
// test on an error; warnings are logged.
func (s *Server) Query(t testing.TB, query string, ts time.Time) model.Value {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, warn, _, err := s.API(t).Query(ctx, query, ts)
	if err != nil {
		t.Fatalf("promtest: query %q at %s: %v", query, ts.UTC().Format(time.RFC3339), err)
	}
	if len(warn) > 0 {
		t.Logf("promtest: query %q warnings: %v", query, warn)
	}
	return v
}

// QueryVector runs an instant query that must return an instant vector.
func (s *Server) QueryVector(t testing.TB, query string, ts time.Time) model.Vector {
	t.Helper()
	v := s.Query(t, query, ts)
	vec, ok := v.(model.Vector)
	if !ok {
		t.Fatalf("promtest: query %q returned %s, want a vector", query, v.Type())
	}
	return vec
}

// NonEmpty is a WaitFor condition: the vector has at least one sample.
func NonEmpty(v model.Vector) bool { return len(v) > 0 }

// WaitFor polls the instant query `query` (evaluated at the current time)
// every 100 ms until cond returns true for its result vector, and returns
// that vector. Query errors are retried until the timeout; at the timeout the
// test fails with the last result or error. A nil cond means NonEmpty.
func (s *Server) WaitFor(t testing.TB, query string, cond func(model.Vector) bool, timeout time.Duration) model.Vector {
	t.Helper()
	if cond == nil {
		cond = NonEmpty
	}
	a := s.API(t)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, _, _, err := a.Query(ctx, query, time.Now())
		cancel()
		switch {
		case err != nil:
			last = "error: " + err.Error()
		default:
			vec, ok := v.(model.Vector)
			if !ok {
				t.Fatalf("promtest: WaitFor query %q returned %s, want a vector", query, v.Type())
			}
			if cond(vec) {
				return vec
			}
			last = "result: " + vec.String()
		}
		if time.Now().After(deadline) {
			t.Fatalf("promtest: WaitFor %q: condition not met after %v; last %s", query, timeout, last)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// configYAML writes a prometheus.yml for o.
func configYAML(o Options) string {
	var b strings.Builder
	iv := model.Duration(o.ScrapeInterval).String()
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n", iv, iv, iv)
	if len(o.Targets) == 0 {
		return b.String()
	}
	b.WriteString("scrape_configs:\n  - job_name: vllm\n    metrics_path: /metrics\n")
	fmt.Fprintf(&b, "    honor_labels: %t\n", o.HonorLabels)
	b.WriteString("    static_configs:\n      - targets:\n")
	for _, tg := range o.Targets {
		fmt.Fprintf(&b, "          - %s\n", strconv.Quote(tg))
	}
	return b.String()
}

// Backfill writes openMetrics (OpenMetrics text ending in "# EOF", sample
// timestamps in seconds) to a file and runs
// `promtool tsdb create-blocks-from openmetrics FILE DIR`. It returns DIR, a
// fresh directory to pass as Options.DataDir. It fails the test with
// promtool's output on error. Under `go test -short` it skips the test,
// like Start.
func Backfill(t testing.TB, openMetrics string) string {
	t.Helper()
	skipShort(t)
	bin := binary(t, "promtool")
	work := t.TempDir()
	in := filepath.Join(work, "input.om")
	if err := os.WriteFile(in, []byte(openMetrics), 0o644); err != nil {
		t.Fatalf("promtest: write backfill input: %v", err)
	}
	dir := filepath.Join(work, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("promtest: %v", err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", "--quiet", in, dir)
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtest: %s failed: %v\n%s", strings.Join(cmd.Args, " "), err, out.String())
	}
	return dir
}

// skipShort skips a test that needs a real Prometheus under -short.
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real Prometheus (skipped under -short; make test runs it)")
	}
}
