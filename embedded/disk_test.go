package embedded

import (
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"specdash/internal/testwait"
)

// tinyDisk mounts a tmpfs of size bytes for the test (root only: CI and the
// developers' machines run as root) and unmounts it at cleanup.
func tinyDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the full-disk test mounts a tmpfs and needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount: %v: %s", err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return p
			}
			t.Fatal(err)
		}
	}
}

// TestFullDisk: embedded mode's storage fills up. Scrapes then fail, the
// target shows the storage error (not a crash, not a silent "up"), the data
// stored before stays queryable, and once space is freed scraping resumes.
func TestFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs and runs a live engine (make test runs it)")
	}
	dir := tinyDisk(t, 64<<20)
	sim, hs := newSim(t, liveSimConfig())
	sim.Resume()
	e := start(t, Config{Targets: []string{hs.URL + "/metrics"}, ScrapeInterval: 200 * time.Millisecond, StoragePath: dir})
	// Drafts stored (not only a first scrape at 0) before the disk fills.
	waitFor(t, e.API, `max(vllm:spec_decode_num_drafts_total) > 0`, nonEmpty, 2*time.Minute)
	filler := fill(t, dir)
	var last []TargetStatus
	if !testwait.Until(2*time.Minute, func() bool {
		last = e.Targets()
		return len(last) == 1 && !last[0].Up && strings.Contains(last[0].LastError, "storage full: "+dir+" has 0 B free")
	}) {
		t.Fatalf("with a full disk the target never showed the storage error: %+v", last)
	}
	// The API the page reads (/api/v1/targets) says the same.
	resp, err := http.Get(e.URL + "/api/v1/targets")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"health":"down"`) || !strings.Contains(string(body), "storage full: ") {
		t.Fatalf("/api/v1/targets with a full disk: %s", body)
	}
	v := waitFor(t, e.API, `max(vllm:spec_decode_num_drafts_total)`, nonEmpty, 2*time.Minute)
	if v[0].Value <= 0 {
		t.Fatalf("data stored before the disk filled: %v", v)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(2*time.Minute, func() bool {
		last = e.Targets()
		return len(last) == 1 && last[0].Up
	}) {
		t.Fatalf("after space was freed the target never came back up: %+v", last)
	}
}
