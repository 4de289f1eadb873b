// Package vmtest runs a real VictoriaMetrics single node (Debian package
// victoria-metrics) for a test, on a free loopback port, and loads
// OpenMetrics text into it: the VictoriaMetrics counterpart of promtest.
package vmtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"specdash/internal/testwait"
)

// Binary is VictoriaMetrics single node (Debian package victoria-metrics).
const Binary = "/usr/bin/victoria-metrics"

// Start runs VictoriaMetrics for the test, with the newest-data delay
// (-search.latencyOffset, 30 s by default) cut to 1 s and its response
// cache off, and returns its base URL. It is stopped at cleanup (its log
// is printed when the test failed). Under -short the test is skipped;
// otherwise a missing binary fails it (make deps installs it).
func Start(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real VictoriaMetrics (skipped under -short; make test runs it)")
	}
	if _, err := os.Stat(Binary); err != nil {
		t.Fatalf("%s not found (%v): install it with `make deps` (Debian package victoria-metrics)", Binary, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(Binary,
		"-storageDataPath="+t.TempDir(),
		"-httpListenAddr="+addr,
		"-retentionPeriod=100y",
		"-search.latencyOffset=1s",
		"-search.disableCache",
		"-loggerLevel=ERROR",
	)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start victoria-metrics: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("victoria-metrics log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	var last error
	if !testwait.Until(0, func() bool {
		resp, err := http.Get(base + "/health")
		if err != nil {
			last = err
			return false
		}
		resp.Body.Close()
		last = fmt.Errorf("/health answered %s", resp.Status)
		return resp.StatusCode == 200
	}) {
		t.Fatalf("victoria-metrics did not become healthy within %s: %v", testwait.Timeout, last)
	}
	return base
}

// Import loads the samples of OpenMetrics text (timestamps in seconds)
// into VictoriaMetrics at base through /api/v1/import/prometheus
// (millisecond timestamps), leaving out those whose metric name keep
// rejects (nil keeps all), flushes them to be searchable, and returns the
// number of samples sent.
func Import(t testing.TB, base, openMetrics string, keep func(name string) bool) int {
	t.Helper()
	pr, pw := io.Pipe()
	n := 0
	go func() {
		bw := bufio.NewWriter(pw)
		sc := bufio.NewScanner(strings.NewReader(openMetrics))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			if keep != nil && !keep(line[:strings.IndexAny(line, "{ ")]) {
				continue
			}
			i := strings.LastIndexByte(line, ' ')
			fmt.Fprintf(bw, "%s %s000\n", line[:i], line[i+1:])
			n++
		}
		bw.Flush()
		pw.Close()
	}()
	resp, err := http.Post(base+"/api/v1/import/prometheus", "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("import: %d %s", resp.StatusCode, body)
	}
	if resp, err := http.Get(base + "/internal/force_flush"); err == nil {
		resp.Body.Close()
	}
	return n
}
