package metricsclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/testwait"
)

// vmBinary is VictoriaMetrics single node (Debian package victoria-metrics).
const vmBinary = "/usr/bin/victoria-metrics"

// startVictoriaMetrics runs VictoriaMetrics on a free loopback port for
// the test and returns its base URL (as server's tests do).
func startVictoriaMetrics(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(vmBinary); err != nil {
		t.Fatalf("%s not found (%v): install it with `make deps` (Debian package victoria-metrics)", vmBinary, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(vmBinary,
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
	var herr error
	if !testwait.Until(2*time.Minute, func() bool {
		var resp *http.Response
		resp, herr = http.Get(base + "/health")
		if herr != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}) {
		t.Fatalf("victoria-metrics did not become healthy within 2 min: %v", herr)
	}
	return base
}

// importOM loads OpenMetrics text (timestamps in seconds) into
// VictoriaMetrics through /api/v1/import/prometheus (millisecond
// timestamps) and returns the number of samples.
func importOM(t *testing.T, base, om string) int {
	t.Helper()
	pr, pw := io.Pipe()
	n := 0
	go func() {
		bw := bufio.NewWriter(pw)
		sc := bufio.NewScanner(strings.NewReader(om))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
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

// TestShapedFleetVictoriaMetrics reads the fleet (72 engines with the
// same restarts, join, leave and engine without _created) from a real
// VictoriaMetrics, whose lookback, rollup and name-keeping rules differ
// from Prometheus': the shaped read's counts per bucket equal the truth,
// or, when VictoriaMetrics cannot answer the shaped queries, the read
// falls back to the raw path and says so.
func TestShapedFleetVictoriaMetrics(t *testing.T) {
	gs := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	engines := fleet(72, gs)
	var b strings.Builder
	if err := writeFleetOM(&b, engines); err != nil {
		t.Fatal(err)
	}
	vm := startVictoriaMetrics(t)
	t.Logf("imported %d samples", importOM(t, vm, b.String()))
	c, err := New(Config{Address: vm, ScrapeInterval: fleetScrape * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := fleetGrid(gs)
	truth := fleetTruthSeries(engines, gs)
	// Imported data becomes searchable after a moment.
	var n int
	var ferr error
	if !testwait.Until(2*time.Minute, func() bool {
		var s []compute.Series
		s, _, ferr = c.FetchSeries(ctx, g, nil)
		n = len(s)
		return ferr == nil && n == len(truth)
	}) {
		t.Fatalf("VictoriaMetrics has not all series 2 min after import: %d series, %v", n, ferr)
	}
	for _, groupBy := range [][]string{nil, {"model_name"}, {"instance", "engine"}} {
		name := fmt.Sprintf("by %v", groupBy)
		sh, err := c.FetchShaped(ctx, g, nil, groupBy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: raw %v, %d series, %d irregular, %d queries, warnings %q", name, sh.Raw, len(sh.Series), sh.Irregular, sh.Queries, sh.Warnings)
		if sh.Raw {
			t.Errorf("%s: VictoriaMetrics fell back to the raw path: %q", name, sh.Warnings)
			continue
		}
		sameGroups(t, name+" shaped vs truth", sh.Groups(g), compute.Aggregate(truth, groupBy, g))
	}
	// Window totals of every engine (one bucket: VictoriaMetrics' rollups
	// over the whole window).
	totals, sh, err := c.FetchTotals(ctx, g.Start, g.End, nil, []string{"instance", "engine"})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Raw {
		t.Errorf("totals fell back to the raw path: %q", sh.Warnings)
	}
	want := compute.Aggregate(truth, []string{"instance", "engine"}, g)
	if len(totals) != len(want) {
		t.Fatalf("%d totals, want %d", len(totals), len(want))
	}
	for i := range totals {
		if !reflect.DeepEqual(totals[i].Total, want[i].Total) || !reflect.DeepEqual(totals[i].Labels, want[i].Labels) {
			t.Errorf("totals %v: %+v, want %v %+v", totals[i].Labels, totals[i].Total, want[i].Labels, want[i].Total)
		}
	}
}
